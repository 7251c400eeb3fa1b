#!/usr/bin/env bash
# compare-run-lr.sh -- `sgdsim compare --run` on a real A/B question: FASGD on Fashion-MNIST
# (scenarios/fasgd/fashion-mnist.json; DATA=synthetic for the synthetic data set) at
# lambda = LAMBDAS, UPDATES updates, the learning rate changed from 0.005 to 0.01.  Both
# sides start from seeds 1-3; --run adds seeds to both (--run-baseline: one build, so the
# baseline may grow too) in batches until every row is decided or MAX_SEEDS a side.
# Prints the comparison (docs/workflow.md, "Regression test in CI", quotes it).
#   scripts/compare-run-lr.sh
#   LAMBDAS=16,64 UPDATES=1000 MAX_SEEDS=12 scripts/compare-run-lr.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
SGDSIM="${SGDSIM:-$root/build/sgdsim}"
LAMBDAS="${LAMBDAS:-16,32,64,128}"
UPDATES="${UPDATES:-2000}"
MAX_SEEDS="${MAX_SEEDS:-20}"
JOBS="${JOBS:-2}"
OUT="${OUT:-$root/out/compare-run-lr}"
DATA="${DATA:-fashion-mnist}"
SCN="$root/scenarios/fasgd/fashion-mnist.json"
[ -x "$SGDSIM" ] || { echo "compare-run-lr: no sgdsim at $SGDSIM" >&2; exit 2; }
DATASET=() BASESET=()
SYNTH='data={"source":"synthetic","n_train":2000,"n_validation":500,"dim":784,"classes":10}'
if [ "$DATA" = synthetic ]; then
  DATASET=(--set "$SYNTH") BASESET=(--baseline-set "$SYNTH")
elif [ ! -e "$root/data/fashion-mnist/train-images-idx3-ubyte.gz" ]; then
  echo "compare-run-lr: no Fashion-MNIST under data/ (scripts/get-data.sh), or DATA=synthetic" >&2
  exit 2
fi
mkdir -p "$OUT"
rm -f "$OUT/base.db" "$OUT/cand.db"
common=("${DATASET[@]}" --set "cluster.workers=$LAMBDAS" --set "stop.updates=$UPDATES")
"$SGDSIM" sweep "$SCN" "${common[@]}" --set seed=1,2,3 -j "$JOBS" --quiet --db "$OUT/base.db"
"$SGDSIM" sweep "$SCN" "${common[@]}" --set optimizer.lr=0.01 --set seed=1,2,3 -j "$JOBS" \
  --quiet --db "$OUT/cand.db"
echo "== compare on seeds 1-3 (one look)"
"$SGDSIM" compare "$OUT/base.db" "$OUT/cand.db" --ignore optimizer.lr \
  --metrics val_loss,val_error,train_loss | tail -1 || true
echo "== compare --run"
start=$(date +%s)
rc=0
"$SGDSIM" compare "$OUT/base.db" "$OUT/cand.db" --ignore optimizer.lr \
  --metrics val_loss,val_error,train_loss --run "$SCN" "${DATASET[@]}" \
  --set optimizer.lr=0.01 --run-baseline "$SCN" "${BASESET[@]}" \
  --max-seeds "$MAX_SEEDS" -j "$JOBS" || rc=$?
echo "== exit $rc after $(( $(date +%s) - start )) s"
