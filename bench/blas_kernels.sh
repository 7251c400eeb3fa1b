#!/usr/bin/env bash
# bench/blas_kernels.sh -- which OpenBLAS kernel computes sgdsim's gradients fastest on this CPU.
#
#   bench/blas_kernels.sh [KERNEL...]     # default: Haswell Zen SkylakeX Cooperlake
#   ROUNDS=5 bench/blas_kernels.sh        # rounds of alternation (default 3)
#
# For each kernel this CPU runs, bench_mlp_grad and bench_cnn_grad measure the MLP 784-200-10
# gradient at batch 128 and LeNet-5's at batch 16 and 64 as fractions of the FP32 FMA peak that
# the same process measures next to them.  The kernels take turns, in a rotated order each
# round, so slow drift of the machine falls on all of them; the table gives the median and the
# spread (min-max) over the rounds, and each kernel's median against the best one.  This is how
# the `auto` table of models/blas_kernel.c was measured (docs/performance.md has the figures).
# Asserts nothing; exit status 0 unless a benchmark failed.
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH="${BUILD_DIR:-build}/bench"
ROUNDS="${ROUNDS:-3}"
[ "$#" -gt 0 ] || set -- Haswell Zen SkylakeX Cooperlake
kernels=("$@")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset OPENBLAS_L2_SIZE

# figure KERNEL: one line "mlp128 lenet16 lenet64" of grad/peak fractions on KERNEL.
figure() {
  local mlp cnn
  mlp=$(OPENBLAS_CORETYPE="$1" "$BENCH/bench_mlp_grad") || return 1
  cnn=$(OPENBLAS_CORETYPE="$1" "$BENCH/bench_cnn_grad") || return 1
  grep -q "core $1 " <<< "$mlp" || { echo "OpenBLAS did not run $1" >&2; return 1; }
  printf '%s %s %s\n' "$(awk '$1 == "784-200-10" && $2 == 128 { print $7 }' <<< "$mlp")" \
    "$(awk '$1 == "LeNet-5" && $2 == 16 { print $7 }' <<< "$cnn")" \
    "$(awk '$1 == "LeNet-5" && $2 == 64 { print $7 }' <<< "$cnn")"
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
    line+=$(awk -v m="$m" -v lo="$lo" -v hi="$hi" -v b="${best[$((c - 1))]}" -v n="$ROUNDS" \
      'BEGIN { printf " %.3f (%.3f–%.3f, n=%d), %.2f of the best |", m, lo, hi, n, m / b }')
  done
  echo "$line"
done
echo
echo "fractions of the FP32 FMA peak measured in the same process (grad/peak)"
