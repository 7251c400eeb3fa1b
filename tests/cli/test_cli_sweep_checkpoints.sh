# sweep --checkpoint-dir: a sweep stopped mid-point and run again gives the database of an
# uninterrupted sweep -- every column of runs but ids, wall-clock columns, the command line
# and resumes, every metric, traffic, staleness and version_age row, the digests -- and
# leaves no checkpoint file.  Stopped with SIGTERM (exit 75, each running point
# checkpointed), and killed with SIGKILL, then stopped with SIGUSR1 (75) and SIGINT (1),
# resuming from the last checkpoints each time.  Points of CSGD and of FASGD (timed driver).
# SIGTERM to the whole process group (a scheduler's time limit, scancel): each point, which
# has the signal too, still writes its checkpoint rather than taking the sweep's as a second
# signal that kills at once.  A checkpoint of another database, a foreign file in its place
# and a corrupted checkpoint exit 2 naming the file and keep it and the run; bad options and
# an unusable directory exit 2 naming them before anything is written.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
AXES=(--set 'algorithm={"name":"csgd"},{"name":"fasgd","driver":"timed","server_time_s":0.0005}'
      --set optimizer.momentum=0 --set seed=1,2 --set stop.updates=12000 --set eval.every=1000)
CK=(--checkpoint-every-updates 400)

dump() { # every reproducible column, keyed by run_key (ids depend on start order)
  sqlite3 "$1" "SELECT run_key, scenario, scenario_path, algorithm, workers, seed, backend, config_json, config_hash,
      sgdsim_version, git_rev, build_options, blas_core, host, status, status_detail, vtime_ns, updates, events,
      digest, prev_run_key, prev_config_hash, key_note, sweep_axes FROM runs ORDER BY run_key;
    SELECT r.run_key, m.update_idx, m.vtime_ns, m.name, quote(m.value), m.nonfinite FROM metrics m JOIN runs r ON r.id = m.run_id ORDER BY 1, 4, 2;
    SELECT r.run_key, t.kind, t.sent_msgs, t.sent_bytes, t.skipped_msgs, t.skipped_bytes FROM traffic t JOIN runs r ON r.id = t.run_id ORDER BY 1, 2;
    SELECT r.run_key, 'tau', s.tau, s.count FROM staleness s JOIN runs r ON r.id = s.run_id ORDER BY 1, 3;
    SELECT r.run_key, 'age', v.age, v.count FROM version_age v JOIN runs r ON r.id = v.run_id ORDER BY 1, 3;"
}
"$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$TMP/ref.db" --quiet || fail "reference sweep failed"
dump "$TMP/ref.db" > "$TMP/ref.txt"
[ "$(grep -c '|tau|' "$TMP/ref.txt")" -gt 0 ] || fail "the reference has no staleness rows to compare"

