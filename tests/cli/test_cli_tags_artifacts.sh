# Tags and artifacts: run --tag and sweep --tag land in the tags table with the run; a bad
# tag (no '=', an empty key, a key twice, a control character) is refused naming the
# argument with exit 2 and nothing written; a trace is recorded in artifacts with the
# SHA-256 sha256sum prints, and so is a figure of plot --record; merge copies tags and artifacts; a schema 2 database is migrated
# to schema 3 (its rows kept) when opened for writing.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/a.db"
q() { sqlite3 "$1" "$2"; }

"$SGDSIM" run "$S" --db "$DB" --quiet --tag team=vision --tag 'note=lr test, 2nd' --tag empty= \
  --trace "$TMP/t.json" || fail "tagged run"
[ "$(q "$DB" "SELECT group_concat(key || '=' || value, ';') FROM (SELECT * FROM tags WHERE run_id = 1 ORDER BY key)")" = "empty=;note=lr test, 2nd;team=vision" ] ||
  fail "tags: $(q "$DB" "SELECT * FROM tags")"
# A value may hold '=': the key ends at the first one.
"$SGDSIM" run "$S" --db "$DB" --quiet --tag 'expr=a=b' || fail "run with '=' in a value"
[ "$(q "$DB" "SELECT value FROM tags WHERE run_id = 2 AND key = 'expr'")" = "a=b" ] || fail "value with '='"

# Bad tags: exit 2, the argument named, nothing written (no database created either).
for bad in "noequals" "=v" ; do
  expect_exit 2 "--tag $bad" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --quiet --tag "$bad"
done
expect_exit 2 "expected KEY=VALUE" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --tag x
expect_exit 2 "the key (before '=') is empty" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --tag =x
expect_exit 2 "--tag k=2: the key 'k' is already given (--tag k=1)" -- \
  "$SGDSIM" run "$S" --db "$TMP/bad.db" --tag k=1 --tag k=2
expect_exit 2 "--tag" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --tag "$(printf 'k=a\033b')"
expect_exit 2 "run: --tag: missing value" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --tag
expect_exit 2 "--tag k=2" -- "$SGDSIM" sweep "$S" --db "$TMP/bad.db" --set seed=1,2 --tag k=1 --tag k=2
[ -e "$TMP/bad.db" ] && fail "a refused --tag created the database"
before=$(q "$DB" "SELECT count(*) FROM runs; SELECT count(*) FROM tags")
expect_exit 2 "--tag" -- "$SGDSIM" run "$S" --db "$DB" --tag k=1 --tag k=1
[ "$(q "$DB" "SELECT count(*) FROM runs; SELECT count(*) FROM tags")" = "$before" ] || fail "a refused --tag wrote"

# Tags do not change the run: same run key and digest as the untagged run.
[ "$(q "$DB" "SELECT count(DISTINCT run_key) || ' ' || count(DISTINCT digest) FROM runs")" = "1 1" ] ||
  fail "tags changed the run key or digest"

# sweep --tag: every point's run carries the sweep's tags.
"$SGDSIM" sweep "$S" --db "$TMP/sw.db" --set seed=1,2,3 -j 2 --quiet --tag study=seeds --tag v=1 ||
  fail "tagged sweep"
[ "$(q "$TMP/sw.db" "SELECT count(*) FROM runs")" = 3 ] || fail "sweep runs"
[ "$(q "$TMP/sw.db" "SELECT count(*) FROM tags WHERE (key = 'study' AND value = 'seeds') OR (key = 'v' AND value = '1')")" = 6 ] ||
  fail "sweep tags: $(q "$TMP/sw.db" "SELECT * FROM tags")"

