# A full disk or a read-only database path gives a clear error and never corrupts what the
# database already holds: earlier complete runs keep every row, integrity_check stays ok.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"

check_intact() { # db label: run 1 complete with its rows, the file consistent
  [ "$(sqlite3 "$1" "PRAGMA integrity_check")" = ok ] || fail "$2: integrity_check"
  [ "$(sqlite3 "$1" "SELECT status FROM runs WHERE id=1")" = complete ] || fail "$2: run 1 not complete"
  [ "$(sqlite3 "$1" "SELECT count(*) FROM metrics WHERE run_id=1")" = "$rows" ] || fail "$2: run 1 lost rows"
}

# 1. File-size limit (no privileges needed): the run fails with a clear message, exit 1.
DB="$TMP/fsize.db"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "reference run"
rows=$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE run_id=1")
out=$( (ulimit -f 100; "$SGDSIM" run "$S" --db "$DB" --quiet --set stop.updates=50000 --set eval.every=0) 2>&1 ); rc=$?
[ "$rc" = 1 ] || fail "file-size limit: exit $rc, wanted 1 ($out)"
case "$out" in *"$DB"*"disk"*|*"$DB"*"full"*) ;; *) fail "file-size limit: unclear message: $out" ;; esac
check_intact "$DB" "file-size limit"
[ "$(sqlite3 "$DB" "SELECT status FROM runs WHERE id=2")" = failed ] || fail "file-size limit: run 2 not failed"

# 2. A really full filesystem and a read-only one (tmpfs; needs mount privileges).
MNT="$TMP/mnt"; mkdir -p "$MNT"
trap 'umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT
if mount -t tmpfs -o size=200k tmpfs "$MNT" 2>/dev/null; then
  DB="$MNT/full.db"
  "$SGDSIM" run "$S" --db "$DB" --quiet || fail "tmpfs reference run"
  out=$("$SGDSIM" run "$S" --db "$DB" --quiet --set stop.updates=50000 --set eval.every=0 2>&1); rc=$?
  [ "$rc" = 1 ] || fail "full tmpfs: exit $rc, wanted 1 ($out)"
  case "$out" in *"database or disk is full"*) ;; *) fail "full tmpfs: message: $out" ;; esac
  check_intact "$DB" "full tmpfs"
  mount -o remount,ro "$MNT"
  expect_exit 2 "$MNT/full.db: cannot open results database for writing" -- "$SGDSIM" run "$S" --db "$DB"
  expect_exit 2 "$MNT/new.db: cannot create results database" -- "$SGDSIM" run "$S" --db "$MNT/new.db"
  mount -o remount,rw "$MNT"
  check_intact "$DB" "read-only remount"
  umount "$MNT"
else
  echo "no permission to mount a tmpfs: the full-filesystem and read-only cases are not run"
fi
# A path on a read-only filesystem that exists everywhere.
expect_exit 2 "/proc/sgdsim.db" -- "$SGDSIM" run "$S" --db /proc/sgdsim.db
finish
