# Run keys identify a configuration exactly, end to end: seeds below 2^53 and learning rates
# one ulp apart are distinct runs and sweep points, values beyond are refused with exit 2,
# --set values are parsed whole, and a database of the previous schema (1) is migrated so that
# a resumed sweep finds its points done and merge into it works (as an input of merge it is
# read, migrated as it is copied, and left unchanged).
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"

# --set is as strict as the file, and names the argument (never the scenario file).
for v in 'cluster.workers=8abc' 'optimizer.lr=0.5xyz' 'model.hidden=[16],[8]' 'cluster.workers=4 garbage'; do
  expect_exit 2 "--set $v: not a valid JSON value" -- "$SGDSIM" validate "$S" --set "$v"
done
expect_exit 2 "--set cluster..workers=8: empty key segment" -- "$SGDSIM" validate "$S" --set cluster..workers=8
expect_exit 2 "--set a..b=1: empty key segment" -- "$SGDSIM" validate "$S" --set a..b=1
out=$("$SGDSIM" validate "$S" --set a.b=1 2>&1 >/dev/null)
case "$out" in *"--set a.b=1: a: unknown key"*) ;; *) fail "--set a.b=1 blamed: $out" ;; esac
case "$out" in *"s.json"*) fail "--set a.b=1 blamed the file: $out" ;; esac

# Seeds: 2^53 - 2 and 2^53 - 1 are two configurations, stored with every digit; 2^53 and
# above are refused from --seed and from the file alike.
key() { "$SGDSIM" validate "$S" "$@" | sed -n 's/.*config \([0-9a-f]*\)).*/\1/p'; }
k1=$(key --set seed=9007199254740990); k2=$(key --set seed=9007199254740991)
[ -n "$k1" ] && [ "$k1" != "$k2" ] || fail "seeds 2^53-2 and 2^53-1 share key '$k1' / '$k2'"
"$SGDSIM" validate "$S" --print --set seed=9007199254740991 | grep -q '"seed": 9007199254740991' || fail "seed not stored exactly"
expect_exit 2 "--seed 9007199254740992: must be <= 2^53 - 1" -- "$SGDSIM" run "$S" --db "$TMP/seed.db" --seed 9007199254740992
sed 's/"seed": 5/"seed": 9007199254740993/' "$S" > "$TMP/bigseed.json"
expect_exit 2 "bigseed.json: seed: expected integer <= 9007199254740991" -- "$SGDSIM" validate "$TMP/bigseed.json"

# Learning rates one ulp apart are two sweep points; the same double written twice is one.
n=$("$SGDSIM" sweep "$S" --list --set optimizer.lr=0.3,0.30000000000000004 | grep -c '^[0-9]')
[ "$n" = 2 ] || fail "lr 0.3 and 0.30000000000000004: $n sweep points, wanted 2"
n=$("$SGDSIM" sweep "$S" --list --set optimizer.lr=0.3,0.29999999999999999 | grep -c '^[0-9]')
[ "$n" = 1 ] || fail "lr 0.3 and 0.29999999999999999 (the same double): $n sweep points, wanted 1"

# A database of schema 1: made here from a finished sweep by undoing schemas 3 (lib.sh) and 2
# (its columns dropped, keys replaced by others as an older build would have computed them).
AXES=(--set seed=1,2 --set stop.updates=20)
"$SGDSIM" sweep "$S" "${AXES[@]}" -j1 --db "$TMP/old.db" --quiet || fail "sweep failed"
keys_now=$(sqlite3 "$TMP/old.db" "SELECT group_concat(run_key) FROM (SELECT run_key FROM runs ORDER BY id)")
undo_schema_3 "$TMP/old.db" || fail "cannot undo schema 3"
sqlite3 "$TMP/old.db" "ALTER TABLE runs DROP COLUMN key_note; ALTER TABLE runs DROP COLUMN prev_config_hash;
  ALTER TABLE runs DROP COLUMN prev_run_key; UPDATE runs SET run_key = 'v1-' || id, config_hash = 'v1-' || id;
  PRAGMA user_version = 1;" || fail "cannot make a schema 1 database"
cp "$TMP/old.db" "$TMP/old-copy.db"
rows_before=$(sqlite3 "$TMP/old.db" "SELECT count(*) FROM metrics")
# Readers refuse it with a message that says how to migrate it and leave it unchanged; merge
# reads it as an input (its runs migrated as they are copied, the file unchanged) and, as
# merge's OUT, migrates it and takes the new runs.
expect_exit 2 "schema 1 < 2); migrate it by opening it for writing once" -- "$SGDSIM" query "$TMP/old.db" "SELECT 1"
old_sum=$(sha256sum < "$TMP/old-copy.db")
"$SGDSIM" merge "$TMP/m.db" "$TMP/old-copy.db" >/dev/null || fail "merge of a schema 1 input failed"
[ "$(sha256sum < "$TMP/old-copy.db")" = "$old_sum" ] || fail "merge changed its schema 1 input"
[ "$(sqlite3 "$TMP/m.db" "SELECT count(*) FROM runs WHERE prev_run_key IS NOT NULL")" -ge 1 ] ||
  fail "merge of a schema 1 input: the copied runs were not migrated"
"$SGDSIM" sweep "$S" --set seed=3 --set stop.updates=20 -j1 --db "$TMP/new.db" --quiet || fail "sweep failed"
"$SGDSIM" merge "$TMP/old-copy.db" "$TMP/new.db" >/dev/null || fail "merge into a schema 1 database failed"
[ "$(sqlite3 "$TMP/old-copy.db" "SELECT group_concat(run_key) FROM (SELECT run_key FROM runs ORDER BY id LIMIT 2)")" = "$keys_now" ] ||
  fail "merge's OUT: keys are not the recomputed ones"
[ "$(sqlite3 "$TMP/old-copy.db" "SELECT count(*) FROM runs")" = 3 ] || fail "merge's OUT: not 3 runs"

# a resumed sweep migrates it and finds both points done
out=$("$SGDSIM" sweep "$S" "${AXES[@]}" -j1 --db "$TMP/old.db" 2>&1) || fail "resumed sweep failed: $out"
case "$out" in *"2 already done"*"0 to run"*) ;; *) fail "resumed sweep did not find its points: $out" ;; esac
[ "$(sqlite3 "$TMP/old.db" "PRAGMA user_version")" = 6 ] || fail "not migrated"
[ "$(sqlite3 "$TMP/old.db" "SELECT group_concat(run_key) FROM (SELECT run_key FROM runs ORDER BY id)")" = "$keys_now" ] ||
  fail "migrated keys are not the recomputed ones"
[ "$(sqlite3 "$TMP/old.db" "SELECT group_concat(prev_run_key) FROM (SELECT prev_run_key FROM runs ORDER BY id)")" = "v1-1,v1-2" ] ||
  fail "old keys not kept"
[ "$(sqlite3 "$TMP/old.db" "SELECT count(*) FROM metrics")" = "$rows_before" ] || fail "rows lost in the migration"
finish
