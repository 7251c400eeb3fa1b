# compare decides with the seeds (docs/workflow.md §7 in small): a FASGD baseline of 3 seeds
# against an unchanged rebuild reads same everywhere (exit 0); decay 0.9 -> 0.99 on 3 paired
# seeds cannot be decided at the family's level (exit 4, naming the seeds a side that would
# decide it), on 6 it is worse (exit 1) while the one-sample train_loss is not decided; a
# margin above the change makes it equivalent (exit 0); one seed is inconclusive, never
# better or worse (exit 4).  The uniform driver has no clock: compare, show and report say
# "no clock (uniform driver)" instead of a virtual time.
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
sweep() { "$SGDSIM" sweep "$S" "$@" --quiet -j2 || fail "sweep $*"; }
sweep --set seed=1,2,3,4,5,6 --db "$TMP/baseline6.db"
sweep --set seed=1,2,3,4,5,6 --set algorithm.decay=0.99 --db "$TMP/decay6.db"
keep3() { cp "$1" "$2"; sqlite3 "$2" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE seed > 3"; }
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
keep3 "$TMP/baseline6.db" "$TMP/baseline.db"
keep3 "$TMP/decay6.db" "$TMP/decay.db"
sweep --set seed=1,2,3 --db "$TMP/rebuild.db"

# An unchanged rebuild: every row same, exit 0.
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/rebuild.db" > "$TMP/same.txt"; rc=$?
[ "$rc" = 0 ] || fail "an unchanged rebuild exits $rc: $(cat "$TMP/same.txt")"
grep -q ": 15 same, 0 equivalent, 0 better, 0 worse, 0 differs, 0 differs (different kernel), 0 inconclusive, 1 no clock, 0 missing" "$TMP/same.txt" ||
  fail "an unchanged rebuild is not same everywhere: $(cat "$TMP/same.txt")"

# A real change: missing by configuration; paired over 3 seeds not decided at the family's
# level (exit 4, with the seeds that would decide it); over 6, worse (exit 1).
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/decay.db" > "$TMP/decay.txt"; rc=$?
[ "$rc" = 1 ] || fail "decay 0.99 without --ignore exits $rc"
grep -q "missing  no candidate configuration matches; the nearest differs in algorithm.decay=0.9->0.99" "$TMP/decay.txt" ||
  fail "missing does not name algorithm.decay: $(cat "$TMP/decay.txt")"
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/decay.db" --ignore algorithm.decay > "$TMP/decay.txt"; rc=$?
[ "$rc" = 4 ] || fail "decay 0.99 on 3 seeds exits $rc: $(cat "$TMP/decay.txt")"
grep -qE "1,2,3  val_loss  +inconclusive  .*\(n=3\) -> .*\(n=3\): \+[0-9.e+]+ \(\+[0-9.e+]+%\) \[.*paired t p=.*holm p=.*about [0-9]+ seeds a side would decide" "$TMP/decay.txt" || fail "val_loss on 3 seeds: $(cat "$TMP/decay.txt")"
grep -qE "vtime_s  +no clock  +no clock \(uniform driver\)" "$TMP/decay.txt" || fail "vtime_s of a uniform run: $(grep vtime_s "$TMP/decay.txt")"
grep -q "  worse  \|  better  " "$TMP/decay.txt" && fail "3 seeds decided: $(cat "$TMP/decay.txt")"
"$SGDSIM" compare "$TMP/baseline6.db" "$TMP/decay6.db" --ignore algorithm.decay > "$TMP/decay6.txt"; rc=$?
[ "$rc" = 1 ] || fail "decay 0.99 on 6 seeds exits $rc: $(cat "$TMP/decay6.txt")"
grep -qE "1,2,3,4,5,6  val_loss  +worse  .*\(n=6\) -> .*\(n=6\): \+[0-9.e+]+ \(\+[0-9.e+]+%\) \[\+[0-9.e+]+%, \+[0-9.e+]+%\] \([0-9.]+% interval; paired t p=" "$TMP/decay6.txt" || fail "val_loss on 6 seeds is not worse: $(cat "$TMP/decay6.txt")"
grep -qE "train_loss  +inconclusive" "$TMP/decay6.txt" || fail "the one-sample train_loss was decided: $(grep train_loss "$TMP/decay6.txt")"
# A stricter alpha: nothing decided, exit 4.
"$SGDSIM" compare "$TMP/baseline6.db" "$TMP/decay6.db" --ignore algorithm.decay --alpha 0.0001 > /dev/null; rc=$?
[ "$rc" = 4 ] || fail "alpha 0.0001 exits $rc"
# A margin above the change: equivalent, exit 0.
"$SGDSIM" compare "$TMP/baseline.db" "$TMP/decay.db" --ignore algorithm.decay --min-effect 100 > "$TMP/m.txt" || fail "--min-effect 100 exits $?"
grep -qE "val_loss  +equivalent  .*inside" "$TMP/m.txt" || fail "--min-effect 100: not equivalent: $(cat "$TMP/m.txt")"

# One seed: inconclusive, stated as such, never better or worse.
"$SGDSIM" run "$S" --set seed=1 --db "$TMP/one_b.db" --quiet || fail "one seed baseline"
"$SGDSIM" run "$S" --set seed=1 --set algorithm.decay=0.99 --db "$TMP/one_c.db" --quiet || fail "one seed candidate"
"$SGDSIM" compare "$TMP/one_b.db" "$TMP/one_c.db" --ignore algorithm.decay > "$TMP/one.txt"; rc=$?
[ "$rc" = 4 ] || fail "one seed exits $rc"
grep -qE "train_loss  +inconclusive  .*fewer than 2 seeds with a finite value on a side: no spread to judge by" "$TMP/one.txt" || fail "one seed: train_loss not inconclusive: $(cat "$TMP/one.txt")"
grep -q "  better  \|  worse  " "$TMP/one.txt" && fail "one seed reads better or worse: $(cat "$TMP/one.txt")"

# show and report: no virtual time for a run without a clock.
"$SGDSIM" show "$TMP/one_b.db" 1 > "$TMP/show.txt" || fail "show"
grep -qE "^vtime_ns +no clock \(uniform driver\)$" "$TMP/show.txt" || fail "show: vtime_ns of a uniform run: $(grep vtime "$TMP/show.txt")"
"$SGDSIM" report "$TMP/one_b.db" | grep -q "no clock" || fail "report: no 'no clock'"
"$SGDSIM" run "$S" --set algorithm.driver='"timed"' --set stop.updates=20 --db "$TMP/timed.db" --quiet || fail "timed run"
"$SGDSIM" show "$TMP/timed.db" 1 | grep -qE "^vtime_ns +[0-9]+$" || fail "show: a timed run has no virtual time"
finish
