# The reading commands on a small sweep's database: query is read-only (writes refused,
# database unchanged) and prints table / CSV / JSON; export writes every table; report shows
# the sweep's pivot; compare exits 0 on identical databases and on a change inside the seed
# spread, 1 on an injected regression of every seed or a missing configuration; merge refuses other schema versions; plot draws or says why not.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/r.db"
"$SGDSIM" sweep "$S" --set cluster.workers=1,2,4 --set seed=1,2 --db "$DB" --quiet -j2 || fail "sweep"
before=$(sqlite3 "$DB" "SELECT count(*) FROM runs; SELECT count(*) FROM metrics; PRAGMA user_version")

# query
out=$("$SGDSIM" query "$DB" "SELECT workers, count(*) AS n FROM runs GROUP BY workers ORDER BY workers")
[ "$(echo "$out" | sed -n 1p | tr -s ' ')" = "workers n" ] || fail "query header: $out"
[ "$(echo "$out" | sed -n 3p | tr -s ' ')" = " 1 2" ] || fail "query aligned row: $out"
[ "$("$SGDSIM" query "$DB" "SELECT workers, 'a,b' AS s FROM runs WHERE workers = 4 LIMIT 1" --csv)" = $'workers,s\n4,"a,b"' ] || fail "query --csv"
[ "$("$SGDSIM" query "$DB" "SELECT workers, NULL AS x FROM runs WHERE workers = 2 LIMIT 1" --json | tr -d ' \n')" = '[{"workers":2,"x":null}]' ] || fail "query --json"
expect_exit 2 "refusing a statement that writes" -- "$SGDSIM" query "$DB" "DELETE FROM runs"
expect_exit 2 "refusing a statement that writes" -- "$SGDSIM" query "$DB" "SELECT 1; DROP TABLE metrics"
[ -z "$("$SGDSIM" query "$DB" "SELECT 1; DROP TABLE metrics" 2>/dev/null)" ] || fail "query ran the reading part of a refused batch"
expect_exit 2 "refusing a statement that writes" -- "$SGDSIM" query "$DB" "PRAGMA user_version = 7"
expect_exit 2 "no such table: nope" -- "$SGDSIM" query "$DB" "SELECT * FROM nope"
expect_exit 2 "missing an argument" -- "$SGDSIM" query "$DB"
echo "plain text" > "$TMP/junk.db"
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" query "$TMP/junk.db" "SELECT 1"
expect_exit 2 "no such results database" -- "$SGDSIM" query "$TMP/missing.db" "SELECT 1"
[ ! -e "$TMP/missing.db" ] || fail "query created a missing database"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs; SELECT count(*) FROM metrics; PRAGMA user_version")" = "$before" ] || fail "query changed the database"

# export
"$SGDSIM" export "$DB" --csv "$TMP/csv" >/dev/null || fail "export"
for t in runs metrics traffic staleness run_summary finished_runs; do
  [ -f "$TMP/csv/$t.csv" ] || { fail "export: no $t.csv"; continue; }
  want=$(sqlite3 "$DB" "SELECT count(*) FROM $t")
  got=$(sqlite3 ":memory:" ".import --csv '$TMP/csv/$t.csv' x" "SELECT count(*) FROM x")
  [ "$got" = "$want" ] || fail "export: $t.csv has $got rows, the table $want"
done
# Reals are exported exactly.
diffs=$(sqlite3 ":memory:" "ATTACH '$DB' AS d" ".import --csv '$TMP/csv/metrics.csv' x" "SELECT count(*) FROM x JOIN d.metrics m ON m.run_id = x.run_id AND m.name = x.name AND m.update_idx = x.update_idx WHERE x.value <> '' AND CAST(x.value AS REAL) = m.value")
[ "$diffs" = "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE value IS NOT NULL")" ] || fail "export: values not written exactly ($diffs equal)"
expect_exit 2 "not a directory" -- "$SGDSIM" export "$DB" --csv "$TMP/junk.db"

