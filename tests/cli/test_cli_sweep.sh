# sgdsim sweep: -j1 and -j2 give identical databases (every column but ids and wall-clock
# ones); a sweep killed with SIGKILL and resumed ends with the same database as one never
# interrupted; running a finished sweep again changes nothing; shards merged equal the whole;
# bad --set lists and --shard arguments are refused with exit code 2.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
# 6 points of about 0.1 s each (seconds under sanitizers): long enough to kill a sweep in
# the middle.
AXES=(--set cluster.workers=2,3 --set seed=1,2,3 --set stop.updates=800 --set eval.every=200)

dump() { # every reproducible column, keyed by run_key (ids depend on start order)
  sqlite3 "$1" "SELECT run_key, scenario, algorithm, workers, seed, config_hash, status, status_detail, vtime_ns, updates, events, digest FROM runs ORDER BY run_key;
    SELECT r.run_key, m.update_idx, m.vtime_ns, m.name, quote(m.value), m.nonfinite FROM metrics m JOIN runs r ON r.id = m.run_id ORDER BY 1, 4, 2;
    SELECT r.run_key, t.kind, t.sent_msgs, t.sent_bytes, t.skipped_msgs, t.skipped_bytes FROM traffic t JOIN runs r ON r.id = t.run_id ORDER BY 1, 2;
    SELECT r.run_key, s.tau, s.count FROM staleness s JOIN runs r ON r.id = s.run_id ORDER BY 1, 2;"
}

"$SGDSIM" sweep "$S" "${AXES[@]}" -j1 --db "$TMP/ref.db" --quiet || fail "sweep -j1 failed"
"$SGDSIM" sweep "$S" "${AXES[@]}" -j 2 --db "$TMP/j2.db" --quiet || fail "sweep -j2 failed"
dump "$TMP/ref.db" > "$TMP/ref.txt"; dump "$TMP/j2.db" > "$TMP/j2.txt"
[ "$(sqlite3 "$TMP/ref.db" "SELECT count(*) FROM runs WHERE status = 'complete'")" = 6 ] || fail "-j1: not 6 complete runs"
[ "$(sqlite3 "$TMP/ref.db" "SELECT count(DISTINCT digest) FROM runs")" = 6 ] || fail "-j1: points are not distinct runs"
[ "$(wc -l < "$TMP/ref.txt")" -gt 100 ] || fail "too few rows to compare: $(wc -l < "$TMP/ref.txt")"
cmp -s "$TMP/ref.txt" "$TMP/j2.txt" || { fail "-j1 and -j2 differ"; diff "$TMP/ref.txt" "$TMP/j2.txt" | head >&2; }

# Same point as a plain run: the run key is the configuration hash.
"$SGDSIM" run "$S" --db "$TMP/one.db" --quiet --set cluster.workers=3 --set seed=2 --set stop.updates=800 --set eval.every=200
key=$(sqlite3 "$TMP/one.db" "SELECT run_key FROM runs")
[ "$(sqlite3 "$TMP/ref.db" "SELECT count(*) FROM runs WHERE run_key = '$key'")" = 1 ] || fail "plain run's key $key not among the sweep's"

# Finished sweep run again: nothing to do, nothing changes.
out=$("$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$TMP/ref.db" 2>&1) || fail "rerun failed: $out"
case "$out" in *"6 already done"*"0 to run"*) ;; *) fail "rerun did not skip: $out" ;; esac
[ "$(sqlite3 "$TMP/ref.db" "SELECT count(*) FROM runs")" = 6 ] || fail "rerun added runs"
dump "$TMP/ref.db" | cmp -s - "$TMP/ref.txt" || fail "rerun changed the database"

# SIGKILL in the middle — once a point is complete and another is running — then resume.
# The kill waits until the database shows both (a point finished, the next not yet begun, is
# a state a kill must not be taken in): points take about 0.1 s, so on a busy machine the
# poll may miss every such moment of one sweep, and another sweep is tried.
killed_mid=0
for attempt in 1 2 3 4 5 6 7 8; do
  rm -f "$TMP"/k.db*
  "$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$TMP/k.db" --quiet &
  pid=$!
  for _ in $(seq 3000); do # poll for up to 60 s (sanitizer builds are slow)
    sleep 0.02
    [ -s "$TMP/k.db" ] || continue
    state=$(sqlite3 "$TMP/k.db" "SELECT (SELECT count(*) FROM runs WHERE status = 'complete')
      || ' ' || (SELECT count(*) FROM runs WHERE status = 'running')" 2>/dev/null) || continue
    case "$state" in 0\ *|*\ 0|6\ *|'') ;; *) break ;; esac
    kill -0 "$pid" 2>/dev/null || break # the sweep ended: try again
  done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  sleep 0.2 # the children die with the sweep (PR_SET_PDEATHSIG); let them go
  [ "$(sqlite3 "$TMP/k.db" "PRAGMA integrity_check")" = ok ] || fail "integrity_check after kill (attempt $attempt)"
  done_n=$(sqlite3 "$TMP/k.db" "SELECT count(*) FROM runs WHERE status = 'complete'")
  running_n=$(sqlite3 "$TMP/k.db" "SELECT count(*) FROM runs WHERE status = 'running'")
  if [ "$done_n" -ge 1 ] && [ "$done_n" -lt 6 ] && [ "$running_n" -ge 1 ]; then killed_mid=1; break; fi
