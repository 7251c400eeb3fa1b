# What plot draws from runs of several configurations and how a paper figure is made:
# series that would average runs of different configurations (FASGD with SASGD; the uniform
# with the timed driver) are split by the keys that differ, named in the legend and on
# stderr; --band and --pool refuse them naming the keys; --x vtime refuses runs without a
# clock; --color-by/--dash-by pair series; the legend sits outside the axes, entries of
# several keys as their values under a title naming the keys; axis labels and ranges; a log
# axis spans the data; --data writes exactly the points drawn; --facet draws small
# multiples with shared axes and one legend.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
command -v gnuplot >/dev/null || { echo "gnuplot not installed: skipping"; exit 77; }
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
  "stop": { "updates": 60 },
  "eval": { "every": 20, "train_loss_every": 1 }
}
JSON
DB="$TMP/timed.db"
"$SGDSIM" sweep "$TMP/ps.json" --set algorithm.name=fasgd,sasgd --set cluster.workers=2,4,8 \
  --set seed=1,2 -j 2 --db "$DB" >/dev/null 2>&1 || fail "sweep"
cd "$TMP" || exit 1

# plot_ok FIG ARGS...: exits 0 and writes FIG; stdout in $out, stderr in $err.
plot_ok() {
  local fig="$1" rc; shift
  rm -f "$fig"
  out=$("$SGDSIM" plot "$@" -o "$fig" 2>err.txt); rc=$?; err=$(cat err.txt)
  [ "$rc" = 0 ] || fail "plot $* exits $rc: $out $err"
  [ -s "$fig" ] || fail "plot $*: no figure"
}
plot_bad() { # plot_bad NEEDLE ARGS...: exits 2 naming NEEDLE, writes no figure
  local needle="$1"; shift
  rm -f bad.svg
  expect_exit 2 "$needle" -- "$SGDSIM" plot "$@" -o bad.svg
  [ ! -e bad.svg ] || fail "plot $* wrote a figure"
}
lines_of() { sed -n 's/.*: \([0-9]*\) lines\{0,1\}, .*/\1/p' <<<"$out"; }
legend() { grep -o "<text>${2:-cluster.workers=}[^<]*</text>" "$1" | sed 's/<[^>]*>//g' | tr '\n' '|'; }

# --- never averaged across configurations -----------------------------------------------
plot_ok split.svg "$DB" --y val_error --by cluster.workers
[ "$(lines_of)" = 6 ] || fail "--by cluster.workers over FASGD and SASGD: $(lines_of) lines, not 6: $out"
case "$err" in *"split by algorithm.name"*) ;; *) fail "the split is not said on stderr: $err" ;; esac
# The legend names the split key: its title names both keys, its entries their values.
[ "$(legend split.svg '[0-9], ')" = "2, fasgd|2, sasgd|4, fasgd|4, sasgd|8, fasgd|8, sasgd|" ] ||
  fail "the legend's entries are not the series' values: $(legend split.svg '[0-9], ')"
grep -q '<text>cluster.workers,</text>' split.svg && grep -q '<text>algorithm.name</text>' split.svg ||
  fail "the legend's title does not name the split key"
plot_ok nosplit.svg "$DB" --y val_error --by cluster.workers,algorithm.name
[ "$(lines_of)" = 6 ] && [ -z "$err" ] || fail "a split that --by already makes: $out $err"
plot_bad 'in algorithm.name' "$DB" --y val_error --by cluster.workers --band std
plot_bad 'add algorithm.name to --by' "$DB" --y val_error --by cluster.workers --pool
plot_bad 'in algorithm.name, cluster.workers' "$DB" --y val_error --pool
plot_ok pool.svg "$DB" --y val_error --by cluster.workers,algorithm.name --pool
[ "$(lines_of)" = 6 ] || fail "--pool over seeds: $out"
# Two drivers in one database (as after a merge): split by algorithm.driver; the uniform
# driver has no clock, so --x vtime is refused naming the reason.
cp "$DB" both.db
"$SGDSIM" sweep "$TMP/ps.json" --set algorithm.name=fasgd,sasgd --set cluster.workers=2,4,8 \
  --set seed=1,2 --set algorithm.driver=uniform -j 2 --db both.db >/dev/null 2>&1 || fail "sweep uniform"
plot_ok drivers.svg both.db --y val_error --by algorithm,cluster.workers
[ "$(lines_of)" = 12 ] || fail "two drivers: $(lines_of) lines, not 12: $out"
case "$err" in *"split by algorithm.driver"*) ;; *) fail "two drivers: stderr $err" ;; esac
plot_bad 'no clock (uniform driver)' both.db --y val_error --x vtime --by algorithm,cluster.workers,algorithm.driver
plot_ok vtime.svg both.db --y val_error --x vtime --by algorithm,cluster.workers --where algorithm.driver=timed

# --- style, legend, labels, ranges --------------------------------------------------------
plot_ok style.svg "$DB" --y val_error --by cluster.workers,algorithm.name \
  --color-by cluster.workers --dash-by algorithm.name
colours=$(grep -o "stroke='rgb([0-9, ]*)'" style.svg | sort -u | wc -l)
# Three colours of lines (one per worker count); the SVG also strokes the frame and grid.
plot_ok s6.svg "$DB" --y val_error --by cluster.workers,algorithm.name
colours6=$(grep -o "stroke='rgb([0-9, ]*)'" s6.svg | sort -u | wc -l)
[ $((colours6 - colours)) = 3 ] || fail "--color-by cluster.workers: $colours stroke colours, $colours6 without it"
dashed() { grep 'stroke-dasharray' "$1" | grep -vc gridline; } # the grid is dotted
[ "$(dashed style.svg)" -gt 0 ] || fail "--dash-by: no dashed line"
[ "$(dashed s6.svg)" = 0 ] || fail "dashes without --dash-by"
# The legend is right of the axes: its entries' x is beyond the plot's right edge.
key_x=$(grep -B3 '<text>2, fasgd</text>' s6.svg | sed -n 's/.*translate(\([0-9.]*\),.*/\1/p' | head -1)
tick_x=$(grep -B3 '<text>60</text>' s6.svg | sed -n 's/.*translate(\([0-9.]*\),.*/\1/p' | head -1)
[ -n "$key_x" ] && [ -n "$tick_x" ] && awk -v k="$key_x" -v t="$tick_x" 'BEGIN{exit !(k > t)}' ||
  fail "the legend is not outside the axes (legend x $key_x, last tick x $tick_x)"
