#!/usr/bin/env bash
# FedAvg and FedBuff in one setting, in sgdsim and in FLGo (a federated-learning simulator
# with a virtual clock), side by side: accuracy at matched rounds and at matched simulated
# time, mean +- sd over seeds, and the wall time per simulated round of each simulator
# (issue 41, item 7; the tables are for docs/reproductions.md once sgdsim's side runs).
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
# docstring.
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
# usage: FLGO_SRC=/path/to/easyFL scripts/fl-peer-compare.sh [peer|sgdsim|table|all]
#   peer    run FLGo: ALGS x SEEDS, one CSV of the curve and one JSON summary per run, in
#           $OUT/flgo/ (a run whose summary exists is skipped: reruns resume)
#   sgdsim  run sgdsim's scenarios/fl/<alg>.json with the setting above into $OUT/sgdsim.db
#           and export the same CSVs to $OUT/sgdsim/ (exit 3, saying why, while sgdsim cannot
#           run the setting: its FL rules are not merged yet)
#   table   the Markdown tables from whatever CSVs exist (scripts/fl_peer/fl_tables.py)
#   all     the three in turn (default)
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
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-all}"
case "$MODE" in peer | sgdsim | table | all) ;; *)
  echo "usage: FLGO_SRC=DIR $0 [peer|sgdsim|table|all]" >&2; exit 2 ;;
esac
SEEDS="${SEEDS:-1 2 3 4 5}"
ALGS="${ALGS:-fedavg fedbuff}"
ROUNDS="${ROUNDS:-200}"
OUT="${OUT:-out/fl-peer}"
PY="${PY:-/usr/bin/python3}"
SGDSIM="${SGDSIM:-build/sgdsim}"
AT_ROUNDS="${AT_ROUNDS:-25 50 100 200}"
AT_TIMES="${AT_TIMES:-50 100 200 400}"
. scripts/fl_peer/common.sh
check_common
mkdir -p "$OUT"

tables() {
  local curves runs
  mapfile -t curves < <(curve_files "$OUT/flgo" "$OUT/sgdsim")
  mapfile -t runs < <(run_files "$OUT/flgo" "$OUT/sgdsim")
  [ ${#curves[@]} -gt 0 ] || { echo "no curves under $OUT: run '$0 peer' first" >&2; exit 2; }
  "$PY" scripts/fl_peer/fl_tables.py compare --curves "${curves[@]}" --runs "${runs[@]}" \
    --per-round "$PER_ROUND" --rounds $AT_ROUNDS --times $AT_TIMES
}

rc=0
case "$MODE" in
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
