# A run's row and its exit code tell the same story: 0 with 'complete', 1 with 'failed'
# (and the reason in status_detail), 2 with no row at all.
#   - a trace that cannot be written: a path whose directory is missing is bad input (exit 2,
#     no row); a trace whose writes fail (/dev/full) fails the run, whose row says so;
#   - a database locked by another process for longer than the busy timeout (3 s here, by
#     SGDSIM_DB_BUSY_TIMEOUT) when the run ends: the end is retried, and once the lock is gone
#     the row says 'failed' with the reason, as the exit code does;
#   - SGDSIM_DB_BUSY_TIMEOUT itself: a run gives up on a locked database after that long,
#     while the lock is still held, and a value that is not seconds is bad input (exit 2).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
q() { sqlite3 "$1" "$2"; }

# 1. A trace in a directory that does not exist: bad input, nothing recorded.
DB="$TMP/t.db"
expect_exit 2 "$TMP/no/such/dir/t.json" -- "$SGDSIM" run "$S" --db "$DB" --trace "$TMP/no/such/dir/t.json"
[ "$(q "$DB" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" = 0 ] || fail "bad trace path: a row was written"

# 2. A trace whose writes fail: the run fails, and its row says why.
if [ -w /dev/full ]; then
  out=$("$SGDSIM" run "$S" --db "$DB" --trace /dev/full --quiet 2>&1); rc=$?
  [ "$rc" = 1 ] || fail "trace to /dev/full: exit $rc, wanted 1 ($out)"
  case "$out" in *"/dev/full"*) ;; *) fail "trace to /dev/full: the message does not name the trace: $out" ;; esac
  row=$(q "$DB" "SELECT status || '|' || coalesce(status_detail, '') FROM runs ORDER BY id DESC LIMIT 1")
  case "$row" in "failed|"*"trace"*"/dev/full"*) ;; *) fail "trace to /dev/full: row is '$row' after exit $rc" ;; esac
  # The rows themselves are all there: the failure is the trace's alone.
  [ "$(q "$DB" "SELECT count(*) FROM metrics WHERE run_id = (SELECT max(id) FROM runs)")" -gt 0 ] ||
    fail "trace to /dev/full: the run's metrics were not kept"
else
  echo "/dev/full is not writable here: the failing-trace case is not run"
fi

# 3. The database locked by another process when the run ends.  The run is stopped
#    (SIGSTOP) once its row appears and continued only when the lock is held, so the lock
#    is there before the end however fast this machine is; it writes few rows (about
#    2000 < 4096), and any batch it writes while locked fails too, which can only add to
#    the reasons it fails.
DB="$TMP/lock.db"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "reference run"
SGDSIM_DB_BUSY_TIMEOUT=3 "$SGDSIM" run "$S" --db "$DB" --quiet --set stop.updates=10000 \
  --set eval.every=0 \
  --set eval.train_loss_every=10 --set model.hidden=[512] >"$TMP/run.out" 2>&1 &
run_pid=$!
for _ in $(seq 1 3000); do
  [ "$(q "$DB" "SELECT count(*) FROM runs WHERE status = 'running'" 2>/dev/null)" = 1 ] && break
  sleep 0.02
done
kill -STOP "$run_pid"
# The lock is held until the run has reported its first failed try (after the 3 s busy
# timeout), and a second more: a run that gives up at once exits with its row 'running'.
until_locked_reported() {
  for _ in $(seq 1 600); do
    grep -q "locked" "$TMP/run.out" && break
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.1
  done
  sleep 1
}
(echo "BEGIN IMMEDIATE;"; until_locked_reported; echo "COMMIT;") | sqlite3 "$DB" &
lock_pid=$!
for _ in $(seq 1 600); do  # until the holder has the lock
  sqlite3 -cmd ".timeout 0" "$DB" "BEGIN IMMEDIATE; COMMIT;" 2>/dev/null || break
  sleep 0.05
done
kill -CONT "$run_pid"
wait "$run_pid"; rc=$?
wait "$lock_pid"
out=$(cat "$TMP/run.out")
row=$(q "$DB" "SELECT status || '|' || coalesce(status_detail, '') FROM runs WHERE id = 2")
case "$rc:$row" in
  1:failed\|*) case "$row" in *"locked"*|*"busy"*) ;; *) fail "locked end: row '$row' does not say why" ;; esac ;;
  *) fail "locked end: exit $rc but the row is '$row' ($out)" ;;
esac

# 4. SGDSIM_DB_BUSY_TIMEOUT: with 1 s the run gives up on a database another process holds
#    locked for 30 s; the holder is still there when it does (with the default two minutes
#    the run would still be waiting, and would end 'complete' once the lock went away).
DB="$TMP/wait.db"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "reference run"
(echo ".timeout 5000"; echo "BEGIN IMMEDIATE;"
 for _ in $(seq 1 300); do [ -e "$TMP/release" ] && break; sleep 0.1; done
 echo "COMMIT;") | sqlite3 "$DB" &
lock_pid=$!
for _ in $(seq 1 100); do  # until the holder has the lock
  sqlite3 -cmd ".timeout 0" "$DB" "BEGIN IMMEDIATE; COMMIT;" 2>/dev/null || break
  sleep 0.05
done
out=$(SGDSIM_DB_BUSY_TIMEOUT=1 "$SGDSIM" run "$S" --db "$DB" --quiet 2>&1); rc=$?
kill -0 "$lock_pid" 2>/dev/null || fail "the lock was gone before the run gave up ($rc: $out)"
[ "$rc" != 0 ] || fail "a 1 s busy timeout did not give up on a locked database"
case "$out" in *locked*) ;; *) fail "locked database: the error does not say so: $out" ;; esac
touch "$TMP/release"; wait "$lock_pid"
SGDSIM_DB_BUSY_TIMEOUT=1 "$SGDSIM" run "$S" --db "$DB" --quiet || fail "run after the lock"
for bad in abc -1 1e9 "2 s" 0x10 " 5" "5 " inf nan; do
  SGDSIM_DB_BUSY_TIMEOUT="$bad" expect_exit 2 "SGDSIM_DB_BUSY_TIMEOUT" -- "$SGDSIM" run "$S" \
    --db "$DB" --quiet
done
finish
