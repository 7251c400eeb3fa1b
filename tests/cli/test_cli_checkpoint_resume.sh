# run --checkpoint / --resume: a run stopped with a checkpoint (--checkpoint-exit-at, SIGTERM)
# or killed with SIGKILL and resumed from its last checkpoint ends with the uninterrupted
# run's digest and every row of it, for CSGD, LSGD, FASGD on the timed driver, B-FASGD on
# the uniform one and FedBuff with sampled clients (2 of 3 in flight) that come and go,
# drop out and hold non-IID data, on one thread and on two; every refusal of a checkpoint
# (truncated, corrupted, foreign, another scenario, algorithm, kernel, database or run)
# exits 2 and leaves the database byte-identical.  The SIGKILL/SIGTERM series runs CSGD,
# FASGD and that FedBuff.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
L="$TMP/l.json"
sed -e 's/"name": "csgd"/"name": "lsgd"/' -e 's/"workers": 3/"workers": 4/' \
    -e 's/"network": { "bandwidth_gbps": 1, "latency_us": 20,/"topology": { "kind": "cluster", "gpus_per_node": 2 }, "network": {/' "$S" > "$L"
F="$TMP/f.json"  # FASGD, timed driver, gradient_batch 16 (the schedule runs ahead)
sed -e 's/"algorithm": { "name": "csgd" }/"algorithm": { "name": "fasgd", "driver": "timed", "server_time_s": 0.0005 }/' \
    -e 's/"momentum": 0.9/"momentum": 0/' "$S" > "$F"
B="$TMP/b.json"  # B-FASGD, uniform driver, both gates, re-applied pushes
sed -e 's/"algorithm": { "name": "csgd" }/"algorithm": { "name": "b-fasgd", "c_fetch": 0.05, "c_push": 0.02 }/' \
    -e 's/"momentum": 0.9/"momentum": 0/' "$S" > "$B"

FL="$TMP/fl.json"  # FedBuff, 2 of 3 clients in flight, availability, dropout, a partition
sed -e 's/"algorithm": { "name": "csgd" }/"algorithm": { "name": "fedbuff", "buffer": 2, "concurrency": 2, "local": { "steps": 2 } }, "clients": { "availability": "renewal", "online_s": { "dist": "exponential", "mean": 0.05 }, "offline_s": { "dist": "exponential", "mean": 0.02 }, "dropout_p": 0.1 }/' \
    -e 's/"n_train": 600,/"n_train": 600, "partition": { "scheme": "dirichlet", "alpha": 0.5 },/' \
    -e 's/"momentum": 0.9/"momentum": 0/' "$S" > "$FL"

dump() { # every reproducible column of run 1 of db $1
  sqlite3 "$1" "SELECT run_key, status, vtime_ns, updates, events, digest FROM runs WHERE id=1;
                SELECT update_idx, vtime_ns, name, quote(value) FROM metrics WHERE run_id=1 ORDER BY name, update_idx;
                SELECT kind, sent_msgs, sent_bytes, skipped_msgs, skipped_bytes FROM traffic WHERE run_id=1 ORDER BY kind;
                SELECT 'tau', tau, count FROM staleness WHERE run_id=1 ORDER BY tau;
                SELECT 'age', age, count FROM version_age WHERE run_id=1 ORDER BY age;
                SELECT 'labels', client, label, count FROM client_labels WHERE run_id=1 ORDER BY client, label;"
}
same_as_full() { # $1 db, $2 reference db, $3 what
  dump "$1" > "$TMP/got.txt"; dump "$2" > "$TMP/want.txt"
  [ "$(wc -l < "$TMP/want.txt")" -gt 10 ] || fail "$3: too few rows to compare"
  cmp -s "$TMP/got.txt" "$TMP/want.txt" || { fail "$3: rows differ from the uninterrupted run"; diff "$TMP/got.txt" "$TMP/want.txt" | head -5 >&2; }
}

for scen in "$S" "$L" "$F" "$B" "$FL"; do
  name=$(basename "$scen" .json)
  "$SGDSIM" run "$scen" --db "$TMP/$name-full.db" --quiet || fail "$name: uninterrupted run failed"
  for threads in 1 2; do
    db="$TMP/$name-$threads.db"; ck="$TMP/$name-$threads.ckpt"
    "$SGDSIM" run "$scen" --db "$db" --quiet --threads "$threads" --checkpoint "$ck" \
      --checkpoint-every-updates 7 --checkpoint-exit-at 23; rc=$?
    [ "$rc" = 75 ] || fail "$name/$threads: exit $rc after --checkpoint-exit-at, wanted 75"
    # the parameter-server family stops at the end of the event that made update 23, which
    # may have applied more; never a row after the checkpoint's update
    at=$(sqlite3 "$db" "SELECT updates FROM runs WHERE id=1")
    [ "$at" -ge 23 ] || fail "$name/$threads: stopped at update $at, before 23"
    [ "$(sqlite3 "$db" "SELECT max(update_idx) FROM metrics WHERE run_id=1")" -le "$at" ] || fail "$name/$threads: rows after the checkpoint"
    other=$((3 - threads)) # resumed on the other thread count: the same bits
    "$SGDSIM" run "$scen" --db "$db" --quiet --threads "$other" --resume "$ck" || fail "$name/$threads: resume failed"
    same_as_full "$db" "$TMP/$name-full.db" "$name/$threads"
    [ "$(sqlite3 "$db" "SELECT resumes FROM runs WHERE id=1")" = 1 ] || fail "$name/$threads: runs.resumes is not 1"
  done
