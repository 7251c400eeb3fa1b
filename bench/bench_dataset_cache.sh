#!/usr/bin/env bash
# What the decoded-dataset cache (models/data_cache.h) saves: wall time of one scenario run
# (default the quickstart, Fashion-MNIST) without the cache (data.cache false: inflate and
# convert every file), with a cold cache (emptied first: decode, then store the entries) and
# with a warm one (read the entries), taken in turn N times in one invocation, so that the
# machine's load drifts over all three alike.  Prints each mode's median and the ratios to
# the uncached median, and fails if any run's digest differs from the others'.
#   bench/bench_dataset_cache.sh [N]      (default 7; SCENARIO=..., SGDSIM=build/sgdsim)
# The cache lives in a temporary directory (SGDSIM_CACHE_DIR), removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-7}" SCN="${SCENARIO:-scenarios/quickstart.json}" SGDSIM="${SGDSIM:-build/sgdsim}"
[ -x "$SGDSIM" ] || { echo "$SGDSIM not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SGDSIM_CACHE_DIR="$tmp/cache"

# run MODE: one run, timed by the shell (wall, user and system seconds); appends the wall
# time to $tmp/MODE, user + system to $tmp/MODE.cpu and its digest to $tmp/digests.
run() {
  local mode=$1 args=() digest times
  case $mode in
    uncached) args=(--set data.cache=false) ;;
    cold) rm -rf "$SGDSIM_CACHE_DIR" ;;
    warm) ;;
  esac
  rm -f "$tmp/run.db"
  TIMEFORMAT='%R %U %S'
  { time "$SGDSIM" run "$SCN" --db "$tmp/run.db" "${args[@]}" > "$tmp/out" 2>/dev/null; } \
    2> "$tmp/time"
  digest=$(sed -n 's/^digest //p' "$tmp/out")
  [ -n "$digest" ] || { echo "$mode run printed no digest" >&2; exit 1; }
  read -r -a times < "$tmp/time"
  echo "${times[0]}" >> "$tmp/$mode"
  awk -v u="${times[1]}" -v s="${times[2]}" 'BEGIN { printf "%.3f\n", u + s }' >> "$tmp/$mode.cpu"
  echo "$mode $digest" >> "$tmp/digests"
}

median() {
  sort -n "$1" | awk '{ v[NR] = $1 }
    END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for ((i = 0; i < N; i++)); do
  run uncached
  run cold
  run warm
done
if [ "$(awk '{ print $2 }' "$tmp/digests" | sort -u | wc -l)" != 1 ]; then
  echo "digests differ between modes:" >&2
  sort "$tmp/digests" | uniq -c >&2
  exit 1
fi
u=$(median "$tmp/uncached") c=$(median "$tmp/cold") w=$(median "$tmp/warm")
uc=$(median "$tmp/uncached.cpu")
echo "scenario $SCN, $N runs per mode, the same digest in all:" \
     "$(awk 'NR == 1 { print $2 }' "$tmp/digests")"
echo "cache: $(du -sh "$SGDSIM_CACHE_DIR" | cut -f1) in $(ls "$SGDSIM_CACHE_DIR" | wc -l) files"
printf '%-9s %10s %12s %10s %12s\n' mode wall_s wall_ratio cpu_s cpu_ratio
for m in uncached cold warm; do
  awk -v m="$m" -v v="$(median "$tmp/$m")" -v u="$u" -v vc="$(median "$tmp/$m.cpu")" -v uc="$uc" \
    'BEGIN { printf "%-9s %10.3f %11.2fx %10.3f %11.2fx\n", m, v, v / u, vc, vc / uc }'
done
awk -v u="$u" -v w="$w" -v c="$c" 'BEGIN {
  printf "median wall time: warm/uncached = %.2f (%.1f%% less), cold/uncached = %.2f\n",
         w / u, 100 * (1 - w / u), c / u }'