# Artifacts: the trace, its absolute path, size and SHA-256.
row=$(q "$DB" "SELECT kind || ' ' || path || ' ' || bytes || ' ' || sha256 FROM artifacts WHERE run_id = 1")
want="trace $(cd "$TMP" && pwd -P)/t.json $(stat -c %s "$TMP/t.json") $(sha256sum < "$TMP/t.json" | cut -d' ' -f1)"
[ "$row" = "$want" ] || fail "artifact row: $row, wanted $want"
[ "$(q "$DB" "SELECT count(*) FROM artifacts")" = 1 ] || fail "an untraced run has artifacts"
# A trace that is not a regular file (/dev/null, a pipe) is not recorded, and the run is fine.
"$SGDSIM" run "$S" --db "$TMP/null.db" --quiet --trace /dev/null || fail "run --trace /dev/null"
[ "$(q "$TMP/null.db" "SELECT status FROM runs; SELECT count(*) FROM artifacts")" = "complete
0" ] || fail "--trace /dev/null: $(q "$TMP/null.db" "SELECT status FROM runs; SELECT * FROM artifacts")"

# plot --record: the figure as a "figure" artifact of every run it draws (one transaction);
# without --record plot leaves the database's bytes alone.
if command -v gnuplot >/dev/null; then
  cp "$TMP/sw.db" "$TMP/fig.db"
  sum=$(sha256sum < "$TMP/fig.db")
  "$SGDSIM" plot "$TMP/fig.db" --y val_error -o "$TMP/f.svg" >/dev/null || fail "plot"
  [ "$(sha256sum < "$TMP/fig.db")" = "$sum" ] || fail "plot without --record changed the database"
  "$SGDSIM" plot "$TMP/fig.db" --y val_error --where seed!=2 -o "$TMP/f.svg" --record >/dev/null ||
    fail "plot --record"
  fsum=$(sha256sum < "$TMP/f.svg" | cut -d' ' -f1)
  [ "$(q "$TMP/fig.db" "SELECT group_concat(r.seed || ':' || a.kind || ':' || (a.sha256 = '$fsum'), ' ') FROM (SELECT * FROM artifacts ORDER BY run_id) a JOIN runs r ON r.id = a.run_id")" = \
    "$(q "$TMP/fig.db" "SELECT group_concat(seed || ':figure:1', ' ') FROM (SELECT seed FROM runs WHERE seed != 2 ORDER BY id)")" ] ||
    fail "plot --record rows: $(q "$TMP/fig.db" "SELECT * FROM artifacts")"
fi

# merge keeps tags and artifacts (under the new run ids).
"$SGDSIM" merge "$TMP/m.db" "$TMP/sw.db" "$DB" >/dev/null || fail "merge"
[ "$(q "$TMP/m.db" "SELECT count(*) FROM tags")" = "$(( 6 + $(q "$DB" "SELECT count(*) FROM tags") ))" ] ||
  fail "merge lost tags: $(q "$TMP/m.db" "SELECT * FROM tags")"
[ "$(q "$TMP/m.db" "SELECT r.scenario_path || ' ' || t.value FROM tags t JOIN runs r ON r.id = t.run_id WHERE t.key = 'team'")" = "$S vision" ] ||
  fail "merged tag not on its run"
[ "$(q "$TMP/m.db" "SELECT sha256 FROM artifacts")" = "$(q "$DB" "SELECT sha256 FROM artifacts")" ] ||
  fail "merge lost the artifact"

# A schema 2 database (this one with the schema 3 objects taken out): readers that need the
# current schema refuse it, merge reads it, a writer migrates it and keeps its rows.
cp "$TMP/sw.db" "$TMP/v2.db"
undo_schema_3 "$TMP/v2.db" || fail "cannot make a schema 2 database"
cp "$TMP/v2.db" "$TMP/v2-copy.db"
sum=$(sha256sum < "$TMP/v2-copy.db")
"$SGDSIM" merge "$TMP/m2.db" "$TMP/v2-copy.db" >/dev/null || fail "merge of a schema 2 input"
[ "$(sha256sum < "$TMP/v2-copy.db")" = "$sum" ] || fail "merge changed its schema 2 input"
[ "$(q "$TMP/m2.db" "SELECT count(*) FROM runs; SELECT count(*) FROM tags")" = "3
0" ] || fail "merge of a schema 2 input: $(q "$TMP/m2.db" "SELECT count(*) FROM runs")"
rows=$(q "$TMP/v2.db" "SELECT count(*) FROM metrics")
"$SGDSIM" run "$S" --db "$TMP/v2.db" --quiet --tag after=migration || fail "run on a schema 2 database"
[ "$(q "$TMP/v2.db" "PRAGMA user_version")" = 6 ] || fail "not migrated to 6"
[ "$(q "$TMP/v2.db" "SELECT count(*) FROM runs; SELECT count(*) FROM tags")" = "4
1" ] || fail "migrated database: runs or tags"
[ "$(q "$TMP/v2.db" "SELECT count(*) FROM metrics WHERE run_id <= 3")" = "$rows" ] || fail "migration lost rows"
finish