done

# Refusals: each exits 2 and leaves the database as it was.
db="$TMP/r.db"; ck="$TMP/r.ckpt"
"$SGDSIM" run "$S" --db "$db" --quiet --checkpoint "$ck" --checkpoint-exit-at 30 >/dev/null; [ $? = 75 ] || fail "refusals: no checkpoint"
before=$(sha256sum "$db" | cut -d' ' -f1)
refused() { # NEEDLE -- command...
  expect_exit 2 "$@"
  [ "$(sha256sum "$db" | cut -d' ' -f1)" = "$before" ] || fail "the database changed after: ${*:3}"
}
size=$(stat -c %s "$ck")
head -c $((size - 40)) "$ck" > "$TMP/cut.ckpt"
refused "truncated" -- "$SGDSIM" run "$S" --db "$db" --quiet --resume "$TMP/cut.ckpt"
cp "$ck" "$TMP/bad.ckpt"; printf '\x55' | dd of="$TMP/bad.ckpt" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
refused "corrupted" -- "$SGDSIM" run "$S" --db "$db" --quiet --resume "$TMP/bad.ckpt"
echo '{"not": "a checkpoint"}' > "$TMP/foreign.ckpt"
refused "not an sgdsim checkpoint" -- "$SGDSIM" run "$S" --db "$db" --quiet --resume "$TMP/foreign.ckpt"
refused "run key" -- "$SGDSIM" run "$S" --db "$db" --quiet --resume "$ck" --seed 6
refused "algorithm: the checkpoint's \"csgd\", this run's \"fasgd\"" -- "$SGDSIM" run "$S" --db "$db" --quiet \
  --resume "$ck" --set algorithm.name=fasgd --set optimizer.momentum=0
refused "need --checkpoint FILE" -- "$SGDSIM" run "$S" --db "$db" --quiet --checkpoint-every 10m
refused "expected a wall-clock duration" -- "$SGDSIM" run "$S" --db "$db" --quiet --checkpoint "$ck" --checkpoint-every 10x
refused "--checkpoint" -- "$SGDSIM" run "$S" --db "$db" --quiet --checkpoint "$db"
# Another database: one whose run 1 is another run, one without the run.
"$SGDSIM" run "$S" --db "$TMP/o.db" --quiet || fail "other database"
other_before=$(sha256sum "$TMP/o.db" | cut -d' ' -f1)
expect_exit 2 "another run" -- "$SGDSIM" run "$S" --db "$TMP/o.db" --quiet --resume "$ck"
[ "$(sha256sum "$TMP/o.db" | cut -d' ' -f1)" = "$other_before" ] || fail "the other database changed"
# Another kernel, where this machine runs one (the header names the difference).
if "$SGDSIM" run "$S" --db "$TMP/k.db" --quiet --blas-core Sandybridge >/dev/null 2>&1; then
  refused "BLAS kernel" -- "$SGDSIM" run "$S" --db "$db" --quiet --resume "$ck" --blas-core Sandybridge
fi
# A finished run is not resumed again.
"$SGDSIM" run "$S" --db "$db" --quiet --resume "$ck" || fail "refusals: resume failed"
before=$(sha256sum "$db" | cut -d' ' -f1)
refused "already ended complete" -- "$SGDSIM" run "$S" --db "$db" --quiet --resume "$ck"

# SIGTERM and SIGKILL: a longer run, checkpoints every 25 updates.  Whatever the moment of
# the signal, resuming from the last checkpoint until the run completes gives the digest of
# the uninterrupted run (a run that completes before a signal lands simply completes).
for base in "$S" "$F" "$FL"; do
rm -f "$TMP/long.db" "$TMP/long-full.db" "$TMP/long.ckpt"
sed -e 's/"updates": 60/"updates": 1500/' -e 's/"every": 20/"every": 250/' "$base" > "$TMP/long.json"
"$SGDSIM" run "$TMP/long.json" --db "$TMP/long-full.db" --quiet || fail "long run failed"
db="$TMP/long.db"; ck="$TMP/long.ckpt"
wait_for_checkpoint() { # until $ck is newer than $1 or process $2 ended (polling, no fixed wait)
  while kill -0 "$2" 2>/dev/null && { [ ! -e "$ck" ] || [ ! "$ck" -nt "$1" ]; }; do sleep 0.01; done
}
touch "$TMP/mark"; started=0; status=running
for sig in KILL TERM KILL KILL TERM; do
  if [ "$started" = 0 ]; then args=(--checkpoint "$ck"); started=1; else args=(--resume "$ck"); fi
  "$SGDSIM" run "$TMP/long.json" --db "$db" --quiet --checkpoint-every-updates 25 "${args[@]}" 2>/dev/null &
  pid=$!
  wait_for_checkpoint "$TMP/mark" "$pid"
  kill -s "$sig" "$pid" 2>/dev/null; wait "$pid"; rc=$?
  touch -r "$ck" "$TMP/mark" 2>/dev/null
  if [ "$rc" = 0 ]; then status=complete; break; fi
  case "$sig:$rc" in KILL:137|TERM:75) ;; *) fail "signal $sig: exit $rc" ;; esac
done
if [ "$status" != complete ]; then
  "$SGDSIM" run "$TMP/long.json" --db "$db" --quiet --resume "$ck" || fail "final resume failed"
fi
same_as_full "$db" "$TMP/long-full.db" "killed and resumed"
done
finish
