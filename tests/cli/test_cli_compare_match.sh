# compare's pairing and verdicts: an lr change is missing by configuration, naming the key;
# with --ignore optimizer.lr it is judged over the seeds (--json's statistics checked against
# the databases), --match-on, unknown or malformed keys (exit 2, nothing on stdout),
# ambiguous pairs, a diverged candidate (worse, its shorter virtual time too), and runs of
# two BLAS kernels of one build, which read "equivalent" (rounding, not a change), never
# better or worse, with or without --rtol.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
B="$TMP/base.db"; C="$TMP/cand.db"
"$SGDSIM" sweep "$S" --set seed=1,2 --set cluster.workers=1,2 --db "$B" --quiet -j2 || fail "baseline sweep"
"$SGDSIM" sweep "$S" --set seed=1,2 --set cluster.workers=1,2 --set optimizer.lr=0.1 --db "$C" --quiet -j2 || fail "candidate sweep"

# By configuration (the default) an lr change matches nothing, and says which key differs.
"$SGDSIM" compare "$B" "$C" > "$TMP/key.txt"; rc=$?
[ "$rc" = 1 ] || fail "compare by configuration of an lr change exits $rc"
grep -q "2 missing in the candidate" "$TMP/key.txt" || fail "by configuration: not 2 missing: $(tail -1 "$TMP/key.txt")"
[ "$(grep -c "missing  no candidate configuration matches; the nearest differs in optimizer.lr=0.05->0.1$" "$TMP/key.txt")" = 2 ] ||
  fail "missing does not name optimizer.lr: $(cat "$TMP/key.txt")"

# --ignore optimizer.lr: every configuration paired, its two seeds judged together.
"$SGDSIM" compare "$B" "$C" --ignore optimizer.lr --csv > "$TMP/ign.csv" 2>"$TMP/ign.err"; rc=$?
grep -q "paired on the configuration without optimizer.lr (0 missing in the candidate, 0 ambiguous)" "$TMP/ign.err" || fail "--ignore: summary: $(cat "$TMP/ign.err")"
[ "$(grep -c ',(configuration),' "$TMP/ign.csv")" = 0 ] || fail "--ignore: a configuration not paired: $(grep ',(configuration),' "$TMP/ign.csv")"
[ "$(grep -c ',lr,differs,' "$TMP/ign.csv")" = 2 ] || fail "--ignore: lr (a neutral metric) should read 'differs' in 2 configurations: $(grep ',lr,' "$TMP/ign.csv")"
[ "$(grep -c ',vtime_s,same,' "$TMP/ign.csv")" = 2 ] || fail "--ignore: an lr change moved virtual time: $(grep ',vtime_s,' "$TMP/ign.csv")"
want_rc=0; grep -q ',inconclusive,true,' "$TMP/ign.csv" && want_rc=4; grep -q ',worse,' "$TMP/ign.csv" && want_rc=1
[ "$rc" = "$want_rc" ] || fail "--ignore: exit $rc, wanted $want_rc (1 when something is worse, else 4 when a row that counts is inconclusive)"
# --json: the statistics are numbers — each seed's value the mean of its last 3 rows; seeds,
# runs and values are arrays, the configuration an object.
"$SGDSIM" compare "$B" "$C" --ignore optimizer.lr --json --last 3 > "$TMP/ign.json" 2>/dev/null; rc=$?
python3 - "$B" "$C" "$TMP/ign.json" "$rc" <<'PY' || fail "--json numbers"
import json, sqlite3, statistics, sys
con = sqlite3.connect(sys.argv[1])
cand = sqlite3.connect(sys.argv[2])
doc = json.load(open(sys.argv[3]))
assert doc["exit"] == int(sys.argv[4]), (doc["exit"], sys.argv[4])
assert doc["rule"]["last"] == 3 and doc["rule"]["correction"] == "holm", doc["rule"]
seen = 0
for r in doc["rows"]:
    if r["metric"] != "val_error":
        continue
    seen += 1
    p = r["configuration"]["cluster.workers"]
    assert r["configuration"]["optimizer.lr"] == 0.05 and "seed" not in r["configuration"], r
    assert r["candidate_differs"] == {"optimizer.lr": [0.05, 0.1]}, r
    vals = []
    for seed in (1, 2):
        v = [x[0] for x in con.execute("SELECT m.value FROM metrics m JOIN runs r ON r.id = m.run_id"
             " WHERE r.workers = ? AND r.seed = ? AND m.name = 'val_error' ORDER BY m.update_idx",
             (p, seed))]
        vals.append(sum(v[-3:]) / len(v[-3:]))
    b = r["baseline"]
    assert b["seeds"] == [1, 2] and b["value_seeds"] == [1, 2], b
    assert b["runs"] == [x[0] for x in con.execute("SELECT id FROM runs WHERE workers = ? ORDER BY seed", (p,))], b
    assert r["candidate"]["runs"] == [x[0] for x in cand.execute("SELECT id FROM runs WHERE workers = ? ORDER BY seed", (p,))], r
    assert all(abs(x - y) < 1e-12 for x, y in zip(b["values"], vals)), (b, vals)
    assert isinstance(b["n"], int) and b["n"] == 2, r
    assert isinstance(b["mean"], float) and abs(b["mean"] - statistics.mean(vals)) < 1e-12, (r, vals)
    assert abs(b["sd"] - statistics.stdev(vals)) < 1e-12, (r, vals)
    assert r["test"] == "paired t", r
    d = [c - x for c, x in zip(r["candidate"]["values"], b["values"])]
    assert abs(r["effect"] - statistics.mean(d)) < 1e-12, (r, d)
    lo, hi = r["interval"]
    assert lo <= r["effect"] <= hi, r
    assert 0 <= r["p"] <= r["p_adjusted"] <= 1, r
    assert r["verdict"] in ("better", "worse", "equivalent", "inconclusive"), r
    assert (r["seeds_needed"] is None) == (r["verdict"] != "inconclusive") or r["seeds_needed"] is None, r
    assert r["counts"] is True and isinstance(r["detail"], str), r
