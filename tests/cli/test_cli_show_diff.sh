# The join views and the two commands that read one run: params (one row per leaf of the
# configuration, dotted keys), final_metrics_long and final_metrics (every metric's last
# value; every metric name an algorithm writes is a column), `show` (every section) and
# `diff` (the keys that differ, both values under columns named after the runs, exact numbers,
# typed in JSON); `show` ends with the command line; run ids and run-key prefixes;
# unknown runs exit 2 naming them; both read a schema 2 database without changing it.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/a.db"
q() { sqlite3 "$1" "$2"; }
cat > "$TMP/ps.json" <<'JSON'
{
  "schema_version": 1, "name": "ps-small", "seed": 3,
  "algorithm": { "name": "b-fasgd", "driver": "timed", "c_fetch": 0.05, "c_push": 0.05, "server_time_s": 0.0002 },
  "cluster": { "workers": 4, "time_factor": { "dist": "uniform", "min": 1.0, "max": 3.0 } },
  "data": { "source": "synthetic", "n_train": 300, "n_validation": 100, "dim": 10, "classes": 4 },
  "model": { "kind": "mlp", "hidden": [8], "init": "he" },
  "batch": { "per_worker": 8 },
  "optimizer": { "lr": 0.05 },
  "compute": { "kind": "time", "time_s": { "dist": "gamma", "mean": 0.002, "cv": 0.3 } },
  "io": { "time_s": { "dist": "exponential", "mean": 0.0005 } },
  "network": { "bandwidth_gbps": 0.01, "latency_us": 20 },
  "stop": { "updates": 60 },
  "eval": { "every": 20 }
}
JSON
"$SGDSIM" run "$S" --db "$DB" --quiet --tag who=me --trace "$TMP/t.json" || fail "run 1"
"$SGDSIM" run "$S" --db "$DB" --quiet --set optimizer.lr=0.30000000000000004 --set 'model.hidden=[16,8]' || fail "run 2"
"$SGDSIM" run "$TMP/ps.json" --db "$DB" --quiet || fail "run 3 (b-fasgd)"

# params: leaves only, dotted keys with array indices, SQL types of the values.
[ "$(q "$DB" "SELECT value FROM params WHERE run_id = 1 AND key = 'cluster.time_factor.max'")" = 1.5 ] || fail "params: nested key"
[ "$(q "$DB" "SELECT value || ' ' || type FROM params WHERE run_id = 2 AND key = 'model.hidden[1]'")" = "8 integer" ] ||
  fail "params: array element"
[ "$(q "$DB" "SELECT type FROM params WHERE run_id = 1 AND key = 'optimizer.nesterov'")" = false ] || fail "params: boolean"
[ "$(q "$DB" "SELECT count(*) FROM params WHERE type IN ('object', 'array')")" = 0 ] || fail "params: non-leaves"
[ "$(q "$DB" "SELECT count(*) FROM params WHERE run_id = 1 AND key = 'data.n_train' AND value = 600")" = 1 ] ||
  fail "params: key with an underscore: $(q "$DB" "SELECT key FROM params WHERE run_id = 1 AND key LIKE 'data.%'")"
[ "$(q "$DB" "SELECT value = 0.30000000000000004 FROM params WHERE run_id = 2 AND key = 'optimizer.lr'")" = 1 ] ||
  fail "params: value not exact"

# Both final-metrics views are ordered by run (and name) by their definition, not by chance.
for v in final_metrics final_metrics_long; do
  q "$DB" "SELECT sql FROM sqlite_master WHERE name = '$v'" | grep -q 'ORDER BY' ||
    fail "$v has no ORDER BY"
done
[ "$(q "$DB" "SELECT group_concat(run_id) FROM final_metrics")" = \
  "$(q "$DB" "SELECT group_concat(id) FROM (SELECT id FROM runs ORDER BY id)")" ] ||
  fail "final_metrics: rows not in run order"
# final_metrics_long: one row per (run, metric), the last update's value.
[ "$(q "$DB" "SELECT count(*) FROM final_metrics_long")" = "$(q "$DB" "SELECT count(*) FROM (SELECT DISTINCT run_id, name FROM metrics)")" ] ||
  fail "final_metrics_long: row count"
[ "$(q "$DB" "SELECT f.value = m.value FROM final_metrics_long f JOIN metrics m ON m.run_id = f.run_id AND m.name = f.name AND m.update_idx = (SELECT max(update_idx) FROM metrics WHERE run_id = 1 AND name = 'val_loss') WHERE f.run_id = 1 AND f.name = 'val_loss'")" = 1 ] ||
  fail "final_metrics_long: not the last value"
# final_metrics: one row per run; every metric name written (CSGD and the PS family) is a column.
[ "$(q "$DB" "SELECT count(*) FROM final_metrics")" = 3 ] || fail "final_metrics: one row per run"
missing=$(q "$DB" "SELECT DISTINCT name FROM metrics WHERE name NOT IN (SELECT name FROM pragma_table_info('final_metrics'))")
[ -z "$missing" ] || fail "final_metrics lacks columns for: $missing"
[ "$(q "$DB" "SELECT f.staleness_max = l.value FROM final_metrics f JOIN final_metrics_long l ON l.run_id = f.run_id AND l.name = 'staleness_max' WHERE f.run_id = 3")" = 1 ] ||
  fail "final_metrics: staleness_max"
