# scripts/reproduce.sh and its helpers: Welch's test as `sgdsim report --welch` prints it
# against values computed by hand (and its refusals, exit 2), scripts/seed_stats.py's summary
# of sgdsim's numbers; a tiny subset of `reproduce.sh --quick` (the LSGD study, cost-only, a
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
# df = (25/12)^2 / ((5/12)^2/3 + (5/3)^2/3) = (625/144) / (425/432) = 75/17 = 4.411765;
# two-sided p = 0.151580504845 (Student's t at 75/17 degrees of freedom, integrated below).
# sgdsim report --welch must print exactly these for two settings of four seeds whose runs'
# last 10 val_error rows are set to those values (the rows before them to 100 more, so a
# window of 11 rows would change every number); --final reads the last row alone.
S="$TMP/s.json"; small_scenario "$S"
SD="$TMP/seeds.db"
for x in a b; do
  "$SGDSIM" sweep "$S" --db "$SD" --quiet --set "name=$x" --set seed=1,2,3,4 \
    --set stop.updates=24 --set eval.every=2 || fail "sweep $x"
done
sqlite3 "$SD" "UPDATE metrics SET value = (SELECT CASE r.scenario WHEN 'a' THEN r.seed
  ELSE 2 * r.seed END FROM runs r WHERE r.id = metrics.run_id) + CASE WHEN
  (SELECT count(*) FROM metrics m WHERE m.run_id = metrics.run_id AND m.name = 'val_error'
   AND m.update_idx > metrics.update_idx) >= 10 THEN 100 ELSE 0 END
  WHERE name = 'val_error'" || fail "planting the values"
out=$("$SGDSIM" report "$SD" --welch a b) || fail "report --welch: $out"
[ "$out" = "val_error last10 a (n=4) - b (n=4): -2.5000; Welch t = -1.732, df = 4.4, two-sided p = 0.152; 95% interval [-6.3642, +1.3642]" ] ||
  fail "report --welch: $out"
"$SGDSIM" report "$SD" --welch a b --json > "$TMP/w.json" || fail "report --welch --json"
"$SGDSIM" report "$SD" --welch b a --json --final > "$TMP/wf.json" || fail "--welch --final"
python3 - "$TMP/w.json" "$TMP/wf.json" <<'PY' || fail "report --welch's hand-worked values"
import json, math, sys
w, f = (json.load(open(p)) for p in sys.argv[1:])
def p_two_sided(t, df, n=20000):
    """2 P(T >= |t|) by Simpson's rule on x = |t| / s, s in (0, 1]: an independent reader."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    g = lambda s: 0.0 if s == 0 else c * (1 + (abs(t) / s) ** 2 / df) ** (-(df + 1) / 2) * abs(t) / s ** 2
    h = 1.0 / n
    return 2 * h / 3 * sum((1 if k in (0, n) else 4 if k % 2 else 2) * g(k * h) for k in range(n + 1))
assert w["metric"] == "val_error" and w["window"] == "last" and w["last_k"] == 10, w
assert w["a"]["n"] == 4 and w["b"]["n"] == 4 and w["a"]["seeds"] == [1, 2, 3, 4], w
assert w["a"]["mean"] == 2.5 and w["b"]["mean"] == 5 and w["diff"] == -2.5, w
assert abs(w["a"]["sd"] - math.sqrt(5 / 3)) < 1e-12, w["a"]        # sample sd, n - 1
assert abs(w["t"] + math.sqrt(3)) < 1e-12, w["t"]                  # the sign: a - b
assert abs(w["df"] - 75 / 17) < 1e-12, w["df"]
assert abs(w["p"] - 0.151580504845) < 1e-10, w["p"]
assert abs(w["p"] - p_two_sided(w["t"], w["df"])) < 1e-9, (w["p"], p_two_sided(w["t"], w["df"]))
assert f["window"] == "final" and f["diff"] == 2.5 and abs(f["t"] - math.sqrt(3)) < 1e-12, f
# The 95% interval: diff -+ t(0.975, df) se, se = |diff / t|; t(0.975, 4.41) lies between
# t(0.975, 5) = 2.5706 and t(0.975, 4) = 2.7764, and P(|T| >= it) = 0.05 by the reader above.
se = abs(w["diff"] / w["t"])
half = (w["ci95_high"] - w["ci95_low"]) / 2
assert abs((w["ci95_high"] + w["ci95_low"]) / 2 - w["diff"]) < 1e-12, w
assert 2.5706 < half / se < 2.7764, half / se
assert abs(p_two_sided(half / se, w["df"]) - 0.05) < 1e-6, p_two_sided(half / se, w["df"])
PY
# too few seeds, a setting without runs, one that mixes configurations: exit 2, saying so
"$SGDSIM" run "$S" --db "$SD" --quiet --set name=one --set stop.updates=24 || fail "one seed"
expect_exit 2 "setting 'one' has 1 seed(s) with a finite val_error (0 diverged); Welch's test needs 2" \
  -- "$SGDSIM" report "$SD" --welch a one
expect_exit 2 "no finished run of setting 'nosuch' with stop.updates = 24" -- \
  "$SGDSIM" report "$SD" --welch a nosuch --updates 24
"$SGDSIM" run "$S" --db "$SD" --quiet --set name=a --set stop.updates=12 --set eval.every=2 ||
  fail "a, shorter"
expect_exit 2 "setting 'a' holds 2 configurations (they differ in stop.updates)" -- \
  "$SGDSIM" report "$SD" --welch a b
"$SGDSIM" report "$SD" --welch a b --updates 24 > /dev/null || fail "--updates 24 keeps one"
expect_exit 2 "--welch needs two settings" -- "$SGDSIM" report "$SD" --welch a
expect_exit 2 "--last and --final exclude each other" -- "$SGDSIM" report "$SD" --welch a b \
  --last 3 --final
expect_exit 2 "--at only with --json" -- "$SGDSIM" report "$SD" --welch a b --at 4
expect_exit 2 "--metric no_such: unknown metric (no run of the database has it)" -- \
  "$SGDSIM" report "$SD" --welch a b --updates 24 --metric no_such

# seed_stats.py summary formats sgdsim's numbers: the row of b (seeds 2, 4, 6, 8 in the last
# rows, 102.. before) and a's refusal of a setting of two lengths.
out=$(SGDSIM="$SGDSIM" python3 "$ROOT/scripts/seed_stats.py" summary "$SD" --updates 24 \
  --like 'b') || fail "summary: $out"
echo "$out" | grep -q "^b  4  5.0000 ± 2.5820 (2.0000–8.0000) *5.0000 ± 2.5820 (2.0000–8.0000) *-$" ||
  fail "summary row of b: $out"
expect_exit 2 "setting 'a' holds 2 configurations" -- env SGDSIM="$SGDSIM" \
  python3 "$ROOT/scripts/seed_stats.py" summary "$SD"
expect_exit 2 "no such results database" -- env SGDSIM="$SGDSIM" \
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