# report
out=$("$SGDSIM" report "$DB") || fail "report"
case "$out" in *"Runs (6)"*) ;; *) fail "report: no run table: $out" ;; esac
case "$out" in *"axes: cluster.workers (3); 2 seeds"*"final val_error (mean ± std over seeds, n seeds)"*"scaling efficiency"*) ;; *) fail "report: no pivot: $out" ;; esac

# report's staleness columns (CSGD writes none; the parameter-server algorithms will)
cp "$DB" "$TMP/st.db"
sqlite3 "$TMP/st.db" "INSERT INTO staleness VALUES (1, 0, 3), (1, 2, 1)"
"$SGDSIM" report "$TMP/st.db" --wide | awk '$1 == 1' | grep -q "  0.5        2  " || fail "report: mean/max staleness of run 1 not 0.5 / 2: $("$SGDSIM" report "$TMP/st.db" --wide | awk '$1 == 1')"
"$SGDSIM" report "$TMP/st.db" | awk '$1 == 1' | grep -qE "  0.5 +2$" || fail "report: mean/max staleness of run 1 not 0.5 / 2 by default: $("$SGDSIM" report "$TMP/st.db" | awk '$1 == 1')"

# compare: configurations paired without their seeds, judged over the two seeds
cp "$DB" "$TMP/c.db"
out=$("$SGDSIM" compare "$DB" "$TMP/c.db") || fail "compare of identical databases exits $?: $out"
case "$out" in *"0 equivalent, 0 better, 0 worse, 0 differs, 0 differs (different kernel), 0 inconclusive"*) ;; *) fail "compare identical: $out" ;; esac
# A 0.1% change of one seed's last val_loss, far inside the 5% margin: equivalent, exit 0.
sqlite3 "$TMP/c.db" "UPDATE metrics SET value = value * 1.001 WHERE name = 'val_loss' AND update_idx = 60 AND run_id = (SELECT min(id) FROM runs WHERE workers = 2)"
"$SGDSIM" compare "$DB" "$TMP/c.db" > "$TMP/cmp.txt" || fail "compare of a change inside the margin exits $?"
[ "$(grep -c "  equivalent  " "$TMP/cmp.txt")" = 1 ] || fail "compare: not exactly one equivalent row: $(cat "$TMP/cmp.txt")"
grep "  equivalent  " "$TMP/cmp.txt" | grep -q val_loss || fail "compare: the equivalent row is not val_loss"
"$SGDSIM" compare "$DB" "$TMP/c.db" --rtol 0.01 > "$TMP/cmp.txt" || fail "compare --rtol 0.01 exits $?"
grep -q "  equivalent  .*within --rtol" "$TMP/cmp.txt" || fail "compare --rtol: no 'equivalent' within --rtol"
# Every seed's val_loss 1 higher: far beyond the spread, worse, exit 1.
sqlite3 "$TMP/c.db" "UPDATE metrics SET value = value + 1 WHERE name = 'val_loss' AND run_id IN (SELECT id FROM runs WHERE workers = 2)"
"$SGDSIM" compare "$DB" "$TMP/c.db" > "$TMP/cmp.txt"; rc=$?
[ "$rc" = 1 ] || fail "compare with a regression exits $rc"
[ "$(grep -c "  worse  " "$TMP/cmp.txt")" = 1 ] || fail "compare: not exactly one worse row: $(grep worse "$TMP/cmp.txt")"
grep "  worse  " "$TMP/cmp.txt" | grep -q "csgd P=2 .* val_loss" || fail "compare: the worse row is not P=2's val_loss"
"$SGDSIM" compare "$DB" "$TMP/c.db" --metrics val_error,train_loss >/dev/null || fail "compare --metrics without val_loss exits $?"
sqlite3 "$TMP/c.db" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE workers = 4"
"$SGDSIM" compare "$DB" "$TMP/c.db" --metrics val_error > "$TMP/cmp.txt"; rc=$?
[ "$rc" = 1 ] || fail "compare with a missing configuration exits $rc"
grep -q "csgd P=4 .*missing  no candidate configuration matches; the nearest differs in cluster.workers=4->" "$TMP/cmp.txt" || fail "compare: missing configuration not reported with its key: $(cat "$TMP/cmp.txt")"
"$SGDSIM" compare "$TMP/c.db" "$DB" --metrics val_error > "$TMP/cmp.txt" || fail "compare: a configuration only in the candidate is not a failure"
grep -q "1 configuration only in the candidate" "$TMP/cmp.txt" || fail "compare: new configuration not reported"
expect_exit 2 'no metric "nope"' -- "$SGDSIM" compare "$DB" "$TMP/c.db" --metrics nope
expect_exit 2 "--rtol x" -- "$SGDSIM" compare "$DB" "$TMP/c.db" --rtol x
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" compare "$DB" "$TMP/junk.db"