assert seen == 2, seen
PY
# lr 0.1 against itself: every row the same, exit 0.
"$SGDSIM" compare "$C" "$C" --ignore optimizer.lr > "$TMP/self.txt" || fail "compare of a database with itself exits $?"
grep -q " 0 equivalent, 0 better, 0 worse, 0 differs, 0 differs (different kernel), 0 inconclusive, 0 no clock, 0 missing, 0 ambiguous" "$TMP/self.txt" || fail "self: $(tail -1 "$TMP/self.txt")"

# Swapping the sides swaps better and worse.
"$SGDSIM" compare "$C" "$B" --ignore optimizer.lr --csv > "$TMP/rev.csv" 2>/dev/null
[ "$(grep -c ',better,' "$TMP/rev.csv")" = "$(grep -c ',worse,' "$TMP/ign.csv")" ] || fail "swapped sides: better and worse do not swap"

# A run that diverges where the baseline completed is worse (status), and so are its
# metrics and its shorter virtual time; one that recovers is better.
cp "$C" "$TMP/div.db"
sqlite3 "$TMP/div.db" "UPDATE runs SET status = 'diverged', vtime_ns = vtime_ns / 2, updates = 30 WHERE workers = 1 AND seed = 1"
"$SGDSIM" compare "$C" "$TMP/div.db" --csv > "$TMP/div.csv" 2>/dev/null; rc=$?
[ "$rc" = 1 ] || fail "a diverged candidate exits $rc"
grep -q '^small,csgd P=1,"1,2",status,worse,' "$TMP/div.csv" || fail "diverged status: $(grep ',status,' "$TMP/div.csv")"
grep -q '^small,csgd P=1,"1,2",vtime_s,worse,' "$TMP/div.csv" || fail "a diverged run's shorter virtual time is not worse: $(grep ',vtime_s,' "$TMP/div.csv")"
"$SGDSIM" compare "$C" "$TMP/div.db" | grep -q 'status  *worse  *complete -> seed 1 diverged at update 30' || fail "diverged status detail"
"$SGDSIM" compare "$TMP/div.db" "$C" --csv 2>/dev/null | grep -q '^small,csgd P=1,"1,2",status,better,' || fail "recovered status is not better"
# A loss that ends non-finite is the worst a loss can be (that seed diverged); the same seed
# diverged on both sides (nan against inf) decides nothing: the other seed alone is judged.
cp "$C" "$TMP/nan.db"
sqlite3 "$TMP/nan.db" "UPDATE metrics SET value = NULL, nonfinite = 'nan' WHERE name = 'val_loss' AND update_idx = 60 AND run_id = (SELECT id FROM runs WHERE workers = 1 AND seed = 1)"
"$SGDSIM" compare "$C" "$TMP/nan.db" --csv 2>/dev/null | grep -q '^small,csgd P=1,"1,2",val_loss,worse,' || fail "a nan final loss is not worse"
"$SGDSIM" compare "$TMP/nan.db" "$C" --csv 2>/dev/null | grep -q '^small,csgd P=1,"1,2",val_loss,better,' || fail "a finite loss after a nan one is not better"
cp "$TMP/nan.db" "$TMP/inf.db"
sqlite3 "$TMP/inf.db" "UPDATE metrics SET nonfinite = 'inf' WHERE nonfinite = 'nan'"
"$SGDSIM" compare "$TMP/nan.db" "$TMP/inf.db" --csv 2>/dev/null | grep -q '^small,csgd P=1,"1,2",val_loss,inconclusive,' || fail "nan against inf is not judged on the other seed"

