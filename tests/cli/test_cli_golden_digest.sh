# Golden digests: small scenarios' digests must not change unless results are meant to
# change.  Digests are comparable only on the same OpenBLAS kernel (docs/architecture.md),
# so golden.txt (lines: core scenario digest) keys them by kernel; on an unlisted core the
# test skips.  After an intentional change, update golden.txt with the new digests (and say
# why in the commit).  Scenarios:
#   small     the CLI tests' small CSGD scenario (lib.sh);
#   ps_small  the same data and model under FASGD: 6 clients on the timed driver, random
#             minibatches -- and it must give the same digest with algorithm.gradient_batch
#             16 (the schedule running ahead of the arithmetic, gradients batched).
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"
GOLDEN="$(dirname "$0")/golden.txt"
core=$("$SGDSIM" --version | sed -n 's/.*(core \(.*\))$/\1/p')
PS=(--set 'algorithm={"name":"fasgd","driver":"timed","minibatch":"random","server_time_s":0.0005}'
    --set optimizer.momentum=0 --set cluster.workers=6 --set stop.updates=120)
digest() { "$SGDSIM" run "$S" --db "$TMP/g.db" "$@" | sed -n 's/^digest //p'; }
skipped=0
for name in small ps_small; do
  want=$(awk -v c="$core" -v n="$name" '$1 == c && $2 == n { print $3 }' "$GOLDEN")
  if [ "$name" = small ]; then got=$(digest); else got=$(digest "${PS[@]}"); fi
  [ -n "$got" ] || fail "$name: no digest printed"
  if [ -z "$want" ]; then
    echo "no golden digest of $name for BLAS core '$core' (got $got)"
    skipped=1
    continue
  fi
  [ "$got" = "$want" ] || fail "$name: digest $got != golden $want on core $core"
done
batched=$(digest "${PS[@]}" --set algorithm.gradient_batch=16)
[ "$batched" = "$got" ] || fail "ps_small: gradient_batch 16 gives $batched, 1 gives $got"
if [ "$FAILS" = 0 ] && [ "$skipped" = 1 ]; then
  echo "skipping: no golden digests for core '$core'"
  exit 77
fi
finish
