#!/usr/bin/env bash
# Pairs two sgdsim binaries on the federated peer setting (scripts/fl_peer/common.sh: FedAvg,
# Fashion-MNIST, MLP 784-200-10, 100 clients, 10 per round, 20 local steps of 32 rows, seed
# 1, one thread): PAIRS repeats of one run each, which binary goes first alternating, and the
# ratio B / A of runs.wall_s (the event loop, data loading excluded) per repeat.  Both runs of
# a repeat must end with the same digest, or the script fails: a speed-up that changes the
# bits is not one.
#   bench/fl_round_pair.sh OLD_SGDSIM NEW_SGDSIM        # PAIRS=8 ROUNDS=40 ALG=fedavg
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] ||
  { echo "usage: $0 SGDSIM_A SGDSIM_B (two executables)" >&2; exit 2; }
PAIRS="${PAIRS:-8}" ROUNDS="${ROUNDS:-40}" ALG="${ALG:-fedavg}"
[[ "$PAIRS" =~ ^[1-9][0-9]*$ ]] || { echo "PAIRS=$PAIRS: not a positive integer" >&2; exit 2; }
SEEDS=1 ALGS="$ALG" PY=python3
# shellcheck source=../scripts/fl_peer/common.sh
. scripts/fl_peer/common.sh
check_common
mapfile -t sets < <(sgdsim_settings "$ALG")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# one_run BIN: prints "wall_s digest" of one run of the setting.
one_run() {
  rm -f "$work/r.db"
  "$1" run "scenarios/fl/$ALG.json" "${sets[@]}" --seed 1 --db "$work/r.db" >/dev/null
  sqlite3 -separator ' ' "$work/r.db" 'SELECT wall_s, digest FROM runs'
}

echo "pair a_wall_s b_wall_s b/a"
for i in $(seq 1 "$PAIRS"); do
  if [ $((i % 2)) -eq 1 ]; then ra=$(one_run "$1"); rb=$(one_run "$2")
  else rb=$(one_run "$2"); ra=$(one_run "$1"); fi
  read -r a da <<< "$ra"
  read -r b db <<< "$rb"
  [ "$da" = "$db" ] || { echo "pair $i: the digests differ ($da, $db)" >&2; exit 1; }
  awk -v i="$i" -v a="$a" -v b="$b" 'BEGIN { printf "%d %.3f %.3f %.3f\n", i, a, b, b / a }'
done | tee "$work/pairs"
sort -k4 -g "$work/pairs" | awk '{ r[NR] = $4 } END {
  m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
  printf "b/a: median %.3f [min %.3f, max %.3f] over %d pairs, same digest\n", m, r[1], r[NR], NR }'
