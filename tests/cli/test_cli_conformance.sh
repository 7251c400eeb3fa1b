# The conformance suite: every algorithm the binary registers gets these checks by being
# registered -- its names come from the registry itself (the loader's refusal of an unknown
# algorithm.name lists them), so a new algorithm is covered without a test of its own.
#   test_cli_conformance.sh SGDSIM TRACE_CHECK [NAME]
# NAME: an algorithm that must be among them (the test build's test-only rule).
# Per algorithm, on a small synthetic scenario (with a cluster topology where the flat one is
# refused, as LSGD's communicators need one):
#   1. validate and run agree (both accept it);
#   2. the same digest twice, and for threads 1, 2 and 3;
#   3. the same digest for algorithm.gradient_batch 1 and 16, where the algorithm takes it;
#      2 and 3 again with algorithm.fetch "after_push" where the algorithm takes it (with
#      n = 2 where it takes n, so that an update has more than one push: with one the two
#      protocols are the same), and with local training (algorithm.local {"steps": 2})
#      where it takes it (the FL rules train locally by default);
#   4. a valid trace (trace_check) with compute and update spans (the timed driver where
#      the algorithm has one);
#   5. the metrics table filled; the staleness table too for asynchronous algorithms (those
#      with a driver: the parameter-server family, FL rules included);
#   6. an unknown option, and each of its options given a value of the wrong type, exit 2
#      naming the option's JSON path, in run and in validate alike;
#   7. SIGINT during a run leaves it "failed" with the rows written so far;
#   8. checkpoint and resume: a run stopped with --checkpoint-exit-at (exit 75) and resumed
#      with --resume on the other thread count ends with the uninterrupted run's digest and
#      every row of it (runs, metrics, traffic, staleness, version_age), on threads 1 and 2,
#      on the timed driver too where the algorithm has one, on both drivers with fetch
#      "after_push" (as in 2) where it takes it, with local training (as in 3) where it
#      takes it, and with sampled clients (fewer in flight than registered: concurrency 2, or
#      2 per round), their availability, dropout, devices and a partition where it takes a
#      clients section; the resumed run's trace is valid and its metadata says it covers the
#      resumed part.
. "$(dirname "$0")/lib.sh"
CHECK="$2"
EXPECT="${3:-}"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"
cat > "$S" <<'JSON'
{ "schema_version": 1, "name": "conformance", "seed": 5, "algorithm": { "name": "csgd" },
  "cluster": { "workers": 4, "time_factor": { "dist": "uniform", "min": 1.0, "max": 1.5 } },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20, "classes": 5 },
  "model": { "kind": "mlp", "hidden": [32], "init": "he" }, "batch": { "per_worker": 16 },
  "optimizer": { "lr": 0.05 },
  "compute": { "kind": "time", "time_s": { "dist": "gamma", "mean": 0.004, "cv": 0.2 } },
  "io": { "time_s": { "dist": "exponential", "mean": 0.001 } },
  "network": { "bandwidth_gbps": 1, "latency_us": 20 }, "stop": { "updates": 60 }, "eval": { "every": 20 } }
JSON
CLUSTER=(--set 'network={}' --set 'topology={"kind":"cluster","gpus_per_node":2}')

# The registered names, from the loader's message.
names=$("$SGDSIM" validate "$S" --set algorithm.name=no-such-algorithm 2>&1 >/dev/null |
        sed -n 's/.*expected one of \(.*\), got.*/\1/p' | tr -d '",')
[ -n "$names" ] || { fail "no algorithm names in the refusal of an unknown algorithm.name"; finish; }
if [ -n "$EXPECT" ]; then
  case " $names " in *" $EXPECT "*) ;; *) fail "$EXPECT is not registered (got: $names)" ;; esac
fi

digest() { "$SGDSIM" run "$S" --db "$TMP/d.db" "${SETS[@]}" "$@" 2>/dev/null | sed -n 's/^digest //p'; }
takes() { "$SGDSIM" validate "$S" "${SETS[@]}" --set "$1" >/dev/null 2>&1; }

# The settings under which algorithm $1 runs here, into SETS; false when none.
settings() {
  SETS=(--set "algorithm.name=$1")
  "$SGDSIM" validate "$S" "${SETS[@]}" >/dev/null 2>&1 && return 0
  SETS+=("${CLUSTER[@]}")
  "$SGDSIM" validate "$S" "${SETS[@]}" >/dev/null 2>&1
}

