# Schema objects planted in a results database (issue 27, item 5): a trigger that zeroes every
# metric of a new run, or any other object sgdsim did not create, makes `run`, `merge` into
# the file and `sweep` refuse it with exit 2, naming the objects, and leaves it unchanged;
# readers still read it; once the objects are dropped, everything works again.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/p.db"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "first run"
"$SGDSIM" run "$S" --db "$TMP/in.db" --seed 9 --quiet || fail "run into IN"
sqlite3 "$DB" "CREATE TRIGGER zero AFTER INSERT ON metrics BEGIN
  UPDATE metrics SET value = 0 WHERE run_id = new.run_id; END;
  CREATE VIEW mine AS SELECT 1;" || fail "cannot plant"
sum=$(sqlite3 "$DB" "SELECT count(*), sum(value) FROM metrics; SELECT count(*) FROM runs")
what="2 schema objects that sgdsim did not create (trigger zero, view mine)"
expect_exit 2 "$DB: holds $what" -- "$SGDSIM" run "$S" --db "$DB" --quiet
expect_exit 2 "$DB: holds $what" -- "$SGDSIM" merge "$DB" "$TMP/in.db"
expect_exit 2 "$DB: holds $what" -- "$SGDSIM" sweep "$S" --set seed=3,4 --db "$DB" --quiet
[ "$(sqlite3 "$DB" "SELECT count(*), sum(value) FROM metrics; SELECT count(*) FROM runs")" = "$sum" ] ||
  fail "a refused database changed"
"$SGDSIM" query "$DB" "SELECT count(*) FROM runs" >/dev/null || fail "a reader refused it"
sqlite3 "$DB" "DROP TRIGGER zero; DROP VIEW mine" || fail "cannot drop"
"$SGDSIM" run "$S" --db "$DB" --seed 2 --quiet || fail "run after the objects were dropped"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE run_id = 2 AND value <> 0")" -gt 0 ] ||
  fail "the new run's metrics are zero"
"$SGDSIM" merge "$DB" "$TMP/in.db" >/dev/null || fail "merge after the objects were dropped"
finish
