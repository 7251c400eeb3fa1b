# A database older than its checkpoint: the checkpoint's header says what the database held
# when it was written (the run's metric rows and the last update among them), and a resume
# into a database that holds less -- a copy restored, as a power loss can roll back commits
# (synchronous=NORMAL) that the fsync'ed checkpoint survived -- exits 2 naming the database
# and the checkpoint, with the database byte for byte as it was, instead of going on
# without the rows in between.  The database it belongs to resumes to the uninterrupted
# run's digest and every row; a checkpoint of format 1 is refused, naming both formats.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
cd "$TMP" || exit 1
"$SGDSIM" run "$S" --db full.db --quiet || fail "uninterrupted run"
"$SGDSIM" run "$S" --db a.db --quiet --checkpoint c.ckpt --checkpoint-exit-at 20; [ $? = 75 ] || fail "first part"
sqlite3 a.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp a.db copy.db # the database as it was at update 20
"$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt --checkpoint-exit-at 40; [ $? = 75 ] || fail "second part"
sqlite3 a.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp a.db after40.db
cp copy.db a.db; rm -f a.db-wal a.db-shm # restored: the rows of updates 21 to 40 are gone
before=$(sha256sum a.db)
expect_exit 2 "--resume c.ckpt: a.db: holds" -- "$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt
expect_exit 2 "up to update 40 (the last at update 20), the checkpoint was written after" \
  -- "$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt
expect_exit 2 "the database is older than the checkpoint and lacks rows it expects" \
  -- "$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt
[ "$(sha256sum a.db)" = "$before" ] || fail "the refused database changed"
[ "$(sqlite3 a.db "SELECT status || ' ' || resumes FROM runs")" = "failed 0" ] || fail "the run was marked resumed"
# The database the checkpoint belongs to.
cp after40.db a.db
"$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt || fail "resume into its own database"
want=$(sqlite3 full.db "SELECT digest, (SELECT count(*) FROM metrics) FROM runs")
got=$(sqlite3 a.db "SELECT digest, (SELECT count(*) FROM metrics) FROM runs")
[ "$got" = "$want" ] || fail "resumed: $got, the uninterrupted run: $want"
# A checkpoint of the format before the database's rows were in its header.
cp c.ckpt old.ckpt; printf '\x01' | dd of=old.ckpt bs=1 seek=8 conv=notrunc 2>/dev/null
expect_exit 2 "old.ckpt: checkpoint format 1, this sgdsim reads format 2 (the file was written by another version of sgdsim" \
  -- "$SGDSIM" run "$S" --db a.db --quiet --resume old.ckpt
finish
