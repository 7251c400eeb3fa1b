# The layout of plot's figures, measured in the SVG gnuplot draws: a faceted figure has one
# y label (inside the figure, clear of the title), one x label and one legend, and panels
# that share axes as --share-axes says; log axes label their ticks whatever the range (one
# decade or less included); a legend of long entries leaves the plot most of the width; 12+
# series without --by all look different; a y label longer than the plot is wrapped.
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || { echo "gnuplot not installed: skipping"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
cat > "$TMP/ps.json" <<'JSON'
{
  "schema_version": 1, "name": "ps-small", "seed": 3,
  "algorithm": { "name": "fasgd", "driver": "timed" },
  "cluster": { "workers": 2, "time_factor": { "dist": "uniform", "min": 1.0, "max": 3.0 } },
  "data": { "source": "synthetic", "n_train": 300, "n_validation": 100, "dim": 10, "classes": 4 },
  "model": { "kind": "mlp", "hidden": [8], "init": "he" },
  "batch": { "per_worker": 8 },
  "optimizer": { "lr": 0.05 },
  "compute": { "kind": "time", "time_s": { "dist": "gamma", "mean": 0.002, "cv": 0.3 } },
  "io": { "time_s": { "dist": "exponential", "mean": 0.0005 } },
  "network": { "bandwidth_gbps": 0.01, "latency_us": 20 },
  "stop": { "updates": 100 },
  "eval": { "every": 20 }
}
JSON
DB="$TMP/both.db"
"$SGDSIM" sweep "$TMP/ps.json" --set optimizer.lr=0.02,0.05,0.1 --set cluster.workers=2,4,8 \
  --set seed=1,2 -j 2 --db "$DB" >/dev/null 2>&1 || fail "sweep"
cd "$TMP" || exit 1

plot_ok() { # plot_ok FIG ARGS...: exits 0 and writes FIG
  local fig="$1" out rc; shift
  rm -f "$fig"
  out=$("$SGDSIM" plot "$@" -o "$fig" 2>&1); rc=$?
  [ "$rc" = 0 ] && [ -s "$fig" ] || fail "plot $* exits $rc: $out"
}
# texts SVG: every text drawn, one a line: x, y, angle (0 or -90), anchor, text (tabs apart;
# leading spaces, which gnuplot's own tick format puts before numbers, left out).
texts() {
  awk '/<g transform="translate\(/ {
         match($0, /translate\([-0-9.]+,[-0-9.]+\)/); split(substr($0, RSTART + 10, RLENGTH - 11), p, ",")
         rot = index($0, "rotate(-90)") || index($0, "rotate(270)") ? -90 : 0
         anchor = $0 ~ /text-anchor="end"/ ? "end" : $0 ~ /text-anchor="start"/ ? "start" : "middle" }
       /<text>/ { t = $0; sub(/.*<text> */, "", t); sub(/<\/text>.*/, "", t)
                  printf "%s\t%s\t%s\t%s\t%s\n", p[1], p[2], rot, anchor, t }' "$1"
}
count_text() { texts "$1" | awk -F'\t' -v t="$2" '$5 == t' | wc -l; }
# numbers_at SVG ANCHOR: the tick labels (numbers) drawn with that anchor (end: y ticks).
numbers_at() { texts "$1" | awk -F'\t' -v a="$2" '$4 == a && $3 == 0 && $5 ~ /^-?[0-9.e+-]+$/ { print $5 }'; }

# --- the issue's faceted figure ---------------------------------------------------------
YL='val_error: validation error (fraction misclassified)'
plot_ok f.svg "$DB" --y val_error --by optimizer.lr --facet cluster.workers --band std
[ "$(count_text f.svg "$YL")" = 1 ] || fail "--facet: the y label is drawn $(count_text f.svg "$YL") times, not once"
[ "$(count_text f.svg update)" = 1 ] || fail "--facet: the x label is drawn $(count_text f.svg update) times, not once"
for lr in 0.02 0.05 0.1; do
  [ "$(count_text f.svg "optimizer.lr=$lr")" = 1 ] || fail "--facet: legend entry optimizer.lr=$lr not listed once"
done
# The y label (about 7 px a character) stays inside the figure and below the title.
texts f.svg | awk -F'\t' -v yl="$YL" '$5 == "ps-small" { title = $2 } $5 == yl { y = $2; half = length(yl) * 3.5 }
  END { exit !(title != "" && y - half > title + 8 && y + half < 800) }' ||
  fail "--facet: the y label runs into the title or out of the figure: $(texts f.svg | grep -F -e "$YL" -e ps-small | tr '\t\n' ' |')"
# No legend entry sits on the x label.
texts f.svg | awk -F'\t' '$5 == "update" { ux = $1; uy = $2 } $4 == "start" && $5 ~ /^optimizer/ { e[$5] = $1 "," $2 }
  END { for (k in e) { split(e[k], p, ","); dy = p[2] - uy; if (dy < 0) dy = -dy; if (dy < 14 && p[1] < ux + 40) exit 1 } }' ||
  fail "--facet: a legend entry sits on the x label"
