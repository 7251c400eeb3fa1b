"""How the experiment scripts (scripts/seed_stats.py, scripts/repro_tables.py) get their
numbers: every statistic comes from `sgdsim report --json` and `sgdsim report --welch`
(analysis/seed_stats.c, the one definition of mean, sample sd and Welch's test); these
helpers only run sgdsim and format what it prints.  Python standard library only.

The binary is $SGDSIM, else `sgdsim` in PATH, else build/sgdsim of this checkout.  sgdsim's
own complaints (exit 2: a missing database, too few seeds for a test) are passed on with
its exit code.
"""
import json
import os
import shutil
import subprocess
import sys


def usage_error(prog, msg):
    print(f"{prog}: {msg}", file=sys.stderr)
    return 2


def binary():
    """The sgdsim to run; SystemExit(2) when there is none."""
    if os.environ.get("SGDSIM"):
        return os.environ["SGDSIM"]
    found = shutil.which("sgdsim")
    if found:
        return found
    built = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "sgdsim")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    raise SystemExit(usage_error("sgdsim_report", "no sgdsim: set SGDSIM, put sgdsim in PATH "
                                 "or build build/sgdsim"))


def run(args):
    """sgdsim's stdout for args (a list, never a shell line); its exit code on failure."""
    p = subprocess.run([binary()] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, check=False)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(p.returncode)
    return p.stdout


def report(db, updates=None, last=10, at=()):
    """`sgdsim report DB --json`: the statistics of every configuration, as a dict."""
    args = ["report", db, "--json", "--last", str(last)]
    if updates is not None:
        args += ["--updates", str(updates)]
    if at:
        args += ["--at", ",".join(str(u) for u in at)]
    return json.loads(run(args))


def welch(db, a, b, updates=None, last=10, final=False, metric="val_error"):
    """`sgdsim report DB --welch A B --json`: {"diff", "t", "df", "p", "a", "b", ...}."""
    args = ["report", db, "--welch", a, b, "--json", "--metric", metric]
    args += ["--final"] if final else ["--last", str(last)]
    if updates is not None:
        args += ["--updates", str(updates)]
    return json.loads(run(args))


def settings(doc, prog, keep=lambda name: True):
    """{scenario: its configuration} of a report's scenarios whose names keep accepts;
    SystemExit(2) for one that holds several configurations, which a setting (one scenario
    name) cannot stand for."""
    out = {}
    for s in (s for s in doc["scenarios"] if keep(s["scenario"])):
        if len(s["configurations"]) != 1:
            raise SystemExit(usage_error(
                prog, f"{doc['database']}: setting {s['scenario']!r} holds "
                f"{len(s['configurations'])} configurations (they differ in "
                f"{', '.join(s['axes']) or 'their configuration'}); pass --updates N"))
        out[s["scenario"]] = s["configurations"][0]
    return out


def spread(s, fmt="{:.4f}"):
    """A summary as 'mean ± sd'; one value as it is; '-' for none."""
    if s["n"] == 0:
        return "-"
    if s["n"] == 1:
        return fmt.format(s["mean"])
    return fmt.format(s["mean"]) + " ± " + fmt.format(s["sd"])
