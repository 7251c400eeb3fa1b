# report reads sweeps by what was swept: a FASGD λ sweep over two seeds has one axis (λ, as
# cluster.workers), not also algorithm.n (which defaults to λ); cells are mean ± std over the
# seeds with n=2; the uniform driver has no clock, so neither virtual time nor scaling
# efficiency is shown ("no clock (uniform driver)", not 16/λ), and a timed sweep has both.  The sweep stores its axes and each run its
# command line (schema 3); stored axes win over inference; a schema 2 database (no stored
# axes, no finished_runs view), read-only and immutable alike, is read by inference that
# leaves out keys following another; --wide gives the full per-run table, the default fits
# 100 columns.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/lam.json"
cat > "$S" <<'JSON'
{
  "schema_version": 1,
  "name": "lam",
  "seed": 5,
  "algorithm": { "name": "fasgd" },
  "cluster": { "workers": 2 },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20, "classes": 5 },
  "model": { "kind": "softmax" },
  "batch": { "per_worker": 16 },
  "optimizer": { "lr": 0.05 },
  "stop": { "updates": 40 },
  "eval": { "every": 20 }
}
JSON
DB="$TMP/a.db"
"$SGDSIM" sweep "$S" --set cluster.workers=2,4 --set seed=1,2 --db "$DB" --quiet -j2 || fail "sweep"

# What the sweep stored: its axes and each point's command line; a plain run has no axes.
[ "$(sqlite3 "$DB" "SELECT DISTINCT sweep_axes FROM runs")" = '["cluster.workers","seed"]' ] ||
  fail "sweep_axes: $(sqlite3 "$DB" "SELECT sweep_axes FROM runs")"
cl=$(sqlite3 "$DB" "SELECT command_line FROM runs WHERE workers = 4 AND seed = 2")
case "$cl" in "sgdsim run $S --db $DB --quiet --sweep-axes cluster.workers,seed --set cluster.workers=4 --set seed=2"*) ;;
  *) fail "command_line of a point: $cl" ;; esac
"$SGDSIM" run "$S" --db "$TMP/plain.db" --quiet --set 'name="a b'"'"'c"' || fail "plain run"
[ "$(sqlite3 "$TMP/plain.db" "SELECT quote(sweep_axes), command_line FROM runs")" = \
  "NULL|sgdsim run $S --db $TMP/plain.db --quiet --set 'name=\"a b'\\''c\"'" ] ||
  fail "plain run's columns: $(sqlite3 "$TMP/plain.db" "SELECT quote(sweep_axes), command_line FROM runs")"
expect_exit 2 '--sweep-axes optimizer.lr: "optimizer.lr" is not the key of a --set' -- \
  "$SGDSIM" run "$S" --db "$TMP/bad.db" --sweep-axes optimizer.lr --set seed=1
[ ! -e "$TMP/bad.db" ] || fail "a refused --sweep-axes created the database"

# sweep_section FILE: the report from its first "Sweep:" line on.
sweep_section() { sed -n '/^Sweep:/,$p' "$1"; }

# check_lambda_report WHAT FILE: one axis, n=2 cells with mean ± std, no clock.
check_lambda_report() {
  local sec; sec=$(sweep_section "$2")
  case "$sec" in *'Sweep: scenario "lam", 4 finished runs, axes: cluster.workers (2); 2 seeds'*) ;;
    *) fail "$1: axes line: $sec" ;; esac
  case "$sec" in *algorithm.n*|*NULL*) fail "$1: algorithm.n or empty cells in: $sec" ;; esac
  [ "$(grep -c '(n=2)' <<< "$sec")" = 2 ] || fail "$1: not 2 cells of 2 runs: $sec"
  case "$sec" in *"virtual time and scaling efficiency: no clock (uniform driver)"*) ;;
    *) fail "$1: no 'no clock' line: $sec" ;; esac
  case "$sec" in *"scaling efficiency ("*|*"virtual time, s"*) fail "$1: a clockless sweep has time tables: $sec" ;; esac
  # val_error at λ=2: the mean and sample std of its two runs, as the report rounds them
  local want
  want=$(sqlite3 "$DB" "SELECT (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'val_error'
           ORDER BY update_idx DESC LIMIT 1) FROM runs r WHERE workers = 2" |
         awk '{ x[NR] = $1; s += $1 } END { m = s / NR; for (i = 1; i <= NR; i++) q += (x[i] - m) ^ 2;
               printf "%.4g ± %.2g (n=2)", m, sqrt(q / (NR - 1)) }')
  sed -n '/^final val_error/,/^$/p' <<< "$sec" | grep '^2 ' | grep -qF -- "$want" ||
    fail "$1: val_error at 2 clients is not '$want': $sec"
}

"$SGDSIM" report "$DB" > "$TMP/r.txt" || fail "report"
check_lambda_report "stored axes" "$TMP/r.txt"

# Stored axes win over inference: the same runs stored as a sweep of algorithm.n.
cp "$DB" "$TMP/n.db"
sqlite3 "$TMP/n.db" "UPDATE runs SET sweep_axes = '[\"algorithm.n\"]'" || fail "sqlite3"
"$SGDSIM" report "$TMP/n.db" > "$TMP/n.txt" || fail "report of n.db"
grep -q 'axes: algorithm.n (2); 2 seeds$' "$TMP/n.txt" || fail "stored axes not used: $(sweep_section "$TMP/n.txt")"

