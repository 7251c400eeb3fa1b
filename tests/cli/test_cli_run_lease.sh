# Concurrent writers of one database with real processes (issue 27, item 2): a `run` A that
# is still going when `sweep --set seed=1,2 -j 2` on the same database resumes is left alone
# (its lease: results/rdb_lease.h), so A ends complete in its own row with seed 1's digest
# and rows, the sweep's seed-2 run gets a new id, the sweep says what it did, and a later
# resume finds both points done.  Repeated, since it is a race.  Also: a run whose row is
# deleted under it stops with an error naming the database and the run, and its id is not
# given again; a killed run is abandoned and redone; a heartbeat ahead of this host's clock
# is live within a bound and stale beyond it; sweep --quiet that exits 1 says why.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
LONG=(--set stop.updates=20000) # about 1.5 s here; the checks do not depend on the duration

q() { sqlite3 -cmd ".timeout 60000" "$@"; }
rows_of() { # a run's metric rows, id-free
  q "$1" "SELECT name, update_idx, vtime_ns, quote(value) FROM metrics WHERE run_id = $2 ORDER BY 1, 2"
}
# wait_running DB: until DB holds a 'running' run (at most 60 s); false if none appeared
wait_running() {
  for _ in $(seq 3000); do
    [ -s "$1" ] && [ "$(q "$1" "SELECT count(*) FROM runs WHERE status = 'running'" 2>/dev/null)" = 1 ] && return 0
    sleep 0.02
  done
  return 1
}

"$SGDSIM" sweep "$S" --set seed=1,2 "${LONG[@]}" -j1 --db "$TMP/ref.db" --quiet || fail "reference sweep"
ref1=$(q "$TMP/ref.db" "SELECT digest FROM runs WHERE seed = 1")
ref2=$(q "$TMP/ref.db" "SELECT digest FROM runs WHERE seed = 2")
rows_of "$TMP/ref.db" "$(q "$TMP/ref.db" "SELECT id FROM runs WHERE seed = 1")" > "$TMP/ref1.txt"
[ -s "$TMP/ref1.txt" ] || fail "reference run has no rows"

nlive=0
for attempt in 1 2 3 4; do
  DB="$TMP/a$attempt.db"
  "$SGDSIM" run "$S" --seed 1 "${LONG[@]}" --db "$DB" --quiet 2> "$TMP/a.err" &
  a_pid=$!
  wait_running "$DB" || fail "attempt $attempt: run A never appeared"
  "$SGDSIM" sweep "$S" --set seed=1,2 "${LONG[@]}" -j 2 --db "$DB" > /dev/null 2> "$TMP/sweep.err"
  sweep_rc=$?
  wait "$a_pid"; a_rc=$?
  [ "$a_rc" = 0 ] || fail "attempt $attempt: run A exit $a_rc: $(cat "$TMP/a.err")"
  [ "$sweep_rc" = 0 ] || [ "$sweep_rc" = 1 ] || fail "attempt $attempt: sweep exit $sweep_rc"
  err=$(cat "$TMP/sweep.err")
  case "$err" in *"stays 'running'"*) fail "attempt $attempt: the sweep says a run stays running: $err" ;; esac
  case "$err" in *"removed"*) fail "attempt $attempt: the sweep removed a run: $err" ;; esac
  # While A was live, the sweep left its point alone and said so (A may also have ended
  # first, when the point is simply done).
  case "$err" in
    *"not starting seed=1 "*": run 1 of this point is still running (pid $a_pid on this host)"*) live=1 ;;
    *"1 already done"*) live=0 ;;
    *) fail "attempt $attempt: the sweep neither left A alone nor found it done: $err" ;;
  esac
  # A's row and rows: intact, complete, seed 1's.
  [ "$(q "$DB" "SELECT id, seed, status, digest FROM runs WHERE id = 1")" = "1|1|complete|$ref1" ] ||
    fail "attempt $attempt: run 1 is not A's: $(q "$DB" "SELECT id, seed, status, digest FROM runs")"
  rows_of "$DB" 1 | cmp -s - "$TMP/ref1.txt" || fail "attempt $attempt: run 1's rows are not seed 1's"
  # The sweep's seed-2 run: a new id, seed 2's digest; no other run; no lease left.
  [ "$(q "$DB" "SELECT count(*), min(id) > 1, min(digest) FROM runs WHERE seed = 2")" = "1|1|$ref2" ] ||
    fail "attempt $attempt: the seed-2 run: $(q "$DB" "SELECT id, seed, status, digest FROM runs")"
  [ "$(q "$DB" "SELECT count(*) FROM runs; SELECT count(*) FROM run_owner")" = $'2\n0' ] ||
    fail "attempt $attempt: extra runs or leases"
  if [ "$live" = 1 ] && [ "$sweep_rc" = 1 ]; then
    case "$err" in *"still being run by another process; run the sweep again"*) ;;
      *) fail "attempt $attempt: sweep exit 1 without saying why: $err" ;; esac
  fi
  nlive=$((nlive + live))
  # A later resume does the right thing: nothing left to do.
  out=$("$SGDSIM" sweep "$S" --set seed=1,2 "${LONG[@]}" -j 2 --db "$DB" 2>&1) || fail "attempt $attempt: resume: $out"
  case "$out" in *"2 already done"*"0 to run"*) ;; *) fail "attempt $attempt: resume: $out" ;; esac
  [ "$(q "$DB" "PRAGMA integrity_check")" = ok ] || fail "attempt $attempt: integrity_check"
