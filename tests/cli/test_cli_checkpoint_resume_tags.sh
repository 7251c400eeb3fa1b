# run --resume --tag: a resume adds its tags to the run it continues (a sweep passes its tags
# to every point, resumed or not: the same tags again change nothing), and refuses, exit 2
# with the database as it was, a tag whose key the run has with another value -- instead of
# dropping the tags it was given without a word.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
cd "$TMP" || exit 1
tags() { sqlite3 a.db "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM tags ORDER BY key)"; }
"$SGDSIM" run "$S" --db a.db --quiet --tag study=x --checkpoint c.ckpt --checkpoint-exit-at 20
[ $? = 75 ] || fail "no checkpoint"
before=$(sha256sum a.db)
expect_exit 2 "a.db: run 1 is tagged study=x; --tag study=y would change it" \
  -- "$SGDSIM" run "$S" --db a.db --quiet --tag note=n --tag study=y --resume c.ckpt
[ "$(sha256sum a.db)" = "$before" ] || fail "the refused resume changed the database"
"$SGDSIM" run "$S" --db a.db --quiet --tag study=x --tag note=n --resume c.ckpt --checkpoint-exit-at 40
[ $? = 75 ] || fail "the resume with tags failed"
[ "$(tags)" = "note=n study=x" ] || fail "tags after a resume: $(tags)"
"$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt || fail "the resume without tags failed"
[ "$(tags)" = "note=n study=x" ] || fail "tags after a resume without --tag: $(tags)"
[ "$(sqlite3 a.db "SELECT status || ' ' || resumes FROM runs")" = "complete 2" ] || fail "not complete"
finish
