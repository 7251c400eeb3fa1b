# A run killed with SIGKILL leaves a valid database in which that run is not complete and
# earlier runs are intact.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/k.db"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "reference run failed"
rows_before=$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE run_id=1")
for delay in 0.3 0.8 1.5; do
  "$SGDSIM" run "$S" --db "$DB" --quiet --set stop.updates=100000000 --set eval.every=0 &
  pid=$!
  sleep "$delay"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ] || fail "integrity_check after kill at $delay s"
  last=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
  [ "$(sqlite3 "$DB" "SELECT status FROM runs WHERE id=$last")" = running ] || fail "killed run $last is marked $(sqlite3 "$DB" "SELECT status FROM runs WHERE id=$last")"
done
# SIGTERM (or Ctrl-C) is polite: the run stops after its current update and is stored as
# failed, "interrupted", with exit code 1.
"$SGDSIM" run "$S" --db "$DB" --quiet --set stop.updates=100000000 --set eval.every=0 &
pid=$!
sleep 0.5
kill -TERM "$pid"
wait "$pid"; rc=$?
[ "$rc" = 1 ] || fail "SIGTERM: exit code $rc, wanted 1"
last=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
[ "$(sqlite3 "$DB" "SELECT status FROM runs WHERE id=$last")" = failed ] || fail "SIGTERM: run not marked failed"
sqlite3 "$DB" "SELECT status_detail FROM runs WHERE id=$last" | grep -q "interrupted" || fail "SIGTERM: detail"
[ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ] || fail "integrity_check after SIGTERM"

[ "$(sqlite3 "$DB" "SELECT status FROM runs WHERE id=1")" = complete ] || fail "run 1 lost its status"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE run_id=1")" = "$rows_before" ] || fail "run 1 lost rows"
finish
