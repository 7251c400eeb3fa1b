# scripts/reproduce.sh and its helpers: the statistics of scripts/seed_stats.py against values
# computed by hand; a tiny subset of `reproduce.sh --quick` (the LSGD study, cost-only, a
# few seconds) passes against scripts/reproduce-quick.ref and fails (exit 1) when one
# expected value is wrong; scripts/reproduce_check.py's exact and tolerance paths on another
# kernel, on small synthetic runs; bad input exits 2.  Skipped without python3 or sqlite3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CHECK="$ROOT/scripts/reproduce_check.py"

# Welch's t for a = (1,2,3,4), b = (2,4,6,8), by hand: means 2.5 and 5, sample variances 5/3
# and 20/3, so s_a^2/n_a = 5/12 and s_b^2/n_b = 5/3; se = sqrt(25/12) = 1.443376;
# t = -2.5 / 1.443376 = -1.732051 (= -sqrt(3)); Welch-Satterthwaite
# df = (25/12)^2 / ((5/12)^2/3 + (5/3)^2/3) = (625/144) / (425/432) = 75/17 = 4.411765.
# The p-values use closed forms of Student's t: df = 1 (Cauchy) P(|T|>=t) = 1 - 2 atan(t)/pi,
# df = 2: 1 - t / sqrt(2 + t^2); and df -> infinity is the normal's erfc(t / sqrt 2).
PYTHONPATH="$ROOT/scripts" python3 - <<'PY' || fail "seed_stats.py statistics"
import math, seed_stats as s
t, df, p = s.welch([1, 2, 3, 4], [2, 4, 6, 8])
assert abs(t + math.sqrt(3)) < 1e-12, t
assert abs(df - 75 / 17) < 1e-12, df
assert 0.14 < p < 0.16, p                 # between df 4 (0.1583) and df 5 (0.1438) at t = 1.732
for x in (0.3, 1.0, 2.5, 12.0):
    assert abs(s.t_two_sided_p(x, 1) - (1 - 2 * math.atan(x) / math.pi)) < 1e-12, x
    assert abs(s.t_two_sided_p(-x, 2) - (1 - x / math.sqrt(2 + x * x))) < 1e-12, x
    assert abs(s.t_two_sided_p(x, 1e7) - math.erfc(x / math.sqrt(2))) < 1e-6, x
assert s.t_two_sided_p(0.0, 3) == 1.0
assert s.welch([1, 1], [2, 2])[2] == 0.0 and s.welch([3, 3], [3, 3])[2] == 1.0
assert abs(s.sample_var([2, 4, 4, 4, 5, 5, 7, 9]) - 32 / 7) < 1e-12
try:
    s.welch([1], [2, 3]); raise SystemExit("one value accepted")
except ValueError:
    pass
PY

# seed_stats.py on a database: two seeds of two settings, read back with sqlite3.
S="$TMP/s.json"; small_scenario "$S"
SD="$TMP/seeds.db"
for lr in 0.05 0.1; do
  "$SGDSIM" sweep "$S" --db "$SD" --quiet --set "name=lr$lr" --set "optimizer.lr=$lr" \
    --set seed=1,2 || fail "sweep lr $lr"
