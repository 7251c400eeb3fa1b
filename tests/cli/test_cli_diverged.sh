# A run whose loss becomes NaN/Inf stops with status diverged, the update index in the
# detail, its metric rows kept, and exit code 3 — not a crash.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
expect_exit 3 "diverged" -- "$SGDSIM" run "$S" --db "$TMP/d.db" --set optimizer.lr=1e30
[ "$(sqlite3 "$TMP/d.db" "SELECT status FROM runs")" = diverged ] || fail "status is not diverged"
sqlite3 "$TMP/d.db" "SELECT status_detail FROM runs" | grep -q "NaN/Inf at update [0-9]" || fail "detail lacks the update index"
[ "$(sqlite3 "$TMP/d.db" "SELECT updates < 60 FROM runs")" = 1 ] || fail "the run did not stop early"
[ "$(sqlite3 "$TMP/d.db" "PRAGMA integrity_check")" = ok ] || fail "integrity_check"
[ "$(sqlite3 "$TMP/d.db" "SELECT count(*) > 0 FROM metrics")" = 1 ] || fail "no metric rows kept"
finish
