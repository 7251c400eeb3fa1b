# The CUDA backend end to end (needs a GPU; exits 77, skipped, without one or in a build
# without CUDA -- but in a CUDA build a plugin that does not load fails, GPU or not):
#   determinism -- the same scenario twice on the same GPU gives identical digests and rows;
#   agreement   -- CPU and GPU runs of the same scenario agree within the stated tolerance:
#                  every train_loss and val_loss within 1e-3 relative (docs/performance.md),
#                  val_error within 0.02 (a near-tie may flip a prediction);
#   provenance  -- runs.backend is "cuda";
#   batching    -- asynchronous FASGD (16 clients) with the GPU's batched evaluation
#                  (algorithm.gradient_batch 64, the cuda default): twice -> the same digest;
#                  within the same tolerance of the CPU and of gradient_batch 1 on the GPU;
#   cnn         -- a small convolutional network (conv, max pool, fc): twice on the GPU ->
#                  the same digest and rows; within the same tolerance of the CPU.
# Reads the database with `sgdsim query`, so it needs no sqlite3 CLI on the GPU machine.
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/g.db"
q() { "$SGDSIM" query "$DB" "$1" --csv | tail -n +2; } # rows of one statement, no header
# The lines of FILE (name,update,cuda,cpu) whose values differ beyond the tolerance.
beyond_tolerance() {
  awk -F, '{ d = $3 - $4; if (d < 0) d = -d; a = $4 < 0 ? -$4 : $4; if (a < 1) a = 1;
             tol = ($1 == "val_error") ? 0.02 : 1e-3 * a; if (d > tol) print }' "$1"
}
out=$("$SGDSIM" run "$S" --db "$DB" --quiet --backend cuda 2>&1); rc=$?
case "$out" in
  *'needs a CUDA GPU'*|*'built without CUDA'*)
    echo "no usable CUDA backend: skipping ($out)"; exit 77 ;;
esac
[ "$rc" = 0 ] || { fail "cuda run: exit $rc: $out"; finish; }
"$SGDSIM" run "$S" --db "$DB" --quiet --backend cuda || fail "second cuda run failed"
"$SGDSIM" run "$S" --db "$DB" --quiet --backend cpu || fail "cpu run failed"
[ "$(q "SELECT group_concat(backend, ' ') FROM (SELECT backend FROM runs ORDER BY id)")" = "cuda cuda cpu" ] ||
  fail "runs.backend: $(q "SELECT group_concat(backend, ' ') FROM runs")"

dump() { # every reproducible column of run $1
  q "SELECT run_key, config_hash, status, vtime_ns, updates, events, digest FROM runs WHERE id=$1"
  q "SELECT update_idx, vtime_ns, name, quote(value) FROM metrics WHERE run_id=$1 ORDER BY name, update_idx"
}
dump 1 > "$TMP/1.txt"; dump 2 > "$TMP/2.txt"
[ "$(wc -l < "$TMP/1.txt")" -gt 60 ] || fail "too few rows to compare: $(wc -l < "$TMP/1.txt")"
cmp -s "$TMP/1.txt" "$TMP/2.txt" || { fail "two cuda runs differ"; diff "$TMP/1.txt" "$TMP/2.txt" | head >&2; }
[ "$(q "SELECT count(DISTINCT digest) FROM runs WHERE backend = 'cuda'")" = 1 ] || fail "cuda digests differ"

q "SELECT g.name, g.update_idx, g.value, c.value FROM metrics g JOIN metrics c
     ON c.run_id = 3 AND c.name = g.name AND c.update_idx = g.update_idx
   WHERE g.run_id = 1 AND g.name IN ('train_loss', 'val_loss', 'val_error')" > "$TMP/pairs.txt"
[ "$(wc -l < "$TMP/pairs.txt")" -ge 60 ] || fail "too few metric pairs: $(wc -l < "$TMP/pairs.txt")"
bad=$(beyond_tolerance "$TMP/pairs.txt")
[ -z "$bad" ] || fail "cpu and cuda disagree beyond tolerance (name,update,cuda,cpu): $(echo "$bad" | head -5)"
awk -F, '$1 == "val_loss" { d = $3 - $4; if (d < 0) d = -d; if (d > m) m = d }
         END { printf "largest |val_loss cuda - cpu|: %.3g\n", m }' "$TMP/pairs.txt"