done
out=$(python3 "$ROOT/scripts/seed_stats.py" summary "$SD") || fail "summary"
[ "$(echo "$out" | grep -c '^lr0\.[01]5\? *2 ')" = 2 ] || fail "summary rows: $out"
finals=$(sqlite3 "$SD" "SELECT m.value FROM runs r JOIN metrics m ON m.run_id = r.id
  AND m.name = 'val_error' WHERE r.scenario = 'lr0.05' AND m.update_idx =
  (SELECT max(update_idx) FROM metrics WHERE run_id = r.id AND name = 'val_error')")
want=$(echo "$finals" | python3 -c 'import sys; v = [float(x) for x in sys.stdin]; print(f"{sum(v)/len(v):.4f}")')
echo "$out" | grep -q "^lr0.05 .* $want ± " || fail "summary mean of lr0.05 is not $want: $out"
python3 "$ROOT/scripts/seed_stats.py" welch "$SD" lr0.05 lr0.1 | grep -q "Welch t = " ||
  fail "welch"
expect_exit 2 "Welch's test needs 2" -- python3 "$ROOT/scripts/seed_stats.py" welch "$SD" \
  lr0.05 nosuch
expect_exit 2 "not a readable sgdsim results database" -- \
  python3 "$ROOT/scripts/seed_stats.py" summary "$TMP/none.db"

# A tiny subset of reproduce.sh --quick, compared with the stored reference.
Q="$TMP/quick"
SGDSIM="$SGDSIM" bash "$ROOT/scripts/reproduce.sh" --quick --only lsgd --out "$Q" \
  > "$TMP/q.out" 2>&1 || fail "reproduce.sh --quick --only lsgd: $(cat "$TMP/q.out")"
grep -q "^6 of 6 checks passed" "$TMP/q.out" || fail "not 6 checks: $(cat "$TMP/q.out")"
# one deliberately wrong expected value: that check, and only it, fails, with exit 1
sed 's/^\(lsgd:base\/lsgd\/256:efficiency  *\)[0-9.]*/\10.95/' "$Q/selected.ref" > "$TMP/wrong.ref"
grep -q "^lsgd:base/lsgd/256:efficiency  *0.95 " "$TMP/wrong.ref" || fail "wrong.ref not made"
python3 "$CHECK" "$TMP/wrong.ref" "$Q" > "$TMP/w.out"; rc=$?
[ "$rc" = 1 ] || fail "a wrong expected value gave exit $rc: $(cat "$TMP/w.out")"
[ "$(grep -c 'FAIL$' "$TMP/w.out")" = 1 ] || fail "not one FAIL: $(cat "$TMP/w.out")"
grep -q "^lsgd:base/lsgd/256:efficiency .*FAIL$" "$TMP/w.out" || fail "wrong row: $(cat "$TMP/w.out")"

# Exact and other-kernel paths on a synthetic run: the digest matches on the run's kernel
# and is skipped on another, where the error is compared within its tolerance.
D="$TMP/synth"; mkdir -p "$D"
"$SGDSIM" run "$S" --db "$D/exp1.db" --quiet --set name=x || fail "synthetic run"
core=$(sqlite3 "$D/exp1.db" "SELECT blas_core FROM runs")
dig=$(sqlite3 "$D/exp1.db" "SELECT digest FROM runs")
err=$(python3 - "$D/exp1.db" <<'PY'
import sqlite3, sys
print(repr(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM metrics WHERE name = "
      "'val_error' ORDER BY update_idx DESC LIMIT 1").fetchone()[0]))
PY
)
mkref() { # kernel digest error-expected other-kernel-tolerance
  printf '# kernel: %s\nexp1:x:digest %s exact skip test\nexp1:x:val_error %s exact %s test\n' \
    "$@" > "$TMP/r.ref"
}
mkref "$core" "$dig" "$err" abs:0.01
python3 "$CHECK" "$TMP/r.ref" "$D" > "$TMP/r.out" || fail "same kernel: $(cat "$TMP/r.out")"
[ "$(grep -c ' ok$' "$TMP/r.out")" = 2 ] || fail "same kernel, not 2 ok: $(cat "$TMP/r.out")"
mkref "$core" "${dig%?}0" "$err" abs:0.01
python3 "$CHECK" "$TMP/r.ref" "$D" > "$TMP/r.out" && fail "a changed digest passed"
mkref OtherCore "${dig%?}0" 0.2 abs:1
python3 "$CHECK" "$TMP/r.ref" "$D" > "$TMP/r.out" || fail "other kernel: $(cat "$TMP/r.out")"
grep -q "digest .* skip$" "$TMP/r.out" || fail "digest not skipped: $(cat "$TMP/r.out")"
grep -q "val_error .* abs:1 *ok$" "$TMP/r.out" || fail "tolerance: $(cat "$TMP/r.out")"
mkref OtherCore "$dig" 5 abs:0.5
python3 "$CHECK" "$TMP/r.ref" "$D" > "$TMP/r.out" && fail "an error off by > 4 passed"

# bad input
printf '# kernel: X\nexp1:x:val_error 0.1\n' > "$TMP/bad.ref"
expect_exit 2 "bad.ref:2" -- python3 "$CHECK" "$TMP/bad.ref" "$D"
printf '# kernel: X\nexp9:x:val_error 0.1 exact exact t\n' > "$TMP/bad.ref"
expect_exit 2 "exp9.db: no such results database" -- python3 "$CHECK" "$TMP/bad.ref" "$D"
expect_exit 2 "unknown part 'exp7'" -- bash "$ROOT/scripts/reproduce.sh" --quick --only exp7
expect_exit 2 "unknown argument '--fast'" -- bash "$ROOT/scripts/reproduce.sh" --fast
finish
