# What lies at a decoded-dataset cache entry's path, and what happens to it during a run,
# never decides a run's fate (models/data_cache.h, "Guarantees"):
#   - an entry cut short, or rewritten in place with other values, by another process while
#     a run trains on its data: the run finishes with the digest of an undisturbed run (a
#     mapped entry used to raise SIGBUS, or train on the new bytes);
#   - a FIFO, a symbolic link or a directory at the entry's path: the run neither waits (it
#     is bounded by timeout) nor follows the link; it warns, rebuilds the entry where it
#     can, and gives the same digest.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
export SGDSIM_CACHE_DIR="$TMP/cache"

# 2000 images of 28 x 28 random pixels (gzip'ed) and 2000 labels 0..9.
{ printf '\0\0\10\3\0\0\7\320\0\0\0\34\0\0\0\34'; head -c 1568000 /dev/urandom; } | gzip > img.gz
{ printf '\0\0\10\1\0\0\7\320'; for i in $(seq 200); do printf '\0\1\2\3\4\5\6\7\10\11'; done; } > lab
cat > s.json <<'JSON'
{
  "schema_version": 1, "name": "cached", "seed": 3,
  "algorithm": { "name": "csgd" },
  "cluster": { "workers": 2 },
  "data": { "source": "idx", "train_images": "img.gz", "train_labels": "lab",
            "validation": "train_tail", "validation_size": 200 },
  "model": { "kind": "mlp", "hidden": [64], "init": "he" },
  "batch": { "per_worker": 16 },
  "optimizer": { "lr": 0.05 },
  "compute": { "kind": "time", "time_s": { "dist": "constant", "value": 0.004 } },
  "stop": { "updates": 4000 },
  "eval": { "every": 500 }
}
JSON

digest_of() { sed -n 's/^digest //p' "$1"; }

"$SGDSIM" run s.json --db base.db > base.out 2>&1 || fail "the first run: $(cat base.out)"
want=$(digest_of base.out)
[ -n "$want" ] || fail "no digest: $(cat base.out)"
entry=$(ls "$SGDSIM_CACHE_DIR"/idx-*.f32.v1 2>/dev/null)
[ -f "$entry" ] || { fail "no images entry in $SGDSIM_CACHE_DIR"; finish; }
cp "$entry" good.entry
size=$(stat -c %s good.entry)

# change_during_run NAME COMMAND...: starts a run (a cache hit), waits for its first update
# (the data is loaded), runs COMMAND on the entry while the run trains, and checks how the
# run ended: its digest, or a clean failure recorded as such -- never a signal.
change_during_run() {
  local name=$1 pid rc status; shift
  cp good.entry "$entry"
  rm -f progress
  "$SGDSIM" run s.json --db "$name.db" --progress-fd 3 3> progress > "$name.out" 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ -s progress ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -0 $pid 2>/dev/null || fail "$name: the run ended before the entry was changed"
  "$@"
  wait $pid; rc=$?
  status=$(sqlite3 "$name.db" "SELECT status FROM runs" 2>/dev/null)
  if [ $rc -eq 0 ]; then
    [ "$(digest_of "$name.out")" = "$want" ] ||
      fail "$name: exit 0 with another digest, $(digest_of "$name.out") (wanted $want)"
  elif [ $rc -ge 128 ]; then
    fail "$name: the run was killed by signal $((rc - 128)): $(cat "$name.out")"
  else
    [ "$status" = failed ] || fail "$name: exit $rc, but the run is '$status'"
  fi
}

change_during_run truncated truncate -s 4096 "$entry"
change_during_run rewritten dd if=/dev/zero of="$entry" bs=4096 seek=1 \
  count=$(( (size - 4096) / 4096 )) conv=notrunc status=none

# odd_entry NAME NEEDLE MAKE...: MAKE puts something at the entry's path; the run must end by
# itself (timeout: it must not wait on a FIFO), warn with NEEDLE and give the digest.
odd_entry() {
  local name=$1 needle=$2 rc; shift 2
  rm -rf "$entry"
  "$@"
  timeout -k 5 60 "$SGDSIM" run s.json --db "$name.db" > "$name.out" 2> "$name.err"; rc=$?
  [ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$name: the run waited (killed by timeout after 60 s)"
  [ $rc -eq 0 ] || fail "$name: exit $rc: $(cat "$name.err")"
  [ "$(digest_of "$name.out")" = "$want" ] || fail "$name: digest $(digest_of "$name.out")"
  grep -q "$needle" "$name.err" || fail "$name: no warning '$needle': $(cat "$name.err")"
}

odd_entry fifo "a FIFO, not a regular file; rebuilding it" mkfifo "$entry"
[ -f "$entry" ] && [ ! -p "$entry" ] || fail "the FIFO was not replaced by an entry"
cp good.entry elsewhere.entry
odd_entry symlink "a symbolic link, not followed; rebuilding it" ln -s "$TMP/elsewhere.entry" "$entry"
[ -f "$entry" ] && [ ! -L "$entry" ] || fail "the link was not replaced by an entry"
odd_entry directory "a directory, not a regular file" mkdir "$entry"
grep -q "Is a directory; data is loaded without the cache" directory.err ||
  fail "directory: no warning about the store: $(cat directory.err)"
finish
