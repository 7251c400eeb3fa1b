#!/usr/bin/env bash
# sgdsim's parameter-server loop vs the numpy implementation of the same loop and model
# (bench/ps_numpy.py), measured back to back in one invocation, as a ratio; plus the share of
# sgdsim's run spent outside gradient math (bench/bench_ps.c).  Both use the same OpenBLAS
# (numpy links the system OpenBLAS on Debian) and OPENBLAS_CORETYPE, and THREADS threads:
# sgdsim's numerics.threads (one BLAS thread each) and numpy's OPENBLAS_NUM_THREADS.
#   bench/ps-vs-numpy.sh [UPDATES]     (default 2000; LAMBDA=128, MUS="1 32 128", THREADS=1)
# With THREADS > 1 sgdsim's share outside gradient math is not measured ("na").
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATES="${1:-2000}" LAMBDA="${LAMBDA:-128}" MUS="${MUS:-1 32 128}" THREADS="${THREADS:-1}"
BENCH="${BENCH:-build/bench/bench_ps}" PY="${PY:-/usr/bin/python3}"
SGDSIM="${SGDSIM:-build/sgdsim}"
export OPENBLAS_NUM_THREADS="$THREADS"
[ -x "$BENCH" ] || { echo "$BENCH not built" >&2; exit 2; }
"$PY" -c "import numpy" 2>/dev/null || { echo "numpy missing: apt-get install -y python3-numpy" >&2; exit 2; }
echo "OpenBLAS core: $("$SGDSIM" --version | sed -n 's/.*(core \(.*\))/\1/p'), OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}, $THREADS thread(s)"
printf '%-5s %-7s %-8s %14s %14s %9s %18s %18s\n' mu lambda updates sgdsim_upd/s numpy_upd/s ratio outside_grad_math outside_vs_hot_grad
for mu in $MUS; do
  s=$("$BENCH" -t "$THREADS" "$mu" "$LAMBDA" "$UPDATES" | awk '/^sgdsim updates_per_s/ {print $3, $5, $7}')
  n=$("$PY" bench/ps_numpy.py --mu "$mu" --lam "$LAMBDA" --updates "$UPDATES" | awk '{print $3}')
  set -- $s
  awk -v mu="$mu" -v l="$LAMBDA" -v u="$UPDATES" -v a="$1" -v o="$2" -v h="$3" -v b="$n" '
    function pct(x) { return x == "na" ? "na" : sprintf("%.1f%%", 100 * x) }
    BEGIN { printf "%-5s %-7s %-8s %14.1f %14.1f %8.2fx %18s %18s\n", mu, l, u, a, b, a / b, pct(o), pct(h) }'
done
