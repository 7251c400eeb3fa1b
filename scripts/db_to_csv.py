#!/usr/bin/env python3
"""Writes every table and view of an sgdsim results database to DIR/<name>.csv: one tidy
(long) CSV per table or view, a header line, RFC 4180 quoting, NULL as an empty field and
reals written so that they read back as the same double (repr).  Standard library only
(sqlite3, csv); the database is opened read-only and never changed.

usage: scripts/db_to_csv.py DB DIR

Exit codes: 0 written, 2 bad input (not an SQLite file, a missing database, DIR not a
directory)."""
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


def write_one(con, name, directory):
    """DIR/name.csv from SELECT * FROM name, written beside and renamed into place."""
    cur = con.execute('SELECT * FROM "%s"' % name.replace('"', '""'))
    path = os.path.join(directory, name + ".csv")
    tmp = path + ".tmp"
    rows = 0
    with open(tmp, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
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
            write_one(con, name, directory)
        con.close()
    except sqlite3.DatabaseError as e:
        print("db_to_csv.py: %s: %s" % (db, e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
