#!/usr/bin/env bash
# How planning scales: times `sgdsim sweep --list` of a small scenario whose sweep block has
# one axis of N seeds (default 100,000, the most one axis may have) and of N/10 seeds, in one
# invocation, and prints both figures, the points planned per second and the ratio of the
# two times: about 10 for a planner that grows linearly (or as n log n), about 100 for a
# quadratic one.  Every point is loaded and hashed as `run` would; nothing is run or opened.
#   bench/bench_sweep_plan.sh [N]        (SGDSIM=build/sgdsim by default)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-100000}" SGDSIM="${SGDSIM:-build/sgdsim}"
[ -x "$SGDSIM" ] || { echo "$SGDSIM not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# scenario N FILE: the tests' small CSGD scenario with a sweep block of seeds 1..N.
scenario() {
  python3 - "$1" "$2" <<'PY'
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
s = {"schema_version": 1, "name": "plan-bench", "algorithm": {"name": "csgd"},
     "cluster": {"workers": 3},
     "data": {"source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20,
              "classes": 5},
     "model": {"kind": "mlp", "hidden": [32]}, "batch": {"per_worker": 16},
     "stop": {"updates": 60}, "sweep": {"seed": list(range(1, n + 1))}}
json.dump(s, open(path, "w"))
PY
}

# seconds N: wall-clock seconds of `sweep --list` for N points (and checks the count).
seconds() {
  local n="$1" f="$tmp/s$1.json" t0 t1 lines
  scenario "$n" "$f"
  t0=$(date +%s.%N)
  lines=$("$SGDSIM" sweep "$f" --list --quiet | wc -l)
  t1=$(date +%s.%N)
  [ "$lines" = "$n" ] || { echo "sweep --list printed $lines points, wanted $n" >&2; exit 1; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

small=$((N / 10))
ts=$(seconds "$small")
tl=$(seconds "$N")
printf '%-10s %10s %14s\n' points seconds points_per_s
awk -v n="$small" -v t="$ts" 'BEGIN { printf "%-10d %10.3f %14.0f\n", n, t, n / t }'
awk -v n="$N" -v t="$tl" 'BEGIN { printf "%-10d %10.3f %14.0f\n", n, t, n / t }'
awk -v a="$ts" -v b="$tl" 'BEGIN { printf "time ratio for 10x the points: %.1f (10 = linear, 100 = quadratic)\n", b / a }'
