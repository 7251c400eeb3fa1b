#!/usr/bin/env bash
# Builds (if needed) and runs the whole test suite.  BUILD_DIR selects the build tree
# (default build/); extra arguments go to cmake at configure time, e.g.
#   BUILD_DIR=build-asan scripts/test.sh -DSGDSIM_SANITIZE=ON
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