[ "$(q "$DB" "SELECT staleness_max IS NULL FROM final_metrics WHERE run_id = 1")" = 1 ] || fail "final_metrics: CSGD has no staleness"

# show: every section, by id and by run-key prefix.
out=$("$SGDSIM" show "$DB" 1) || fail "show 1"
for want in "run 1" "status          complete" "configuration" "cluster.time_factor.max" "final metrics" \
            "val_error" "staleness" "traffic" "allreduce" "tags" "who  me" "artifacts" "$(sha256sum < "$TMP/t.json" | cut -d' ' -f1)"; do
  case "$out" in *"$want"*) ;; *) fail "show 1 lacks '$want'" ;; esac
done
out=$("$SGDSIM" show "$DB" 3) || fail "show 3"
case "$out" in *"gradients"*"mean_tau"*) ;; *) fail "show 3: no staleness summary" ;; esac
case "$out" in *"push"*"fetch"*) ;; *) fail "show 3: no push/fetch traffic" ;; esac
# show ends with the command line that ran the run: its last two lines.
cl=$(q "$DB" "SELECT command_line FROM runs WHERE id = 3")
[ -n "$cl" ] || fail "run 3 has no command line"
[ "$(printf '%s\n' "$out" | tail -n 2)" = "command line:
  $cl" ] || fail "show 3 does not end with its command line: $(printf '%s\n' "$out" | tail -n 3)"
key=$(q "$DB" "SELECT run_key FROM runs WHERE id = 2")
[ "$("$SGDSIM" show "$DB" "${key:0:8}" | sed -n 1p)" = "run 2" ] || fail "show by run-key prefix"
[ "$("$SGDSIM" show "$DB" "$(echo "${key:0:8}" | tr a-f A-F)" | sed -n 1p)" = "run 2" ] || fail "show by upper-case prefix"
expect_exit 2 "no run 99" -- "$SGDSIM" show "$DB" 99
expect_exit 2 "no run whose run key starts with ffffffff" -- "$SGDSIM" show "$DB" ffffffff
expect_exit 2 "run 'zz%_': expected a run id" -- "$SGDSIM" show "$DB" 'zz%_'
expect_exit 2 "missing RUN" -- "$SGDSIM" show "$DB"
expect_exit 2 "no such results database" -- "$SGDSIM" show "$TMP/none.db" 1

# diff: exactly the differing keys, exact numbers, a key only one run has; JSON output.
out=$("$SGDSIM" diff "$DB" 1 2 --csv) || fail "diff 1 2"
want='key,run 1,run 2
model.hidden[0],32,16
model.hidden[1],,8
optimizer.lr,0.05,0.30000000000000004'
[ "$out" = "$want" ] || fail "diff 1 2:
$out"
# --json: typed values under the runs' ids (a number is a number, a string a string).
"$SGDSIM" diff "$DB" 1 2 --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d) == 3 and d[1]["run 1"] is None and d[1]["run 2"] == 8, d
assert d[0]["run 1"] == 32 and type(d[0]["run 1"]) is int, d
assert d[2]["run 2"] == 0.30000000000000004, d' 2>/dev/null ||
  { command -v python3 >/dev/null && fail "diff --json"; }
"$SGDSIM" diff "$DB" 1 3 --json | python3 -c '
import json, sys
d = {r["key"]: r for r in json.load(sys.stdin)}
assert d["algorithm.name"]["run 1"] == "csgd" and d["algorithm.name"]["run 3"] == "b-fasgd", d' \
  2>/dev/null || { command -v python3 >/dev/null && fail "diff --json: strings"; }
[ "$("$SGDSIM" diff "$DB" 1 1)" = "runs 1 and 1 have the same configuration" ] || fail "diff of a run with itself"
"$SGDSIM" diff "$DB" 1 3 | grep -q '^algorithm.name  *"csgd"  *"b-fasgd"' || fail "diff 1 3: algorithm.name"
expect_exit 2 "no run 7" -- "$SGDSIM" diff "$DB" 1 7
expect_exit 2 "missing RUN_B" -- "$SGDSIM" diff "$DB" 1

# Both read a schema 2 database (no tags or artifacts tables) and leave it as it was.
cp "$DB" "$TMP/v2.db"
undo_schema_3 "$TMP/v2.db" || fail "cannot make a schema 2 database"
sum=$(sha256sum < "$TMP/v2.db")
out=$("$SGDSIM" show "$TMP/v2.db" 1) || fail "show on schema 2"
case "$out" in *"final metrics"*"tags"*"(none: this database's schema has no such table)"*) ;; *) fail "show on schema 2: $out" ;; esac
[ "$(printf '%s\n' "$out" | tail -n 1)" = "command line: not recorded (a run written before schema 3)" ] ||
  fail "show on schema 2 does not end with its missing command line"
[ "$("$SGDSIM" diff "$TMP/v2.db" 1 2 --csv)" = "$want" ] || fail "diff on schema 2"
[ "$(sha256sum < "$TMP/v2.db")" = "$sum" ] || fail "show/diff changed a schema 2 database"
ls "$TMP"/v2.db-* >/dev/null 2>&1 && fail "show/diff left side files"
finish
