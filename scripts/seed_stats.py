#!/usr/bin/env python3
"""Statistics over seeds for the experiment scripts (scripts/fasgd-exp*.sh, cnn-exp.sh):
one line per setting, formatted from `sgdsim report --json` (scripts/sgdsim_report.py finds
the binary: $SGDSIM, else sgdsim in PATH, else build/sgdsim), Python standard library only.
A setting is a scenario name; its runs are the latest finished run of each seed whose
configuration has stop.updates = --updates (a database may hold several lengths).

  seed_stats.py summary DB [--like PATTERN] [--updates N] [--last K]
      one line per setting: n, final and last-K (default 10) validation error as
      mean +- sample standard deviation (min-max), mean staleness

Welch's t test between two settings is sgdsim's own: `sgdsim report DB --welch A B
[--updates N] [--last K | --final]`.

Exit codes: 0 printed, 2 bad input (missing database, no setting matches, a setting that
holds several configurations).  The database is only read, by sgdsim.
"""
import argparse
import re
import sys

import sgdsim_report as sr

PROG = "seed_stats"


def like(pattern):
    """SQL LIKE as SQLite reads it: % any run of characters, _ one, ASCII case ignored."""
    parts = ("." if c == "_" else ".*" if c == "%" else re.escape(c) for c in pattern)
    return re.compile("".join(parts), re.DOTALL | re.IGNORECASE | re.ASCII)


def spread(s):
    """'mean +- sd (min-max)'; one value alone (no spread to show), '-' without values."""
    if s["n"] == 0:
        return "-"
    if s["n"] == 1:
        return f"{s['mean']:.4f} (one seed)"
    return f"{s['mean']:.4f} ± {s['sd']:.4f} ({s['min']:.4f}–{s['max']:.4f})"


def cmd_summary(args):
    doc = sr.report(args.db, updates=args.updates, last=args.last)
    match = like(args.like)
    rows = sr.settings(doc, PROG, keep=match.fullmatch)
    if not rows:
        return sr.usage_error(PROG, f"{args.db}: no finished run matches {args.like!r}"
                              f" with stop.updates = {args.updates}")
    w = max(len(s) for s in rows)
    print(f"{'setting':<{w}}  n  {'final val_error: mean ± sd (min–max)':<36}  "
          f"{f'last-{args.last} mean: mean ± sd (min–max)':<36}  mean tau")
    for scen, c in rows.items():
        t = c["final"].get("staleness_mean")
        tau = f"{t['mean']:.1f}" if t and t["n"] else "-"
        n = f"{c['n_seeds']}" + (f" ({c['n_diverged']} diverged)" if c["n_diverged"] else "")
        final, last = c["final"].get("val_error"), c["last"].get("val_error")
        print(f"{scen:<{w}}  {n}  {spread(final) if final else '-':<36}  "
              f"{spread(last) if last else '-':<36}  {tau}")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="seed_stats.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("summary")
    p.add_argument("db")
    p.add_argument("--updates", type=int, default=None,
                   help="only runs with this stop.updates (default: any)")
    p.add_argument("--last", type=int, default=10,
                   help="evaluations averaged at each run's end (default 10)")
    p.add_argument("--like", default="%", help="SQL LIKE pattern of scenario names")
    args = ap.parse_args(argv)
    if args.last < 1:
        return sr.usage_error(PROG, f"--last: must be >= 1, got {args.last}")
    if args.updates is not None and args.updates < 1:
        return sr.usage_error(PROG, f"--updates: must be >= 1, got {args.updates}")
    return cmd_summary(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
