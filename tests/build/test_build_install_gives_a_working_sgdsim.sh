# `cmake --install` into a fresh prefix gives a working installation, one that still works when
# moved elsewhere (nothing of the build tree is compiled in):
#   bin/sgdsim --version runs and runs a small scenario;
#   share/man/man1/sgdsim.1 is there (and renders, where man is installed);
#   with CUDA: <libdir>/sgdsim/libsgd_cuda.so is there, and the installed sgdsim finds it
#   relative to itself: a "cuda" run either runs (a GPU) or says that no GPU is usable, never
#   that the plugin cannot be loaded; without the plugin it names the two places it looked.
# Arguments: CMAKE BUILD_DIR HAVE_CUDA LIBDIR
. "$(dirname "$0")/lib.sh"
CMAKE="$1" BUILD="$2" HAVE_CUDA="$3" LIBDIR="$4"
unset SGDSIM_CUDA_PLUGIN LD_LIBRARY_PATH
cat > "$TMP/s.json" <<'JSON'
{
  "schema_version": 1, "name": "install", "seed": 1,
  "algorithm": { "name": "csgd" },
  "cluster": { "workers": 2 },
  "data": { "source": "synthetic", "n_train": 200, "n_validation": 50, "dim": 8, "classes": 3 },
  "model": { "kind": "softmax" },
  "batch": { "per_worker": 8 },
  "optimizer": { "lr": 0.05 },
  "compute": { "kind": "time", "time_s": 0.001 },
  "network": { "bandwidth_gbps": 1, "latency_us": 20 },
  "stop": { "updates": 10 }
}
JSON
out=$("$CMAKE" --install "$BUILD" --prefix "$TMP/a" 2>&1) || { fail "cmake --install: $out"; finish; }
# Moved after installing: whatever it finds, it finds relative to where it is now.
mv "$TMP/a" "$TMP/moved"
P="$TMP/moved"
"$P/bin/sgdsim" --version > "$TMP/version.txt" 2>&1 || fail "installed sgdsim --version: $(cat "$TMP/version.txt")"
grep -q '^sgdsim ' "$TMP/version.txt" || fail "--version prints: $(cat "$TMP/version.txt")"
"$P/bin/sgdsim" run "$TMP/s.json" --db "$TMP/r.db" --quiet || fail "installed sgdsim cannot run a scenario"
man="$P/share/man/man1/sgdsim.1"
if [ -f "$man" ]; then
  grep -q '^\.TH SGDSIM 1' "$man" || fail "$man is not the manual page"
  if command -v man >/dev/null; then
    MANWIDTH=80 man -l "$man" 2>/dev/null | grep -q 'SYNOPSIS' || fail "man -l $man does not render"
  fi
else
  fail "no manual page at $man"
fi

plugin="$P/$LIBDIR/sgdsim/libsgd_cuda.so"
if [ "$HAVE_CUDA" = 1 ]; then
  [ -f "$plugin" ] || fail "no plugin at $plugin"
  out=$("$P/bin/sgdsim" run "$TMP/s.json" --db "$TMP/g.db" --quiet --backend cuda 2>&1); rc=$?
  case "$out" in
    *'cannot load the CUDA plugin'*) fail "the installed sgdsim does not find its plugin: $out" ;;
    *'needs a CUDA GPU'*) echo "plugin found (no usable GPU here): $out" ;;
    *) [ "$rc" = 0 ] || fail "cuda run of the installed sgdsim: exit $rc: $out" ;;
  esac
  rm -f "$plugin"
  out=$("$P/bin/sgdsim" run "$TMP/s.json" --db "$TMP/g.db" --quiet --backend cuda 2>&1)
  want="it is neither at $P/bin/libsgd_cuda.so nor at $P/bin/../$LIBDIR/sgdsim/libsgd_cuda.so"
  case "$out" in *"$want"*) ;; *) fail "without its plugin, sgdsim says: $out" ;; esac
else
  [ ! -e "$P/$LIBDIR/sgdsim" ] || fail "a build without CUDA installed $P/$LIBDIR/sgdsim"
fi
finish
