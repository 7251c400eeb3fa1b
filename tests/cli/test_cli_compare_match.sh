# compare's matching and verdicts: an lr A/B matched with --ignore optimizer.lr (verdicts
# with a direction, read back from the databases), --match-on, unknown or malformed keys
# (exit 2, nothing on stdout), ambiguous matches, and runs of two BLAS kernels, whose
# differences within --rtol read "differs (different kernel)".
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
B="$TMP/base.db"; C="$TMP/cand.db"
"$SGDSIM" sweep "$S" --set seed=1,2 --set cluster.workers=1,2 --db "$B" --quiet -j2 || fail "baseline sweep"
"$SGDSIM" sweep "$S" --set seed=1,2 --set cluster.workers=1,2 --set optimizer.lr=0.1 --db "$C" --quiet -j2 || fail "candidate sweep"

# By run key (the default) an lr change matches nothing.
"$SGDSIM" compare "$B" "$C" > "$TMP/key.txt"; rc=$?
[ "$rc" = 1 ] || fail "compare by run key of an lr change exits $rc"
grep -q "4 missing in the candidate" "$TMP/key.txt" || fail "by run key: not 4 missing: $(tail -1 "$TMP/key.txt")"

# --ignore optimizer.lr: every run matched, with a direction per metric.
"$SGDSIM" compare "$B" "$C" --ignore optimizer.lr --csv > "$TMP/ign.csv" 2>"$TMP/ign.err"; rc=$?
grep -q "matched on the configuration without optimizer.lr (0 missing in the candidate, 0 ambiguous)" "$TMP/ign.err" || fail "--ignore: summary: $(cat "$TMP/ign.err")"
[ "$(grep -c ',(run),' "$TMP/ign.csv")" = 0 ] || fail "--ignore: a run not matched: $(grep ',(run),' "$TMP/ign.csv")"
[ "$(grep -c ',lr,differs,' "$TMP/ign.csv")" = 4 ] || fail "--ignore: lr (a neutral metric) should read 'differs' in 4 runs: $(grep ',lr,' "$TMP/ign.csv")"
[ "$(grep -c ',vtime_s,same,' "$TMP/ign.csv")" = 4 ] || fail "--ignore: an lr change moved virtual time: $(grep ',vtime_s,' "$TMP/ign.csv")"
# Each val_error verdict follows the final values the databases hold (lower is better).
final() { sqlite3 "$1" "SELECT m.value FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.workers = $2 AND r.seed = $3 AND m.name = 'val_error' ORDER BY m.update_idx DESC LIMIT 1"; }
nworse=0
for p in 1 2; do for seed in 1 2; do
  b=$(final "$B" $p $seed); c=$(final "$C" $p $seed)
  want=$(awk -v b="$b" -v c="$c" 'BEGIN { print (c < b) ? "better" : (c > b) ? "worse" : "same" }')
  [ "$want" = worse ] && nworse=$((nworse + 1))
  got=$(grep "csgd P=$p seed=$seed,val_error," "$TMP/ign.csv" | cut -d, -f5)
  [ "$got" = "$want" ] || fail "--ignore: val_error of P=$p seed=$seed: $b -> $c reads '$got', wanted '$want'"
done; done
want_rc=0; grep -q ',worse,' "$TMP/ign.csv" && want_rc=1
[ "$rc" = "$want_rc" ] || fail "--ignore: exit $rc, wanted $want_rc (1 exactly when something is worse)"
grep -q ',better,' "$TMP/ign.csv" || fail "--ignore: no metric reads better"
# lr 0.1 against itself: nothing worse, exit 0.
"$SGDSIM" compare "$C" "$C" --ignore optimizer.lr > "$TMP/self.txt" || fail "compare of a database with itself exits $?"
grep -q " 0 better, 0 worse, 0 differ, 0 missing, 0 ambiguous" "$TMP/self.txt" || fail "self: $(tail -1 "$TMP/self.txt")"