# merge: other schema versions and non-databases are refused, OUT untouched
cp "$DB" "$TMP/newer.db"; sqlite3 "$TMP/newer.db" "PRAGMA user_version = 7"
cp "$DB" "$TMP/older.db"; sqlite3 "$TMP/older.db" "PRAGMA user_version = 0"
"$SGDSIM" merge "$TMP/m.db" "$DB" >/dev/null || fail "merge"
m_before=$(sqlite3 "$TMP/m.db" "SELECT count(*) FROM runs; SELECT count(*) FROM metrics")
expect_exit 2 "newer sgdsim (schema 7 > 6)" -- "$SGDSIM" merge "$TMP/m.db" "$TMP/newer.db"
expect_exit 2 "older.db" -- "$SGDSIM" merge "$TMP/m.db" "$TMP/older.db"
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" merge "$TMP/m.db" "$DB" "$TMP/junk.db"
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" merge "$TMP/junk.db" "$DB"
expect_exit 2 "is an IN database" -- "$SGDSIM" merge "$TMP/m.db" "$TMP/m.db"
expect_exit 2 "at least one IN.db" -- "$SGDSIM" merge "$TMP/m.db"
[ "$(sqlite3 "$TMP/m.db" "SELECT count(*) FROM runs; SELECT count(*) FROM metrics")" = "$m_before" ] || fail "a refused merge changed OUT"
[ "$(cat "$TMP/junk.db")" = "plain text" ] || fail "a refused merge changed a non-database file"

# plot
expect_exit 2 "--y nope: no such metric" -- "$SGDSIM" plot "$DB" --y nope -o "$TMP/f.png"
expect_exit 2 "must end in .png, .svg or .pdf" -- "$SGDSIM" plot "$DB" --y val_error -o "$TMP/f.gif"
expect_exit 2 "neither a column of runs" -- "$SGDSIM" plot "$DB" --y val_error --by foo.bar -o "$TMP/f.png"
if command -v gnuplot >/dev/null; then
  out=$("$SGDSIM" plot "$DB" --y val_error --by algorithm,lambda -o "$TMP/f.png") || fail "plot png"
  case "$out" in *"3 lines"*) ;; *) fail "plot: wanted 3 lines: $out" ;; esac
  [ "$(head -c 4 "$TMP/f.png" | tail -c 3)" = PNG ] || fail "plot: not a PNG"
  "$SGDSIM" plot "$DB" --y train_loss --x vtime --logy -o "$TMP/f.svg" >/dev/null || fail "plot svg"
  grep -q "<svg" "$TMP/f.svg" || fail "plot: not an SVG"
  [ ! -e "$TMP/f.png.tmp" ] || fail "plot left its temporary figure"
else
  expect_exit 2 "gnuplot is not installed" -- "$SGDSIM" plot "$DB" --y val_error -o "$TMP/f.png"
fi
finish
