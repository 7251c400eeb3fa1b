#!/usr/bin/env bash
# The synthetic FedScale-format files of tests/data/fedscale/ are exactly what
# scripts/make-synthetic-fedscale-trace.py writes (skipped, exit 77, without python3).
set -euo pipefail
root="$1"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$root/scripts/make-synthetic-fedscale-trace.py" "$tmp"
status=0
for f in client_device_capacity client_behave_trace \
         client_device_capacity.p2 client_behave_trace.p2; do
    if ! cmp "$tmp/$f" "$root/tests/data/fedscale/$f"; then
        echo "FAIL: tests/data/fedscale/$f differs from the script's output"
        status=1
    fi
done
[ "$(find "$tmp" -type f | wc -l)" = 4 ] || { echo "FAIL: the script wrote other files"; status=1; }
exit $status
