#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) into build-fuzz/ and runs each for
# SECONDS (default 30) on a scratch copy of its seed corpus, so the committed corpus stays as
# it is.  A crash leaves its input as build-fuzz/fuzz/crash-<target>-*: copy it to
# fuzz/regressions/<target>/ and it becomes a regression test (docs/testing.md).
#   scripts/fuzz.sh            # 30 s per target (CI: FUZZ_SEED=1 scripts/fuzz.sh 20)
#   scripts/fuzz.sh 1800       # the documented long run: 30 minutes per target
#   scripts/fuzz.sh 60 idx     # one target
# FUZZ_SEED=N fixes libFuzzer's random seed (CI does, so that its verdict is not a draw);
# without it every run explores from a new seed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"; shift || true
if [ $# -gt 0 ]; then targets=("$@"); else targets=(scenario set idx gnuplot sweep_plan results_db checkpoint fedscale); fi
CC=clang cmake -S . -B build-fuzz -DSGDSIM_FUZZ=ON -DSGDSIM_CUDA=OFF -DSGDSIM_MPI=OFF -DBUILD_TESTING=OFF \
  -DSGDSIM_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
for t in "${targets[@]}"; do cmake --build build-fuzz -j"$(nproc)" --target "fuzz_$t" >/dev/null; done
seed_opt=()
if [ -n "${FUZZ_SEED:-}" ]; then seed_opt=(-seed="$FUZZ_SEED"); fi
status=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  echo "fuzz_$t: $seconds s${FUZZ_SEED:+, seed $FUZZ_SEED}"
  if ! (cd build-fuzz/fuzz && ./fuzz_$t -max_total_time="$seconds" -timeout=10 \
          -rss_limit_mb=2048 -artifact_prefix="crash-$t-" -print_final_stats=1 "${seed_opt[@]}" \
          "$work" "../../fuzz/corpus/$t" > "fuzz-$t.log" 2>&1); then
    echo "fuzz_$t: FAILED — see build-fuzz/fuzz/fuzz-$t.log and build-fuzz/fuzz/crash-$t-*"
    # A CI machine is gone once it has failed: print the report and the input that caused it,
    # so the failure can be replayed from the log alone (base64 -d > input; fuzz_$t input).
    grep -E -A40 "^==[0-9]+==ERROR|runtime error|^SUMMARY|deadly signal|ALARM|out-of-memory" \
      "build-fuzz/fuzz/fuzz-$t.log" | head -60 | sed "s/^/  | /" || true
    for c in build-fuzz/fuzz/crash-"$t"-*; do
      [ -f "$c" ] || continue
      echo "  input $c ($(wc -c < "$c") bytes, base64):"
      head -c 4096 "$c" | base64 | sed "s/^/  > /"
    done
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/fuzz/fuzz-$t.log" | sed "s/^/  /"
  rm -rf "$work"
done
exit $status
