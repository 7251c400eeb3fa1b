# The CUDA backend end to end (needs a GPU; exits 77, skipped, without one):
#   determinism -- the same scenario twice on the same GPU gives identical digests and rows;
#   agreement   -- CPU and GPU runs of the same scenario agree within the stated tolerance:
#                  every train_loss and val_loss within 1e-3 relative (docs/performance.md),
#                  val_error within 0.02 (a near-tie may flip a prediction);
#   provenance  -- runs.backend is "cuda".
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
out=$("$SGDSIM" run "$S" --db "$TMP/g.db" --quiet --backend cuda 2>&1); rc=$?
case "$out" in
  *'needs a CUDA GPU'*|*'built without CUDA'*) echo "no usable CUDA backend: skipping ($out)"; exit 77 ;;
esac
[ "$rc" = 0 ] || { fail "cuda run: exit $rc: $out"; finish; }
"$SGDSIM" run "$S" --db "$TMP/g.db" --quiet --backend cuda || fail "second cuda run failed"
"$SGDSIM" run "$S" --db "$TMP/c.db" --quiet --backend cpu || fail "cpu run failed"

dump() { # every reproducible column of run $2 in db $1
  sqlite3 "$1" "SELECT run_key, config_hash, status, vtime_ns, updates, events, digest FROM runs WHERE id=$2;
                SELECT update_idx, vtime_ns, name, quote(value) FROM metrics WHERE run_id=$2 ORDER BY name, update_idx;"
}
dump "$TMP/g.db" 1 > "$TMP/1.txt"; dump "$TMP/g.db" 2 > "$TMP/2.txt"
cmp -s "$TMP/1.txt" "$TMP/2.txt" || { fail "two cuda runs differ"; diff "$TMP/1.txt" "$TMP/2.txt" | head >&2; }
[ "$(sqlite3 "$TMP/g.db" "SELECT group_concat(DISTINCT backend) FROM runs")" = cuda ] || fail "runs.backend is not cuda"

sqlite3 "$TMP/g.db" "ATTACH '$TMP/c.db' AS c;
  SELECT g.name, g.update_idx, g.value, m.value FROM metrics g JOIN c.metrics m
    ON m.name = g.name AND m.update_idx = g.update_idx AND m.run_id = 1
  WHERE g.run_id = 1 AND g.name IN ('train_loss', 'val_loss', 'val_error');" > "$TMP/pairs.txt"
[ "$(wc -l < "$TMP/pairs.txt")" -ge 60 ] || fail "too few metric pairs: $(wc -l < "$TMP/pairs.txt")"
bad=$(awk -F'|' '{ d = $3 - $4; if (d < 0) d = -d; a = $4 < 0 ? -$4 : $4; if (a < 1) a = 1;
                   tol = ($1 == "val_error") ? 0.02 : 1e-3 * a; if (d > tol) print }' "$TMP/pairs.txt")
[ -z "$bad" ] || fail "cpu and cuda disagree beyond tolerance (name|update|cuda|cpu): $(echo "$bad" | head -5)"
awk -F'|' '$1 == "val_loss" { d = $3 - $4; if (d < 0) d = -d; if (d > m) m = d } END { printf "largest |val_loss cuda - cpu|: %.3g\n", m }' "$TMP/pairs.txt"
finish