# ---- the parameter-server family's batched evaluation ----
DB="$TMP/ps.db"
PS=(--quiet --db "$DB" --set 'algorithm={"name":"fasgd"}' --set optimizer.momentum=0
    --set optimizer.lr=0.01 --set cluster.workers=16 --set stop.updates=200 --set eval.every=20)
"$SGDSIM" run "$S" "${PS[@]}" --backend cuda || fail "fasgd cuda run failed"
"$SGDSIM" run "$S" "${PS[@]}" --backend cuda || fail "second fasgd cuda run failed"
"$SGDSIM" run "$S" "${PS[@]}" --backend cpu || fail "fasgd cpu run failed"
"$SGDSIM" run "$S" "${PS[@]}" --backend cuda --set algorithm.gradient_batch=1 ||
  fail "fasgd cuda run with gradient_batch 1 failed"
[ "$(q "SELECT count(DISTINCT digest) FROM runs WHERE id IN (1, 2)")" = 1 ] ||
  fail "two batched fasgd cuda runs differ"
for other in 3 4; do
  q "SELECT g.name, g.update_idx, g.value, c.value FROM metrics g JOIN metrics c
       ON c.run_id = $other AND c.name = g.name AND c.update_idx = g.update_idx
     WHERE g.run_id = 1 AND g.name IN ('train_loss', 'val_loss', 'val_error')" > "$TMP/ps$other.txt"
  [ "$(wc -l < "$TMP/ps$other.txt")" -ge 200 ] || fail "fasgd: too few metric pairs with run $other"
  bad=$(beyond_tolerance "$TMP/ps$other.txt")
  [ -z "$bad" ] || fail "fasgd: batched cuda vs run $other beyond tolerance: $(head -5 <<< "$bad")"
done
awk -F, '$1 == "val_loss" { d = $3 - $4; if (d < 0) d = -d; if (d > m) m = d }
         END { printf "largest |val_loss fasgd batched cuda - cpu|: %.3g\n", m }' "$TMP/ps3.txt"

# ---- a convolutional network (synthetic 8 x 8 images: conv, max pool, fc) ----
DB="$TMP/cnn.db"
CNN=(--quiet --db "$DB" --set data.dim=64 --set stop.updates=30 --set eval.every=10
     --set 'model={"kind":"cnn","input":{"height":8,"width":8},"init":"he","layers":[{"conv":{"out":4,"k":3,"pad":1}},{"pool":{"max":2}},{"fc":16}]}')
"$SGDSIM" run "$S" "${CNN[@]}" --backend cuda || fail "cnn cuda run failed"
"$SGDSIM" run "$S" "${CNN[@]}" --backend cuda || fail "second cnn cuda run failed"
"$SGDSIM" run "$S" "${CNN[@]}" --backend cpu || fail "cnn cpu run failed"
[ "$(q "SELECT count(DISTINCT digest) || ' ' || count(*) FROM runs WHERE backend = 'cuda'")" = "1 2" ] ||
  fail "two cnn cuda runs differ"
dump 1 > "$TMP/c1.txt"; dump 2 > "$TMP/c2.txt"
cmp -s "$TMP/c1.txt" "$TMP/c2.txt" || fail "two cnn cuda runs have different rows"
q "SELECT g.name, g.update_idx, g.value, c.value FROM metrics g JOIN metrics c
     ON c.run_id = 3 AND c.name = g.name AND c.update_idx = g.update_idx
   WHERE g.run_id = 1 AND g.name IN ('train_loss', 'val_loss', 'val_error')" > "$TMP/cnn.txt"
[ "$(wc -l < "$TMP/cnn.txt")" -ge 36 ] || fail "cnn: too few metric pairs: $(wc -l < "$TMP/cnn.txt")"
bad=$(beyond_tolerance "$TMP/cnn.txt")
[ -z "$bad" ] || fail "cnn: cpu and cuda disagree beyond tolerance: $(head -5 <<< "$bad")"
awk -F, '$1 == "val_loss" { d = $3 - $4; if (d < 0) d = -d; if (d > m) m = d }
         END { printf "largest |val_loss cnn cuda - cpu|: %.3g\n", m }' "$TMP/cnn.txt"
finish
