# The decoded-dataset cache's bound and its command (sgdsim cache, models/data_cache.h):
#   - `cache list` shows the entries, least recently used first, and their total;
#   - `cache prune --max-size N` deletes least recently used entries until the rest fit, and
#     a hit counts as a use (it sets the entry's mtime);
#   - a run keeps the directory within $SGDSIM_CACHE_MAX_SIZE, and does not store an entry
#     larger than it (with a warning), giving the same digest;
#   - list and prune touch only files with sgdsim's header, never another program's file
#     named like an entry or a temporary file (counted, left alone);
#   - every bad argument exits 2 naming it.
. "$(dirname "$0")/lib.sh"
SGDSIM=$(cd "$(dirname "$SGDSIM")" && pwd)/$(basename "$SGDSIM")
cd "$TMP"
export SGDSIM_CACHE_DIR="$TMP/cache"

# Two data sets of 300 images of 28 x 28 (940 KB of floats each) with their labels.
{ printf '\0\0\10\1\0\0\1\54'; for i in $(seq 30); do printf '\0\1\2\3\4\5\6\7\10\11'; done; } > lab
for d in a b; do
  { printf '\0\0\10\3\0\0\1\54\0\0\0\34\0\0\0\34'; head -c 235200 /dev/urandom; } | gzip > $d.gz
  cat > $d.json <<JSON
{ "schema_version": 1, "seed": 1, "algorithm": { "name": "csgd" }, "cluster": { "workers": 2 },
  "data": { "source": "idx", "train_images": "$d.gz", "train_labels": "lab",
            "validation": "train_tail", "validation_size": 20 },
  "model": { "kind": "mlp", "hidden": [8] }, "batch": { "per_worker": 4 },
  "stop": { "updates": 20 } }
JSON
done
run() { "$SGDSIM" run "$1.json" --db "$TMP/r.db" 2> "$TMP/err" | sed -n 's/^digest //p'; }
entries() { "$SGDSIM" cache list | grep -c ' idx-'; }

da=$(run a); db=$(run b)
[ "$(entries)" = 3 ] || fail "3 entries (two images, one labels) expected: $("$SGDSIM" cache list)"
out=$("$SGDSIM" cache list)
case "$out" in *"last used (UTC)"*"size"*"entry"*"3 entries, 1.8 MiB, in $SGDSIM_CACHE_DIR"*) ;; *) fail "list: $out" ;; esac
# Least recently used first: a's images, b's images, then the labels (b loads them last).
a_img=$(printf '%s\n' "$out" | sed -n 2p | awk '{print $NF}')
[ -f "$SGDSIM_CACHE_DIR/$a_img" ] || fail "no first entry: $out"
[ "$(printf '%s\n' "$out" | sed -n 4p | awk '{print $(NF-2), $(NF-1)}')" = "1.3 KiB" ] ||
  fail "the labels are not the most recently used: $out"

# A hit makes a's images the most recently used: pruning to 1 MiB keeps them.
sleep 1.1; [ "$(run a)" = "$da" ] || fail "digest of a changed"
first=$("$SGDSIM" cache list | sed -n 2p | awk '{print $NF}')
[ "$first" != "$a_img" ] || fail "a hit did not count as a use: $("$SGDSIM" cache list)"
out=$("$SGDSIM" cache prune --max-size 1M) || fail "prune: $out"
case "$out" in "removed 1 entry (918.9 KiB); 2 left (920.2 KiB, bound 1.0 MiB) in $SGDSIM_CACHE_DIR") ;; *) fail "prune 1M: $out" ;; esac
[ -e "$SGDSIM_CACHE_DIR/$a_img" ] || fail "prune removed the most recently used entry"
out=$("$SGDSIM" cache prune --max-size 0)
case "$out" in "removed 2 entries (920.2 KiB); 0 left (0 B, bound 0 B) in "*) ;; *) fail "prune 0: $out" ;; esac
[ "$(entries)" = 0 ] || fail "entries left after prune 0"
case "$("$SGDSIM" cache list --dir "$TMP/none")" in "0 entries, 0 B, in $TMP/none") ;; *) fail "list of a missing directory" ;; esac