# --match-on cluster.workers: the same pairs.
"$SGDSIM" compare "$B" "$C" --match-on cluster.workers --csv > "$TMP/on.csv" 2>"$TMP/on.err"
grep -q "paired on cluster.workers (0 missing in the candidate, 0 ambiguous)" "$TMP/on.err" || fail "--match-on: $(cat "$TMP/on.err")"
diff <(sort "$TMP/on.csv") <(sort "$TMP/ign.csv") >/dev/null || fail "--match-on cluster.workers and --ignore optimizer.lr pair other configurations"
# --match-on optimizer.lr: no candidate configuration has lr 0.05.
"$SGDSIM" compare "$B" "$C" --match-on optimizer.lr > "$TMP/on2.txt"; rc=$?
[ "$rc" = 1 ] || fail "--match-on optimizer.lr exits $rc"
grep -q "2 missing in the candidate" "$TMP/on2.txt" || fail "--match-on optimizer.lr: $(tail -1 "$TMP/on2.txt")"
# --ignore seed changes nothing: the seed is never matched on.
"$SGDSIM" compare "$B" "$C" --match-on optimizer.lr --ignore seed > "$TMP/amb2.txt"
grep -q "paired on optimizer.lr (2 missing" "$TMP/amb2.txt" || fail "--ignore seed: $(tail -1 "$TMP/amb2.txt")"
# Ambiguous: P=1 and P=2 share a signature on each side once the workers are ignored.
"$SGDSIM" compare "$B" "$B" --ignore cluster.workers > "$TMP/amb.txt"; rc=$?
[ "$rc" = 1 ] || fail "ambiguous matches exit $rc"
[ "$(grep -c '  ambiguous  2 baseline and 2 candidate configurations match' "$TMP/amb.txt")" = 2 ] || fail "ambiguous: $(cat "$TMP/amb.txt")"
grep -q "  same  \|  worse  \|  better  " "$TMP/amb.txt" && fail "ambiguous: a configuration was compared anyway"

