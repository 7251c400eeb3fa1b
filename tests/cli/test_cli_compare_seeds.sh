# compare decides with the seeds (docs/workflow.md §7 in small): a FASGD baseline of 3 seeds
# against an unchanged rebuild reads same everywhere (exit 0); against decay 0.9 -> 0.99 the
# validation metrics are worse beyond the seed spread (exit 1) while the one-sample
# train_loss stays within noise; one seed is inconclusive, never better or worse (exit 0).
# The uniform driver has no clock: compare, show and report say "no clock (uniform
# driver)" instead of a virtual time.
. "$(dirname "$0")/lib.sh"
S="$TMP/f.json"
cat > "$S" <<'JSON'
{
  "schema_version": 1,
  "name": "fsmall",
  "seed": 5,
  "algorithm": { "name": "fasgd" },
  "cluster": { "workers": 16 },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20, "classes": 5 },
  "model": { "kind": "softmax" },
  "batch": { "per_worker": 1 },
  "optimizer": { "lr": 0.05 },
  "stop": { "updates": 200 },
  "eval": { "every": 20 }
}
JSON
sweep() { "$SGDSIM" sweep "$S" --set seed=1,2,3 "$@" --quiet -j2 || fail "sweep $*"; }
sweep --db "$TMP/baseline.db"
sweep --db "$TMP/rebuild.db"
sweep --set algorithm.decay=0.99 --db "$TMP/decay.db"

# An unchanged rebuild: every row same, exit 0.
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/rebuild.db" > "$TMP/same.txt"; rc=$?
[ "$rc" = 0 ] || fail "an unchanged rebuild exits $rc: $(cat "$TMP/same.txt")"
grep -q ": 15 same, 0 within noise, 0 differ (different kernel), 0 better, 0 worse, 0 differ, 0 inconclusive, 1 no clock, 0 missing" "$TMP/same.txt" ||
  fail "an unchanged rebuild is not same everywhere: $(cat "$TMP/same.txt")"

# A real change, beyond the seed spread: worse, exit 1; the noisy one-sample loss is not.
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/decay.db" > "$TMP/decay.txt"; rc=$?
[ "$rc" = 1 ] || fail "decay 0.99 without --ignore exits $rc"
grep -q "missing  no candidate configuration matches; the nearest differs in algorithm.decay=0.9->0.99" "$TMP/decay.txt" ||
  fail "missing does not name algorithm.decay: $(cat "$TMP/decay.txt")"
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/decay.db" --ignore algorithm.decay > "$TMP/decay.txt"; rc=$?
[ "$rc" = 1 ] || fail "decay 0.99 exits $rc: $(cat "$TMP/decay.txt")"
grep -qE "1,2,3  val_error  +worse  .*\(n=3\) -> .*\(n=3\), \+[0-9.]+%, Welch p=0\.0[0-4]" "$TMP/decay.txt" || fail "val_error is not worse by Welch's test: $(cat "$TMP/decay.txt")"
grep -qE "train_loss  +within noise" "$TMP/decay.txt" || fail "train_loss is not within noise: $(grep train_loss "$TMP/decay.txt")"
grep -qE "vtime_s  +no clock  +no clock \(uniform driver\)" "$TMP/decay.txt" || fail "vtime_s of a uniform run: $(grep vtime_s "$TMP/decay.txt")"
# Stricter alpha: nothing significant is left, exit 0.
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/decay.db" --ignore algorithm.decay --alpha 0.001 > /dev/null || fail "alpha 0.001 exits $?"
# A minimum effect above the change: within noise.
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/decay.db" --ignore algorithm.decay --min-effect 100 > /dev/null || fail "--min-effect 100 exits $?"

# One seed: inconclusive, stated as such, never better or worse.
"$SGDSIM" run "$S" --set seed=1 --db "$TMP/one_b.db" --quiet || fail "one seed baseline"
"$SGDSIM" run "$S" --set seed=1 --set algorithm.decay=0.99 --db "$TMP/one_c.db" --quiet || fail "one seed candidate"
"$SGDSIM" compare "$TMP/one_b.db" "$TMP/one_c.db" --ignore algorithm.decay > "$TMP/one.txt"; rc=$?
[ "$rc" = 0 ] || fail "one seed exits $rc"
grep -qE "train_loss  +inconclusive  .*one seed on a side: no spread to judge by" "$TMP/one.txt" || fail "one seed: train_loss not inconclusive: $(cat "$TMP/one.txt")"
grep -q "  better  \|  worse  " "$TMP/one.txt" && fail "one seed reads better or worse: $(cat "$TMP/one.txt")"

# show and report: no virtual time for a run without a clock.
"$SGDSIM" show "$TMP/one_b.db" 1 > "$TMP/show.txt" || fail "show"
grep -qE "^vtime_ns +no clock \(uniform driver\)$" "$TMP/show.txt" || fail "show: vtime_ns of a uniform run: $(grep vtime "$TMP/show.txt")"
"$SGDSIM" report "$TMP/one_b.db" | grep -q "no clock" || fail "report: no 'no clock'"
"$SGDSIM" run "$S" --set algorithm.driver='"timed"' --set stop.updates=20 --db "$TMP/timed.db" --quiet || fail "timed run"
"$SGDSIM" show "$TMP/timed.db" 1 | grep -qE "^vtime_ns +[0-9]+$" || fail "show: a timed run has no virtual time"
finish
