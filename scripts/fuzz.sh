#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) into build-fuzz/ and runs each for
# SECONDS (default 30) on a scratch copy of its seed corpus, so the committed corpus stays as
# it is.  A crash leaves its input as build-fuzz/fuzz/crash-<target>-*: copy it to
# fuzz/regressions/<target>/ and it becomes a regression test (docs/testing.md).
#   scripts/fuzz.sh            # 30 s per target (the CI smoke run)
#   scripts/fuzz.sh 1800       # the documented long run: 30 minutes per target
#   scripts/fuzz.sh 60 idx     # one target
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"; shift || true
if [ $# -gt 0 ]; then targets=("$@"); else targets=(scenario set idx gnuplot sweep_plan results_db checkpoint fedscale); fi
CC=clang cmake -S . -B build-fuzz -DSGDSIM_FUZZ=ON -DSGDSIM_CUDA=OFF -DSGDSIM_MPI=OFF -DBUILD_TESTING=OFF \
  -DSGDSIM_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
for t in "${targets[@]}"; do cmake --build build-fuzz -j"$(nproc)" --target "fuzz_$t" >/dev/null; done
status=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  echo "fuzz_$t: $seconds s"
  if ! (cd build-fuzz/fuzz && ./fuzz_$t -max_total_time="$seconds" -timeout=10 \
          -rss_limit_mb=2048 -artifact_prefix="crash-$t-" -print_final_stats=1 \
          "$work" "../../fuzz/corpus/$t" > "fuzz-$t.log" 2>&1); then
    echo "fuzz_$t: FAILED — see build-fuzz/fuzz/fuzz-$t.log and build-fuzz/fuzz/crash-$t-*"
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/fuzz/fuzz-$t.log" | sed "s/^/  /"
  rm -rf "$work"
done
exit $status