# Swapping the sides swaps better and worse.
"$SGDSIM" compare "$C" "$B" --ignore optimizer.lr --csv > "$TMP/rev.csv" 2>/dev/null
[ "$(grep -c ',better,' "$TMP/rev.csv")" = "$(grep -c ',worse,' "$TMP/ign.csv")" ] || fail "swapped sides: better and worse do not swap"

# A run that diverges where the baseline completed is worse (status); one that recovers is
# better.
cp "$C" "$TMP/div.db"
sqlite3 "$TMP/div.db" "UPDATE runs SET status = 'diverged' WHERE workers = 1 AND seed = 1"
"$SGDSIM" compare "$C" "$TMP/div.db" --csv > "$TMP/div.csv" 2>/dev/null; rc=$?
[ "$rc" = 1 ] || fail "a diverged candidate exits $rc"
grep -q 'csgd P=1 seed=1,status,worse,complete -> diverged' "$TMP/div.csv" || fail "diverged status: $(grep ',status,' "$TMP/div.csv")"
"$SGDSIM" compare "$TMP/div.db" "$C" --csv 2>/dev/null | grep -q 'csgd P=1 seed=1,status,better,diverged -> complete' || fail "recovered status is not better"
# A loss that ends non-finite is the worst a loss can be; nan against inf differs in shape.
sqlite3 "$TMP/div.db" "UPDATE metrics SET value = NULL, nonfinite = 'nan' WHERE name = 'val_loss' AND update_idx = 60 AND run_id = (SELECT id FROM runs WHERE workers = 1 AND seed = 1)"
"$SGDSIM" compare "$C" "$TMP/div.db" --csv 2>/dev/null | grep -q 'csgd P=1 seed=1,val_loss,worse,final [0-9.e-]* -> nan; update 60: [0-9.e-]* vs nan' || fail "a nan final loss is not worse: $("$SGDSIM" compare "$C" "$TMP/div.db" --csv 2>/dev/null | grep 'seed=1,val_loss')"
"$SGDSIM" compare "$TMP/div.db" "$C" --csv 2>/dev/null | grep -q 'csgd P=1 seed=1,val_loss,better,' || fail "a finite loss after a nan one is not better"
cp "$TMP/div.db" "$TMP/inf.db"
sqlite3 "$TMP/inf.db" "UPDATE metrics SET nonfinite = 'inf' WHERE nonfinite = 'nan'"
"$SGDSIM" compare "$TMP/div.db" "$TMP/inf.db" --rtol 0.5 --csv 2>/dev/null | grep -q 'csgd P=1 seed=1,val_loss,differs,final nan -> inf; update 60: nan vs inf' || fail "nan against inf: $("$SGDSIM" compare "$TMP/div.db" "$TMP/inf.db" --rtol 0.5 --csv 2>/dev/null | grep 'seed=1,val_loss')"

# --match-on cluster.workers (the seed is part of every match): the same pairs.
"$SGDSIM" compare "$B" "$C" --match-on cluster.workers --csv > "$TMP/on.csv" 2>"$TMP/on.err"
grep -q "matched on cluster.workers, seed (0 missing in the candidate, 0 ambiguous)" "$TMP/on.err" || fail "--match-on: $(cat "$TMP/on.err")"
diff <(sort "$TMP/on.csv") <(sort "$TMP/ign.csv") >/dev/null || fail "--match-on cluster.workers and --ignore optimizer.lr pair other runs"
# --match-on optimizer.lr: no candidate run has lr 0.05.
"$SGDSIM" compare "$B" "$C" --match-on optimizer.lr > "$TMP/on2.txt"; rc=$?
[ "$rc" = 1 ] || fail "--match-on optimizer.lr exits $rc"
grep -q "4 missing in the candidate" "$TMP/on2.txt" || fail "--match-on optimizer.lr: $(tail -1 "$TMP/on2.txt")"

