# Where checkpoints go, checked before a run starts: --trace naming the --checkpoint or the
# --resume file, --db naming the --resume file, and a --checkpoint that cannot be written (a
# missing directory, a directory, a read-only file, a FIFO) exit 2 before anything is
# written -- no database, no run's row, no trace, the checkpoint untouched -- instead of
# failing at the first checkpoint with the work done; a --resume into a --db that is not
# there is refused without creating it.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
cd "$TMP" || exit 1
nothing_written() { # WHAT: no database, no trace
  [ ! -e n.db ] || fail "$1: the database was created"
  [ ! -e t.json ] || fail "$1: the trace was written"
}
expect_exit 2 "--trace c.ckpt: is the checkpoint file given with --checkpoint (c.ckpt); refusing to overwrite it" \
  -- "$SGDSIM" run "$S" --db n.db --quiet --trace c.ckpt --checkpoint c.ckpt --checkpoint-every-updates 10
[ ! -e c.ckpt ] || fail "a checkpoint was written"
nothing_written "--trace F --checkpoint F"
mkdir d; touch ro.ckpt; chmod 444 ro.ckpt
expect_exit 2 "--checkpoint nodir/c.ckpt: cannot write: No such file or directory" \
  -- "$SGDSIM" run "$S" --db n.db --quiet --trace t.json --checkpoint nodir/c.ckpt
nothing_written "a missing directory"
expect_exit 2 "--checkpoint d: is a directory" -- "$SGDSIM" run "$S" --db n.db --quiet --checkpoint d
nothing_written "a directory"
expect_exit 2 "--checkpoint ro.ckpt: is read-only" -- "$SGDSIM" run "$S" --db n.db --quiet --checkpoint ro.ckpt
nothing_written "a read-only file"
[ -z "$(cat ro.ckpt)" ] || fail "the read-only file changed"
mkfifo fifo.ckpt
expect_exit 2 "--checkpoint fifo.ckpt: is neither a regular file nor a device" \
  -- "$SGDSIM" run "$S" --db n.db --quiet --checkpoint fifo.ckpt
nothing_written "a FIFO"

# A run's checkpoint, then what a resume must not overwrite or create.
"$SGDSIM" run "$S" --db a.db --quiet --checkpoint c.ckpt --checkpoint-exit-at 20; [ $? = 75 ] || fail "no checkpoint"
before=$(sha256sum a.db c.ckpt)
expect_exit 2 "--trace c.ckpt: is the checkpoint given with --resume (c.ckpt); refusing to overwrite it" \
  -- "$SGDSIM" run "$S" --db a.db --quiet --trace c.ckpt --resume c.ckpt
expect_exit 2 "--trace c2.ckpt: is the checkpoint file given with --checkpoint (c2.ckpt)" \
  -- "$SGDSIM" run "$S" --db a.db --quiet --trace c2.ckpt --resume c.ckpt --checkpoint c2.ckpt
[ ! -e c2.ckpt ] || fail "a checkpoint was written to c2.ckpt"
expect_exit 2 "--db c.ckpt: is the checkpoint given with --resume (c.ckpt)" \
  -- "$SGDSIM" run "$S" --db c.ckpt --quiet --resume c.ckpt
expect_exit 2 "--resume c.ckpt: --db n.db: no such database (a run is resumed in the database it began in)" \
  -- "$SGDSIM" run "$S" --db n.db --quiet --resume c.ckpt
expect_exit 2 "no such database" -- "$SGDSIM" run "$S" --quiet --resume c.ckpt
[ ! -e sgdsim.db ] || fail "the default database was created"
nothing_written "a resume into a missing database"
[ "$(sha256sum a.db c.ckpt)" = "$before" ] || fail "the database or the checkpoint changed"
expect_exit 2 "--resume ro.ckpt: is read-only" -- "$SGDSIM" run "$S" --db a.db --quiet --resume ro.ckpt
"$SGDSIM" run "$S" --db a.db --quiet --resume c.ckpt --trace t.json || fail "the resume failed"
[ "$(sqlite3 a.db "SELECT status FROM runs")" = complete ] || fail "the resumed run is not complete"
finish
