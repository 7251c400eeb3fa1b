#!/usr/bin/env python3
"""Writes a slim copy of an sgdsim results database: every table whole (runs, params,
traffic, staleness and version-age histograms, tags, artifacts) except metrics, of which only
the last N evaluations of each metric of each run are kept, and, with --every K, also those at
every K-th update.  The copy is still a results database of the same schema: `sgdsim merge`,
`report`, scripts/seed_stats.py and scripts/repro_tables.py read it, and a sweep given it as
--db skips its finished points.  It is what lets long experiments be kept in the repository
(docs/data/): the some 100,000 metric rows of a 1,000,000-update run become about 100, and
xz makes what is left (mostly the histograms) some 50 kB per run.  The reproduction tables
use only the final evaluations (last value, mean of the last 10, final mean τ) and the
traffic counts.
Standard library only; SRC is opened read-only and never changed.

usage: scripts/slim_results.py SRC.db OUT.db --last N [--every K]

OUT must not exist: it is written beside itself and renamed into place when complete.
Exit codes: 0 written, 2 bad input (not an sgdsim results database, OUT exists, N or K not a
positive integer)."""
import argparse
import os
import sqlite3
import sys
import urllib.parse

APPLICATION_ID = 0x53474453  # 'SGDS', as results/rdb.c stamps every results database


def die(msg):
    print(f"slim_results: {msg}", file=sys.stderr)
    sys.exit(2)


def positive(text):
    """argparse type: an integer >= 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return n


def open_source(path):
    """SRC read-only, refusing anything that is not an sgdsim results database."""
    if not os.path.isfile(path):
        die(f"{path}: no such file")
    try:
        con = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True)
        app = con.execute("PRAGMA application_id").fetchone()[0]
        has_metrics = con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                  "name = 'metrics'").fetchone()
    except sqlite3.DatabaseError as e:
        die(f"{path}: not an SQLite database ({e})")
    if app != APPLICATION_ID or not has_metrics:
        die(f"{path}: not an sgdsim results database")
    return con


def thin_metrics(con, last, every):
    """Deletes each (run, metric)'s rows but the last `last` and, with `every`, those at a
    multiple of it; returns how many were deleted."""
    keep_every = "AND update_idx % :every != 0" if every else ""
    cur = con.execute(f"""
        DELETE FROM metrics WHERE (run_id, name, update_idx) IN (
          SELECT run_id, name, update_idx FROM (
            SELECT run_id, name, update_idx, row_number() OVER
                   (PARTITION BY run_id, name ORDER BY update_idx DESC) AS from_end
            FROM metrics)
          WHERE from_end > :last {keep_every})""", {"last": last, "every": every})
    return cur.rowcount


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--last", type=positive, required=True,
                    help="evaluations kept at the end of each metric of each run")
    ap.add_argument("--every", type=positive, default=None,
                    help="also keep the evaluations at every K-th update")
    a = ap.parse_args()
    if os.path.lexists(a.out):
        die(f"{a.out}: exists; give a new file")
    src = open_source(a.src)
    tmp = a.out + ".part"
    if os.path.lexists(tmp):
        os.remove(tmp)
    try:
        dst = sqlite3.connect(tmp)
        src.backup(dst)
        with dst:
            deleted = thin_metrics(dst, a.last, a.every)
        dst.execute("VACUUM")
        dst.close()
    except sqlite3.Error as e:
        if os.path.lexists(tmp):
            os.remove(tmp)
        die(f"{a.out}: {e}")
    os.replace(tmp, a.out)
    runs = src.execute("SELECT count(*) FROM runs").fetchone()[0]
    print(f"{a.out}: {runs} run{'' if runs == 1 else 's'}, "
          f"{deleted} metric row{'' if deleted == 1 else 's'} left out")


if __name__ == "__main__":
    main()
