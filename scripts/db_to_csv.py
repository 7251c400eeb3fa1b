#!/usr/bin/env python3
"""Writes every table and view of an sgdsim results database to DIR/<name>.csv: one tidy
(long) CSV per table or view, a header line, RFC 4180 quoting, NULL as an empty field and
reals written so that they read back as the same double (repr).  Standard library only
(sqlite3, csv); the database is opened read-only and never changed.

usage: scripts/db_to_csv.py DB DIR

File names follow sgdsim export (docs/results.md, "Files sgdsim writes"): every byte of a
name outside A-Z a-z 0-9 _ - is written as %XX, so a file is always inside DIR; each file
is written into a new temporary file beside it (O_EXCL | O_NOFOLLOW) and renamed into
place; a file that would be DB or its -wal/-shm/-journal is refused before any is written.

Exit codes: 0 written, 2 bad input (not an SQLite file, a missing database, DIR not a
directory, a file that would replace DB)."""
import csv
import os
import sqlite3
import sys
import urllib.parse


def cell(v):
    """A column value as CSV text: NULL empty, reals exact, bytes as hex."""
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, bytes):
        return v.hex()
    return str(v)


PLAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def file_name(name):
    """A table's name as a file name that stays inside DIR (as sgdsim export)."""
    raw = name.encode("utf-8", "surrogateescape")
    return "".join(chr(b) if b in PLAIN else "%%%02X" % b for b in raw) + ".csv"


def is_db_file(path, db):
    """Whether path is db or one of its companions, by file or by directory and name."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        other = os.path.realpath(db) + suffix
        if os.path.realpath(path) == other:
            return True
        if os.path.exists(path) and os.path.exists(other) and os.path.samefile(path, other):
            return True
    return False


def create_temp(path):
    """A new file beside path that no planted file or link can stand in for."""
    for k in range(100):
        tmp = "%s.tmp.%d.%d" % (path, os.getpid(), k)
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(path + ".tmp.*")


def write_one(con, name, directory):
    """DIR/<encoded name>.csv from SELECT * FROM name, written beside and renamed into place."""
    cur = con.execute('SELECT * FROM "%s"' % name.replace('"', '""'))
    path = os.path.join(directory, file_name(name))
    tmp, fd = create_temp(path)
    rows = 0
    with open(fd, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
        w = csv.writer(f)
        w.writerow([d[0] for d in cur.description])
        for row in cur:
            w.writerow([cell(v) for v in row])
            rows += 1
    os.replace(tmp, path)
    print("%s: %d row%s" % (path, rows, "" if rows == 1 else "s"))


def main(argv):
    if len(argv) != 3:
        print("usage: db_to_csv.py DB DIR", file=sys.stderr)
        return 2
    db, directory = argv[1], argv[2]
    if not os.path.isfile(db):
        print("db_to_csv.py: %s: no such results database" % db, file=sys.stderr)
        return 2
    os.makedirs(directory, exist_ok=True)
    if not os.path.isdir(directory):
        print("db_to_csv.py: %s: not a directory" % directory, file=sys.stderr)
        return 2
    uri = "file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(db))
    try:
        con = sqlite3.connect(uri, uri=True)
        con.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
        names = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
            " AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        for name in names:
            path = os.path.join(directory, file_name(name))
            if is_db_file(path, db):
                print("db_to_csv.py: %s: is the results database DB (%s) or one of its files;"
                      " refusing to overwrite it" % (path, db), file=sys.stderr)
                return 2
        for name in names:
            write_one(con, name, directory)
        con.close()
    except sqlite3.DatabaseError as e:
        print("db_to_csv.py: %s: %s" % (db, e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
