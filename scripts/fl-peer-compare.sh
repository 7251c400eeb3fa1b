#!/usr/bin/env bash
# FedAvg and FedBuff in one setting, in sgdsim and in FLGo (a federated-learning simulator
# with a virtual clock), side by side: accuracy at matched rounds and at matched simulated
# time, mean +- sd over seeds, and the wall time per simulated round of each simulator
# (issue 41, item 7; the tables are in docs/reproductions.md).
#
# The setting, the same on both sides (scripts/fl_peer/common.sh; change it only there):
#   Fashion-MNIST (data/fashion-mnist, IDX), pixels / 255, the whole test set evaluated
#   every EVAL_EVERY server updates; MLP 784-200-10, ReLU, He initialisation; 100 clients
#   holding a Dirichlet(0.5)-over-labels partition (every client >= 32 samples); a client's
#   trip: 20 local SGD steps of 32 samples (drawn with replacement from its own samples) at
#   lr 0.1, no momentum.  FedAvg: 10 clients per round, uniformly, weighted by sample count.
#   FedBuff: 10 clients in flight, buffer K = 10, server lr 1, staleness weight 1/sqrt(1+tau).
#   Time: a trip lasts 20 x 0.05 s x f_i of compute plus the model (636,040 bytes) down and up
#   at 1 MB/s, f_i ~ lognormal(mean 1, cv 1) per client, drawn once; nothing else costs time.
# Where the two simulators cannot be made equal (FLGo's integer clock ticks, its one tick
# per synchronous round, the random draws themselves): scripts/fl_peer/flgo_run.py's
# docstring; how sgdsim's network carries the transfers: sgdsim_settings in
# scripts/fl_peer/common.sh.
#
# The peer is not part of this repository and nothing of it is copied here.  Get it with
#   git clone https://github.com/WwZzz/easyFL.git /path/to/easyFL
#   git -C /path/to/easyFL checkout ea07f1d082efacca2eff27ee401a7ab4ec604825   # FLGo v0.2.1
# (only its flgo/ folder is used) and run it on Debian's Python 3 packages, no pip:
#   apt-get install python3-torch python3-numpy python3-networkx python3-tqdm \
#                   python3-requests python3-yaml
# (python3-torchvision is not imported on this path).  FLGo's other requirements
# (matplotlib, scipy, pandas, prettytable, ujson, pynvml) are not imported either: nothing is
# stubbed.  FLGo's own fashion_classification benchmark is not used (it downloads through
# torchvision and needs matplotlib); scripts/fl_peer/flgo_idx_bench reads the local files.
#
# usage: FLGO_SRC=/path/to/easyFL scripts/fl-peer-compare.sh [peer|sgdsim|table|all|timing]
#   peer    run FLGo: ALGS x SEEDS, one CSV of the curve and one JSON summary per run, in
#           $OUT/flgo/ (a run whose summary exists is skipped: reruns resume)
#   sgdsim  run sgdsim's scenarios/fl/<alg>.json with the setting above into $OUT/sgdsim.db
#           (a sweep per algorithm, one run at a time; a rerun resumes) and export the same
#           CSVs to $OUT/sgdsim/ (exit 3, saying why, where this tree cannot run the setting)
#   table   the Markdown tables from whatever CSVs exist (scripts/fl_peer/fl_tables.py)
#   all     the three in turn (default)
#   timing  wall time per round of both simulators measured alternately, so that both see
#           the same machine load: REPEATS times, for each of ALGS, one FLGo run and one
#           sgdsim run of seed TIMING_SEED for TIMING_ROUNDS rounds evaluated every
#           EVAL_EVERY (which goes first alternates between repeats), and one sgdsim run
#           evaluated only at its start and end (FLGo's own figure without evaluation is its
#           run's wall time less the time its evaluations took); rows appended to
#           $OUT/timing/timing.csv (a rerun adds REPEATS more), then its table.  Nothing in the repository asserts a
#           wall time: they depend on the machine and its load.
# Environment:
#   FLGO_SRC   the peer's checkout (needed by "peer")
#   SEEDS      seeds, space-separated (default "1 2 3 4 5")
#   ALGS       algorithms (default "fedavg fedbuff"; "fedasync" also exists on both sides)
#   ROUNDS     server updates per FedAvg/FedBuff run (default 200; FedAsync, which updates
#              on every arrival, runs ROUNDS x PER_ROUND updates: the same client trips)
#   OUT        output folder (default out/fl-peer): $OUT/flgo/ and $OUT/sgdsim/ hold one
#              <alg>-seed<s>.csv curve and one summary per run, $OUT/sgdsim.db sgdsim's runs
#   PY         the Python with torch (default /usr/bin/python3: Debian's)
#   SGDSIM     the binary (default build/sgdsim)
#   EVAL_EVERY server updates between evaluations (default 5; FedAsync: x 10)
#   AT_ROUNDS, AT_TIMES  the matched rounds and simulated seconds of the tables
#                        (default "25 50 100 200" and "50 100 200 400")
#   REPEATS, TIMING_SEED, TIMING_ROUNDS  timing's repeats (default 3), seed (1) and rounds
#                        (default 40; FedAsync x 10 updates)
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-all}"
case "$MODE" in peer | sgdsim | table | all | timing) ;; *)
  echo "usage: FLGO_SRC=DIR $0 [peer|sgdsim|table|all|timing]" >&2; exit 2 ;;
