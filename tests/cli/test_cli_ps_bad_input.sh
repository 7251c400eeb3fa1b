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
expect_exit 2 'algorithm.n: only valid with name sasgd, fasgd, b-fasgd, not "hardsync"' -- "$SGDSIM" run "$S" --db "$DB" --set algorithm.name=hardsync
expect_exit 2 "batch.per_worker: 1024 rows per gradient evaluation" -- "$SGDSIM" run "$S" --db "$DB" --set 'algorithm={"name":"hardsync"}' --set batch.per_worker=256
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 0 ] || fail "bad input left a run row"
finish
