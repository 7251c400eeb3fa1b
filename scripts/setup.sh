#!/usr/bin/env bash
# Installs sgdsim's Debian dependencies, builds it into build/, and fetches the real datasets
# (scripts/get-data.sh).  Safe to run again: every step is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config git libopenblas-dev libgsl-dev libcjson-dev
          libsqlite3-dev zlib1g-dev sqlite3 dataset-fashion-mnist gnuplot-nox libopenmpi-dev
          openmpi-bin libmicrohttpd-dev libjs-dygraphs chromium python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
scripts/get-data.sh
echo "setup: done; the simulator is build/sgdsim"
