# What plot draws and what it refuses: --where (valid terms, bad ones, hostile strings that
# must neither run nor match anything), --band with and without repeated seeds, the legend
# in numeric and natural order, --label, --legend-title, the scenario name as the default
# title, and --size.  Every bad input exits 2 with a message and writes no figure.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
command -v gnuplot >/dev/null || { echo "gnuplot not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/r.db"
# Six runs: workers 2, 3 and 10 (in that order only numerically) times seeds 1 and 2.
"$SGDSIM" sweep "$S" --set cluster.workers=10,2,3 --set seed=1,2 -j 2 --db "$DB" \
  >/dev/null 2>&1 || fail "sweep"
cd "$TMP" || exit 1

# plot_ok FIG ARGS...: exits 0 and writes FIG; its stdout is in $out.
plot_ok() {
  local fig="$1" rc; shift
  rm -f "$fig"
  out=$("$SGDSIM" plot "$@" -o "$fig" 2>&1); rc=$?
  [ "$rc" = 0 ] || fail "plot $* exits $rc: $out"
  [ -s "$fig" ] || fail "plot $*: no figure"
}
# plot_bad NEEDLE ARGS...: exits 2 naming NEEDLE and writes no figure.
plot_bad() {
  local needle="$1"; shift
  rm -f bad.svg bad.svg.tmp
  expect_exit 2 "$needle" -- "$SGDSIM" plot "$@" -o bad.svg
  [ ! -e bad.svg ] && [ ! -e bad.svg.tmp ] || fail "plot $* wrote a figure"
}
# legend FIG: the legend entries of an SVG, one a line, in order (lines marked key=value
# or the text given as the second argument's pattern).
legend() { grep -o "<text>${2:-cluster.workers=}[^<]*</text>" "$1" | sed 's/<[^>]*>//g' | tr '\n' ' '; }
lines_of() { sed -n 's/.*: \([0-9]*\) lines\{0,1\}, .*/\1/p' <<<"$out"; }

# --- --where ---------------------------------------------------------------------------
plot_ok w1.svg "$DB" --y val_error --where seed=1
[ "$(lines_of)" = 3 ] || fail "--where seed=1: $out"
plot_ok w2.svg "$DB" --y val_error --where 'cluster.workers!=10,seed>=2'
[ "$(lines_of)" = 2 ] || fail "--where cluster.workers!=10,seed>=2: $out"
plot_ok w3.svg "$DB" --y val_error --where 'lambda>2' --where 'seed<2'
[ "$(lines_of)" = 2 ] || fail "two --where: $out"
plot_ok w4.svg "$DB" --y val_error --where seed=1.0 --where algorithm=csgd --where 'algorithm.name<=csgd'
[ "$(lines_of)" = 3 ] || fail "--where with a number written 1.0 and text: $out"
plot_ok w5.svg "$DB" --y val_error --where 'model.hidden!=0' --where batch.per_worker=16
[ "$(lines_of)" = 6 ] || fail "--where on a configuration number: $out"
plot_bad 'no finished runs match --where' "$DB" --y val_error --where seed=3
plot_bad '"nope.key" is neither a column of runs' "$DB" --y val_error --where nope.key=1
plot_bad 'expected KEY OP VALUE' "$DB" --y val_error --where seed
plot_bad 'expected KEY OP VALUE' "$DB" --y val_error --where '=1'
plot_bad 'expected KEY OP VALUE' "$DB" --y val_error --where 'seed=1,,workers=2'
plot_bad 'expected KEY OP VALUE' "$DB" --y val_error --where 'seed==1'
plot_bad 'has no value to compare with' "$DB" --y val_error --where 'seed>='
plot_bad 'expected KEY OP VALUE' "$DB" --y val_error --where 'seed~1'
# Hostile text: SQL and shell syntax in keys and values is never run, and as a value it is
# just text that no run has.
before=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
for h in "1'; DROP TABLE runs; --" "1; DELETE FROM runs" '`touch mark`' '$(touch mark)' \
         "1\" OR \"1\"=\"1" "' OR 1=1 --" "csgd') OR ('a'='a"; do
  plot_bad 'no finished runs match --where' "$DB" --y val_error --where "algorithm=$h"
  plot_bad 'no finished runs match --where' "$DB" --y val_error --where "algorithm.name=$h"
done
for k in "seed'" "seed;" 'seed`' "x') OR 1=1 --" '$(touch mark)' 'a b'; do
  plot_bad 'expected KEY OP VALUE' "$DB" --y val_error --where "$k=1"
done
[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" = "$before" ] || fail "--where changed runs"
compgen -G "$TMP/mark*" >/dev/null && fail "--where ran a command"
# A value that holds quotes and backquotes matches the run that has it, byte for byte.
cp "$DB" q.db
sqlite3 q.db "UPDATE runs SET config_json = json_set(config_json, '\$.algorithm.name',
              'it''s; \`x\` \"y\"') WHERE id = 1" || fail "sqlite3"
plot_ok q.svg q.db --y val_error --where 'algorithm.name=it'"'"'s; `x` "y"'
[ "$(lines_of)" = 1 ] || fail "--where with a quoted value: $out"

# --- legend order, labels, titles ------------------------------------------------------
plot_ok o.svg "$DB" --y val_error --by cluster.workers
[ "$(legend o.svg)" = "cluster.workers=2 cluster.workers=3 cluster.workers=10 " ] ||
  fail "numeric legend order: $(legend o.svg)"
grep -qF '<text>small</text>' o.svg || fail "the default title is not the scenario name"
cp "$DB" n.db
sqlite3 n.db "UPDATE runs SET scenario = 'exp/l' || workers" || fail "sqlite3"
plot_ok n.svg n.db --y val_error --by scenario
[ "$(legend n.svg scenario=)" = "scenario=exp/l2 scenario=exp/l3 scenario=exp/l10 " ] ||
  fail "natural legend order: $(legend n.svg scenario=)"
grep -qF '<text>exp</text>' n.svg || fail "the title of several scenarios is not their common word"
plot_ok l.svg "$DB" --y val_error --by cluster.workers,seed --where seed=1 \
  --label cluster.workers=P --label seed= --label cluster.workers:10=ten --legend-title 'λ seeds'
[ "$(legend l.svg '[Pt]')" = "P=2 1 P=3 1 ten 1 " ] || fail "--label: $(legend l.svg '[Pt]')"
grep -qF '<text>λ seeds</text>' l.svg || fail "--legend-title not shown"
plot_bad 'is not a key of --by' "$DB" --y val_error --by seed --label workers=W
plot_bad 'expected KEY=TEXT' "$DB" --y val_error --by seed --label seed
plot_bad 'no series has seed=7' "$DB" --y val_error --by seed --label seed:7=x
plot_bad '--label needs --by' "$DB" --y val_error --label seed=s

# --- --band ----------------------------------------------------------------------------
plot_ok b1.svg "$DB" --y val_error --by cluster.workers --band std
[ "$(lines_of)" = 3 ] || fail "--band std: $out"
bands() { grep -c "<polygon fill = [^>]*fill-opacity = '0.200000'" "$1"; }
[ "$(bands b1.svg)" = 3 ] || fail "--band std: $(bands b1.svg) filled bands in the SVG, not 3"
plot_ok b2.png "$DB" --y train_loss --by workers --band minmax --logy
plot_ok b3.svg "$DB" --y val_error --band std --where cluster.workers=3
[ "$(legend b3.svg 'small (')" = "small (2 seeds) " ] || fail "--band without --by: $(legend b3.svg 'small (')"
plot_bad 'no series has runs with different seeds' "$DB" --y val_error --by cluster.workers --band std --where seed=1
plot_bad 'differ by more than their seed' "$DB" --y val_error --band minmax
plot_bad 'the runs of series "seed=1" differ by more than their seed' "$DB" --y val_error --by seed --band std
plot_bad 'expected std or minmax' "$DB" --y val_error --by seed --band mean
plot_ok nb.svg "$DB" --y val_error --by cluster.workers
[ "$(bands nb.svg)" = 0 ] || fail "a band without --band"

# The band's size, measured in the SVG: series cluster.workers=2 has three seeds with values
# {0, 0, 0.3} at update 1 and {0, 0.15, 0.3} at update 2, so its band is 2 x the sample
# standard deviation tall (0.3464, then 0.3; the population's would be 0.2828 and 0.2449)
# and min to max 0.3 tall at both; series 3's values (-10, then 10) fix the y axis, so both
# figures have the same scale.
cp "$DB" v.db
sqlite3 v.db "UPDATE runs SET seed = id, workers = CASE WHEN id <= 3 THEN 2 ELSE 3 END,
                config_json = json_set((SELECT config_json FROM runs WHERE id = 1), '\$.seed', id,
                  '\$.cluster.workers', CASE WHEN id <= 3 THEN 2 ELSE 3 END);
              DELETE FROM metrics WHERE name = 'val_error';
              INSERT INTO metrics (run_id, update_idx, vtime_ns, name, value)
                VALUES (1, 1, 1, 'val_error', 0), (2, 1, 1, 'val_error', 0),
                       (3, 1, 1, 'val_error', 0.3), (1, 2, 2, 'val_error', 0),
                       (2, 2, 2, 'val_error', 0.15), (3, 2, 2, 'val_error', 0.3),
                       (4, 1, 1, 'val_error', -10), (5, 1, 1, 'val_error', -10),
                       (6, 1, 1, 'val_error', -10), (4, 2, 2, 'val_error', 10),
                       (5, 2, 2, 'val_error', 10), (6, 2, 2, 'val_error', 10)" || fail "sqlite3"
# heights SVG: the first band's height in pixels at its first and second x.
heights() {
  grep -m1 -o "fill-opacity = '0.200000' points = '[^']*'" "$1" | sed "s/.*points = '//; s/'//" |
    tr ' ' '\n' | awk -F, 'NF == 2 && !($1 in y) { y[$1] = $2; xs[n++] = $1; next }
      NF == 2 { h[$1] = y[$1] - $2 }
      END { for (i = 0; i < n; i++) printf "%.3f ", (h[xs[i]] < 0 ? -h[xs[i]] : h[xs[i]]) }'
}
plot_ok vs.svg v.db --y val_error --by cluster.workers --band std --size 400,4000
plot_ok vm.svg v.db --y val_error --by cluster.workers --band minmax --size 400,4000
read -r s1 s2 <<<"$(heights vs.svg)"; read -r m1 m2 <<<"$(heights vm.svg)"
awk -v s1="$s1" -v s2="$s2" -v m1="$m1" -v m2="$m2" 'BEGIN {
  ok = m1 > 10 && (m1 - m2) ^ 2 < (0.005 * m1) ^ 2 && (s1 / m1 - 0.34641 / 0.3) ^ 2 < 0.005 ^ 2 &&
       (s2 / m2 - 1) ^ 2 < 0.005 ^ 2; exit !ok }' ||
  fail "--band heights: std $s1 $s2, minmax $m1 $m2 pixels (want std/minmax 1.1547 and 1)"

# --- --size ----------------------------------------------------------------------------
plot_ok z.png "$DB" --y val_error --size 640,400
[ "$(od -An -tx1 -j16 -N8 z.png | tr -d ' \n')" = 0000028000000190 ] || fail "--size 640,400: PNG is not 640 x 400"
plot_ok z.svg "$DB" --y val_error --size 500,300
grep -q 'viewBox="0 0 500 300"' z.svg || fail "--size 500,300: SVG"
plot_ok z.pdf "$DB" --y val_error --size 3.5,2.5
plot_bad 'expected W,H in whole pixels' "$DB" --y val_error --size 640
plot_bad 'expected W,H in whole pixels' "$DB" --y val_error --size 10,10
plot_bad 'expected W,H in whole pixels' "$DB" --y val_error --size 640.5,400
plot_bad 'expected W,H in whole pixels' "$DB" --y val_error --size 640,400,1
plot_bad 'expected W,H in whole pixels' "$DB" --y val_error --size x,y
plot_bad '--every: only with --follow' "$DB" --y val_error --every 1
finish
