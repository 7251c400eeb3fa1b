# Choosing the OpenBLAS kernel by re-executing sgdsim (cli/machine.h): at most one re-exec per
# command, none when the right kernel (or one with the same bits) already runs and none in
# sweep points; a kernel that OpenBLAS does not honour after the re-exec is exit 2 with a
# message, never a loop or a run on another kernel.  A preloaded stand-in for
# openblas_get_corename (corename_shim.c) counts process images, can play any OpenBLAS choice
# (Cooperlake, SkylakeX, Zen, Haswell, Prescott: what OpenBLAS picks on various x86-64 CPUs)
# and can pretend OpenBLAS ignored OPENBLAS_CORETYPE.  Expectations come from what sgdsim
# reports on this machine (--version), never from a CPU name.
# Arguments: sgdsim, the shim library, a program printing OpenBLAS's own choice of kernel.
. "$(dirname "$0")/lib.sh"
SHIM="$2"; NATIVE_HELPER="$3"
grep -qw pni /proc/cpuinfo 2>/dev/null || { echo "not an x86 CPU with SSE3: skipping"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
unset OPENBLAS_CORETYPE SGDSIM_BLAS_ENV
# The shim comes before the sanitizer runtime in an ASan build; that is intended here.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
S="$TMP/s.json"; small_scenario "$S"
LOG="$TMP/images"

# images EXPECTED CODE NEEDLE -- command...: runs the command with the shim, checks the
# exit code, stderr and the number of process images it took.
images() {
  local want="$1" code="$2" needle="$3"; shift 4
  : > "$LOG"
  local out rc n
  out=$(env LD_PRELOAD="$SHIM" SHIM_LOG="$LOG" "$@" 2>&1 >/dev/null); rc=$?
  n=$(wc -l < "$LOG")
  [ "$rc" = "$code" ] || fail "exit $rc (wanted $code) from: $* :: $out"
  [ "$n" = "$want" ] || fail "$n process images (wanted $want) for: $* :: $(cat "$LOG")"
  case "$out" in *"$needle"*) ;; *) fail "stderr of '$*' lacks '$needle': $out" ;; esac
}

SAME=$("$SGDSIM" --version | sed -n 's/^BLAS kernels with the same bits: //p')
# same_bits A B: true when A and B are one kernel or a pair --version lists as the same bits.
same_bits() {
  [ "$1" = "$2" ] && return 0
  case ", $SAME," in *", $1 = $2,"*|*", $2 = $1,"*) return 0 ;; esac
  return 1
}
# Whatever OpenBLAS picks by itself: one image when that is the kernel `auto` wants (or has its
# bits), two when sgdsim must restart itself once.
for native in Cooperlake SkylakeX Zen Haswell Prescott; do
  export SHIM_NATIVE="$native"
  core=$(LD_PRELOAD="$SHIM" "$SGDSIM" --version | sed -n 's/.*(core \(.*\))$/\1/p')
  [ -n "$core" ] || { fail "--version names no core with OpenBLAS choosing $native"; continue; }
  want=2; same_bits "$native" "$core" && want=1
  images "$want" 0 "" -- "$SGDSIM" validate "$S"
  images "$want" 0 "" -- "$SGDSIM" --version
  images "$want" 0 "" -- "$SGDSIM" validate "$S" --blas-core "$core"
  images 1 0 "" -- "$SGDSIM" validate "$S" --blas-core "$native"
done
unset SHIM_NATIVE
[ "$SAME" != "" ] || fail "--version lists no kernels with the same bits"