# Ambiguous: two runs (P=1 and P=2) per seed on each side.
"$SGDSIM" compare "$B" "$C" --match-on seed > "$TMP/amb.txt"; rc=$?
[ "$rc" = 1 ] || fail "ambiguous matches exit $rc"
[ "$(grep -c '  ambiguous  2 baseline and 2 candidate runs match (candidate ids' "$TMP/amb.txt")" = 4 ] || fail "ambiguous: $(cat "$TMP/amb.txt")"
grep -q "  same  \|  worse  \|  better  " "$TMP/amb.txt" && fail "ambiguous: a run was compared anyway"
# --ignore seed as well: every run of a side shares one signature.
"$SGDSIM" compare "$B" "$C" --match-on optimizer.lr --ignore seed > "$TMP/amb2.txt"
grep -q "matched on optimizer.lr (4 missing" "$TMP/amb2.txt" || fail "--ignore seed: $(tail -1 "$TMP/amb2.txt")"
"$SGDSIM" compare "$B" "$B" --ignore seed,cluster.workers > "$TMP/amb3.txt"; rc=$?
[ "$rc" = 1 ] && grep -q "4 ambiguous), rtol" "$TMP/amb3.txt" || fail "--ignore seed,cluster.workers: exit $rc: $(tail -1 "$TMP/amb3.txt")"

# Unknown and malformed keys: exit 2 naming the argument, nothing on stdout.
# Each case: the arguments, then the option the message must name.
for case in "--ignore optimizer.lrr|--ignore optimizer.lrr" "--match-on cluster.workerz|--match-on cluster.workerz" \
            "--match-on cluster.workers,nope.x|--match-on nope.x" "--ignore optimizer..lr|--ignore optimizer..lr" \
            "--ignore ,seed|--ignore ,seed" "--match-on seed --ignore seed|--ignore seed" \
            "--match-on cluster.workers --ignore optimizer.lr|--ignore optimizer.lr: with --match-on"; do
  args=${case%%|*}; needle=${case#*|}
  # shellcheck disable=SC2086
  out=$("$SGDSIM" compare "$B" "$C" $args 2>"$TMP/err.txt"); rc=$?
  [ "$rc" = 2 ] || fail "compare $args exits $rc (wanted 2)"
  [ -z "$out" ] || fail "compare $args wrote to stdout: $out"
  grep -qF "compare: $needle" "$TMP/err.txt" || fail "compare $args: message does not name '$needle': $(cat "$TMP/err.txt")"
done
expect_exit 2 "--ignore optimizer.lrr: no finished run of $B or $C has this configuration key" -- "$SGDSIM" compare "$B" "$C" --ignore optimizer.lrr
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
grep -q "  differs (different kernel)  " "$TMP/k.txt" || fail "kernels: no 'differs (different kernel)': $(cat "$TMP/k.txt")"
grep -q "  differs within tolerance  \|  worse  \|  better  " "$TMP/k.txt" && fail "kernels: a difference within --rtol not put down to the kernel: $(cat "$TMP/k.txt")"
grep -q "different BLAS kernels" "$TMP/k.err" || fail "kernels: no note on stderr"
# Without a tolerance the same differences have a direction; by run key nothing matches.
"$SGDSIM" compare "$K1" "$K2" --ignore numerics.blas_core > "$TMP/k0.txt" 2>/dev/null
grep -q "  differs (different kernel)  " "$TMP/k0.txt" && fail "kernels at rtol 0: 'differs (different kernel)' beyond the tolerance"
grep -q "  worse  \|  better  \|  differs  " "$TMP/k0.txt" || fail "kernels at rtol 0: no direction: $(cat "$TMP/k0.txt")"
"$SGDSIM" compare "$K1" "$K2" > "$TMP/kk.txt" 2>/dev/null
grep -q "1 missing in the candidate" "$TMP/kk.txt" || fail "kernels by run key: $(tail -1 "$TMP/kk.txt")"
# The same database twice on one kernel with a tolerance: within tolerance, not kernel.
cp "$K1" "$TMP/k3.db"; sqlite3 "$TMP/k3.db" "UPDATE metrics SET value = value * (1 + 1e-9) WHERE name = 'val_loss' AND update_idx > 0"
"$SGDSIM" compare "$K1" "$TMP/k3.db" --rtol 1e-4 | grep -q "val_loss      differs within tolerance" || fail "one kernel within --rtol is not 'differs within tolerance'"

finish
