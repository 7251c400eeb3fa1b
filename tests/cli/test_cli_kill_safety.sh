# A run killed with SIGKILL leaves a valid database in which that run is not complete and
# earlier runs are intact.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/k.db"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "reference run failed"
rows_before=$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE run_id=1")
# started N: waits (up to 60 s, for slow sanitizer builds) until N runs are in the database,
# so a kill lands in a run that has begun however fast or slow this machine is.
started() {
  for _ in $(seq 600); do
    [ "$(sqlite3 "$DB" "SELECT count(*) FROM runs" 2>/dev/null)" = "$1" ] && return 0
    sleep 0.1
  done
  fail "run $1 did not begin within 60 s"
}
n=1
for delay in 0 0.3 1; do
  "$SGDSIM" run "$S" --db "$DB" --quiet --set stop.updates=100000000 --set eval.every=0 &
  pid=$!
  n=$((n + 1)); started "$n"
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
started $((n + 1))
sleep 0.2
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
