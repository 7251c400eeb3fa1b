#!/usr/bin/env bash
# compare-calibration.sh -- does `sgdsim compare` flag what it should, and only that?
# (docs/workflow.md, "Regression test in CI": the table this prints is there.)
#
# On FASGD (scenarios/fasgd/fashion-mnist.json, or the synthetic data set with
# DATA=synthetic) at each lambda of LAMBDAS, UPDATES updates, SETS calls of each kind:
#   null     the same build and configuration, baseline and candidate on disjoint seed
#            sets (call k: seeds 6k+1..6k+3 against 6k+4..6k+6): nothing changed, so a
#            better or worse row is a false alarm;
#   harmful  optimizer.lr 10x smaller on the baseline's seeds (--ignore optimizer.lr):
#            every call should flag it worse;
#   kernel   the baseline's seeds on another OpenBLAS kernel (--ignore
#            numerics.blas_core): rounding only, which must read equivalent, never better
#            or worse.
# Each call is `sgdsim compare` with its defaults (and EXTRA, e.g. EXTRA="--last 3").  The
# runs are made once into pool databases under OUT; each call's databases are copies
# holding only its seeds.  Prints one line per call, then the table.
#   scripts/compare-calibration.sh                     # 10 sets, lambda 16 and 64, 1,000 updates
#   SETS=20 LAMBDAS=16,32,64 JOBS=4 scripts/compare-calibration.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
SGDSIM="${SGDSIM:-$root/build/sgdsim}"
SETS="${SETS:-10}"
LAMBDAS="${LAMBDAS:-16,64}"
UPDATES="${UPDATES:-1000}"
JOBS="${JOBS:-2}"
OUT="${OUT:-$root/out/compare-calibration}"
DATA="${DATA:-fashion-mnist}"
EXTRA="${EXTRA:-}"
SCN="$root/scenarios/fasgd/fashion-mnist.json"
command -v sqlite3 >/dev/null || { echo "compare-calibration: needs the sqlite3 command" >&2; exit 2; }
[ -x "$SGDSIM" ] || { echo "compare-calibration: no sgdsim at $SGDSIM (build first, or SGDSIM=...)" >&2; exit 2; }
DATASET=()
if [ "$DATA" = synthetic ]; then
  DATASET=(--set 'data={"source":"synthetic","n_train":2000,"n_validation":500,"dim":784,"classes":10}')
elif [ ! -e "$root/data/fashion-mnist/train-images-idx3-ubyte.gz" ]; then
  echo "compare-calibration: no Fashion-MNIST under data/ (scripts/get-data.sh), or DATA=synthetic" >&2
  exit 2
fi
mkdir -p "$OUT"

# The kernel this CPU's default run uses, and another one with other last bits.
native=$("$SGDSIM" --version | sed -n 's/^BLAS: .*(core \(.*\))$/\1/p')
OTHER="${OTHER_KERNEL:-Sandybridge}"
[ "$OTHER" = "$native" ] && OTHER=Haswell

seeds_of() { # first count -> "a,b,c"
  local s="" i
  for ((i = $1; i < $1 + $2; i++)); do s="$s${s:+,}$i"; done
  echo "$s"
}
all_seeds=$(seeds_of 1 $((6 * SETS)))
base_seeds=""
for ((k = 0; k < SETS; k++)); do base_seeds="$base_seeds${base_seeds:+,}$(seeds_of $((6 * k + 1)) 3)"; done

sweep() { # DB, then --set arguments
  local db=$1; shift
  "$SGDSIM" sweep "$SCN" "${DATASET[@]}" --set "cluster.workers=$LAMBDAS" \
    --set "stop.updates=$UPDATES" -j "$JOBS" --quiet --db "$db" "$@"
}
start=$(date +%s)
sweep "$OUT/pool.db" --set "seed=$all_seeds"
sweep "$OUT/harmful.db" --set "seed=$base_seeds" --set optimizer.lr=0.0005
sweep "$OUT/kernel.db" --set "seed=$base_seeds" --blas-core "$OTHER"
echo "compare-calibration: runs made in $(( $(date +%s) - start )) s (kernels $native and $OTHER)" >&2

subset() { # POOL OUT SEEDS: a copy of POOL holding only SEEDS' runs
  rm -f "$2"
  cp "$1" "$2"
  sqlite3 "$2" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE seed NOT IN ($3); VACUUM;"
}
# One call: prints "KIND SET exit better worse equivalent inconclusive same kernel-differs".
call() {
  local kind=$1 k=$2 cand=$3; shift 3
  local rc=0
  # shellcheck disable=SC2086
  "$SGDSIM" compare "$OUT/base.db" "$cand" --csv "$@" $EXTRA > "$OUT/call.csv" 2>/dev/null || rc=$?
  local n
  n() { grep -c ",$1,true," "$OUT/call.csv" || true; }
  echo "$kind $k $rc $(n better) $(n worse) $(n equivalent) $(n inconclusive) $(n same)" \
       "$(n 'differs (different kernel)')"
}
for ((k = 0; k < SETS; k++)); do
  subset "$OUT/pool.db" "$OUT/base.db" "$(seeds_of $((6 * k + 1)) 3)"
  subset "$OUT/pool.db" "$OUT/null.db" "$(seeds_of $((6 * k + 4)) 3)"
  subset "$OUT/harmful.db" "$OUT/harm.db" "$(seeds_of $((6 * k + 1)) 3)"
  subset "$OUT/kernel.db" "$OUT/kern.db" "$(seeds_of $((6 * k + 1)) 3)"
  call null "$k" "$OUT/null.db"
  call harmful "$k" "$OUT/harm.db" --ignore optimizer.lr
  call kernel "$k" "$OUT/kern.db" --ignore numerics.blas_core
done | tee "$OUT/calls.txt"

echo
echo "| change | calls | flagged better or worse | worse | rows same / equivalent / inconclusive / differs (kernel) | exit 0 / 1 / 4 |"
echo "|---|---|---|---|---|---|"
for kind in null harmful kernel; do
  awk -v k="$kind" '$1 == k {
      n++; if ($4 + $5 > 0) flagged++; if ($5 > 0) worse++; eq += $6; inc += $7; same += $8;
      kd += $9; e[$3]++ }
    END { printf "| %s | %d | %d | %d | %d / %d / %d / %d | %d / %d / %d |\n", k, n, flagged,
          worse, same, eq, inc, kd, e[0], e[1], e[4] }' "$OUT/calls.txt"
done
echo
echo "sgdsim compare defaults${EXTRA:+ with $EXTRA}; FASGD $DATA, lambda $LAMBDAS, $UPDATES updates, 3 seeds a side, $SETS calls of each kind"
