# scripts/slim_results.py, the slim copies of long experiments kept in docs/data/: on small
# B-FASGD runs (two settings, two seeds, 20 evaluations each) the copy keeps the last N
# evaluations of every metric (and, with --every, the multiples), every other table whole, and
# the source unchanged; the Experiment 3 table printed from it equals the full database's with
# --last 10 and differs with --last 9 (so the comparison can fail); a sweep resumed on it skips
# its points and `sgdsim merge` copies its runs.  Bad input exits 2.  Skipped without python3
# or sqlite3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SLIM=(python3 "$ROOT/scripts/slim_results.py")
TABLES=(python3 "$ROOT/scripts/repro_tables.py")
export SGDSIM # the binary repro_tables.py takes its numbers from

S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/full.db"
COMMON=(--set seed=1,2 --set stop.updates=80 --set eval.every=4 --set cluster.workers=4
        --set optimizer.momentum=0 --set data.n_validation=197)
point() { # NAME ALGORITHM-JSON
  "$SGDSIM" sweep "$S" --db "$DB" --quiet --set "name=$1" "${COMMON[@]}" --set "algorithm=$2" ||
    { fail "sweep $1"; finish; }
}
point exp3/c_fetch=0/c_push=0 '{"name":"b-fasgd","c_fetch":0,"c_push":0}'
point exp3/c_fetch=1/c_push=0 '{"name":"b-fasgd","c_fetch":1,"c_push":0}'
sum_before=$(sha256sum < "$DB")

"${SLIM[@]}" "$DB" "$TMP/slim.db" --last 10 > "$TMP/out.txt" || fail "slim: $(cat "$TMP/out.txt")"
[ "$(sha256sum < "$DB")" = "$sum_before" ] || fail "the source database changed"
grep -q "^$TMP/slim.db: 4 runs, [1-9][0-9]* metric rows left out$" "$TMP/out.txt" ||
  fail "summary line: $(cat "$TMP/out.txt")"
q() { sqlite3 "$1" "$2"; }
# from_end DB N COLUMNS [OR-CONDITION]: each run's and metric's last N rows (and those the
# condition adds), as the copy should hold them
from_end() {
  q "$1" "WITH k AS (SELECT *, row_number() OVER (PARTITION BY run_id, name
                     ORDER BY update_idx DESC) AS e FROM metrics)
          SELECT $3 FROM k WHERE e <= $2 ${4:-} ORDER BY 1, 2, 3"
}
# per run and metric: min(evaluations, 10) kept (the final-only ones, staleness_*, keep one)
per="SELECT run_id, name, count(*) FROM metrics GROUP BY 1, 2 ORDER BY 1, 2"
[ "$(q "$DB" "$per" | awk -F'|' '{ print $1 "|" $2 "|" ($3 < 10 ? $3 : 10) }')" = \
  "$(q "$TMP/slim.db" "$per")" ] || fail "not min(n, 10) evaluations of every metric of every run"
[ "$(q "$DB" "SELECT count(*) FROM metrics WHERE name = 'val_error' AND run_id = 1")" -gt 20 ] ||
  fail "too few evaluations to check the thinning"
# the kept rows are the source's last ten, bit for bit
row="run_id, name, update_idx, vtime_ns, quote(value), nonfinite"
[ "$(from_end "$DB" 10 "$row")" = "$(from_end "$TMP/slim.db" 10 "$row")" ] ||
  fail "kept rows differ"
for t in runs traffic staleness version_age tags artifacts \
         "(SELECT * FROM params ORDER BY run_id, key)"; do
  [ "$(q "$DB" "SELECT * FROM $t")" = "$(q "$TMP/slim.db" "SELECT * FROM $t")" ] ||
    fail "table $t differs"
done
[ "$(q "$TMP/slim.db" "SELECT count(*) FROM staleness")" -gt 0 ] || fail "no staleness rows"
[ "$(q "$TMP/slim.db" "PRAGMA application_id")" = "$(q "$DB" "PRAGMA application_id")" ] &&
  [ "$(q "$TMP/slim.db" "PRAGMA user_version")" = "$(q "$DB" "PRAGMA user_version")" ] ||
  fail "the copy lost the results database's application_id or schema version"

# the reproduction table reads the same from the copy; one evaluation fewer changes it
"${TABLES[@]}" exp3 "$DB" --updates 80 > "$TMP/full.md" || fail "table of the full database"
"${TABLES[@]}" exp3 "$TMP/slim.db" --updates 80 > "$TMP/slim.md" || fail "table of the copy"
cmp -s "$TMP/full.md" "$TMP/slim.md" ||
  { fail "the tables differ"; diff "$TMP/full.md" "$TMP/slim.md" >&2; }
"${SLIM[@]}" "$DB" "$TMP/nine.db" --last 9 > /dev/null || fail "slim --last 9"
"${TABLES[@]}" exp3 "$TMP/nine.db" --updates 80 > "$TMP/nine.md" || fail "table of --last 9"
cmp -s "$TMP/full.md" "$TMP/nine.md" && fail "--last 9 gives the same table: the check is blind"

# --every K also keeps the evaluations at multiples of K
"${SLIM[@]}" "$DB" "$TMP/every.db" --last 2 --every 20 > /dev/null || fail "slim --every"
want=$(from_end "$DB" 2 "run_id, name, update_idx" "OR update_idx % 20 = 0")
kept=$(q "$TMP/every.db" "SELECT run_id, name, update_idx FROM metrics ORDER BY 1, 2, 3")
[ "$want" = "$kept" ] || fail "--every 20 --last 2 kept other rows"

# a sweep resumed on the copy has nothing to do; merge copies its runs
out=$("$SGDSIM" sweep "$S" --db "$TMP/slim.db" --set name=exp3/c_fetch=0/c_push=0 \
  "${COMMON[@]}" --set 'algorithm={"name":"b-fasgd","c_fetch":0,"c_push":0}' 2>&1) ||
  fail "sweep on the copy: $out"
case "$out" in *"2 already done"*"0 to run"*) ;; *) fail "sweep on the copy did not skip: $out" ;; esac
"$SGDSIM" merge "$TMP/m.db" "$TMP/slim.db" > /dev/null || fail "merge of the copy"
[ "$(q "$TMP/m.db" "SELECT count(*) FROM runs")" = 4 ] || fail "merge did not copy 4 runs"

# bad input
expect_exit 2 "exists; give a new file" -- "${SLIM[@]}" "$DB" "$TMP/slim.db" --last 10
expect_exit 2 "no such file" -- "${SLIM[@]}" "$TMP/none.db" "$TMP/x.db" --last 10
echo "not a database" > "$TMP/text.db"
expect_exit 2 "not an SQLite database" -- "${SLIM[@]}" "$TMP/text.db" "$TMP/x.db" --last 10
sqlite3 "$TMP/other.db" "CREATE TABLE metrics (x)"
expect_exit 2 "not an sgdsim results database" -- "${SLIM[@]}" "$TMP/other.db" "$TMP/x.db" --last 10
expect_exit 2 "not a positive integer" -- "${SLIM[@]}" "$DB" "$TMP/x.db" --last 0
expect_exit 2 "not a positive integer" -- "${SLIM[@]}" "$DB" "$TMP/x.db" --last 10 --every x
expect_exit 2 "required" -- "${SLIM[@]}" "$DB" "$TMP/x.db"
[ -e "$TMP/x.db" ] && fail "a refused call left $TMP/x.db"
finish