# Unknown and malformed keys: exit 2 naming the argument, nothing on stdout.
# Each case: the arguments, then the option the message must name.
for case in "--ignore optimizer.lrr|--ignore optimizer.lrr" "--match-on cluster.workerz|--match-on cluster.workerz" \
            "--match-on cluster.workers,nope.x|--match-on nope.x" "--ignore optimizer..lr|--ignore optimizer..lr" \
            "--ignore ,seed|--ignore ,seed" "--match-on seed|--match-on seed: the seed is never matched on" \
            "--match-on cluster.workers --ignore optimizer.lr|--ignore optimizer.lr: with --match-on"; do
  args=${case%%|*}; needle=${case#*|}
  # shellcheck disable=SC2086
  out=$("$SGDSIM" compare "$B" "$C" $args 2>"$TMP/err.txt"); rc=$?
  [ "$rc" = 2 ] || fail "compare $args exits $rc (wanted 2)"
  [ -z "$out" ] || fail "compare $args wrote to stdout: $out"
  grep -qF "compare: $needle" "$TMP/err.txt" || fail "compare $args: message does not name '$needle': $(cat "$TMP/err.txt")"
done
expect_exit 2 "--ignore optimizer.lrr: no finished run of either database has this configuration key" -- "$SGDSIM" compare "$B" "$C" --ignore optimizer.lrr
expect_exit 2 "--match-on: missing value" -- "$SGDSIM" compare "$B" "$C" --match-on

# Two BLAS kernels: the default kernel against another one pinned.  Matching needs
# --ignore numerics.blas_core (the kernel is part of the run key).
K1="$TMP/k1.db"; K2="$TMP/k2.db"
"$SGDSIM" run "$S" --db "$K1" --quiet || fail "run on the default kernel"
core1=$(sqlite3 "$K1" "SELECT blas_core FROM runs")
other=Prescott; [ "$core1" = Prescott ] && other=Haswell
if "$SGDSIM" run "$S" --db "$K2" --quiet --blas-core "$other" 2>/dev/null &&
   ! diff <(sqlite3 "$K1" "SELECT name, update_idx, value FROM metrics ORDER BY 1, 2") \
          <(sqlite3 "$K2" "SELECT name, update_idx, value FROM metrics ORDER BY 1, 2") >/dev/null; then
  echo "kernels: $core1 and $other (real last-bit differences)"
else
  # This CPU cannot show a kernel difference: make one (another kernel's name, last bits moved).
  echo "kernels: one kernel only here; the candidate's kernel and last bits edited with sqlite3"
  rm -f "$K2"; cp "$K1" "$K2"
  sqlite3 "$K2" "UPDATE runs SET blas_core = 'Other', run_key = 'other' || run_key, config_json = json_set(config_json, '$.numerics.blas_core', 'Other'); UPDATE metrics SET value = value * (1 + 1e-9) WHERE name = 'val_loss' AND update_idx > 0"
fi
"$SGDSIM" compare "$K1" "$K2" --ignore numerics.blas_core --rtol 1e-4 > "$TMP/k.txt" 2>"$TMP/k.err"; rc=$?
[ "$rc" = 0 ] || fail "kernels within --rtol exit $rc: $(cat "$TMP/k.txt")"
grep -q "val_loss  *equivalent  " "$TMP/k.txt" || fail "kernels: val_loss not equivalent: $(cat "$TMP/k.txt")"
grep -q "  inconclusive  \|  worse  \|  better  " "$TMP/k.txt" && fail "kernels: a kernel difference read as a change: $(cat "$TMP/k.txt")"
grep -q "different BLAS kernels" "$TMP/k.err" || fail "kernels: no note on stderr"
# Without a tolerance, one seed: the same build and configuration on another kernel is
# rounding, not a change: equivalent, said so, exit 0.
"$SGDSIM" compare "$K1" "$K2" --ignore numerics.blas_core > "$TMP/k0.txt" 2>/dev/null; rc=$?
[ "$rc" = 0 ] || fail "kernels at rtol 0 exit $rc: $(cat "$TMP/k0.txt")"
grep -q "val_loss  *equivalent  .*another BLAS kernel: rounding, not a change" "$TMP/k0.txt" || fail "kernels at rtol 0, one seed: not equivalent: $(cat "$TMP/k0.txt")"
grep -q "  inconclusive  \|  worse  \|  better  " "$TMP/k0.txt" && fail "one seed on another kernel reads as a change: $(cat "$TMP/k0.txt")"
"$SGDSIM" compare "$K1" "$K2" > "$TMP/kk.txt" 2>/dev/null
grep -q "1 missing in the candidate" "$TMP/kk.txt" || fail "kernels by configuration: $(tail -1 "$TMP/kk.txt")"
grep -q "the nearest differs in numerics.blas_core=" "$TMP/kk.txt" || fail "kernels: missing does not name numerics.blas_core: $(cat "$TMP/kk.txt")"
# The same database twice on one kernel with a tolerance: equivalent within --rtol.
cp "$K1" "$TMP/k3.db"; sqlite3 "$TMP/k3.db" "UPDATE metrics SET value = value * (1 + 1e-9) WHERE name = 'val_loss' AND update_idx > 0"
"$SGDSIM" compare "$K1" "$TMP/k3.db" --rtol 1e-4 | grep -q "val_loss  *equivalent  .*within --rtol" || fail "one kernel within --rtol is not equivalent"
expect_exit 2 "--alpha 1: expected a number between 0 and 1" -- "$SGDSIM" compare "$K1" "$K2" --alpha 1
expect_exit 2 "--last 0" -- "$SGDSIM" compare "$K1" "$K2" --last 0
expect_exit 2 "--min-effect -1" -- "$SGDSIM" compare "$K1" "$K2" --min-effect -1
expect_exit 2 "--correction bonferroni: expected holm, bh or none" -- "$SGDSIM" compare "$K1" "$K2" --correction bonferroni
expect_exit 2 "--set only with --run SCENARIO" -- "$SGDSIM" compare "$K1" "$K2" --set seed=1

finish
