#!/usr/bin/env bash
# The LeNet-5 gradient of sgdsim (bench/bench_cnn_grad.c) against the numpy port of the same
# gradient (bench/cnn_numpy.py: im2col, same GEMMs), in one invocation: PAIRS pairs, sgdsim
# then numpy in each, so both see the same machine; per batch the median and the range of
# sgdsim's grad/sgemm and GFLOP/s, numpy's GFLOP/s and the ratio sgdsim/numpy of each pair.
# Both run one BLAS thread (OPENBLAS_NUM_THREADS=1; sgdsim also calls
# openblas_set_num_threads(1)) on the same OpenBLAS (numpy's libblas.so.3 is Debian's
# OpenBLAS) and the same kernel: OPENBLAS_CORETYPE as given, else the kernel bench_cnn_grad
# reports on its own, exported for both.
#   bench/cnn-vs-numpy.sh [PAIRS]      (default 5)
# CLOCK=cpu times both by their thread's CPU time (bench_cnn_grad --cpu-time), which leaves
# out the waits for a core on a loaded machine.  Nothing is asserted: times vary with the
# machine's load (the spread says how much).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS="${1:-5}" BENCH="${BENCH:-build/bench/bench_cnn_grad}" PY="${PY:-/usr/bin/python3}"
CLOCK="${CLOCK:-wall}"
case "$CLOCK" in
  wall) CLOCK_ARG=() ;;
  cpu) CLOCK_ARG=(--cpu-time) ;;
  *) echo "cnn-vs-numpy.sh: CLOCK must be wall or cpu, got '$CLOCK'" >&2; exit 2 ;;
esac
case "$PAIRS" in '' | *[!0-9]* | 0) echo "cnn-vs-numpy.sh: PAIRS must be a positive integer, got '$PAIRS'" >&2; exit 2 ;; esac
[ -x "$BENCH" ] || { echo "cnn-vs-numpy.sh: $BENCH not built" >&2; exit 2; }
"$PY" -c "import numpy" 2>/dev/null ||
  { echo "cnn-vs-numpy.sh: numpy missing: apt-get install -y python3-numpy" >&2; exit 2; }
export OPENBLAS_NUM_THREADS=1
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  OPENBLAS_CORETYPE=$("$BENCH" --core)
  export OPENBLAS_CORETYPE
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for i in $(seq "$PAIRS"); do
  "$BENCH" "${CLOCK_ARG[@]}" > "$TMP/s.$i"
  "$PY" bench/cnn_numpy.py "${CLOCK_ARG[@]}" > "$TMP/n.$i"
done
echo "OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE, 1 BLAS thread, $PAIRS pairs, $CLOCK time; $(uptime | sed 's/.*load/load/')"
sed -n 1p "$TMP/s.1"
sed -n 1p "$TMP/n.1"
# One row per (pair, batch): batch, sgdsim grad/sgemm, sgdsim GF/s, numpy GF/s (bench_cnn_grad's
# columns: model, batch, MFLOP/call, grad GF/s, sgemm GF/s, grad/sgemm, ...).
for i in $(seq "$PAIRS"); do
  awk -v i="$i" 'FNR == NR && $1 == "LeNet-5" { s[$2] = $6 " " $4; next }
                 FNR != NR && $1 == "numpy" && $2 == "batch" { print $3, s[$3], $5 }' \
    "$TMP/s.$i" "$TMP/n.$i"
done | sort -n -k1,1 -s | awk '
  function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function cell(a, n, f,   lo, hi, i) {
    lo = hi = a[1]; for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
    return sprintf(f " (" f "-" f ")", med(a, n), lo, hi)
  }
  function flush() {
    if (!n) return
    printf "%-6s %-24s %-24s %-24s %-24s\n", b, cell(r, n, "%.3f"), cell(sg, n, "%.2f"), cell(np, n, "%.2f"), cell(q, n, "%.2f")
    n = 0
  }
  BEGIN { printf "%-6s %-24s %-24s %-24s %-24s\n", "batch", "sgdsim grad/sgemm", "sgdsim GF/s", "numpy GF/s", "sgdsim/numpy" }
  $1 != b { flush(); b = $1 }
  { n++; r[n] = $2; sg[n] = $3; np[n] = $4; q[n] = $3 / $4 }
  END { flush() }'