esac
SEEDS="${SEEDS:-1 2 3 4 5}"
ALGS="${ALGS:-fedavg fedbuff}"
ROUNDS="${ROUNDS:-200}"
OUT="${OUT:-out/fl-peer}"
PY="${PY:-/usr/bin/python3}"
SGDSIM="${SGDSIM:-build/sgdsim}"
AT_ROUNDS="${AT_ROUNDS:-25 50 100 200}"
AT_TIMES="${AT_TIMES:-50 100 200 400}"
REPEATS="${REPEATS:-3}"
TIMING_SEED="${TIMING_SEED:-1}"
TIMING_ROUNDS="${TIMING_ROUNDS:-40}"
. scripts/fl_peer/common.sh
check_common
if [ "$MODE" = timing ]; then
  [[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || { echo "REPEATS=$REPEATS: not a positive integer" >&2; exit 2; }
  [[ "$TIMING_SEED" =~ ^[0-9]+$ ]] || { echo "TIMING_SEED=$TIMING_SEED: not a seed" >&2; exit 2; }
  [[ "$TIMING_ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "TIMING_ROUNDS=$TIMING_ROUNDS: not a positive integer" >&2; exit 2; }
fi
mkdir -p "$OUT"

tables() {
  local curves runs
  mapfile -t curves < <(curve_files "$OUT/flgo" "$OUT/sgdsim")
  mapfile -t runs < <(run_files "$OUT/flgo" "$OUT/sgdsim")
  [ ${#curves[@]} -gt 0 ] || { echo "no curves under $OUT: run '$0 peer' first" >&2; exit 2; }
  "$PY" scripts/fl_peer/fl_tables.py compare --curves "${curves[@]}" --runs "${runs[@]}" \
    --per-round "$PER_ROUND" --rounds $AT_ROUNDS --times $AT_TIMES
}

# timing_row SIDE ALG REPEAT EVALUATION FILE: one row of $OUT/timing/timing.csv from FLGo's
# JSON summary (EVALUATION "none": its wall time without evaluation) or from sgdsim's
# database (runs.wall_s: its event loop, evaluation included, data loading not).
timing_row() {
  "$PY" - "$@" "$OUT/timing/timing.csv" <<'PY'
import csv, json, os, sqlite3, sys
side, alg, rep, ev, src, out = sys.argv[1:]
if side == "flgo":
    j = json.load(open(src))
    rounds, sim = j["rounds"], j["sim_time_s"]
    per = j["wall_per_round_no_eval_s"] if ev == "none" else j["wall_per_round_s"]
    wall = per * rounds
else:
    con = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    status, rounds, vt, wall = con.execute(
        "SELECT status, updates, vtime_ns, wall_s FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    if status != "complete":
        sys.exit(f"sgdsim's timing run in {src} is {status}")
    sim, per = vt / 1e9, wall / rounds
new = not os.path.exists(out)
with open(out, "a", newline="") as f:
    w = csv.writer(f)
    if new:
        w.writerow(["side", "algorithm", "repeat", "evaluation", "rounds", "sim_time_s",
                    "wall_run_s", "wall_per_round_s"])
    w.writerow([side, alg, rep, ev, rounds, "%.3f" % sim, "%.3f" % wall, "%.6f" % per])
PY
}

# sgdsim_once ALG DB [--set ...]: one sgdsim run of TIMING_SEED into a fresh DB.
sgdsim_once() {
  local alg="$1" db="$2" sets
  shift 2
  rm -f "$db"
  mapfile -t sets < <(sgdsim_settings "$alg")
  nice "$SGDSIM" run "scenarios/fl/$alg.json" --db "$db" --quiet "${sets[@]}" \
    --set "seed=$TIMING_SEED" --set "name=fl-peer-timing/$alg" "$@"
}

timing() {
  local dir="$OUT/timing" k alg side ev="every $EVAL_EVERY rounds" done=0
  peer_check
  [ -x "$SGDSIM" ] || { echo "$SGDSIM not built" >&2; exit 2; }
  mkdir -p "$dir"
  ROUNDS="$TIMING_ROUNDS"
  # A rerun adds REPEATS more repeats after those already in timing.csv.
  [ -f "$dir/timing.csv" ] && done=$(awk -F, 'NR > 1 && $3 > m { m = $3 } END { print m + 0 }' "$dir/timing.csv")
  for k in $(seq $((done + 1)) $((done + REPEATS))); do
    for alg in $ALGS; do
      for side in $( ((k % 2)) && echo "flgo sgdsim" || echo "sgdsim flgo"); do
        echo "== timing $k: $side $alg, $(updates "$alg") updates" >&2
        if [ "$side" = flgo ]; then
          peer_once "$alg" "$TIMING_SEED" "$dir/flgo-$alg-r$k" "$dir/tasks"
          timing_row flgo "$alg" "$k" "$ev" "$dir/flgo-$alg-r$k.json"
          timing_row flgo "$alg" "$k" none "$dir/flgo-$alg-r$k.json"
        else
          sgdsim_once "$alg" "$dir/sgdsim.db"
          timing_row sgdsim "$alg" "$k" "$ev" "$dir/sgdsim.db"
          sgdsim_once "$alg" "$dir/sgdsim.db" --set "eval.every=$(updates "$alg")"
          timing_row sgdsim "$alg" "$k" none "$dir/sgdsim.db"
        fi
      done
    done
  done
  "$PY" scripts/fl_peer/fl_tables.py timing --csv "$dir/timing.csv"
}

rc=0
case "$MODE" in
  timing) timing ;;
  peer) peer_run "$OUT/flgo" ;;
  sgdsim) sgdsim_run "$OUT/sgdsim.db" "$OUT/sgdsim" fl-peer || rc=$? ;;
  table) tables ;;
  all)
    peer_run "$OUT/flgo"
    sgdsim_run "$OUT/sgdsim.db" "$OUT/sgdsim" fl-peer || rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || exit "$rc"
    tables ;;
esac
exit "$rc"