# Shared axes (default): x tick labels under each column's lowest panel (2 of the 3 in a
# 2 x 2 grid), y tick labels on the first column only (2 rows).
[ "$(count_text f.svg 100)" = 2 ] || fail "--facet: x tick 100 drawn $(count_text f.svg 100) times, not 2"
ylabels=$(numbers_at f.svg end | sort | uniq -c | awk '{ print $1 }' | sort -u | tr '\n' ' ')
[ "$ylabels" = "2 " ] || fail "--facet: each y tick label should be drawn twice (first column), counts: $ylabels"
plot_ok fx.svg "$DB" --y val_error --by optimizer.lr --facet cluster.workers --share-axes x
ylabels=$(numbers_at fx.svg end | sort | uniq -c | awk '{ print $1 }' | sort -u | tr '\n' ' ')
[ "$ylabels" != "2 " ] && [ "$(count_text fx.svg 100)" = 2 ] ||
  fail "--share-axes x: y tick labels should be on every panel, x ones shared (counts $ylabels)"
expect_exit 2 '--share-axes sideways: expected both, x, y or none' -- \
  "$SGDSIM" plot "$DB" --y val_error --facet cluster.workers --share-axes sideways -o bad.svg
expect_exit 2 '--share-axes: only with --facet' -- "$SGDSIM" plot "$DB" --y val_error --share-axes x -o bad.svg
[ ! -e bad.svg ] || fail "a refused --share-axes wrote a figure"

# --- log axes label their ticks ----------------------------------------------------------
plot_ok l.svg "$DB" --y val_error --by optimizer.lr,cluster.workers --logy
n=$(numbers_at l.svg end | wc -l)
[ "$n" -ge 3 ] || fail "--logy on val_error: $n y tick labels: $(numbers_at l.svg end | tr '\n' ' ')"
# Every value inside one decade, 0.071 to 0.089: still labelled ticks, all in that range.
cp "$DB" narrow.db
sqlite3 narrow.db "UPDATE metrics SET value = 0.071 + 0.003 * (update_idx / 20) WHERE name = 'val_error'" ||
  fail "sqlite3"
plot_ok n.svg narrow.db --y val_error --by optimizer.lr,cluster.workers --logy
labels=$(numbers_at n.svg end | tr '\n' ' ')
[ "$(wc -w <<<"$labels")" -ge 3 ] || fail "--logy within one decade: y tick labels '$labels'"
for v in $labels; do
  awk -v v="$v" 'BEGIN { exit !(v >= 0.071 - 1e-9 && v <= 0.086 + 1e-9) }' ||
    fail "--logy within one decade: tick $v outside the data (0.071 to 0.086)"
done

# --- long legend entries leave the plot most of the width ---------------------------------
plot_ok long.svg "$DB" --y val_error --by optimizer.lr,cluster.workers \
  --label 'optimizer.lr=learning rate of the optimizer' --label 'cluster.workers=workers in the cluster'
width=$(texts long.svg | awk -F'\t' '$4 == "middle" && $3 == 0 && $5 == "0" { a = $1 } $4 == "middle" && $3 == 0 && $5 == "100" { b = $1 }
  END { print b - a }')
awk -v w="$width" 'BEGIN { exit !(w >= 0.6 * 960) }' || fail "long legend entries: the x axis is $width of 960 px"

# --- 12+ series without --by all look different -------------------------------------------
plot_ok many.svg "$DB" --y val_error
# style SVG: each legend entry's line sample: colour, dash pattern and point symbol.
styles() {
  awk '/<g id="gnuplot_plot_[0-9]+[ab]?" ><title>/ && !/<title>gnuplot_plot/ { want = 1; next }
       want && /<path stroke=/ { s = $0; sub(/ d=.*/, "", s); p = $0; sub(/.*xlink:href=./, "", p); sub(/.\s.*/, "", p)
                                 print s, p; want = 0 }' "$1"
}
[ "$(styles many.svg | wc -l)" = 18 ] || fail "18 runs: $(styles many.svg | wc -l) legend samples, not 18"
[ "$(styles many.svg | sort -u | wc -l)" = 18 ] ||
  fail "18 runs without --by: only $(styles many.svg | sort -u | wc -l) different line styles"

# --- a y label longer than the plot is wrapped, every line shorter than the plot ---------
plot_ok small.svg "$DB" --y val_error --by optimizer.lr --where cluster.workers=2 --size 480,300
lines=$(texts small.svg | awk -F'\t' '$3 == -90' | wc -l)
[ "$lines" -ge 2 ] || fail "a y label of 52 characters on a 300 px figure is $lines line(s)"
[ "$(texts small.svg | awk -F'\t' '$3 == -90 { printf "%s ", $5 }')" = "$YL " ] ||
  fail "the wrapped y label lost text: $(texts small.svg | awk -F'\t' '$3 == -90 { printf "%s|", $5 }')"
finish