done
[ "$killed_mid" = 1 ] || fail "could not kill the sweep mid-way (complete $done_n, running $running_n)"
sleep 0.3
[ "$(sqlite3 "$TMP/k.db" "SELECT count(*) FROM runs WHERE status = 'running'")" = "$running_n" ] || fail "a point kept running after the sweep was killed"
# Merging the killed sweep's database copies its finished runs only.
out=$("$SGDSIM" merge "$TMP/part.db" "$TMP/k.db") || fail "merge of a killed sweep's database"
case "$out" in *"$done_n run"*" copied"*", $running_n unfinished skipped"*) ;; *) fail "merge of a killed sweep: $out" ;; esac
[ "$(sqlite3 "$TMP/part.db" "SELECT count(*) FROM runs WHERE status = 'complete'")" = "$done_n" ] || fail "merge copied unfinished runs"
out=$("$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$TMP/k.db" 2>&1) || fail "resume failed: $out"
case "$out" in *"redoing"*) ;; *) fail "resume did not redo the unfinished points: $out" ;; esac
dump "$TMP/k.db" > "$TMP/k.txt"
cmp -s "$TMP/ref.txt" "$TMP/k.txt" || { fail "resumed sweep differs from an uninterrupted one"; diff "$TMP/ref.txt" "$TMP/k.txt" | head >&2; }
[ "$(sqlite3 "$TMP/k.db" "SELECT count(*) FROM runs")" = 6 ] || fail "resumed sweep left extra runs"

# A failed run (e.g. interrupted) of a point is redone and replaced, like a killed one.
sqlite3 "$TMP/k.db" "UPDATE runs SET status = 'failed', status_detail = 'interrupted' WHERE id = (SELECT max(id) FROM runs)"
out=$("$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$TMP/k.db" 2>&1) || fail "redo of a failed point: $out"
case "$out" in *"5 already done"*"1 to run"*"redoing"*) ;; *) fail "failed point not redone: $out" ;; esac
dump "$TMP/k.db" | cmp -s - "$TMP/ref.txt" || fail "database after redoing a failed point differs"

# SIGTERM: running points stop after their current update and are stored as failed; exit 1.
"$SGDSIM" sweep "$S" --set cluster.workers=2,3 --set stop.updates=100000000 --set eval.every=0 -j2 --db "$TMP/t.db" --quiet 2>/dev/null &
pid=$!
for _ in $(seq 300); do
  sleep 0.1
  [ -s "$TMP/t.db" ] && [ "$(sqlite3 "$TMP/t.db" "SELECT count(*) FROM runs" 2>/dev/null)" = 2 ] && break
done
sleep 0.3
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" = 1 ] || fail "SIGTERM: sweep exit $rc, wanted 1"
[ "$(sqlite3 "$TMP/t.db" "SELECT group_concat(status) FROM runs")" = "failed,failed" ] || fail "SIGTERM: runs are $(sqlite3 "$TMP/t.db" "SELECT group_concat(status) FROM runs")"

# Shards 0/2 and 1/2 into their own databases, merged: the whole sweep.  Twice: no change.
"$SGDSIM" sweep "$S" "${AXES[@]}" --shard 0/2 --db "$TMP/s0.db" --quiet || fail "shard 0/2"
"$SGDSIM" sweep "$S" "${AXES[@]}" --shard 1/2 --db "$TMP/s1.db" --quiet || fail "shard 1/2"
[ "$(sqlite3 "$TMP/s0.db" "SELECT count(*) FROM runs")" = 3 ] || fail "shard 0/2 does not hold 3 runs"
"$SGDSIM" merge "$TMP/m.db" "$TMP/s0.db" "$TMP/s1.db" >/dev/null || fail "merge"
dump "$TMP/m.db" > "$TMP/m.txt"
cmp -s "$TMP/ref.txt" "$TMP/m.txt" || { fail "merged shards differ from the whole sweep"; diff "$TMP/ref.txt" "$TMP/m.txt" | head >&2; }
sqlite3 "$TMP/m.db" "SELECT * FROM runs ORDER BY id; SELECT * FROM metrics ORDER BY 1,2,4" > "$TMP/m1.txt"
out=$("$SGDSIM" merge "$TMP/m.db" "$TMP/s1.db" "$TMP/s0.db") || fail "second merge"
case "$out" in *"0 runs copied"*"3 already in"*) ;; *) fail "second merge copied something: $out" ;; esac
sqlite3 "$TMP/m.db" "SELECT * FROM runs ORDER BY id; SELECT * FROM metrics ORDER BY 1,2,4" | cmp -s - "$TMP/m1.txt" || fail "merging twice changed the database"
# A sweep resumed against the merged database has nothing left to do.
out=$("$SGDSIM" sweep "$S" "${AXES[@]}" --db "$TMP/m.db" 2>&1)
case "$out" in *"0 to run"*) ;; *) fail "sweep on the merged database wants to run: $out" ;; esac

