# Golden digests: a small scenario's digest must not change unless results are meant to
# change.  Digests are comparable only on the same OpenBLAS kernel (docs/architecture.md),
# so golden.txt (lines: core scenario digest) keys them by kernel; on an unlisted core the
# test skips.  After an
# intentional change, update golden.txt with the new digest (and say why in the commit).
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"
core=$("$SGDSIM" --version | sed -n 's/.*(core \(.*\))$/\1/p')
want=$(awk -v c="$core" '$1 == c && $2 == "small" { print $3 }' "$(dirname "$0")/golden.txt")
got=$("$SGDSIM" run "$S" --db "$TMP/g.db" | sed -n 's/^digest //p')
[ -n "$got" ] || fail "no digest printed"
if [ -z "$want" ]; then
  echo "no golden digest for BLAS core '$core' (got $got): skipping"
  exit 77
fi
[ "$got" = "$want" ] || fail "digest $got != golden $want on core $core"
finish