# A schema 2 database: no stored axes, no command lines, no finished_runs view.
cp "$DB" "$TMP/old.db"
undo_schema_3 "$TMP/old.db" || fail "cannot make a schema 2 database"
sum=$(sha256sum < "$TMP/old.db")
"$SGDSIM" report "$TMP/old.db" > "$TMP/old.txt" || fail "report of a schema 2 database"
check_lambda_report "schema 2, inferred axes" "$TMP/old.txt"
out=$("$SGDSIM" compare "$TMP/old.db" "$DB") || fail "compare of a schema 2 and a schema 3 database: $out"
# ... and on read-only media, where it is read as an unchangeable (immutable) file: a
# read-only tmpfs (needs mount privileges), else a directory without write permission
# (not as root, whom permissions do not stop).
MNT="$TMP/mnt"; mkdir -p "$MNT"
trap 'umount "$MNT" 2>/dev/null; chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
ro=""
if mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null; then
  cp "$TMP/old.db" "$MNT/old.db"; mount -o remount,ro "$MNT"; ro="$MNT/old.db"
elif [ "$(id -u)" != 0 ]; then
  cp "$TMP/old.db" "$MNT/old.db"; chmod 555 "$MNT"; ro="$MNT/old.db"
else
  echo "root without mount privileges: the immutable schema 2 case is not run"
fi
if [ -n "$ro" ]; then
  "$SGDSIM" report "$ro" > "$TMP/ro.txt" 2> "$TMP/ro.err" || fail "report of a read-only schema 2 database: $(cat "$TMP/ro.err")"
  grep -q "read as an unchangeable file" "$TMP/ro.err" || fail "read-only schema 2 database not read immutable: $(cat "$TMP/ro.err")"
  check_lambda_report "schema 2, immutable" "$TMP/ro.txt"
  umount "$MNT" 2>/dev/null; chmod 755 "$MNT"
fi
[ "$(sha256sum < "$TMP/old.db")" = "$sum" ] || fail "report changed a schema 2 database"
# merge takes it as an input (its runs without axes); as a writer's database it is migrated
"$SGDSIM" merge "$TMP/m.db" "$TMP/old.db" >/dev/null || fail "merge of a schema 2 input"
[ "$(sqlite3 "$TMP/m.db" "SELECT count(*) FROM runs WHERE sweep_axes IS NULL AND command_line IS NULL")" = 4 ] ||
  fail "merge of a schema 2 input: runs not copied as a migration leaves them"
"$SGDSIM" run "$S" --db "$TMP/old.db" --quiet || fail "run into a schema 2 database"
[ "$(sqlite3 "$TMP/old.db" "PRAGMA user_version; SELECT count(*) FROM finished_runs;
     SELECT count(*) FROM runs WHERE command_line IS NOT NULL")" = $'6\n5\n1' ] || fail "schema 2 not migrated to 6"

# The per-run table: no duplicate columns, at most 100 columns by default; --wide has all.
awk '/^Sweep:/ { exit } length($0) > 100 { bad = 1; print "  " length($0) ": " $0 } END { exit bad }' "$TMP/r.txt" ||
  fail "the default per-run table is wider than 100 columns"
head -3 "$TMP/r.txt" | grep -q "val_error  mean_tau  max_tau$" || fail "default columns: $(head -3 "$TMP/r.txt")"
"$SGDSIM" report "$DB" --wide > "$TMP/w.txt" || fail "report --wide"
hdr=$(sed -n 3p "$TMP/w.txt")
for col in key final_val_error final_train_loss final_push_sent mean_tau max_tau sent_MB sent_msgs skipped_MB; do
  grep -qw -- "$col" <<< "$hdr" || fail "--wide lacks $col: $hdr"
done
case "$hdr" in *final_staleness_max*|*final_staleness_mean*) fail "--wide repeats mean_tau/max_tau: $hdr" ;; esac
[ "$(sweep_section "$TMP/w.txt")" = "$(sweep_section "$TMP/r.txt")" ] || fail "--wide changed the sweep tables"
# The per-run table says "no clock" for uniform runs, never a virtual time of nanoseconds.
grep -q 'vtime_s "no clock": 4 runs with no clock (uniform driver)' "$TMP/r.txt" || fail "per-run no-clock note: $(cat "$TMP/r.txt")"
grep -qE '^ *[0-9]+ +lam .* 3e-0[0-9]' "$TMP/r.txt" && fail "a uniform run shows a virtual time: $(cat "$TMP/r.txt")"
# A timed sweep has a clock: virtual time and scaling efficiency tables.
"$SGDSIM" sweep "$S" --set algorithm.driver='"timed"' --set cluster.workers=2,4 --set seed=1,2 \
  --db "$TMP/timed.db" --quiet -j2 || fail "timed sweep"
"$SGDSIM" report "$TMP/timed.db" > "$TMP/t.txt" || fail "report of a timed sweep"
grep -q "^scaling efficiency (" "$TMP/t.txt" && grep -q "^virtual time, s" "$TMP/t.txt" || fail "timed sweep: no time tables: $(cat "$TMP/t.txt")"
grep -q "no clock" "$TMP/t.txt" && fail "timed sweep reads no clock: $(cat "$TMP/t.txt")"
finish