# The sweep block in the scenario file; the command line replaces an axis of the same key.
sed 's/"eval": { "every": 20 }/"eval": { "every": 20 }, "sweep": { "cluster.workers": [2, 3], "model.hidden": [[8], [16, 8]] }/' "$S" > "$TMP/sw.json"
out=$("$SGDSIM" sweep "$TMP/sw.json" --set cluster.workers=2,3,4 --db "$TMP/b.db" 2>&1) || fail "sweep block: $out"
[ "$(sqlite3 "$TMP/b.db" "SELECT count(*) FROM runs WHERE status = 'complete'")" = 6 ] || fail "sweep block x CLI: not 6 runs"
[ "$(sqlite3 "$TMP/b.db" "SELECT count(DISTINCT workers) FROM runs")" = 3 ] || fail "CLI list did not replace the block's axis"
"$SGDSIM" run "$TMP/sw.json" --db "$TMP/b1.db" --quiet || fail "run of a scenario with a sweep block"
out=$("$SGDSIM" sweep "$S" --set cluster.workers=3,3 --db "$TMP/d.db" 2>&1)
case "$out" in *"1 point (2 combinations, 1 repeat"*) ;; *) fail "duplicate points not merged: $out" ;; esac

# --list: the plan of a shard, nothing run.
out=$("$SGDSIM" sweep "$S" "${AXES[@]}" --shard 1/2 --list --db "$TMP/list.db" --quiet)
[ "$(echo "$out" | wc -l)" = 3 ] || fail "--list of shard 1/2: $out"
[ "$(echo "$out" | cut -f1 | tr '\n' ' ')" = "1 3 5 " ] || fail "--list indices: $out"
echo "$out" | grep -q "cluster.workers=2 seed=2 stop.updates=800" || fail "--list labels: $out"
[ ! -e "$TMP/list.db" ] || fail "--list created the database"

# Bad input: exit 2 and a message naming the argument.
expect_exit 2 "empty value in the list" -- "$SGDSIM" sweep "$S" --set 'cluster.workers=2,,3' --db "$TMP/x.db"
expect_exit 2 "empty value in the list" -- "$SGDSIM" sweep "$S" --set 'cluster.workers=2,' --db "$TMP/x.db"
expect_exit 2 "missing ']'" -- "$SGDSIM" sweep "$S" --set 'model.hidden=[16,8],[32' --db "$TMP/x.db"
expect_exit 2 "unbalanced ']'" -- "$SGDSIM" sweep "$S" --set 'model.hidden=16]' --db "$TMP/x.db"
expect_exit 2 "expected key.path=value" -- "$SGDSIM" sweep "$S" --set 'cluster.workers' --db "$TMP/x.db"
expect_exit 2 "sweep point 2 of 3 (cluster.workers=0)" -- "$SGDSIM" sweep "$S" --set 'cluster.workers=2,0,3' --db "$TMP/x.db"
expect_exit 2 "shard index 2 out of range" -- "$SGDSIM" sweep "$S" --shard 2/2 --db "$TMP/x.db"
expect_exit 2 "expected I/N" -- "$SGDSIM" sweep "$S" --shard 1 --db "$TMP/x.db"
expect_exit 2 "expected I/N" -- "$SGDSIM" sweep "$S" --shard -1/2 --db "$TMP/x.db"
expect_exit 2 "number of shards" -- "$SGDSIM" sweep "$S" --shard 0/0 --db "$TMP/x.db"
expect_exit 2 "the sweep also has a seed axis" -- "$SGDSIM" sweep "$S" --seed 4 --set seed=1,2 --db "$TMP/x.db"
expect_exit 2 "-j 0" -- "$SGDSIM" sweep "$S" -j 0 --db "$TMP/x.db"
echo '{"schema_version": 1, "sweep": {"cluster.workers": []}}' > "$TMP/bad.json"
expect_exit 2 "sweep.cluster.workers: expected an array of 1.." -- "$SGDSIM" sweep "$TMP/bad.json" --db "$TMP/x.db"
echo '{"schema_version": 1, "sweep": [1]}' > "$TMP/bad.json"
expect_exit 2 "sweep: expected an object" -- "$SGDSIM" validate "$TMP/bad.json"
# A point that turns out to be bad input when it runs (a global batch larger than the data,
# found only when the data is built) stops the sweep from starting further points.
out=$("$SGDSIM" sweep "$S" --set batch.per_worker=1000 --set cluster.workers=2,3 --db "$TMP/bad.db" 2>&1); rc=$?
[ "$rc" = 2 ] || fail "run-time bad input: exit $rc"
case "$out" in *"exceeds"*"0 points done"*"1 failed"*"stopped early"*) ;; *) fail "run-time bad input did not stop the sweep: $out" ;; esac
[ "$(sqlite3 "$TMP/bad.db" "SELECT count(*) FROM runs")" = 0 ] || fail "a bad-input point left a run"
echo "not a database" > "$TMP/junk.db"
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" sweep "$S" --db "$TMP/junk.db"
[ ! -e "$TMP/x.db" ] || fail "a refused sweep created its database"
finish
