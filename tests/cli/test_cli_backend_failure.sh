# A backend call that fails ends the run `failed` -- never an abort: exit code 1, the failing
# call and its message in runs.status_detail, the metric rows written before it kept and the
# database intact.  For CSGD, LSGD and a parameter-server rule (SASGD) on both drivers and
# with the background path of several threads, each with the backend failing on its N-th
# call of one kind (SGDSIM_TEST_BACKEND_FAIL=CALL:N, tests/models/failing_backend.c; the
# executable is sgdsim with that wrapper linked in).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S" # CSGD, 60 updates, evaluation every 20
CLUSTER=(--set 'network={}' --set 'topology={"kind":"cluster","gpus_per_node":3}')
PS=(--set optimizer.momentum=0 --set cluster.workers=6)

q() { sqlite3 "$1" "$2"; }

# fails NAME CALL:N UPDATES RUN-ARGS...: the run fails at the N-th CALL after UPDATES updates
# (the runs are deterministic), with its rows so far.
fails() {
  local name="$1" setting="$2" want="$3"; shift 3
  local db="$TMP/$name.db" out rc call="${setting%%:*}"
  [ "$call" = any ] && call=""
  local says="backend \"cpu\" failed after update $want: $call"
  out=$(SGDSIM_TEST_BACKEND_FAIL="$setting" "$SGDSIM" run "$S" --db "$db" --quiet "$@" 2>&1)
  rc=$?
  [ "$rc" = 1 ] || { fail "$name: exit $rc (wanted 1): $out"; return; }
  case "$out" in *"$says"*"injected failure (SGDSIM_TEST_BACKEND_FAIL=$setting)"*) ;;
    *) fail "$name: stderr does not name the failure: $out" ;; esac
  [ "$(q "$db" "SELECT status FROM runs")" = failed ] || fail "$name: status is not failed"
  local detail; detail=$(q "$db" "SELECT status_detail FROM runs")
  case "$detail" in "$says"*"injected failure (SGDSIM_TEST_BACKEND_FAIL=$setting)") ;;
    *) fail "$name: status_detail does not name the failure: $detail" ;; esac
  [ "$(q "$db" "SELECT updates FROM runs")" = "$want" ] || fail "$name: runs.updates is not $want"
  [ "$(q "$db" "SELECT count(*) FROM metrics WHERE name = 'train_loss'")" = "$want" ] ||
    fail "$name: the $want train_loss rows before the failure are not all there"
  [ "$(q "$db" "SELECT count(*) FROM metrics WHERE name = 'val_loss'")" -ge 1 ] ||
    fail "$name: the evaluation rows before the failure are lost"
  [ "$(q "$db" "PRAGMA integrity_check")" = ok ] || fail "$name: integrity_check"
}

# CSGD: sync_begin is the first update's, sync_step N is update N's.
fails csgd_step sync_step:25 24 --threads 1
fails csgd_begin sync_begin:1 0 --threads 1
# The 3rd evaluation is the one after update 40 (the first is before update 1).
fails csgd_eval evaluate:3 40 --threads 2
# LSGD on a cluster of nodes.
fails lsgd_step sync_step:31 30 --set algorithm.name=lsgd "${CLUSTER[@]}" --threads 1
# SASGD, 3-softsync, each way the family asks for gradients: one at a time (loss_grad), the
# CPU's background path (async_collect, on 2 threads), and batched calls (loss_grad_batched,
# what a GPU gets; the CPU takes requests of more than 128 rows so).
fails sasgd_one loss_grad:50 28 "${PS[@]}" --threads 1 \
  --set 'algorithm={"name": "sasgd", "driver": "timed", "n": 3, "gradient_batch": 1}'
fails sasgd_async async_collect:50 33 "${PS[@]}" --threads 2 \
  --set 'algorithm={"name": "sasgd", "driver": "timed", "n": 3, "gradient_batch": 8}'
fails sasgd_batched loss_grad_batched:9 12 "${PS[@]}" --threads 1 --set batch.per_worker=130 \
  --set 'algorithm={"name": "sasgd", "driver": "uniform", "n": 2, "gradient_batch": 4}'
# A rule of its own arithmetic (DC-ASGD), counting every call.
fails dcasgd any:60 28 "${PS[@]}" --threads 1 \
  --set 'algorithm={"name": "dc-asgd", "driver": "timed", "n": 3, "gradient_batch": 1}'

# Without the variable the executable is sgdsim: the same run completes with sgdsim's digest.
"$SGDSIM" run "$S" --db "$TMP/ok.db" --quiet || fail "the run without a failure did not complete"
[ "$(q "$TMP/ok.db" "SELECT status FROM runs")" = complete ] ||
  fail "the run without a failure is not complete"
# A bad setting is refused before the run, exit 2, naming the variable.
expect_exit 2 "SGDSIM_TEST_BACKEND_FAIL: \"step:2\" is not CALL:N" -- \
  env SGDSIM_TEST_BACKEND_FAIL=step:2 "$SGDSIM" run "$S" --db "$TMP/bad.db"
[ ! -e "$TMP/bad.db" ] || fail "a refused setting left a database"
finish
