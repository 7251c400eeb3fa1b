#!/bin/sh
# trace_to_gnuplot.sh -- draws the spans of a timeline written by `sgdsim run --trace` as a
# Gantt chart (PNG) with gnuplot: one row per track, one colour per span name.
#
#   scripts/trace_to_gnuplot.sh TRACE.json OUT.png [--from MS] [--to MS] [--tracks REGEX]
#                                [--title TEXT] [--size WIDTH,HEIGHT]
#
#   --from, --to  the window drawn, in milliseconds of virtual time (default: everything)
#   --tracks      only tracks whose name matches this extended regular expression (awk),
#                 e.g. '^client [0-7]$|^server' (default: every track)
#   --title       the chart's title; --size its pixels (default 1000,640)
#
# It reads sgdsim's own layout (one event per line, as sim/trace.c writes it), so it needs
# only awk and gnuplot, not a JSON parser; flows and counters are not drawn.  Rows are in
# the viewer's order (clients or workers, servers, links, communicators; by id within each).
set -eu

usage() { echo "usage: $0 TRACE.json OUT.png [--from MS] [--to MS] [--tracks REGEX] [--title TEXT] [--size W,H]" >&2; exit 2; }
[ $# -ge 2 ] || usage
trace=$1 out=$2
shift 2
from=-1 to=-1 tracks= title= size=1000,640
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case $1 in
    --from) from=$2 ;;
    --to) to=$2 ;;
    --tracks) tracks=$2 ;;
    --title) title=$2 ;;
    --size) size=$2 ;;
    *) usage ;;
    esac
    shift 2
done
[ -r "$trace" ] || { echo "$0: cannot read $trace" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "$0: gnuplot is not installed (Debian: gnuplot-nox)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# spans.dat: row x0_ms x1_ms name_index; names.txt: span names by index; rows.gp: ytics.
awk -v from="$from" -v to="$to" -v re="$tracks" -v dir="$tmp" '
function num(key) { return match($0, "\"" key "\": -?[0-9.]+") ? substr($0, RSTART + length(key) + 4, RLENGTH - length(key) - 4) + 0 : -1 }
function str(key) { return match($0, "\"" key "\": \"[^\"]*\"") ? substr($0, RSTART + length(key) + 5, RLENGTH - length(key) - 6) : "" }
/"ph": "M", "name": "thread_name"/ {
    t = num("pid") ":" num("tid")
    sub(/.*"args": \{"name": "/, "")
    sub(/"\}\},?$/, "")
    track[t] = $0
    next
}
/"ph": "X"/ {
    t = num("pid") ":" num("tid")
    x0 = num("ts") / 1000; x1 = x0 + num("dur") / 1000
    if ((from >= 0 && x1 < from) || (to >= 0 && x0 > to)) next
    n++; sp_track[n] = t; sp_x0[n] = x0; sp_x1[n] = x1; sp_name[n] = str("name")
}
END {
    for (t in track) if (re == "" || track[t] ~ re) { nr++; key[nr] = t }
    for (i = 2; i <= nr; i++) { # by (pid, tid), numerically
        k = key[i]
        for (j = i - 1; j >= 1 && before(k, key[j]); j--) key[j + 1] = key[j]
        key[j + 1] = k
    }
    printf "set ytics (" > (dir "/rows.gp")
    for (i = 1; i <= nr; i++) {
        row[key[i]] = i
        printf "%s\"%s\" %d", (i > 1 ? ", " : ""), track[key[i]], i >> (dir "/rows.gp")
    }
    printf ")\nnrows = %d\n", nr >> (dir "/rows.gp")
    for (s = 1; s <= n; s++) {
        if (!(sp_track[s] in row)) continue
        nm = sp_name[s]
        if (!(nm in nameidx)) { nameidx[nm] = ++nn; print nm > (dir "/names.txt") }
        printf "%d %.6f %.6f %d\n", row[sp_track[s]], sp_x0[s], sp_x1[s], nameidx[nm] > (dir "/spans.dat")
    }
    if (!nn) { print "no spans to draw" > "/dev/stderr"; exit 1 }
}
function before(a, b,   pa, pb) { split(a, pa, ":"); split(b, pb, ":"); return pa[1] + 0 < pb[1] + 0 || (pa[1] + 0 == pb[1] + 0 && pa[2] + 0 < pb[2] + 0) }
' "$trace"

# A colour per span name: waiting grey, moving bytes blue (each collective its own shade, so
# a reduce, an allreduce and a broadcast read apart), computing green, the server red.
colour() {
    case $1 in
    compute) echo '#2ca02c' ;; io) echo '#98df8a' ;;
    push) echo '#1f77b4' ;; allreduce) echo '#08306b' ;; reduce) echo '#4292c6' ;;
    broadcast) echo '#9ecae1' ;;
    fetch) echo '#17becf' ;; message) echo '#6a51a3' ;;
    "wait link") echo '#b0b0b0' ;; wait | "wait update") echo '#dcdcdc' ;;
    queued) echo '#ff9896' ;; served | update) echo '#d62728' ;; service) echo '#ff7f0e' ;;
    *) echo '#8c564b' ;;
    esac
}
plot= i=0
while IFS= read -r nm; do
    i=$((i + 1))
    plot="$plot${plot:+, }\"$tmp/spans.dat\" using (\$4 == $i ? (\$2 + \$3) / 2 : NaN):1:2:3:(\$1 - 0.38):(\$1 + 0.38) with boxxyerror lc rgb '$(colour "$nm")' title '$nm'"
done < "$tmp/names.txt"
xr="[*:*]"
[ "$from" != -1 ] && [ "$to" != -1 ] && xr="[$from:$to]"
cat > "$tmp/plot.gp" <<EOF
set terminal pngcairo size $size font "sans,9"
set output "$out"
load "$tmp/rows.gp"
set yrange [nrows + 0.7:0.3]
set xrange $xr
set xlabel "virtual time (ms)"
set title "$title" noenhanced
set ytics noenhanced nomirror
set key outside right top noenhanced
set grid xtics
set style fill solid 1.0 noborder
plot $plot
EOF
gnuplot "$tmp/plot.gp"
