# The same scenario and seed give identical digests and identical rows in every table but
# the wall-clock columns — run after run, and whatever OPENBLAS_NUM_THREADS says.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"

dump() { # every column that must be reproducible, for run $2 of db $1
  sqlite3 "$1" "SELECT run_key, scenario, algorithm, workers, seed, config_hash, status, vtime_ns, updates, events, digest FROM runs WHERE id=$2;
                SELECT update_idx, vtime_ns, name, quote(value) FROM metrics WHERE run_id=$2 ORDER BY name, update_idx;
                SELECT kind, sent_msgs, sent_bytes, skipped_msgs, skipped_bytes FROM traffic WHERE run_id=$2 ORDER BY kind;"
}
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet || fail "first run failed"
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet || fail "second run failed"
OPENBLAS_NUM_THREADS=2 "$SGDSIM" run "$S" --db "$TMP/b.db" --quiet || fail "threads=2 run failed"
"$SGDSIM" run "$S" --db "$TMP/c.db" --quiet --seed 6 || fail "seed 6 run failed"
dump "$TMP/a.db" 1 > "$TMP/1.txt"; dump "$TMP/a.db" 2 > "$TMP/2.txt"
dump "$TMP/b.db" 1 > "$TMP/3.txt"; dump "$TMP/c.db" 1 > "$TMP/4.txt"
[ "$(wc -l < "$TMP/1.txt")" -gt 20 ] || fail "too few rows to compare: $(wc -l < "$TMP/1.txt")"
cmp -s "$TMP/1.txt" "$TMP/2.txt" || { fail "repeated run differs"; diff "$TMP/1.txt" "$TMP/2.txt" | head >&2; }
cmp -s "$TMP/1.txt" "$TMP/3.txt" || { fail "OPENBLAS_NUM_THREADS=2 run differs"; diff "$TMP/1.txt" "$TMP/3.txt" | head >&2; }
cmp -s "$TMP/1.txt" "$TMP/4.txt" && fail "a different seed gave identical results"
[ "$(sqlite3 "$TMP/a.db" "SELECT status FROM runs WHERE id=1")" = complete ] || fail "run 1 not complete"
# validation error falls on this learnable synthetic task
sqlite3 "$TMP/a.db" "SELECT (SELECT value FROM metrics WHERE run_id=1 AND name='val_error' ORDER BY update_idx LIMIT 1) > (SELECT value FROM metrics WHERE run_id=1 AND name='val_error' ORDER BY update_idx DESC LIMIT 1)" | grep -qx 1 || fail "validation error did not fall"
finish
