# run --checkpoint writes its files in the background (common/ckpt_writer.h) while the run
# goes on: a run writing a checkpoint after every update (each write waiting for the one
# before) gives the digest and every row of a run without checkpoints, for CSGD and FASGD on
# the timed driver, on one thread and on two; a write that fails (/dev/full) ends the run
# failed with the checkpoint's update and the file named, its rows kept, and a
# --checkpoint-exit-at whose write fails does not exit 75; a run SIGKILLed while a write is
# in flight (its temporary file beside the checkpoint) leaves the previous checkpoint whole,
# and resumed from it ends with the uninterrupted run's rows; so does a sweep's point killed
# mid-write together with its sweep, and the sweep run again leaves no file, the killed
# write's temporary file included.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
F="$TMP/f.json"  # FASGD, timed driver (its schedule runs ahead of the checkpoints)
sed -e 's/"algorithm": { "name": "csgd" }/"algorithm": { "name": "fasgd", "driver": "timed", "server_time_s": 0.0005 }/' \
    -e 's/"momentum": 0.9/"momentum": 0/' "$S" > "$F"

dump() { # every reproducible column of run 1 of db $1
  sqlite3 "$1" "SELECT run_key, status, vtime_ns, updates, events, digest FROM runs WHERE id=1;
                SELECT update_idx, vtime_ns, name, quote(value) FROM metrics WHERE run_id=1 ORDER BY name, update_idx;
                SELECT kind, sent_msgs, sent_bytes, skipped_msgs, skipped_bytes FROM traffic WHERE run_id=1 ORDER BY kind;
                SELECT 'tau', tau, count FROM staleness WHERE run_id=1 ORDER BY tau;
                SELECT 'age', age, count FROM version_age WHERE run_id=1 ORDER BY age;"
}
same_rows() { # DB REF WHAT
  dump "$1" > "$TMP/got.txt"; dump "$2" > "$TMP/want.txt"
  [ "$(wc -l < "$TMP/want.txt")" -gt 10 ] || fail "$3: too few rows to compare"
  cmp -s "$TMP/got.txt" "$TMP/want.txt" || { fail "$3: rows differ from the run without checkpoints"; diff "$TMP/got.txt" "$TMP/want.txt" | head -5 >&2; }
}

# The same bits with a background write after every update.
for scen in "$S" "$F"; do
  name=$(basename "$scen" .json)
  "$SGDSIM" run "$scen" --db "$TMP/$name-ref.db" --quiet || fail "$name: run without checkpoints failed"
  for threads in 1 2; do
    db="$TMP/$name-$threads.db"
    "$SGDSIM" run "$scen" --db "$db" --quiet --threads "$threads" --checkpoint "$TMP/$name-$threads.ckpt" \
      --checkpoint-every-updates 1 || fail "$name/$threads: run with checkpoints failed"
    same_rows "$db" "$TMP/$name-ref.db" "$name/$threads"
  done
done

# A failed write ends the run, naming the file and the checkpoint's update; its rows stay.
if [ -w /dev/full ]; then
  db="$TMP/full.db"
  "$SGDSIM" run "$S" --db "$db" --quiet --checkpoint /dev/full --checkpoint-every-updates 5 2>"$TMP/err"; rc=$?
  [ "$rc" = 1 ] || fail "/dev/full: exit $rc, wanted 1: $(cat "$TMP/err")"
  detail=$(sqlite3 "$db" "SELECT status || ': ' || status_detail FROM runs WHERE id=1")
  case "$detail" in "failed: checkpoint after update 5: /dev/full: cannot write"*) ;;
    *) fail "/dev/full: status $detail" ;; esac
  n=$(sqlite3 "$db" "SELECT count(*) FROM metrics WHERE run_id=1 AND update_idx <= 5")
  [ "$n" -gt 0 ] || fail "/dev/full: the rows up to the checkpoint are missing"
  "$SGDSIM" run "$S" --db "$TMP/full2.db" --quiet --checkpoint /dev/full --checkpoint-exit-at 10 2>"$TMP/err"; rc=$?
  [ "$rc" = 1 ] || fail "/dev/full, --checkpoint-exit-at: exit $rc, wanted 1 (not 75): $(cat "$TMP/err")"
