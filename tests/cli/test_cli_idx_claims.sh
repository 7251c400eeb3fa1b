# An IDX header is checked against the memory a run may use before anything is inflated or
# allocated (alg_check_idx_memory, algorithms/alg.h): a 2 MB .gz whose header claims
# 2,739,137 images of 28 x 28 (it inflates to 2 GiB, 8 GiB as floats) is refused by run and
# validate with exit 2 naming data.train_images -- under a memory limit (ulimit -v), where it
# used to abort in the middle of decoding -- and so is a small file claiming as much; data
# shorter or longer than its header says is refused too, with exit 2, never an abort.
# Usage: test_cli_idx_claims.sh SGDSIM [SANITIZE]: under a sanitizer (which reserves
# terabytes of address space) the ulimit -v parts are skipped.
. "$(dirname "$0")/lib.sh"
SGDSIM=$(cd "$(dirname "$SGDSIM")" && pwd)/$(basename "$SGDSIM")
SANITIZE="${2:-OFF}"
cd "$TMP"
export SGDSIM_CACHE_DIR="$TMP/cache"

# idx_header COUNT: the header of COUNT images of 28 x 28, big-endian.
idx_header() {
  printf '\0\0\10\3'
  printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)))"
  printf '\0\0\0\34\0\0\0\34'
}
N=2739137 # 2^31 / 784, the most images of 28 x 28 an IDX file may claim
{ printf '\0\0\10\1\0\0\0\12'; printf '\0\1\2\3\4\5\6\7\10\11'; } > lab
scenario() {
  cat > "$1" <<JSON
{ "schema_version": 1, "seed": 1, "algorithm": { "name": "csgd" }, "cluster": { "workers": 2 },
  "data": { "source": "idx", "train_images": "$2", "train_labels": "lab",
            "validation": "train_tail", "validation_size": 2 },
  "model": { "kind": "mlp", "hidden": [8] }, "batch": { "per_worker": 2 },
  "stop": { "updates": 5 } }
JSON
}

# The real thing, cheaply: gzip members concatenated (zlib reads them as one stream), each
# 1337 zero images, doubled 11 times (2048 x 1337 images), then the last 961 images.
{ idx_header $N | gzip -c; } > big.gz
head -c $((1337 * 784)) /dev/zero | gzip -c > part
for _ in $(seq 11); do cat part part > part2; mv part2 part; done
cat part >> big.gz
head -c $((961 * 784)) /dev/zero | gzip -c >> big.gz
rm part
[ "$(stat -c %s big.gz)" -lt 4000000 ] || fail "big.gz is $(stat -c %s big.gz) bytes"
# A small file that claims as much, and files shorter or longer than their headers.
{ idx_header $N; head -c 784 /dev/zero; } | gzip -c > claims.gz
{ idx_header 10; head -c 7839 /dev/zero; } | gzip -c > short.gz
{ idx_header 10; head -c 7841 /dev/zero; } | gzip -c > long.gz
for f in big claims short long; do scenario "$f.json" "$f.gz"; done

LIMIT_KB=3000000 # under the 10 GiB that decoding big.gz needs, above what a run needs
if [ "$SANITIZE" = ON ]; then
  echo "sanitizer build: the ulimit -v checks are skipped"
else
  for cmd in validate run; do
    for f in big claims; do
      db=(); [ $cmd = run ] && db=(--db "$TMP/$f.db")
      out=$( (ulimit -v $LIMIT_KB; "$SGDSIM" $cmd "$f.json" "${db[@]}" 2>&1 >/dev/null) ); rc=$?
      [ $rc = 2 ] || fail "$cmd $f.json under ulimit -v: exit $rc (wanted 2): $out"
      case "$out" in
        *"$f.json: data.train_images: $f.gz: the IDX header claims 2739137 images of 28 x 28 (8 GiB as floats, 10 GiB while decoding), more than the address-space limit (ulimit -v) of 2.86 GiB"*) ;;
        *) fail "$cmd $f.json under ulimit -v: $out" ;;
      esac
    done
  done
  [ ! -e "$TMP/big.db" ] || [ "$(sqlite3 "$TMP/big.db" 'SELECT COUNT(*) FROM runs')" = 0 ] ||
    fail "the refused run left a row"
  [ ! -d "$SGDSIM_CACHE_DIR" ] || [ -z "$(ls "$SGDSIM_CACHE_DIR")" ] || fail "a refused run stored a cache entry"
fi
# Data that does not match its header: run exits 2 naming the file and what is wrong, and
# validate refuses it with the same message (a broken data file is the scenario's, not the
# machine's: validate and run accept the same scenarios).
expect_exit 2 "short.json: data.train_images: short.gz: truncated: expected 7840 data bytes, got 7839" \
  -- "$SGDSIM" run short.json --db "$TMP/short.db"
expect_exit 2 "long.json: data.train_images: long.gz: 1 trailing bytes after the 7840 data bytes" \
  -- "$SGDSIM" run long.json --db "$TMP/long.db"
expect_exit 2 "short.json: data.train_images: short.gz: truncated: expected 7840 data bytes, got 7839" \
  -- "$SGDSIM" validate short.json
expect_exit 2 "long.json: data.train_images: long.gz: 1 trailing bytes after the 7840 data bytes" \
  -- "$SGDSIM" validate long.json
finish