# The settings of fetch "after_push" for the algorithm (file comment, 2), into AFTER_PUSH;
# false when it does not take it.
after_push() {
  AFTER_PUSH=(--set algorithm.fetch=after_push)
  takes algorithm.n=2 && AFTER_PUSH+=(--set algorithm.n=2)
  takes "${AFTER_PUSH[1]}" && { [ ${#AFTER_PUSH[@]} = 2 ] || takes "${AFTER_PUSH[3]}"; }
}

# Checks 2 and 3 with the extra settings "$@" (none, or fetch "after_push").
check_determinism_with() {
  local a="$1" d0 d; shift
  d0=$(digest "$@")
  [ -n "$d0" ] || { fail "$a $*: run printed no digest"; return; }
  [ "$(digest "$@")" = "$d0" ] || fail "$a $*: two runs gave different digests"
  for t in 1 2 3; do
    d=$(digest "$@" --threads "$t")
    [ "$d" = "$d0" ] || fail "$a $*: --threads $t gives $d, not $d0"
  done
  if takes algorithm.gradient_batch=1; then
    for b in 1 16; do
      d=$(digest "$@" --set "algorithm.gradient_batch=$b")
      [ "$d" = "$d0" ] || fail "$a $*: gradient_batch $b gives $d, not $d0"
    done
  fi
}

# The settings of local training for the algorithm (file comment, 3), into LOCAL; false when
# it does not take it.
LOCAL_STEPS='algorithm.local={"steps":2}'
local_training() {
  LOCAL=(--set "$LOCAL_STEPS")
  takes "$LOCAL_STEPS"
}

check_determinism() { # 2, 3
  check_determinism_with "$1"
  if after_push; then check_determinism_with "$1" "${AFTER_PUSH[@]}"; fi
  if local_training; then check_determinism_with "$1" "${LOCAL[@]}"; fi
}

check_trace_and_tables() { # 4, 5
  local a="$1" db="$TMP/t_$a.db" extra=() id
  takes algorithm.driver=timed && extra=(--set algorithm.driver=timed)
  "$SGDSIM" run "$S" --db "$db" --quiet "${SETS[@]}" "${extra[@]}" --trace "$TMP/$a.trace" \
    2>"$TMP/err" || { fail "$a: traced run: $(cat "$TMP/err")"; return; }
  "$CHECK" "$TMP/$a.trace" --span compute --span update >/dev/null ||
    fail "$a: the trace failed trace_check (compute and update spans)"
  id=$(sqlite3 "$db" "SELECT max(id) FROM runs")
  [ "$(sqlite3 "$db" "SELECT count(*) FROM metrics WHERE run_id = $id")" -gt 0 ] ||
    fail "$a: no metric rows"
  if takes algorithm.driver=uniform || takes algorithm.driver=timed; then
    [ "$(sqlite3 "$db" "SELECT count(*) FROM staleness WHERE run_id = $id")" -gt 0 ] ||
      fail "$a: no staleness rows"
  fi
}

db_of() { [ "$1" = run ] && echo "--db $TMP/b.db"; }

check_bad_options() { # 6
  local a="$1" keys k
  for cmd in run validate; do
    expect_exit 2 "algorithm.no_such_option" -- "$SGDSIM" "$cmd" "$S" $(db_of "$cmd") \
      "${SETS[@]}" --set algorithm.no_such_option=1
  done
  keys=$("$SGDSIM" validate "$S" "${SETS[@]}" --set algorithm.no_such_option=1 2>&1 |
         sed -n 's/.*(allowed here: \(.*\)).*/\1/p' | tr -d ',')
  [ -n "$keys" ] || { fail "$a: its unknown-key message lists no keys"; return; }
  for k in $keys; do
    [ "$k" = name ] && continue
    for cmd in run validate; do
      expect_exit 2 "algorithm.$k" -- "$SGDSIM" "$cmd" "$S" $(db_of "$cmd") "${SETS[@]}" \
        --set "algorithm.$k={\"conformance\":[1]}"
    done
  done
  [ ! -e "$TMP/b.db" ] || fail "$a: a refused run wrote a database"
}

check_interrupt() { # 7
  local a="$1" db="$TMP/i_$a.db" pid n=0 status rows
  "$SGDSIM" run "$S" --db "$db" --quiet "${SETS[@]}" --set stop.updates=100000000 \
    --set eval.every=5 2>/dev/null &
  pid=$!
  # wait (bounded) until rows are committed, then interrupt
  while [ "$n" -lt 600 ]; do
    rows=$(sqlite3 "$db" "SELECT count(*) FROM metrics" 2>/dev/null || echo 0)
    [ "${rows:-0}" -gt 0 ] && break
    sleep 0.1; n=$((n + 1))
  done
  kill -INT "$pid"
  wait "$pid"
  status=$(sqlite3 "$db" "SELECT status FROM runs")
  [ "$status" = failed ] || fail "$a: status after SIGINT is '$status', not failed"
  [ "$(sqlite3 "$db" "SELECT count(*) FROM metrics")" -gt 0 ] || fail "$a: SIGINT lost the rows"
}

# Every reproducible column of run $2 in database $1.
dump_run() {
  sqlite3 "$1" "SELECT run_key, status, vtime_ns, updates, events, digest FROM runs WHERE id=$2;
    SELECT update_idx, vtime_ns, name, quote(value) FROM metrics WHERE run_id=$2 ORDER BY name, update_idx;
    SELECT kind, sent_msgs, sent_bytes, skipped_msgs, skipped_bytes FROM traffic WHERE run_id=$2 ORDER BY kind;
    SELECT 'tau', tau, count FROM staleness WHERE run_id=$2 ORDER BY tau;
    SELECT 'age', age, count FROM version_age WHERE run_id=$2 ORDER BY age;"
}

# Sampled clients that come and go (file comment, 8), into POPULATION; false when the
# algorithm takes no clients section.
CLIENTS='clients={"availability":"renewal","online_s":{"dist":"exponential","mean":0.05},"offline_s":{"dist":"exponential","mean":0.02},"dropout_p":0.1,"compute_factor":{"dist":"lognormal","mean":1,"cv":0.5},"bandwidth_Bps":{"dist":"uniform","min":2e6,"max":2e7}}'
PARTITION='data.partition={"scheme":"dirichlet","alpha":0.5}'
population() {
  POPULATION=(--set "$CLIENTS" --set "$PARTITION")
  if takes algorithm.clients_per_round=2; then
    POPULATION+=(--set algorithm.clients_per_round=2)
  else
    POPULATION+=(--set algorithm.driver=timed --set algorithm.concurrency=2)
  fi
  "$SGDSIM" validate "$S" "${SETS[@]}" "${POPULATION[@]}" >/dev/null 2>&1
}

check_checkpoint() { # 8
  local a="$1" variants=("") v t db ck rc tag
  takes algorithm.driver=timed && variants+=("--set algorithm.driver=timed")
  if after_push; then
    variants+=("${AFTER_PUSH[*]}")
    takes algorithm.driver=timed && variants+=("${AFTER_PUSH[*]} --set algorithm.driver=timed")
  fi
  if local_training; then
    variants+=("${LOCAL[*]}")
    takes algorithm.driver=timed && variants+=("${LOCAL[*]} --set algorithm.driver=timed")
  fi
  if population; then variants+=("${POPULATION[*]}"); fi
  for v in "${variants[@]}"; do
    tag="$a${v:+ $v}"
    "$SGDSIM" run "$S" --db "$TMP/cf_$a.db" --quiet "${SETS[@]}" $v 2>"$TMP/err" ||
      { fail "$tag: uninterrupted run: $(cat "$TMP/err")"; continue; }
    dump_run "$TMP/cf_$a.db" "$(sqlite3 "$TMP/cf_$a.db" "SELECT max(id) FROM runs")" > "$TMP/want.txt"
    for t in 1 2; do
      db="$TMP/c_${a}_$t.db"; ck="$TMP/c_${a}_$t.ckpt"; rm -f "$db" "$ck"
      "$SGDSIM" run "$S" --db "$db" --quiet "${SETS[@]}" $v --threads "$t" --checkpoint "$ck" \
        --checkpoint-exit-at 23 2>"$TMP/err"; rc=$?
      [ "$rc" = 75 ] || { fail "$tag/$t: --checkpoint-exit-at 23 exited $rc: $(cat "$TMP/err")"; continue; }
      [ "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=1")" = failed ] ||
        fail "$tag/$t: a run stopped with a checkpoint is not stored failed"
      # the resumed run traced (tracing never changes a result): its trace covers the
      # resumed part and says so
      "$SGDSIM" run "$S" --db "$db" --quiet "${SETS[@]}" $v --threads $((3 - t)) --resume "$ck" \
        --trace "$TMP/r.trace" 2>"$TMP/err" || { fail "$tag/$t: resume: $(cat "$TMP/err")"; continue; }
      "$CHECK" "$TMP/r.trace" --span update >/dev/null || fail "$tag/$t: the resumed run's trace failed trace_check"
      grep -q '"resumed": "this trace covers run 1 ' "$TMP/r.trace" ||
        fail "$tag/$t: the resumed run's trace does not say it was resumed"
      dump_run "$db" 1 > "$TMP/got.txt"
      cmp -s "$TMP/got.txt" "$TMP/want.txt" ||
        { fail "$tag/$t: the resumed run differs from the uninterrupted one";
          diff "$TMP/got.txt" "$TMP/want.txt" | head -5 >&2; }
    done
  done
}

check_algorithm() {
  local a="$1"
  settings "$a" || { fail "$a: validate refuses it on the flat and the cluster topology"; return; }
  "$SGDSIM" run "$S" --db "$TMP/v.db" --quiet "${SETS[@]}" 2>"$TMP/err" ||
    fail "$a: validate accepts it, run refuses: $(cat "$TMP/err")"   # 1
  check_determinism "$a"
  check_trace_and_tables "$a"
  check_bad_options "$a"
  check_interrupt "$a"
  check_checkpoint "$a"
}

for a in $names; do check_algorithm "$a"; done
finish