children() { # the pids whose parent is $1
  local f line rest ppid
  for f in /proc/[0-9]*/stat; do
    { read -r line < "$f"; } 2>/dev/null || continue
    rest=${line##*) }
    read -r _ ppid _ <<< "$rest"
    if [ "$ppid" = "$1" ]; then f=${f#/proc/}; echo "${f%/stat}"; fi
  done
}
# stop_mid_point SIG DB DIR: starts the sweep; once a point has written a checkpoint newer than
# $TMP/mark, stops its points (SIGSTOP, so that none can finish meanwhile), sends SIG to the
# sweep, lets the points go on and waits; sets rc to the sweep's exit code.
stop_mid_point() {
  local sig="$1" db="$2" dir="$3" pid kids f
  "$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$db" --quiet --checkpoint-dir "$dir" "${CK[@]}" 2>"$TMP/err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    f=$(find "$dir" -type f -name '*.ckpt' -newer "$TMP/mark" 2>/dev/null | head -1)
    [ -n "$f" ] && break
    sleep 0.01
  done
  kids=$(children "$pid")
  [ -n "$kids" ] || fail "$sig: no point was running when the first checkpoint appeared"
  kill -STOP $kids 2>/dev/null
  kill -s "$sig" "$pid"
  [ "$sig" = KILL ] || { sleep 0.1; kill -CONT $kids 2>/dev/null; }
  wait "$pid" 2>/dev/null; rc=$?
  for k in $kids; do while kill -0 "$k" 2>/dev/null; do sleep 0.01; done; done # died with it
  touch "$TMP/mark"
}
same_as_ref() { # DB WHAT
  dump "$1" > "$TMP/got.txt"
  cmp -s "$TMP/ref.txt" "$TMP/got.txt" || { fail "$2: rows differ from the uninterrupted sweep"; diff "$TMP/ref.txt" "$TMP/got.txt" | head -5 >&2; }
  [ "$(sqlite3 "$1" "SELECT count(*) FROM runs")" = 4 ] || fail "$2: not one run per point"
  [ "$(sqlite3 "$1" "SELECT sum(resumes) FROM runs")" -ge 1 ] || fail "$2: no point was resumed from a checkpoint"
}
no_files_left() { # DIR WHAT
  [ -z "$(ls -A "$1")" ] || fail "$2: files left in the checkpoint directory: $(ls -A "$1")"
}

# SIGTERM: every running point writes its checkpoint and the sweep exits 75.
touch -d '2000-01-01' "$TMP/mark"
DB="$TMP/t.db"; DIR="$TMP/t-ckpt"
stop_mid_point TERM "$DB" "$DIR"
[ "$rc" = 75 ] || fail "SIGTERM: exit $rc, wanted 75: $(cat "$TMP/err")"
n=$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE status = 'failed' AND status_detail LIKE '%with a checkpoint in%'")
[ "$n" -ge 1 ] || fail "SIGTERM: no point stopped with a checkpoint"
for key in $(sqlite3 "$DB" "SELECT run_key FROM runs WHERE status = 'failed'"); do
  [ -f "$DIR/$key.ckpt" ] || fail "SIGTERM: point $key stopped without its checkpoint file"
done
[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE status NOT IN ('failed', 'complete')")" = 0 ] || fail "SIGTERM: a run left running"

# Refusals on a stopped sweep, each leaving the checkpoint and its run as they were.
sums() { (cd "$DIR" && sha256sum ./*.ckpt); sqlite3 "$DB" "SELECT id, status, updates FROM runs ORDER BY id"; }
before=$(sums)
expect_exit 2 "does not hold as an unfinished run" -- "$SGDSIM" sweep "$S" "${AXES[@]}" --db "$TMP/other.db" --quiet --checkpoint-dir "$DIR"
[ "$(sqlite3 "$TMP/other.db" "SELECT count(*) FROM runs")" = 0 ] || fail "another database: a point ran"
cp "$DB" "$TMP/c.db"; cp -r "$DIR" "$TMP/c-ckpt"
f=$(ls "$TMP/c-ckpt"/*.ckpt | head -1); size=$(stat -c %s "$f")
printf '\x55' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_exit 2 "corrupted" -- "$SGDSIM" sweep "$S" "${AXES[@]}" --db "$TMP/c.db" --quiet --checkpoint-dir "$TMP/c-ckpt"
"$SGDSIM" sweep "$S" "${AXES[@]}" --db "$TMP/c.db" --quiet --checkpoint-dir "$TMP/c-ckpt" 2>&1 | grep -q "was refused (above) and is kept" || fail "corrupted: no advice on what to do"
[ -f "$f" ] || fail "corrupted: the checkpoint was deleted"
[ "$(sqlite3 "$TMP/c.db" "SELECT count(*) FROM runs WHERE run_key = '$(basename "$f" .ckpt)' AND status = 'failed'")" = 1 ] || fail "corrupted: the run was not kept"
[ "$before" = "$(sums)" ] || fail "refusals changed the checkpoints or runs"

"$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$DB" --quiet --checkpoint-dir "$DIR" "${CK[@]}" || fail "resume after SIGTERM failed"
same_as_ref "$DB" "SIGTERM, resumed"
no_files_left "$DIR" "SIGTERM, resumed"

# SIGKILL (the points die with the sweep), then SIGUSR1 and SIGINT, each mid-point; every
# resume starts from the last checkpoints written.
DB="$TMP/k.db"; DIR="$TMP/k-ckpt"
stop_mid_point KILL "$DB" "$DIR"
[ "$rc" = 137 ] || fail "SIGKILL: exit $rc"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE status = 'running'")" -ge 1 ] || fail "SIGKILL: no point was killed mid-run"
stop_mid_point USR1 "$DB" "$DIR"
[ "$rc" = 75 ] || fail "SIGUSR1: exit $rc, wanted 75: $(cat "$TMP/err")"
stop_mid_point INT "$DB" "$DIR" # SIGINT keeps its meaning: an interrupted sweep
[ "$rc" = 1 ] || fail "SIGINT: exit $rc, wanted 1: $(cat "$TMP/err")"
"$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$DB" --quiet --checkpoint-dir "$DIR" "${CK[@]}" || fail "resume after SIGKILL failed"
same_as_ref "$DB" "SIGKILL, SIGUSR1, SIGINT, resumed"
no_files_left "$DIR" "SIGKILL, resumed"

# SIGTERM to the process group: the point takes it first (the sweep, stopped, holds its own),
# then, stopped, is sent the sweep's; let go, it must write its checkpoint, not die of a
# second signal.  Updates slow enough (an MLP of two 1024-wide layers) that the point is
# caught between taking the signal and its next update.
mask_has() { # PID FIELD BITMASK: whether /proc/PID/status's FIELD (a hex mask) has a bit of BITMASK
  local line
  while read -r line; do
    case "$line" in "$2:"*) (( 0x${line##*[[:space:]]} & $3 )); return ;; esac
  done < "/proc/$1/status"
  return 1
}
until_stopped() { # PID: waits until every thread of PID is stopped (state T), or PID is gone
  local t state deadline=$((SECONDS + 60))
  while [ -d "/proc/$1" ]; do
    state=T
    for t in /proc/"$1"/task/*/stat; do
      read -r _ _ st _ < "$t" 2>/dev/null || continue
      [ "$st" = T ] || state=running
    done
    [ "$state" = T ] && return
    [ "$SECONDS" -lt "$deadline" ] || { fail "process $1 did not stop"; return; }
    sleep 0.01
  done
}
if command -v setsid >/dev/null; then
  G=(--set data.dim=100 --set 'model.hidden=[1024,1024]' --set stop.updates=60 --set eval.every=20)
  DB="$TMP/g.db"; DIR="$TMP/g-ckpt"
  setsid "$SGDSIM" sweep "$S" "${G[@]}" --db "$DB" --quiet --checkpoint-dir "$DIR" --checkpoint-every-updates 10 2>"$TMP/err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && [ -z "$(find "$DIR" -type f -name '*.ckpt' 2>/dev/null)" ]; do sleep 0.01; done
  kid=$(children "$pid")
  # kill returns before its target stops, and both processes have threads (OpenBLAS's, the
  # numerics'), any of which may take a process's signal: each is seen stopped before the
  # next step, or the sweep could pass its signal on before the point is stopped.
  kill -STOP "$pid"; until_stopped "$pid"
  kill -TERM -- "-$pid"
  deadline=$((SECONDS + 60))
  while kill -0 "$kid" 2>/dev/null && mask_has "$kid" SigCgt 0x4000; do # SIGTERM taken
    [ "$SECONDS" -lt "$deadline" ] || { fail "SIGTERM to the group: the point never took it"; break; }
  done
  kill -STOP "$kid" 2>/dev/null; until_stopped "$kid"
  kill -CONT "$pid"
  deadline=$((SECONDS + 60))
  while kill -0 "$kid" 2>/dev/null && ! mask_has "$kid" ShdPnd 0x4200; do # the sweep's
    [ "$SECONDS" -lt "$deadline" ] || { fail "SIGTERM to the group: the sweep passed no signal on to its stopped point"; break; }
    sleep 0.01
  done
  kill -CONT "$kid" 2>/dev/null
  wait "$pid" 2>/dev/null; rc=$?
  [ "$rc" = 75 ] || fail "SIGTERM to the group: exit $rc, wanted 75: $(cat "$TMP/err")"
  [ "$(sqlite3 "$DB" "SELECT status FROM runs")" = failed ] || fail "SIGTERM to the group: the point did not stop with its checkpoint: $(sqlite3 "$DB" "SELECT status, status_detail FROM runs")"
  "$SGDSIM" sweep "$S" "${G[@]}" --db "$TMP/g-ref.db" --quiet || fail "SIGTERM to the group: reference failed"
  "$SGDSIM" sweep "$S" "${G[@]}" --db "$DB" --quiet --checkpoint-dir "$DIR" || fail "SIGTERM to the group: resume failed"
  [ "$(sqlite3 "$DB" "SELECT digest, resumes FROM runs")" = "$(sqlite3 "$TMP/g-ref.db" "SELECT digest FROM runs")|1" ] || fail "SIGTERM to the group: not the uninterrupted digest after one resume"
else
  echo "no setsid: SIGTERM to a process group is not tried"
fi

# A foreign file where a point's checkpoint goes: exit 2 naming it, the file kept.
mkdir "$TMP/f-ckpt"
"$SGDSIM" run "$S" --db "$TMP/one.db" --quiet || fail "the run of the one-point sweep failed"
key=$(sqlite3 "$TMP/one.db" "SELECT run_key FROM runs") # a sweep's point has its run's key
echo 'not a checkpoint' > "$TMP/f-ckpt/$key.ckpt"
expect_exit 2 "$TMP/f-ckpt/$key.ckpt: not an sgdsim checkpoint" -- "$SGDSIM" sweep "$S" --db "$TMP/f.db" --quiet --checkpoint-dir "$TMP/f-ckpt"
[ "$(cat "$TMP/f-ckpt/$key.ckpt")" = "not a checkpoint" ] || fail "the foreign file was changed"

# Bad options and directories: exit 2 naming them, no database written.
expect_exit 2 "need --checkpoint-dir DIR" -- "$SGDSIM" sweep "$S" --db "$TMP/b.db" --checkpoint-every 10m
expect_exit 2 "need --checkpoint-dir DIR" -- "$SGDSIM" sweep "$S" --db "$TMP/b.db" --checkpoint-every-updates 5
expect_exit 2 "--checkpoint-every 10x: expected a wall-clock duration" -- "$SGDSIM" sweep "$S" --db "$TMP/b.db" --checkpoint-dir "$TMP/b" --checkpoint-every 10x
OMPI_COMM_WORLD_SIZE=2 expect_exit 2 "not under mpirun" -- "$SGDSIM" sweep "$S" --db "$TMP/b.db" --checkpoint-dir "$TMP/b"
expect_exit 2 "--checkpoint-every-updates 0" -- "$SGDSIM" sweep "$S" --db "$TMP/b.db" --checkpoint-dir "$TMP/b" --checkpoint-every-updates 0
touch "$TMP/plain"
expect_exit 2 "--checkpoint-dir $TMP/plain/sub: cannot create it" -- "$SGDSIM" sweep "$S" --db "$TMP/b.db" --checkpoint-dir "$TMP/plain/sub"
expect_exit 2 "--checkpoint-dir $TMP/plain: not a directory" -- "$SGDSIM" sweep "$S" --db "$TMP/b.db" --checkpoint-dir "$TMP/plain"
mkdir "$TMP/ro"; chmod 555 "$TMP/ro"
AS=()
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$SGDSIM"; then
    chmod 777 "$TMP"; AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  else
    AS=(skip); echo "running as root without setpriv (or nobody cannot run $SGDSIM): the unwritable directory is not tried"
  fi
fi
if [ "${AS[*]}" != skip ]; then
  expect_exit 2 "--checkpoint-dir $TMP/ro: cannot create files in it: Permission denied" -- "${AS[@]}" "$SGDSIM" sweep "$S" --db "$TMP/b.db" --checkpoint-dir "$TMP/ro"
fi
[ ! -e "$TMP/b.db" ] || fail "a refused sweep wrote its database"
[ ! -e "$TMP/b" ] || fail "a refused sweep created its checkpoint directory"
finish