fi

# SIGKILL while a write is in flight: the previous checkpoint is whole and resumes.
K="$TMP/k.json"
sed -e 's/"updates": 60/"updates": 4000/' -e 's/"every": 20/"every": 1000/' "$F" > "$K"
"$SGDSIM" run "$K" --db "$TMP/k-ref.db" --quiet || fail "kill: reference run failed"
caught=0
for try in $(seq 20); do
  db="$TMP/k$try.db"; ck="$TMP/k$try.ckpt"
  "$SGDSIM" run "$K" --db "$db" --quiet --checkpoint "$ck" --checkpoint-every-updates 1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    [ -f "$ck" ] && [ -n "$(find "$TMP" -name "k$try.ckpt.tmp.*" 2>/dev/null)" ] && break
  done
  kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  [ -f "$ck" ] || { fail "kill: no checkpoint was written"; break; }
  [ -n "$(find "$TMP" -name "k$try.ckpt.tmp.*")" ] || continue # killed between two writes: again
  caught=1; echo "kill: killed with a write in flight on try $try"
  "$SGDSIM" run "$K" --db "$db" --quiet --resume "$ck" || fail "kill: resume from the previous checkpoint failed"
  same_rows "$db" "$TMP/k-ref.db" "kill, resumed"
  break
done
[ "$caught" = 1 ] || fail "kill: never caught a write in flight in 20 tries"

# The same under a sweep, whose point dies with it: the sweep run again resumes the point,
# which ends complete with the uninterrupted digest, and leaves its directory empty (the
# temporary file of the killed write removed too).
want=$(sqlite3 "$TMP/k-ref.db" "SELECT digest FROM runs WHERE id=1")
caught=0
for try in $(seq 20); do
  db="$TMP/ks$try.db"; dir="$TMP/ks$try"
  "$SGDSIM" sweep "$K" --db "$db" --quiet --checkpoint-dir "$dir" --checkpoint-every-updates 1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    [ -n "$(find "$dir" -name '*.ckpt.tmp.*' 2>/dev/null)" ] && [ -n "$(find "$dir" -name '*.ckpt' 2>/dev/null)" ] && break
  done
  # The point is killed at once, as it would die with a node: waiting for it to die with the
  # sweep would give its write time to end, the more so the slower the build (TSan).  The
  # sweep is stopped first, so that it never sees its point die.
  kill -STOP "$pid" 2>/dev/null
  kids=$(ps -o pid= --ppid "$pid")
  for k in $kids; do kill -KILL "$k" 2>/dev/null; done
  kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  for k in $kids; do while kill -0 "$k" 2>/dev/null; do sleep 0.01; done; done
  [ -n "$(find "$dir" -name '*.ckpt.tmp.*' 2>/dev/null)" ] || continue
  caught=1; echo "sweep kill: killed with a write in flight on try $try"
  "$SGDSIM" sweep "$K" --db "$db" --quiet --checkpoint-dir "$dir" --checkpoint-every-updates 1 || fail "sweep kill: the sweep run again failed"
  [ "$(sqlite3 "$db" "SELECT status || ' ' || resumes || ' ' || digest FROM runs")" = "complete 1 $want" ] ||
    fail "sweep kill: $(sqlite3 "$db" "SELECT status, resumes, digest FROM runs"), wanted complete 1 $want"
  [ -z "$(ls -A "$dir")" ] || fail "sweep kill: files left in the checkpoint directory: $(ls -A "$dir")"
  break
done
[ "$caught" = 1 ] || fail "sweep kill: never caught a write in flight in 20 tries"
finish
