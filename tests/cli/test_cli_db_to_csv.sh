# scripts/db_to_csv.py: one CSV per table and view (the schema 3 views included), a header
# and one line per row, values that read back exactly; a bad input exits 2.  Skipped
# without python3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
SCRIPT="$(dirname "$0")/../../scripts/db_to_csv.py"
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/a.db"
"$SGDSIM" run "$S" --db "$DB" --quiet --tag 'note=a, "quoted" value' || fail "run"
"$SGDSIM" run "$S" --db "$DB" --quiet --set optimizer.lr=0.30000000000000004 || fail "run 2"
sum=$(sha256sum < "$DB")
python3 "$SCRIPT" "$DB" "$TMP/csv" > "$TMP/out.txt" || fail "db_to_csv.py failed"
[ "$(sha256sum < "$DB")" = "$sum" ] || fail "the script changed the database"
for t in runs metrics traffic staleness tags artifacts params final_metrics final_metrics_long run_summary; do
  [ -f "$TMP/csv/$t.csv" ] || { fail "no $t.csv"; continue; }
  rows=$(sqlite3 "$DB" "SELECT count(*) FROM $t")
  got=$(python3 -c 'import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1]))) - 1)' "$TMP/csv/$t.csv")
  [ "$got" = "$rows" ] || fail "$t.csv: $got rows, the database has $rows"
done
python3 - "$TMP/csv" <<'PY' || fail "CSV content"
import csv, sys
d = sys.argv[1]
tags = list(csv.DictReader(open(d + "/tags.csv")))
assert tags == [{"run_id": "1", "key": "note", "value": 'a, "quoted" value'}], tags
lr = [r for r in csv.DictReader(open(d + "/params.csv")) if r["key"] == "optimizer.lr"]
assert [float(r["value"]) for r in lr] == [0.05, 0.30000000000000004], lr
fm = list(csv.DictReader(open(d + "/final_metrics.csv")))
assert len(fm) == 2 and fm[0]["staleness_max"] == "" and float(fm[0]["val_loss"]) > 0, fm
PY
expect_exit 2 "no such results database" -- python3 "$SCRIPT" "$TMP/none.db" "$TMP/x"
echo "plain text" > "$TMP/junk.db"
expect_exit 2 "junk.db" -- python3 "$SCRIPT" "$TMP/junk.db" "$TMP/x"
finish
