# A file with a hot rollback journal is looked at read-only first: another program's SQLite
# database, caught mid-transaction (the file and its -journal copied while the transaction
# was open), is refused by every command that would write it (run --db, merge OUT, sweep
# --db) and by the readers, exit 2 with a message naming the file, and the file and its
# journal keep every byte: nothing rolls the journal back (before, `run --db` played it back,
# 1.8 MB of journal to 8 KB, and only then refused the file).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
cd "$TMP" || exit 1
small_scenario s.json

python3 - <<'PY' || fail "python3 could not make a hot journal"
import sqlite3, shutil
con = sqlite3.connect("src.db", isolation_level=None)
con.execute("CREATE TABLE notes(x TEXT)")
con.execute("BEGIN")
for i in range(20000):
    con.execute("INSERT INTO notes VALUES (?)", ("keep me %d " % i * 8,))
con.execute("COMMIT")
con.execute("PRAGMA cache_size = 10")  # the update spills into the file: the journal is hot
con.execute("BEGIN")
con.execute("UPDATE notes SET x = 'gone'")
shutil.copyfile("src.db", "hot.db")
shutil.copyfile("src.db-journal", "hot.db-journal")
con.execute("ROLLBACK")
PY
[ -s hot.db-journal ] || fail "no journal to test with"
sums=$(sha256sum hot.db hot.db-journal)
"$SGDSIM" run s.json --db good.db --quiet || fail "reference run"

unchanged() { # unchanged LABEL
  [ "$(sha256sum hot.db hot.db-journal)" = "$sums" ] || fail "$1: hot.db or its journal changed"
  [ ! -e hot.db-wal ] && [ ! -e hot.db-shm ] || fail "$1: left a -wal or -shm beside hot.db"
}
expect_exit 2 "hot.db-journal holds an interrupted transaction" -- "$SGDSIM" run s.json --db hot.db
unchanged "run --db"
expect_exit 2 "hot.db" -- "$SGDSIM" merge hot.db good.db
unchanged "merge into it"
expect_exit 2 "hot.db" -- "$SGDSIM" sweep s.json --db hot.db --set seed=1,2
unchanged "sweep --db"
expect_exit 2 "hot.db-journal holds an interrupted transaction" -- "$SGDSIM" query hot.db "SELECT 1"
unchanged "query"
expect_exit 2 "hot.db" -- "$SGDSIM" export hot.db --csv out
unchanged "export"
expect_exit 2 "hot.db" -- "$SGDSIM" merge out.db hot.db
unchanged "merge from it"
finish
