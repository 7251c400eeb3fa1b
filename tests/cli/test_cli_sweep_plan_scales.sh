# Planning a large sweep is quick and exact: `sweep --list` of a scenario whose sweep block
# has one axis of 20,000 seeds (three of them repeated) lists the 20,000 distinct points in
# the canonical order, each with the run key a plain `run --set` of that point would get,
# and a second axis with a repeated value doubles nothing.  Planning used to load the whole
# file, sweep block included, once per point (quadratic: 5,000 seeds took about a minute);
# 20,000 points now take seconds.  No time is asserted beyond a generous limit that only a
# quadratic planner exceeds (bench/bench_sweep_plan.sh prints the figures).
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"
N=20000
python3 - "$S" "$TMP/big.json" "$N" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
n = int(sys.argv[3])
s["sweep"] = {"seed": list(range(1, n + 1)) + [1, 7, n]}
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY

out=$(timeout 240 "$SGDSIM" sweep "$TMP/big.json" --list 2>"$TMP/err") || fail "sweep --list of $N points failed or did not finish: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | wc -l)" = "$N" ] || fail "--list printed $(printf '%s\n' "$out" | wc -l) points, wanted $N"
grep -q "$N points ($((N + 3)) combinations, 3 repeat a configuration)" "$TMP/err" || fail "summary: $(cat "$TMP/err")"
# Canonical order, first occurrence kept: point i sets seed=i+1.
bad=$(printf '%s\n' "$out" | awk -F'\t' '$1 != NR - 1 || $3 != "seed=" NR { print; exit }')
[ -z "$bad" ] || fail "out of order or wrong point: $bad"
[ "$(printf '%s\n' "$out" | cut -f2 | sort -u | wc -l)" = "$N" ] || fail "run keys are not distinct"
# Each key is the one the point's own run would get (validate prints its first 12 digits).
for seed in 1 777 $N; do
  want=$("$SGDSIM" validate "$TMP/big.json" --set seed=$seed | sed -n 's/.*config \([0-9a-f]*\)).*/\1/p')
  got=$(printf '%s\n' "$out" | awk -F'\t' -v s="seed=$seed" '$3 == s { print $2 }')
  [ -n "$want" ] && [ "$got" = "$want" ] || fail "seed=$seed: planned key '$got', run's key '$want'"
done

# Two axes, the command line's with a repeated value: 2 x 20,000 combinations, 20,000 points.
out=$(timeout 240 "$SGDSIM" sweep "$TMP/big.json" --set cluster.workers=2,2 --list 2>"$TMP/err") ||
  fail "two axes: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | wc -l)" = "$N" ] || fail "two axes: $(printf '%s\n' "$out" | wc -l) points"
[ "$(printf '%s\n' "$out" | sed -n 2p | cut -f3)" = "seed=2 cluster.workers=2" ] || fail "two axes: second point: $(printf '%s\n' "$out" | sed -n 2p)"
finish
