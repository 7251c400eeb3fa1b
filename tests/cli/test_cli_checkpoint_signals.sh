# Stop signals while a run starts (loading its data, building its state): the run is
# stopped at a known point of its start-up by a preloaded shim (stop_shim.c: SIGSTOP at its
# first random stream), sent the signal, then continued -- no sleep decides the moment.
#   - SIGTERM, SIGUSR1 and SIGINT never kill it by their default action: it exits 75 having
#     written nothing (no database, no checkpoint); a resume stopped so leaves the database
#     and the checkpoint as they were, and resumes afterwards;
#   - a sweep whose process group gets SIGTERM while a point starts (a scheduler's
#     preemption), the point acting on it before the sweep passes its own on, leaves that
#     point pending, not failed, and exits 75; run again, it completes every point;
#   - --checkpoint-exit-at at or below the checkpoint's update is refused (exit 2).
. "$(dirname "$0")/lib.sh"
SHIM="$2"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
# The shim comes before the sanitizer runtime in an ASan build; that is intended here.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
S="$TMP/s.json"; small_scenario "$S"
cd "$TMP" || exit 1

state() { awk '{print $3}' "/proc/$1/stat" 2>/dev/null; }
wait_stopped() { # PID: until it is stopped (T) or gone
  while [ -e "/proc/$1" ] && [ "$(state "$1")" != T ]; do sleep 0.01; done
  [ "$(state "$1")" = T ] || fail "process $1 never stopped at the shim"
}
# start_stopped ARGS...: sgdsim run ARGS in the background, stopped at the shim; sets pid.
start_stopped() {
  LD_PRELOAD="$SHIM" "$SGDSIM" run "$@" 2>err.txt & pid=$!
  wait_stopped "$pid"
}

for sig in TERM USR1 INT; do
  rm -f a.db c.ckpt
  start_stopped "$S" --db a.db --quiet --checkpoint c.ckpt
  kill -s "$sig" "$pid"; kill -s CONT "$pid"; wait "$pid"; rc=$?
  [ "$rc" = 75 ] || fail "SIG$sig while starting: exit $rc, wanted 75: $(cat err.txt)"
  grep -q "stopped by SIG$sig before the run began; nothing was recorded" err.txt ||
    fail "SIG$sig: no message: $(cat err.txt)"
  [ ! -e a.db ] && [ ! -e c.ckpt ] || fail "SIG$sig while starting: something was written: $(ls)"
done

# A resume stopped while it starts.
"$SGDSIM" run "$S" --db a.db --quiet --checkpoint c.ckpt --checkpoint-exit-at 20; [ $? = 75 ] || fail "no checkpoint"
before=$(sha256sum a.db c.ckpt)
start_stopped "$S" --db a.db --quiet --resume c.ckpt
kill -s TERM "$pid"; kill -s CONT "$pid"; wait "$pid"; rc=$?
[ "$rc" = 75 ] || fail "SIGTERM while resuming: exit $rc, wanted 75: $(cat err.txt)"
grep -q "a.db and c.ckpt are as they were" err.txt || fail "resume: no message: $(cat err.txt)"
[ "$(sha256sum a.db c.ckpt)" = "$before" ] || fail "the database or the checkpoint changed"
expect_exit 2 "--checkpoint-exit-at 20: the checkpoint is after update 20 already" \
  -- "$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt --checkpoint-exit-at 20
expect_exit 2 "--checkpoint-exit-at 3: the checkpoint is after update 20 already" \
  -- "$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt --checkpoint-exit-at 3
[ "$(sha256sum a.db c.ckpt)" = "$before" ] || fail "a refused --checkpoint-exit-at changed something"
"$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt || fail "the resume after them failed"
[ "$(sqlite3 a.db "SELECT status || ' ' || resumes FROM runs")" = "complete 1" ] || fail "not complete after one resume"

# A sweep preempted while its first point starts: the whole process group gets SIGTERM.
LD_PRELOAD="$SHIM" setsid "$SGDSIM" sweep "$S" --set seed=3,4 --db w.db -j 1 \
  --checkpoint-dir ck 2>sweep.txt & sweep=$!
child=""
while [ -z "$child" ] && [ -e "/proc/$sweep" ]; do
  child=$(cat /proc/"$sweep"/task/*/children 2>/dev/null | awk 'NF {print $1; exit}')
  [ -n "$child" ] || sleep 0.01
done
[ -n "$child" ] || fail "the sweep started no point"
wait_stopped "$child"
# The order that lost the point: the group's SIGTERM reaches the point, which acts on it,
# before the sweep passes its own on -- forced by holding the sweep stopped meanwhile.
kill -s STOP "$sweep"; wait_stopped "$sweep"
kill -s TERM -- "-$sweep"; kill -s CONT "$child"
while [ -e "/proc/$child" ] && [ "$(state "$child")" != Z ]; do sleep 0.01; done
kill -s CONT "$sweep"; wait "$sweep"; rc=$?
[ "$rc" = 75 ] || fail "preempted sweep: exit $rc, wanted 75: $(cat sweep.txt)"
grep -q "0 failed" sweep.txt || fail "preempted sweep: a point failed: $(cat sweep.txt)"
[ "$(sqlite3 w.db "SELECT count(*) FROM runs WHERE status = 'failed'" 2>/dev/null || echo 0)" = 0 ] ||
  fail "a failed run was recorded"
"$SGDSIM" sweep "$S" --set seed=3,4 --db w.db -j 1 --checkpoint-dir ck 2>sweep2.txt || fail "the sweep run again: $(cat sweep2.txt)"
[ "$(sqlite3 w.db "SELECT count(*) FROM runs WHERE status = 'complete'")" = 2 ] || fail "not every point complete"
finish