done

[ "$nlive" -ge 1 ] || fail "run A had always ended before the sweep looked at it: nothing was tested"

# A run whose row is deleted under it stops, saying so, and writes nothing more.
DB="$TMP/gone.db"
"$SGDSIM" run "$S" --seed 1 "${LONG[@]}" --db "$DB" --quiet 2> "$TMP/gone.err" &
g_pid=$!
wait_running "$DB" || fail "the run to delete never appeared"
q "$DB" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 1" || fail "cannot delete run 1"
wait "$g_pid"; g_rc=$?
[ "$g_rc" = 1 ] || fail "a run whose row was deleted: exit $g_rc"
err=$(cat "$TMP/gone.err")
case "$err" in *"$DB: run 1 "*"deleted or changed by another process"*) ;; *) fail "no message naming the database and run 1: $err" ;; esac
case "$err" in *"stays 'running'"*) fail "a deleted run said to stay running: $err" ;; esac
[ "$(q "$DB" "SELECT count(*) FROM runs; SELECT count(*) FROM metrics")" = $'0\n0' ] ||
  fail "rows written after the delete"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "a run after the delete"
[ "$(q "$DB" "SELECT id FROM runs")" = 2 ] || fail "id 1 was given again: $(q "$DB" "SELECT id FROM runs")"

# A killed run's owner is gone: the sweep removes it and redoes the point.
DB="$TMP/killed.db"
"$SGDSIM" run "$S" --seed 1 "${LONG[@]}" --db "$DB" --quiet &
k_pid=$!
wait_running "$DB" || fail "the run to kill never appeared"
kill -KILL "$k_pid"; wait "$k_pid" 2>/dev/null
out=$("$SGDSIM" sweep "$S" --set seed=1,2 "${LONG[@]}" -j 2 --db "$DB" 2>&1) || fail "sweep after a kill: $out"
case "$out" in *"redoing seed=1 "*"(removed 1 unfinished earlier run)"*) ;; *) fail "killed run not redone: $out" ;; esac
runs=$(q "$DB" "SELECT count(*), sum(seed = 1 AND digest = '$ref1'), sum(seed = 2 AND digest = '$ref2'),
  sum(id = 1) FROM runs")
[ "$runs" = "2|1|1|0" ] || fail "after the kill (runs, seed 1's, seed 2's, id 1): $runs"
# A lease of another host whose heartbeat is ahead of this host's clock (clock skew, or a
# planted value; planted here, relative to now, so no waiting): 2 minutes ahead, within the
# bound (RDB_LEASE_AHEAD_MS, 15 minutes), the run is live and the sweep says how far ahead
# rather than "-120 s ago"; ten years ahead it is stale like an old one, and the point is
# redone instead of being left alone forever.
DB="$TMP/ahead.db"
"$SGDSIM" run "$S" --seed 1 "${LONG[@]}" --db "$DB" --quiet &
k_pid=$!
wait_running "$DB" || fail "the run to plant a heartbeat in never appeared"
kill -KILL "$k_pid"; wait "$k_pid" 2>/dev/null
NOW_MS="CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
q "$DB" "UPDATE run_owner SET host = 'elsewhere', heartbeat_ms = $NOW_MS + 120000" ||
  fail "cannot plant a heartbeat"
out=$("$SGDSIM" sweep "$S" --set seed=1,2 "${LONG[@]}" -j 2 --db "$DB" 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "a live run of another host: sweep exit $rc: $out"
ahead=$(printf '%s\n' "$out" | sed -n "s/.*not starting seed=1 .*(pid $k_pid on host elsewhere, last commit \([0-9]*\) s ahead of this host's clock); it is left alone/\1/p")
[ -n "$ahead" ] && [ "$ahead" -gt 0 ] && [ "$ahead" -le 120 ] || fail "a heartbeat 2 minutes ahead: $out"
# The same with --quiet: still exit 1, and still saying why (it used to say nothing).
out=$("$SGDSIM" sweep "$S" --set seed=1,2 "${LONG[@]}" -j 2 --db "$DB" --quiet 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "sweep --quiet with a live run of another host: exit $rc: $out"
case "$out" in
  *"1 point is still being run by another process; run the sweep again"*"1 running in another process"*) ;;
  *) fail "sweep --quiet exits 1 without saying why: '$out'" ;;
esac
q "$DB" "UPDATE run_owner SET heartbeat_ms = $NOW_MS + 315360000000" || fail "cannot plant a heartbeat"
out=$("$SGDSIM" sweep "$S" --set seed=1,2 "${LONG[@]}" -j 2 --db "$DB" 2>&1) ||
  fail "a heartbeat ten years ahead: sweep: $out"
case "$out" in *"redoing seed=1 "*"(removed 1 unfinished earlier run)"*) ;; *) fail "a heartbeat ten years ahead was not taken for stale: $out" ;; esac
[ "$(q "$DB" "SELECT count(*), sum(seed = 1 AND digest = '$ref1'), sum(id = 1) FROM runs")" = "2|1|0" ] ||
  fail "after the stale heartbeat: $(q "$DB" "SELECT id, seed, status, digest FROM runs")"
finish