# What OpenBLAS picks by itself here, asked directly (openblas_native.c), never assumed: a
# current CPU that OpenBLAS 0.3.21 does not know gets Prescott, and pinning Prescott there
# needs no restart.  native_pick [SHIM_NATIVE]: the kernel, played by the shim when given.
native_pick() {
  env -u OPENBLAS_CORETYPE LD_PRELOAD="$SHIM" ${1:+SHIM_NATIVE="$1"} "$NATIVE_HELPER"
}
# pins_from NATIVE: pinning a kernel without NATIVE's bits takes one re-exec and the run
# records it; pinning NATIVE itself takes none.  Runs with SHIM_NATIVE as the caller set it.
pins_from() {
  local native="$1" other=Prescott
  same_bits "$native" Prescott && other=Core2
  images 2 0 "" -- "$SGDSIM" validate "$S" --blas-core "$other"
  rm -f "$TMP/r.db"
  images 2 0 "" -- "$SGDSIM" run "$S" --db "$TMP/r.db" --quiet --blas-core "$other"
  [ "$(sqlite3 "$TMP/r.db" "SELECT blas_core FROM runs")" = "$other" ] ||
    fail "the re-executed run did not record $other (OpenBLAS picks $native)"
  # The second image saw sgdsim's own OPENBLAS_CORETYPE; the first the user's (none).
  : > "$LOG"; env LD_PRELOAD="$SHIM" SHIM_LOG="$LOG" "$SGDSIM" validate "$S" --blas-core "$other" >/dev/null
  [ "$(cut -d' ' -f2 "$LOG" | tr '\n' ' ')" = "- $other " ] || fail "images saw OPENBLAS_CORETYPE: $(cat "$LOG")"
  images 1 0 "" -- "$SGDSIM" validate "$S" --blas-core "$native"
  rm -f "$TMP/r.db"
  images 1 0 "" -- "$SGDSIM" run "$S" --db "$TMP/r.db" --quiet --blas-core "$native"
  [ "$(sqlite3 "$TMP/r.db" "SELECT blas_core FROM runs")" = "$native" ] ||
    fail "the run pinned to the native $native did not record it"
}
native=$(native_pick) || fail "cannot ask OpenBLAS which kernel it picks by itself"
echo "OpenBLAS picks $native by itself here; auto runs $("$SGDSIM" --version | sed -n 's/.*(core \(.*\))$/\1/p')"
pins_from "$native"
# The same expectations where OpenBLAS picks Prescott by itself (a CPU it does not know),
# played by the shim for every image of each command.
[ "$(native_pick Prescott)" = Prescott ] || fail "the shim does not play OpenBLAS picking Prescott"
export SHIM_NATIVE=Prescott
pins_from Prescott
unset SHIM_NATIVE
core=$("$SGDSIM" --version | sed -n 's/.*(core \(.*\))$/\1/p')
other=Prescott; same_bits "$native" Prescott && other=Core2

# OpenBLAS pretends to run Prescott whatever it is asked: one re-exec, then a clear refusal.
images 2 2 "OpenBLAS runs its Prescott kernel although sgdsim started it with OPENBLAS_CORETYPE=Haswell" -- \
  SHIM_CORENAME=Prescott "$SGDSIM" validate "$S" --blas-core Haswell
images 2 2 "does not provide Haswell" -- SHIM_CORENAME=Prescott "$SGDSIM" run "$S" --db "$TMP/r2.db" --blas-core Haswell
[ ! -e "$TMP/r2.db" ] || fail "a refused kernel left a database behind"
# The user's own OPENBLAS_CORETYPE not honoured: no re-exec (it would set the same), exit 2.
images 1 2 "OpenBLAS runs its Prescott kernel although OPENBLAS_CORETYPE=Haswell in the environment asks for Haswell" -- \
  SHIM_CORENAME=Prescott OPENBLAS_CORETYPE=Haswell "$SGDSIM" --version
# A marker saying this command line was re-executed already: never a second time.
images 1 2 "after sgdsim restarted itself once to choose the kernel (OPENBLAS_CORETYPE=Core2); not restarting again" -- \
  OPENBLAS_CORETYPE=Core2 SGDSIM_BLAS_ENV="1;$core;-" "$SGDSIM" validate "$S" --blas-core Prescott
# A sweep point whose environment names another kernel than it resolves to re-executes once.
images 2 0 "" -- OPENBLAS_CORETYPE=Core2 SGDSIM_BLAS_ENV="0;$core;-" "$SGDSIM" validate "$S" --blas-core Prescott

# A sweep starts each point on its kernel: one image for the sweep (it computes nothing, so it
# never restarts itself), one per point (4).
images 5 0 "" -- "$SGDSIM" sweep "$S" --set "numerics.blas_core=$core,$other" --set seed=1,2 -j 2 --db "$TMP/sw.db" --quiet
finish
