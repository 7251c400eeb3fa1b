# Parameter-server scenarios: each bad input the issue lists gets exit code 2 and a message
# naming the file (or the --set argument) and the JSON path; none leaves a run row behind.
. "$(dirname "$0")/lib.sh"
S="$TMP/ps.json"; DB="$TMP/r.db"
cat > "$S" <<'JSON'
{
  "schema_version": 1,
  "algorithm": { "name": "sasgd", "n": 2 },
  "cluster": { "workers": 4 },
  "data": { "source": "synthetic", "n_train": 256, "n_validation": 64, "dim": 8, "classes": 3 },
  "batch": { "per_worker": 4 },
  "stop": { "updates": 20 }
}
JSON
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "the good PS scenario did not run"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM staleness WHERE run_id = 1")" -gt 0 ] || fail "no staleness rows"
[ "$(sqlite3 "$DB" "SELECT group_concat(kind) FROM traffic WHERE run_id = 1 ORDER BY kind")" = "fetch,push" ] || fail "traffic rows"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE run_id = 1 AND name = 'staleness_p99'")" = 1 ] || fail "no staleness_p99 metric"
# B-FASGD with FRED's staleness counting: the parameters' true age beside the counted tau,
# as a histogram (version_age) and as metrics; with truthful counting the histograms agree.
BF='algorithm={"name":"b-fasgd","c_fetch":0.5,"skipped_fetch_tau":"fred","first_push":"always"}'
"$SGDSIM" run "$S" --db "$DB" --quiet --set "$BF" || fail "B-FASGD with FRED's counting did not run"
q() { sqlite3 "$DB" "$1"; }
[ "$(q "SELECT sum(count) FROM version_age WHERE run_id = 2")" = 20 ] || fail "version_age rows"
[ "$(q "SELECT count(*) FROM metrics WHERE run_id = 2 AND name IN ('version_age_mean', 'version_age_max')")" = 2 ] ||
  fail "no version_age metrics"
[ "$(q "SELECT (SELECT value FROM metrics WHERE run_id = 2 AND name = 'version_age_mean') >= (SELECT value FROM metrics WHERE run_id = 2 AND name = 'staleness_mean')")" = 1 ] ||
  fail "the age is below the counted tau"
"$SGDSIM" run "$S" --db "$DB" --quiet --set 'algorithm={"name":"b-fasgd","c_fetch":0.5}' || fail "B-FASGD did not run"
[ "$(q "SELECT group_concat(tau || ':' || count) FROM (SELECT * FROM staleness WHERE run_id = 3 ORDER BY tau)")" = \
  "$(q "SELECT group_concat(age || ':' || count) FROM (SELECT * FROM version_age WHERE run_id = 3 ORDER BY age)")" ] ||
  fail "truthful counting: the age histogram differs from the staleness one"
"$SGDSIM" merge "$TMP/merged.db" "$DB" >/dev/null || fail "merge"
[ "$(sqlite3 "$TMP/merged.db" "SELECT count(*) FROM version_age")" = "$(q "SELECT count(*) FROM version_age")" ] ||
  fail "merge did not copy the version_age rows"
sqlite3 "$DB" "DELETE FROM runs"

expect_exit 2 "--set algorithm.n=4: algorithm.n: must divide cluster.workers (lambda = 6), got 4" -- "$SGDSIM" run "$S" --db "$DB" --set cluster.workers=6 --set algorithm.n=4
expect_exit 2 "ps.json: algorithm.n: must divide cluster.workers (lambda = 3), got 2" -- "$SGDSIM" run "$S" --db "$DB" --set cluster.workers=3
expect_exit 2 "optimizer.lr: expected number > 0, got -0.01" -- "$SGDSIM" run "$S" --db "$DB" --set optimizer.lr=-0.01
expect_exit 2 'optimizer.lr: expected number > 0, got "NaN"' -- "$SGDSIM" run "$S" --db "$DB" --set optimizer.lr=NaN
expect_exit 2 "algorithm.c_fetch: expected number >= 0, got -0.5" -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"b-fasgd","c_fetch":-0.5}'
expect_exit 2 "cluster.workers: expected integer >= 1, got 0" -- "$SGDSIM" run "$S" --db "$DB" --set cluster.workers=0
expect_exit 2 "algorithm.staleness" -- "$SGDSIM" run "$S" --db "$DB" --set algorithm.staleness=odena
expect_exit 2 "algorithm.normaliser" -- "$SGDSIM" validate "$S" --set 'algorithm={"name":"fasgd","normaliser":"rmsprop"}'
expect_exit 2 'algorithm.name' -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"bfasgd"}'
expect_exit 2 'algorithm.c_push: only valid with name b-fasgd, not "sasgd"' -- "$SGDSIM" run "$S" --db "$DB" --set algorithm.c_push=0.01
expect_exit 2 'algorithm.k_fetch: only valid with name downpour, not "fasgd"' -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"fasgd","k_fetch":4}'
expect_exit 2 'algorithm.n: only valid with name sasgd, fasgd, b-fasgd, dc-asgd, not "hardsync"' -- "$SGDSIM" run "$S" --db "$DB" --set algorithm.name=hardsync
expect_exit 2 "batch.per_worker: 1024 rows per gradient evaluation" -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"hardsync"}' --set batch.per_worker=256
expect_exit 2 'algorithm.first_push' -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"b-fasgd","first_push":"never"}'
expect_exit 2 'algorithm.first_push: only valid with name b-fasgd, not "fasgd"' -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"fasgd","first_push":"always"}'
expect_exit 2 'algorithm.initial_v: expected number >= 0' -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"b-fasgd","initial_v":-0.5}'
expect_exit 2 'algorithm.initial_v' -- "$SGDSIM" validate "$S" --set 'algorithm={"name":"b-fasgd","initial_v":1e9}'
expect_exit 2 'algorithm.initial_v: only read with first_push "gate"' -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"b-fasgd","first_push":"always","initial_v":1}'
expect_exit 2 'algorithm.initial_v: only valid with name b-fasgd, not "sasgd"' -- "$SGDSIM" run "$S" --db "$DB" --set algorithm.initial_v=1
# A cost-only model: the family computes real gradients (it crashed on the missing data).
cost_only='model={"kind":"preset","preset":"resnet50"}'
expect_exit 2 'model.kind: "preset" is a cost-only model, and sasgd computes real gradients' \
  -- "$SGDSIM" run "$S" --db "$DB" --set "$cost_only"
expect_exit 2 'model.kind: "preset" is a cost-only model, and sasgd computes real gradients' \
  -- "$SGDSIM" validate "$S" --set "$cost_only"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 0 ] || fail "bad input left a run row"
finish
