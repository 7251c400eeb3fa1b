# Golden digests: small scenarios' digests must not change unless results are meant to
# change.  Digests are comparable only on the same OpenBLAS kernel (docs/architecture.md),
# so golden.txt (lines: core scenario digest) keys them by kernel.  The scenarios run
#   - by default, on the kernel `sgdsim --version` reports (what a default run uses), and
#   - pinned with --blas-core to each of Prescott, Haswell and SkylakeX that this CPU runs
#     (`sgdsim validate --blas-core K` says whether),
# and each digest must equal its kernel's line.  A kernel without lines is reported; the test
# skips only when no kernel had any.  After an intentional change, update golden.txt with the
# new digests (and say why in the commit).  Scenarios:
#   small     the CLI tests' small CSGD scenario (lib.sh);
#   ps_small  the same data and model under FASGD: 6 clients on the timed driver, random
#             minibatches -- and it must give the same digest with algorithm.gradient_batch
#             16 (the schedule running ahead of the arithmetic, gradients batched).
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"
GOLDEN="$(dirname "$0")/golden.txt"
PS=(--set 'algorithm={"name":"fasgd","driver":"timed","minibatch":"random","server_time_s":0.0005}'
    --set optimizer.momentum=0 --set cluster.workers=6 --set stop.updates=120)
digest() { "$SGDSIM" run "$S" --db "$TMP/g.db" "$@" | sed -n 's/^digest //p'; }
compared=0

# check CORE [ARGS...]: both scenarios with ARGS (and the user's environment) against CORE's
# golden lines.
check() {
  local core="$1" name want got ps; shift
  for name in small ps_small; do
    want=$(awk -v c="$core" -v n="$name" '$1 == c && $2 == n { print $3 }' "$GOLDEN")
    if [ "$name" = small ]; then got=$(digest "$@"); else got=$(digest "${PS[@]}" "$@"); ps=$got; fi
    [ -n "$got" ] || { fail "$name on $core: no digest printed"; continue; }
    if [ -z "$want" ]; then
      echo "no golden digest of $name for BLAS core '$core' (got $got)"
      continue
    fi
    [ "$got" = "$want" ] || fail "$name: digest $got != golden $want on core $core${*:+ ($*)}"
    compared=$((compared + 1))
  done
  local batched
  batched=$(digest "${PS[@]}" --set algorithm.gradient_batch=1 --threads 1 "$@")
  [ "$batched" = "$ps" ] || fail "ps_small on $core: gradient_batch 1 on 1 thread gives $batched, the default gives $ps"
  batched=$(digest "${PS[@]}" --set algorithm.gradient_batch=64 --threads 3 "$@")
  [ "$batched" = "$ps" ] || fail "ps_small on $core: gradient_batch 64 on 3 threads gives $batched, the default gives $ps"
}

core=$("$SGDSIM" --version | sed -n 's/.*(core \(.*\))$/\1/p')
[ -n "$core" ] || fail "--version names no BLAS core"
check "$core"
# Pinned kernels: the user's OPENBLAS_CORETYPE would conflict with --blas-core, so without it.
unset OPENBLAS_CORETYPE
for k in Prescott Haswell SkylakeX; do
  if ! "$SGDSIM" validate "$S" --blas-core "$k" >/dev/null 2>&1; then
    echo "this CPU does not run the $k kernel: not compared"
    continue
  fi
  check "$k" --blas-core "$k"
done
if [ "$FAILS" = 0 ] && [ "$compared" = 0 ]; then
  echo "skipping: no golden digests for any kernel this CPU runs"
  exit 77
fi
finish
