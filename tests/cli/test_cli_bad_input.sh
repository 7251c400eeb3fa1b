# Every bad input gets a clear message naming the file, path or argument, and exit code 2.
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/r.db"

printf '{"schema_version": 1,,}' > "$TMP/malformed.json"
expect_exit 2 "malformed.json:1:" -- "$SGDSIM" run "$TMP/malformed.json" --db "$DB"
: > "$TMP/empty.json"
expect_exit 2 "empty.json: empty file" -- "$SGDSIM" run "$TMP/empty.json" --db "$DB"
echo '[1,2]' > "$TMP/array.json"
expect_exit 2 "array.json: top level: expected a JSON object" -- "$SGDSIM" validate "$TMP/array.json"
echo '{"schema_version": 1, "wokers": 3}' > "$TMP/unknown.json"
expect_exit 2 "unknown.json: wokers: unknown key" -- "$SGDSIM" run "$TMP/unknown.json" --db "$DB"
echo '{"schema_version": 1, "cluster": {"workers": "four"}}' > "$TMP/quickstart.json"
expect_exit 2 'quickstart.json: cluster.workers: expected integer >= 1, got "four"' -- "$SGDSIM" run "$TMP/quickstart.json" --db "$DB"
expect_exit 2 "network.bandwidth_gbps: expected number > 0, got -5" -- "$SGDSIM" run "$S" --db "$DB" --set network.bandwidth_gbps=-5
expect_exit 2 "network.bandwidth_gbps: expected number > 0, got 0" -- "$SGDSIM" validate "$S" --set network.bandwidth_gbps=0
expect_exit 2 "cluster.workers: expected integer >= 1, got 0" -- "$SGDSIM" run "$S" --db "$DB" --set cluster.workers=0
expect_exit 2 "--set cluster.wrkers=2: cluster.wrkers: unknown key" -- "$SGDSIM" run "$S" --db "$DB" --set cluster.wrkers=2
expect_exit 2 "--set cluster.workers: expected key.path=value" -- "$SGDSIM" run "$S" --db "$DB" --set cluster.workers
expect_exit 2 "--seed abc: expected a non-negative integer" -- "$SGDSIM" run "$S" --db "$DB" --seed abc
expect_exit 2 "unknown option --frobnicate" -- "$SGDSIM" run "$S" --frobnicate
expect_exit 2 "cannot open" -- "$SGDSIM" run "$TMP/does-not-exist.json"
expect_exit 2 'unknown command "fly"' -- "$SGDSIM" fly

# absurd sizes are refused before allocating, with the estimate
expect_exit 2 "model: needs about" -- "$SGDSIM" run "$S" --db "$DB" --set 'model.hidden=[30000,30000,30000]'
expect_exit 2 "data: needs about" -- "$SGDSIM" run "$S" --db "$DB" --set data.n_train=2000000000 --set data.dim=100000
expect_exit 2 "cluster.workers: needs about" -- "$SGDSIM" run "$S" --db "$DB" --set cluster.workers=1000000000
expect_exit 2 "model: needs about" -- "$SGDSIM" run "$S" --db "$DB" --set 'model.hidden=[1000000,1000000]'
# a parameter server's clients each hold a snapshot of their own version: 10^5 clients of a
# 5.2-million-parameter model need about 2 TB (hardsync's clients share one)
cat > "$TMP/ps.json" <<'JSON'
{ "schema_version": 1, "algorithm": { "name": "fasgd" }, "cluster": { "workers": 100000 },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20, "classes": 5 },
  "model": { "kind": "mlp", "hidden": [200000] }, "batch": { "per_worker": 4 },
  "stop": { "updates": 1000000 }, "eval": { "every": 0 } }
JSON
expect_exit 2 "ps.json: cluster.workers: parameter snapshots: needs about" -- "$SGDSIM" run "$TMP/ps.json" --db "$DB"
expect_exit 0 "" -- "$SGDSIM" run "$TMP/ps.json" --db "$TMP/ps.db" --quiet --set cluster.workers=4 --set stop.updates=3
truncate -s 100M "$TMP/huge.json"
expect_exit 2 "huge.json: file is 104857600 bytes; scenario files are limited to" -- "$SGDSIM" run "$TMP/huge.json" --db "$DB"
python3 -c 'print("{\"schema_version\": 1, \"x\": " + "[" * 100000 + "]" * 100000 + "}")' > "$TMP/deep.json" 2>/dev/null ||
  printf '{"schema_version": 1, "x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}' > "$TMP/deep.json"