plot_ok below.svg "$DB" --y val_error --by cluster.workers,algorithm.name --legend below
plot_bad '--legend left: expected auto, outside, below or inside' "$DB" --y val_error --legend left
grep -q '<text>val_error: validation error' s6.svg || fail "the default y label has no description"
plot_ok labels.svg "$DB" --y val_error --by cluster.workers,algorithm.name --xlabel 'updates `x`' --ylabel "it's \$(y)"
grep -q '<text>updates `x`</text>' labels.svg && grep -q "<text>it's \$(y)</text>" labels.svg ||
  fail "--xlabel/--ylabel not drawn as given"
plot_ok range.svg "$DB" --y val_error --by cluster.workers,algorithm.name --xrange 10:50 --yrange :2
grep -q '<text>10</text>' range.svg && ! grep -q '<text>60</text>' range.svg || fail "--xrange 10:50"
for r in 5 5:1 a:b 1:2:3 : 0x1:2 ' 1:2'; do
  plot_bad "--xrange $r: expected LO:HI" "$DB" --y val_error --xrange "$r"
done
plot_bad '--xrange 0:10: expected LO:HI' "$DB" --y val_error --logx --xrange 0:10
plot_bad '--color-by nope.key: neither a column' "$DB" --y val_error --color-by nope.key
# A log axis spans the data (1..60), not whole decades (1..100).
plot_ok logx.svg "$DB" --y train_loss --by cluster.workers,algorithm.name --logx
grep -q '<text>100</text>' logx.svg && fail "--logx stretched the axis to 100 for data ending at 60"
grep -q '<text>10</text>' logx.svg || fail "--logx lost its decade tick"

# --- --data: exactly the points drawn -----------------------------------------------------
plot_ok d.svg "$DB" --y val_error --by cluster.workers,algorithm.name --band std --data d.csv
points=$(sed -n 's/.*, \([0-9]*\) points.*/\1/p' <<<"$out")
[ "$(head -1 d.csv)" = "series,label,x,y,lo,hi" ] || fail "--data header: $(head -1 d.csv)"
[ "$(($(wc -l <d.csv) - 1))" = "$points" ] || fail "--data: $(wc -l <d.csv) lines for $points points"
# db_mean WORKERS ALGORITHM: the database's mean val_error at update 60 of those runs.
db_mean() {
  sqlite3 "$DB" "SELECT avg(m.value) FROM metrics m JOIN runs r ON r.id = m.run_id
    WHERE m.name = 'val_error' AND m.update_idx = 60 AND r.workers = $1
    AND json_extract(r.config_json, '\$.algorithm.name') = '$2'"
}
# same_value WANT GOT WHAT: GOT is WANT to 1e-12.
same_value() {
  awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; exit !(b != "" && d < 1e-12 && d > -1e-12)}' ||
    fail "$3 is '$2', the database says $1"
}
got=$(awk -F, '$2 == "cluster.workers=4 algorithm.name=sasgd" && $3 == 60 {print $4}' d.csv)
same_value "$(db_mean 4 sasgd)" "$got" "--data: mean at update 60"
plot_bad '--data d.svg: the file' "$DB" --y val_error --data d.svg

# --- --facet: one panel per value, titled, shared axes, one legend without the key -------
plot_ok facet.svg "$DB" --y val_error --by algorithm.name --facet cluster.workers --data f.csv
for w in 2 4 8; do
  grep -q "<text>cluster.workers=$w</text>" facet.svg || fail "--facet: no panel cluster.workers=$w"
done
[ "$(grep -c '<text>algorithm.name=sasgd</text>' facet.svg)" = 1 ] ||
  fail "--facet: the legend entry algorithm.name=sasgd is not listed once, in one legend"
grep -q '<text>cluster.workers=2 algorithm' facet.svg && fail "--facet: the facet key is in the legend"
# Panels share the x axis, which ends at 60: labelled under the lowest panel of each column
# (in a 2 x 2 grid of 3 panels, the 3rd and the 2nd, which has none under it); with
# --share-axes none every panel labels its own.
[ "$(grep -c '<text>60</text>' facet.svg)" = 2 ] || fail "--facet: panels do not share the x axis"
plot_ok facet-none.svg "$DB" --y val_error --by algorithm.name --facet cluster.workers --share-axes none
[ "$(grep -c '<text>60</text>' facet-none.svg)" = 3 ] || fail "--share-axes none: a panel without x labels"
[ "$(head -1 f.csv)" = "panel,series,label,x,y" ] || fail "--facet --data header: $(head -1 f.csv)"
got=$(awk -F, '$1 == "cluster.workers=8" && $3 == "algorithm.name=fasgd" && $4 == 60 {print $5}' f.csv)
same_value "$(db_mean 8 fasgd)" "$got" "--facet --data: panel cluster.workers=8 fasgd at update 60"
plot_bad '--facet nope.key: neither a column' "$DB" --y val_error --facet nope.key
cp "$DB" db.csv
plot_bad 'refusing to overwrite' db.csv --y val_error --data db.csv
finish
