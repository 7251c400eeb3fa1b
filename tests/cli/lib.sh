# Shared helpers for the CLI tests: a scratch directory, a small synthetic scenario, and
# assertions that print what they saw.
set -u
SGDSIM="$1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }

# expect_exit CODE NEEDLE -- command...: runs the command, checks its exit code and that
# its stderr contains NEEDLE.
expect_exit() {
  local code="$1" needle="$2"; shift 3
  local out rc
  out=$("$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != "$code" ]; then fail "exit $rc (wanted $code) from: $* :: $out"; return; fi
  case "$out" in *"$needle"*) ;; *) fail "stderr of '$*' lacks '$needle': $out" ;; esac
}

finish() {
  if [ "$FAILS" -gt 0 ]; then echo "$FAILS check(s) failed" >&2; exit 1; fi
  echo "all checks passed"
  exit 0
}

# A small synthetic CSGD scenario that runs in well under a second.
small_scenario() {
  cat > "$1" <<'JSON'
{
  "schema_version": 1,
  "name": "small",
  "seed": 5,
  "algorithm": { "name": "csgd" },
  "cluster": { "workers": 3, "time_factor": { "dist": "uniform", "min": 1.0, "max": 1.5 } },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20, "classes": 5 },
  "model": { "kind": "mlp", "hidden": [32], "init": "he" },
  "batch": { "per_worker": 16 },
  "optimizer": { "lr": 0.05, "momentum": 0.9 },
  "compute": { "kind": "time", "time_s": { "dist": "gamma", "mean": 0.004, "cv": 0.2 } },
  "io": { "time_s": { "dist": "exponential", "mean": 0.001 } },
  "network": { "bandwidth_gbps": 1, "latency_us": 20, "fidelity": "message" },
  "stop": { "updates": 60 },
  "eval": { "every": 20 }
}
JSON
}

# undo_schema_4 DB: turns a fresh database back into schema 3 by dropping schema 6's table,
# schema 5's runs column and schema 4's lease table (runs keeps AUTOINCREMENT; keep in step
# with results/rdb_schema.c's rdb_schema_v4, rdb_schema_v5 and rdb_schema_v6).
undo_schema_4() {
  sqlite3 "$1" "DROP TABLE client_labels; ALTER TABLE runs DROP COLUMN resumes; DROP TABLE run_owner; PRAGMA user_version = 3;"
}

# undo_schema_3 DB: turns a fresh database back into schema 2 by dropping what schemas 6, 5, 4
# and 3 added (keep in step with results/rdb_schema.c's rdb_schema_v3).
undo_schema_3() {
  sqlite3 "$1" "DROP TABLE client_labels; ALTER TABLE runs DROP COLUMN resumes; DROP TABLE run_owner; DROP VIEW final_metrics; DROP VIEW final_metrics_long; DROP VIEW params;
    DROP TABLE artifacts; DROP TABLE tags; DROP TABLE version_age; DROP VIEW finished_runs;
    ALTER TABLE runs DROP COLUMN command_line; ALTER TABLE runs DROP COLUMN sweep_axes;
    PRAGMA user_version = 2;"
}