expect_exit 2 "deep.json:1: JSON nested deeper than 32 levels" -- "$SGDSIM" validate "$TMP/deep.json"

# dataset files: missing, wrong magic, truncated
idx_data() { # images labels
  echo "data={\"source\":\"idx\",\"validation\":\"train_tail\",\"validation_size\":10,\"train_images\":\"$1\",\"train_labels\":\"$2\"}"
}
expect_exit 2 "missing-images.gz: cannot open" -- "$SGDSIM" run "$S" --db "$DB" \
  --set "$(idx_data missing-images.gz missing-labels.gz)"
printf '\x00\x00\x08\x07\x00\x00\x00\x01' > "$TMP/badmagic.idx"
expect_exit 2 "badmagic.idx" -- "$SGDSIM" run "$S" --db "$DB" --set "$(idx_data badmagic.idx badmagic.idx)"
expect_exit 2 "magic" -- "$SGDSIM" run "$S" --db "$DB" --set "$(idx_data badmagic.idx badmagic.idx)"
printf '\x00\x00\x08\x03\x00\x00\x00\x64\x00\x00\x00\x1c\x00\x00\x00\x1c\x01\x02\x03' > "$TMP/trunc.idx"
expect_exit 2 "truncated" -- "$SGDSIM" run "$S" --db "$DB" --set "$(idx_data trunc.idx trunc.idx)"
# The message names the field of the file that failed: images fine, labels missing or bad.
{ printf '\x00\x00\x08\x03\x00\x00\x00\x28\x00\x00\x00\x02\x00\x00\x00\x02'; head -c 160 /dev/zero; } > "$TMP/img.idx"
expect_exit 2 "data.train_labels: $TMP/missing-labels.gz: cannot open" -- "$SGDSIM" run "$S" --db "$DB" \
  --set "$(idx_data img.idx missing-labels.gz)"
expect_exit 2 "data.train_labels: $TMP/img.idx: labels must have 1 dimension" -- "$SGDSIM" run "$S" --db "$DB" \
  --set "$(idx_data img.idx img.idx)"
{ printf '\x00\x00\x08\x01\x00\x00\x00\x28'; head -c 40 /dev/zero; } > "$TMP/lab.idx"
expect_exit 2 "data.test_labels: $TMP/missing-test-labels.gz: cannot open" -- "$SGDSIM" run "$S" --db "$DB" \
  --set "data={\"source\":\"idx\",\"train_images\":\"img.idx\",\"train_labels\":\"lab.idx\",\"test_images\":\"img.idx\",\"test_labels\":\"missing-test-labels.gz\"}"
expect_exit 2 "data.test_images: $TMP/missing-test-images.gz: cannot open" -- "$SGDSIM" run "$S" --db "$DB" \
  --set "data={\"source\":\"idx\",\"train_images\":\"img.idx\",\"train_labels\":\"lab.idx\",\"test_images\":\"missing-test-images.gz\",\"test_labels\":\"lab.idx\"}"

# results database: not SQLite, unwritable path; neither may leave a run row behind
echo "this is not a database" > "$TMP/notdb.db"
expect_exit 2 "notdb.db" -- "$SGDSIM" run "$S" --db "$TMP/notdb.db"
grep -q "this is not a database" "$TMP/notdb.db" || fail "the non-database file was modified"
expect_exit 2 "/etc/passwd/x.db" -- "$SGDSIM" run "$S" --db /etc/passwd/x.db
[ ! -e "$DB" ] || [ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 0 ] || fail "bad input left a run row"
# Typed numbers are plain decimals: hexadecimal, white space, inf/nan and a sign on a count
# are refused, not reinterpreted (" 5" is not 5, 0x10 is not 16, -1 is not 2^64 - 1).
for bad in 0x10 " 4" "4 " -1 +2 inf; do
  expect_exit 2 "--jobs" -- "$SGDSIM" sweep "$S" --db "$TMP/num.db" --jobs "$bad"
done
for bad in 0x1p-3 " 0.1" nan inf; do
  expect_exit 2 "--rtol" -- "$SGDSIM" compare "$TMP/num.db" "$TMP/num.db" --rtol "$bad"
done
[ ! -e "$TMP/num.db" ] || fail "a refused number left a database behind"
finish
