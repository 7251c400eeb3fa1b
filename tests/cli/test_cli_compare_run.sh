#!/usr/bin/env bash
# compare --run: seeds until decided.  On a small FASGD (decay 0.9 -> 0.99, which 3 paired
# seeds cannot decide at the family's level):
#   - with --run-baseline, from a missing candidate database: both sides get seeds in
#     batches until the rows are decided (worse, exit 1), and the summary says how many
#     looks and seeds a side it took;
#   - without it, the candidate runs the baseline's seeds it lacks (the baseline's bytes
#     unchanged) and stops when none is left to pair, spending the rest of alpha there;
#   - a change of nothing (the same build, configuration and seeds) is decided at the first
#     look (same) and runs nothing;
#   - a scenario whose runs do not pair, and --run-baseline on another build's baseline,
#     are refused with exit 2.
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
cd "$TMP"
cat > f.json <<'JSON'
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
"$SGDSIM" sweep f.json --set seed=1,2,3 --db base.db --quiet -j2 || fail "baseline"
runs() { sqlite3 "$1" "SELECT count(*) FROM runs WHERE status = 'complete'"; }

# Both sides, from nothing.
cp base.db b1.db
"$SGDSIM" compare b1.db c1.db --ignore algorithm.decay --run f.json --set algorithm.decay=0.99 \
  --run-baseline f.json --max-seeds 12 -j 2 > run1.txt 2> run1.err; rc=$?
[ "$rc" = 1 ] || fail "--run --run-baseline exits $rc: $(cat run1.txt run1.err)"
grep -qE "val_loss +worse .*decided at look [0-9]+ \([0-9]+ seeds a side\)|val_loss +worse " run1.txt || fail "val_loss not worse: $(cat run1.txt)"
grep -qE -- "--run: [0-9]+ looks, alpha spent [0-9.e-]+ of 0.05 \(O'Brien-Fleming over 12 seeds a side\); seeds a side: fasgd P=16 [0-9]+ \(decided\); [0-9]+ candidate runs and [0-9]+ baseline runs made" run1.txt ||
  fail "--run summary: $(tail -1 run1.txt)"
grep -q "compare: --run: look 1: 3 candidate seeds of fasgd P=16 into c1.db" run1.err || fail "no first batch said: $(cat run1.err)"
nc=$(runs c1.db); nb=$(runs b1.db)
[ "$nc" -ge 6 ] && [ "$nc" -le 12 ] && [ "$nb" = "$nc" ] || fail "seeds: candidate $nc, baseline $nb"
grep -q "$nc candidate runs and $((nb - 3)) baseline runs made" run1.txt || fail "runs made: $(tail -1 run1.txt)"

# The candidate only: the baseline's seeds, then no more to pair; the baseline untouched.
"$SGDSIM" sweep f.json --set seed=1,2,3,4,5,6 --db base6.db --quiet -j2 || fail "baseline of 6"
"$SGDSIM" sweep f.json --set seed=1,2,3 --set algorithm.decay=0.99 --db c2.db --quiet -j2 || fail "candidate of 3"
before=$(sha256sum base6.db)
"$SGDSIM" compare base6.db c2.db --ignore algorithm.decay --run f.json --set algorithm.decay=0.99 \
  > run2.txt 2>/dev/null; rc=$?
[ "$rc" = 1 ] || [ "$rc" = 4 ] || fail "--run without --run-baseline exits $rc"
[ "$(runs c2.db)" = 6 ] || fail "the candidate has $(runs c2.db) runs, not the baseline's 6 seeds"
[ "$(sha256sum base6.db)" = "$before" ] || fail "--run changed the baseline"
grep -q "alpha spent 0.05 of 0.05" run2.txt || fail "the last look did not spend the rest of alpha: $(tail -1 run2.txt)"

# Nothing changed: decided at once, nothing run.
cp base.db same.db
"$SGDSIM" compare base.db same.db --run f.json > run3.txt 2>&1 || fail "--run of an unchanged build exits $?"
grep -q -- "--run: 1 look, .* 0 candidate runs and 0 baseline runs made" run3.txt || fail "nothing to run: $(tail -1 run3.txt)"
[ "$(runs same.db)" = 3 ] || fail "runs were made for an unchanged build"

# Refused: runs that do not pair; another build's baseline.
cp base.db b4.db
expect_exit 2 "did not pair with it" -- "$SGDSIM" compare b4.db c4.db --ignore algorithm.decay \
  --run f.json --set algorithm.decay=0.99 --set cluster.workers=8
sqlite3 b4.db "UPDATE runs SET git_rev = 'otherbuild1'"
expect_exit 2 "--run-baseline: b4.db holds runs of build otherbuild1" -- "$SGDSIM" compare b4.db c5.db \
  --ignore algorithm.decay --run f.json --set algorithm.decay=0.99 --run-baseline f.json
expect_exit 2 "--batch 30: more than --max-seeds 20" -- "$SGDSIM" compare base.db same.db --run f.json --batch 30
expect_exit 2 "--baseline-set only with --run-baseline" -- "$SGDSIM" compare base.db same.db --run f.json --baseline-set seed=1
finish
