#!/usr/bin/env bash
# bench/blas_kernels.sh -- which OpenBLAS kernel computes sgdsim's gradients fastest on this CPU.
#
#   bench/blas_kernels.sh [KERNEL...]     # default: Haswell Zen SkylakeX Cooperlake
#   ROUNDS=5 bench/blas_kernels.sh        # rounds of alternation (default 3)
#   CPU_TIME=1 bench/blas_kernels.sh      # time by thread CPU time (a machine shared with
#                                         # other work: waiting for a core is left out)
#
# For each kernel this CPU runs, bench_mlp_grad and bench_cnn_grad measure the gradient's
# GFLOP/s for the MLP 784-200-10 at batch 128 and LeNet-5 at batch 16 and 64.  The kernels take
# turns, in a rotated order each round, so slow drift of the machine falls on all of them; the
# table gives each figure's median and spread (min-max) over the rounds and the median against
# the best kernel's, and (wall-clock timing only) the median fraction of the FP32 FMA peak the
# same processes measured.  This is how the `auto` table of models/blas_kernel.c was measured
# (docs/performance.md has the figures).  Asserts nothing; exit status 0 unless a benchmark
# failed.
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH="${BUILD_DIR:-build}/bench"
ROUNDS="${ROUNDS:-3}"
CPU_TIME="${CPU_TIME:-0}"
TIMING=(); [ "$CPU_TIME" = 1 ] && TIMING=(--cpu-time)
[ "$#" -gt 0 ] || set -- Haswell Zen SkylakeX Cooperlake
kernels=("$@")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset OPENBLAS_L2_SIZE

# figure KERNEL: one line "mlp128 lenet16 lenet64 peak_mlp128 peak_lenet16 peak_lenet64":
# the gradient's GFLOP/s, then its fractions of the FP32 FMA peak, on KERNEL.
figure() {
  local mlp cnn
  mlp=$(OPENBLAS_CORETYPE="$1" "$BENCH/bench_mlp_grad" "${TIMING[@]}") || return 1
  cnn=$(OPENBLAS_CORETYPE="$1" "$BENCH/bench_cnn_grad" "${TIMING[@]}") || return 1
  grep -q "core $1 " <<< "$mlp" || { echo "OpenBLAS did not run $1" >&2; return 1; }
  pick() { awk -v m="$1" -v b="$2" -v c="$3" '$1 == m && $2 == b { print $c }'; }
  printf '%s %s %s %s %s %s\n' "$(pick 784-200-10 128 4 <<< "$mlp")" "$(pick LeNet-5 16 4 <<< "$cnn")" \
    "$(pick LeNet-5 64 4 <<< "$cnn")" "$(pick 784-200-10 128 7 <<< "$mlp")" \
    "$(pick LeNet-5 16 7 <<< "$cnn")" "$(pick LeNet-5 64 7 <<< "$cnn")"
}

echo "date: $(date -u +%Y-%m-%d), $(git rev-parse --short HEAD 2>/dev/null), CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) (family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1), model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
n=${#kernels[@]}
for ((r = 0; r < ROUNDS; r++)); do
  for ((i = 0; i < n; i++)); do
    k=${kernels[$(((i + r) % n))]}
    echo "== round $((r + 1))/$ROUNDS: $k" >&2
    figure "$k" >> "$TMP/$k" || { echo "bench/blas_kernels.sh: $k failed" >&2; exit 1; }
  done
done

# stats COLUMN FILE: "median min max" of one column.
stats() {
  cut -d' ' -f"$1" "$2" | sort -g | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'
}
best=(0 0 0)
for k in "${kernels[@]}"; do
  for c in 1 2 3; do
    m=$(stats "$c" "$TMP/$k" | cut -d' ' -f1)
    best[$((c - 1))]=$(awk -v a="${best[$((c - 1))]}" -v b="$m" 'BEGIN { print (b > a ? b : a) }')
  done
done
echo
echo "| kernel | MLP 784-200-10, μ = 128 | LeNet-5, μ = 16 | LeNet-5, μ = 64 |"
echo "|---|---|---|---|"
for k in "${kernels[@]}"; do
  line="| $k |"
  for c in 1 2 3; do
    read -r m lo hi < <(stats "$c" "$TMP/$k")
    peak=$(stats $((c + 3)) "$TMP/$k" | cut -d' ' -f1)
    line+=$(awk -v m="$m" -v lo="$lo" -v hi="$hi" -v b="${best[$((c - 1))]}" -v n="$ROUNDS" \
      -v p="$peak" -v cpu="$CPU_TIME" 'BEGIN {
        printf " %.1f GFLOP/s (%.1f–%.1f, n=%d), **%.2f** of the best", m, lo, hi, n, m / b
        if (cpu != 1) printf ", %.2f of peak", p
        printf " |" }')
  done
  echo "$line"
done
echo
echo "timing: $([ "$CPU_TIME" = 1 ] && echo "thread CPU time" || echo "wall clock"); peak: FP32 FMA peak measured in the same process"
