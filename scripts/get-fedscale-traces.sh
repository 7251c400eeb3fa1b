#!/bin/sh
# get-fedscale-traces.sh -- fetch FedScale's device capacity file and availability trace into
# data/fedscale/ (or DIR), for sgdsim's FedScale trace readers (docs/federated.md).
#
#     scripts/get-fedscale-traces.sh [DIR]
#
# Needs network access to github.com, which the machines sgdsim is developed on do not have:
# this script has never been run there, and the tests use the synthetic files of
# tests/data/fedscale/ instead (scripts/make-synthetic-fedscale-trace.py).
#
# FedScale ships the two files inside its repository, not through its dataset download
# script (benchmark/dataset/download.sh fetches only datasets): every FedScale configuration
# names them as $FEDSCALE_HOME/benchmark/dataset/data/device_info/client_device_capacity
# (device_conf_file) and .../client_behave_trace (device_avail_file).  They are fetched here
# from that folder at a pinned commit of https://github.com/SymbioticLab/FedScale, so that
# everyone gets the same bytes; a clone of the repository holds the same files.
#
# The files are Python pickles.  sgdsim reads them with its own data-only reader and never
# runs anything in them; do not open them with Python's pickle.load, which would run any code
# a tampered copy carries.  The script only checks that each starts like a binary pickle
# (protocol 1 or higher) and prints its size and SHA-256 for the record.
set -eu

commit=7ec441c2afa99510535adebe155d89fa8bb2c637 # FedScale master, 2023-12-18
repo=https://raw.githubusercontent.com/SymbioticLab/FedScale
base="$repo/$commit/benchmark/dataset/data/device_info"
root=$(cd "$(dirname "$0")/.." && pwd)
dir="${1:-$root/data/fedscale}"

say() { printf 'get-fedscale-traces: %s\n' "$*"; }
die() { printf 'get-fedscale-traces: error: %s\n' "$*" >&2; exit 1; }

fetch() { # fetch URL FILE
    if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 3 -o "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1"
    else
        die "neither curl nor wget is installed"
    fi
}

mkdir -p "$dir" || die "cannot create $dir"
for name in client_device_capacity client_behave_trace; do
    if [ -s "$dir/$name" ]; then
        say "$dir/$name is already there (delete it to fetch it again)"
        continue
    fi
    tmp="$dir/.$name.part"
    fetch "$base/$name" "$tmp" || { rm -f "$tmp"; die "cannot download $base/$name"; }
    # Protocols 2 and up start with PROTO (0x80); protocol 1 with the dict itself (0x7d).
    first=$(od -An -tx1 -N1 "$tmp" | tr -d ' ')
    case "$first" in
    80 | 7d) ;;
    *) rm -f "$tmp"; die "$base/$name does not start like a binary pickle (byte 0x$first)" ;;
    esac
    mv "$tmp" "$dir/$name"
    sum=$(sha256sum "$dir/$name" | cut -d' ' -f1)
    say "$dir/$name: $(wc -c < "$dir/$name") bytes, sha256 $sum"
done
say "done; to read them: build/bench/bench_fl_blocks $dir/client_device_capacity" \
    "$dir/client_behave_trace"