# Only sgdsim's files are touched.  Another program's files named like entries or temporary
# files (no sgdsim header: text, an empty file, a directory), however old, are neither
# listed, pruned nor deleted as stale, only counted; a temporary file sgdsim left two hours
# ago (it has the header) is deleted by list.
[ "$(run a)" = "$da" ] || fail "digest of a, to refill the cache"
C="$SGDSIM_CACHE_DIR"
own=$("$SGDSIM" cache list | sed -n 2p | awk '{print $NF}')
cp "$C/$own" "$C/$own.tmp.99999.0"
printf 'notes\n' > "$C/idx-notes"
head -c 3000000 /dev/zero > "$C/idx-big.f32.v1"
: > "$C/idx-empty"
printf 'x' > "$C/idx-0123456789abcdef-1.f32.v1.tmp.1.0"
mkdir "$C/idx-dir"
touch -d '2 hours ago' "$C/$own.tmp.99999.0" "$C/idx-0123456789abcdef-1.f32.v1.tmp.1.0"
touch -d '2 days ago' "$C/idx-notes" "$C/idx-big.f32.v1" "$C/idx-empty"
foreign=(idx-notes idx-big.f32.v1 idx-empty idx-0123456789abcdef-1.f32.v1.tmp.1.0 idx-dir)
out=$("$SGDSIM" cache list)
case "$out" in *"2 entries, 920.2 KiB, in $C"*"5 other files named like entries, without sgdsim's header: not entries, left alone"*) ;;
  *) fail "list with foreign files: $out" ;; esac
[ ! -e "$C/$own.tmp.99999.0" ] || fail "list left sgdsim's own stale temporary file"
out=$("$SGDSIM" cache prune --max-size 0)
case "$out" in "removed 2 entries (920.2 KiB); 0 left (0 B, bound 0 B) in $C"*"5 other files"*) ;;
  *) fail "prune with foreign files: $out" ;; esac
for f in "${foreign[@]}"; do [ -e "$C/$f" ] || fail "list or prune deleted another program's $f"; done
[ "$(cat "$C/idx-notes")" = notes ] || fail "idx-notes changed"
rm -rf "${foreign[@]/#/$C/}"

# Runs keep the directory within the bound: a, then b, in 1.5 MiB leaves b's images and the labels.
export SGDSIM_CACHE_MAX_SIZE=1536K
[ "$(run a)" = "$da" ] && [ "$(run b)" = "$db" ] || fail "digests under a bound"
[ "$(entries)" = 2 ] || fail "bound 1.5 MiB: $("$SGDSIM" cache list)"
# An entry larger than the bound is not stored (a warning), and the run is the same.
export SGDSIM_CACHE_MAX_SIZE=100K
rm -rf "$SGDSIM_CACHE_DIR"
[ "$(run a)" = "$da" ] || fail "digest with a small bound"
grep -q "more than the cache's bound of 102400 (SGDSIM_CACHE_MAX_SIZE); not stored" err ||
  fail "no warning about an entry over the bound: $(cat err)"
[ "$(entries)" = 1 ] || fail "only the labels fit 100K: $("$SGDSIM" cache list)"
export SGDSIM_CACHE_MAX_SIZE=lots
[ "$(run a)" = "$da" ] || fail "digest with a bad bound"
grep -q 'SGDSIM_CACHE_MAX_SIZE="lots" is not a size' err || fail "bad bound: $(cat err)"
unset SGDSIM_CACHE_MAX_SIZE

# Bad arguments.
expect_exit 2 'cache: missing an action, list or prune' -- "$SGDSIM" cache
expect_exit 2 'cache: unknown action "clean": expected list or prune' -- "$SGDSIM" cache clean
expect_exit 2 'cache: --max-size 12X: expected a size' -- "$SGDSIM" cache prune --max-size 12X
expect_exit 2 'cache: --max-size -1: expected a size' -- "$SGDSIM" cache prune --max-size -1
expect_exit 2 'cache: --max-size 99999999999T: expected a size' -- "$SGDSIM" cache prune --max-size 99999999999T
expect_exit 2 'cache: --max-size: missing value' -- "$SGDSIM" cache prune --max-size
expect_exit 2 'cache: --max-size: only prune takes it' -- "$SGDSIM" cache list --max-size 1M
expect_exit 2 'cache: --dir: empty' -- "$SGDSIM" cache list --dir ''
expect_exit 2 'cache: unknown option --all' -- "$SGDSIM" cache prune --all
expect_exit 2 'cache: unexpected argument extra' -- "$SGDSIM" cache list extra
expect_exit 2 'cache: no cache directory (SGDSIM_CACHE_DIR is "off"' -- env SGDSIM_CACHE_DIR=off "$SGDSIM" cache list
"$SGDSIM" cache --help | grep -q "usage: sgdsim cache list" || fail "cache --help"
finish
