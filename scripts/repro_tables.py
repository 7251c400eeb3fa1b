#!/usr/bin/env python3
"""The tables of docs/reproductions.md, as Markdown, from an experiment script's database
(scripts/fasgd-exp1.sh, fasgd-exp2.sh, fasgd-exp3.sh), Python standard library only.

  repro_tables.py exp1 DB --updates N [--paper]   Experiment 1, and its values along the way
  repro_tables.py exp2 DB --updates N [--paper]   Experiment 2, with staleness percentiles
  repro_tables.py ablation DB --updates N         Experiment 2's ablation (last-10 means)
  repro_tables.py exp3 DB --updates N             Experiment 3: truthful and FRED counting

Every number comes from `sgdsim report --json --updates N` and `sgdsim report --welch`
(scripts/sgdsim_report.py finds the binary: $SGDSIM, else sgdsim in PATH, else
build/sgdsim); this script only formats.  A setting's runs are the latest finished run of
each seed with stop.updates = N; errors are mean +- sample standard deviation over the seeds
(one value alone: that seed's), counts means over the seeds, and a comparison the difference
of the last-10 means with the two-sided p of Welch's t test ("-" with fewer than two seeds a
side).  Runs that diverged are left out of every value, and a
setting without other runs is left out; the last line says how many runs and seeds the
tables hold, their machine time, and how many diverged.  --paper adds the paper's
values (MNIST).  Exit codes: 0 printed, 2 bad input (missing database, no runs, a setting
that holds several configurations).
"""
import argparse
import contextlib
import io
import sys

import sgdsim_report as sr

# (mu, lambda) of Experiment 1 with the paper's FASGD and SASGD errors (docs/papers.md §2).
EXP1 = {(1, 128): (0.13, 0.18), (4, 32): (0.065, 0.10), (8, 16): (0.046, 0.087),
        (32, 4): (0.033, 0.062)}
# lambda of Experiment 2 with the paper's FASGD and SASGD errors.
EXP2 = {250: (0.056, 0.12), 500: (0.062, 0.135), 1000: (0.079, 0.16), 10000: (0.18, 0.30)}
EXP3_FETCH = ("1", "0.5", "0.25", "0.125", "0.0625", "0.03125", "0.015625")
EXP3_PUSH = ("0.08", "0.04", "0.02", "0.01", "0.005", "0.0025", "0.00125")
EXP3_FRED = ("1", "0.25", "0.0625", "0.015625")
EXP3_C0 = "exp3/c_fetch=0/c_push=0"
# The scenario names of each table's settings start with these.
PREFIX = {"exp1": "exp1/", "exp2": "exp2/", "ablation": "exp2/", "exp3": "exp3/"}
PROG = "repro_tables"


class Runs:
    """The settings (scenario names) of one length and experiment in a database, each its
    configuration as `sgdsim report --json` gives it: statistics over the seeds ("final",
    "last", "min", "at", "staleness", "traffic") and its runs ("per_run")."""

    def __init__(self, db, updates, prefix, at=()):
        self.db, self.updates = db, updates
        doc = sr.report(db, updates=updates, last=10, at=at)
        self.at = doc["statistics"]["at"]
        self.by = sr.settings(doc, PROG, keep=lambda name: name.startswith(prefix))

    def present(self, *settings):
        """Those of the settings that have runs (diverged or not)."""
        return [x for x in settings if x in self.by]

    def has(self, *settings):
        """Whether each setting has a run that did not diverge."""
        return all(s in self.by and self.by[s]["n_seeds"] > self.by[s]["n_diverged"]
                   for s in settings)

    def stats(self, setting, window, metric="val_error"):
        """The summary over the seeds of a metric's window ("final", "last", "min")."""
        return self.by[setting][window][metric]

    def at_stats(self, setting, update, metric="val_error"):
        return self.by[setting]["at"][self.at.index(update)]["values"][metric]

    def finished(self, setting):
        """The runs that did not diverge (sgdsim's statistics leave the others out)."""
        return [r for r in self.by[setting]["per_run"] if not r["diverged"]]

    def footer(self, settings):
        runs = [r for s in dict.fromkeys(settings) for r in self.by[s]["per_run"]]
        seeds = sorted({r["seed"] for r in runs})
        walls = [r["wall_s"] or 0.0 for r in runs]
        diverged = sum(r["diverged"] for r in runs)
        return (f"{len(runs)} run{'' if len(runs) == 1 else 's'}, "
                f"seed{'' if len(seeds) == 1 else 's'} {','.join(map(str, seeds))}, "
                f"{sum(walls) / 3600:.2f} hours of machine time "
                f"({min(walls):.0f}-{max(walls):.0f} s per run)"
                + (f"; {diverged} diverged, left out of the values" if diverged else ""))


ms = sr.spread


def count(x):
    return f"{round(x):,}"


def welch(runs, a, b):
    """'+0.0123, p = 0.045': mean last-10 of a minus b's, Welch's p; '-' under 2 seeds."""
    if runs.stats(a, "last")["n"] < 2 or runs.stats(b, "last")["n"] < 2:
        return "-"
    w = sr.welch(runs.db, a, b, updates=runs.updates, last=10)
    return f"{w['diff']:+.4f}, p = {w['p']:.3g}"


def errors(runs, setting):
    """The final and last-10 validation error columns."""
    return [ms(runs.stats(setting, "final")), ms(runs.stats(setting, "last"))]


def tau(runs, setting):
    """The mean staleness over the seeds (each run's final staleness_mean)."""
    return runs.stats(setting, "final", "staleness_mean")


def versus_head(paper):
    """Experiments 1 and 2's FASGD and SASGD error columns, with the paper's when asked."""
    return ["FASGD last", "FASGD last-10"] + ["paper FASGD"] * paper + \
        ["SASGD last", "SASGD last-10"] + ["paper SASGD"] * paper


def versus_cells(runs, fasgd, sasgd, paper_values, paper):
    pf, ps = paper_values
    return errors(runs, fasgd) + [str(pf)] * paper + errors(runs, sasgd) + [str(ps)] * paper


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def exp1_marks(updates):
    """The updates Experiment 1's values along the way are read at."""
    return [updates // 10, updates // 4, updates // 2, updates]


def exp1(runs, updates, paper):
    head = ["μ", "λ"] + versus_head(paper) + ["mean τ", "FASGD − SASGD (last-10), Welch p"]
    rows, along, used = [], [], []
    marks = exp1_marks(updates)
    for (mu, lam), paper_values in EXP1.items():
        f, s = f"exp1/fasgd/mu={mu}/lambda={lam}", f"exp1/sasgd/mu={mu}/lambda={lam}"
        used += runs.present(f, s)
        if not runs.has(f, s):
            continue
        rows.append([str(mu), str(lam)] + versus_cells(runs, f, s, paper_values, paper)
                    + [f"{tau(runs, f)['mean']:.1f}", welch(runs, f, s)])
        for alg, setting in (("FASGD", f), ("SASGD", s)):
            along.append([f"{alg} μ={mu} λ={lam}"]
                         + [ms(runs.at_stats(setting, u)) for u in marks]
                         + [ms(runs.stats(setting, "min"))])
    table(head, rows)
    table(["run"] + [f"{u:,}" for u in marks] + ["best"], along)
    return used


def exp2(runs, paper):
    head = ["λ"] + versus_head(paper) + ["gap (last-10), Welch p", "mean τ", "p50 τ", "p99 τ"]
    rows, used = [], []
    for lam, paper_values in EXP2.items():
        f, s = f"exp2/fasgd/lambda={lam}", f"exp2/sasgd/lambda={lam}"
        used += runs.present(f, s)
        if not runs.has(f, s):
            continue
        quantile = [runs.by[f]["staleness"][q]["mean"] for q in ("p50", "p99")]
        rows.append([str(lam)] + versus_cells(runs, f, s, paper_values, paper)
                    + [welch(runs, s, f), count(tau(runs, f)["mean"])]
                    + [count(x) for x in quantile])
    table(head, rows)
    return used


def ablation(runs):
    kinds = ("sasgd", "fasgd", "async+norm", "sasgd-paper+norm")
    rows, used = [], []
    for lam in EXP2:
        settings = [f"exp2/{k}/lambda={lam}" for k in kinds]
        used += runs.present(*settings)
        if runs.has(*settings):
            rows.append([str(lam)] + [ms(runs.stats(s, "last")) for s in settings])
    table(["λ", "SASGD 1/(τ+1), lr 0.04", "FASGD = 1/(τ+1) + normaliser",
           "normaliser, no staleness scaling", "SASGD α/τ + normaliser"], rows)
    return used


def exp3_label(setting):
    fred = "/fred-tau/" in setting
    c_fetch, c_push = (p.split("=")[1] for p in setting.split("/")[-2:])
    if c_fetch == "0" and c_push == "0":
        return "c = 0 (= FASGD)"
    if c_fetch != "0":
        return f"c_fetch = {c_fetch}" + (", FRED τ" if fred else "")
    return f"c_push = {c_push}"


def sent_column(runs, setting, kind, always_counts):
    """'sent / potential' means over the seeds, or 'all' when every opportunity was sent."""
    t = runs.by[setting]["traffic"][kind]
    if not always_counts and t["skipped_msgs"]["max"] == 0:
        return "all"
    return f"{count(t['sent_msgs']['mean'])} / {count(t['potential_msgs']['mean'])}"


def reduction(runs, setting):
    return "{:.2f}×".format(runs.by[setting]["traffic_reduction"]["mean"])


def exp3(runs):
    truthful = [EXP3_C0] + [f"exp3/c_fetch={c}/c_push=0" for c in EXP3_FETCH] + \
        [f"exp3/c_fetch=0/c_push={c}" for c in EXP3_PUSH]
    used = runs.present(*truthful)
    rows = []
    for s in (s for s in used if runs.has(s)):
        rows.append([exp3_label(s), sent_column(runs, s, "fetch", s == EXP3_C0),
                     sent_column(runs, s, "push", s == EXP3_C0), reduction(runs, s)]
                    + errors(runs, s) + [ms(tau(runs, s), "{:.0f}")])
    table(["run", "fetches sent / potential", "pushes sent / potential", "total reduction",
           "val. error last", "last-10", "mean τ"], rows)
    rows = []
    for c in EXP3_FRED:
        s, same = f"exp3/fred-tau/c_fetch={c}/c_push=0", f"exp3/c_fetch={c}/c_push=0"
        used += runs.present(s)
        if not runs.has(s):
            continue
        rows.append([exp3_label(s), sent_column(runs, s, "fetch", True), reduction(runs, s)]
                    + errors(runs, s)
                    + [ms(runs.stats(same, "last")) if runs.has(same) else "-",
                       welch(runs, s, EXP3_C0) if runs.has(EXP3_C0) else "-"])
    if rows:
        table(["run", "fetches sent / potential", "total reduction", "val. error last",
               "last-10", "truthful τ, same c_fetch (last-10)", "last-10 − c = 0: Welch"],
              rows)
    return used


def main(argv):
    ap = argparse.ArgumentParser(prog="repro_tables.py", description=__doc__.split("\n")[0])
    ap.add_argument("table", choices=("exp1", "exp2", "ablation", "exp3"))
    ap.add_argument("db")
    ap.add_argument("--updates", type=int, required=True, help="stop.updates of the runs")
    ap.add_argument("--paper", action="store_true", help="add the paper's values (MNIST)")
    args = ap.parse_args(argv)
    marks = exp1_marks(args.updates) if args.table == "exp1" else ()
    runs = Runs(args.db, args.updates, PREFIX[args.table], at=sorted(set(marks)))
    if not runs.by:
        return sr.usage_error(PROG, f"{args.db}: no finished {args.table} run with stop.updates = "
                              f"{args.updates}")
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        if args.table == "exp1":
            used = exp1(runs, args.updates, args.paper)
        elif args.table == "exp2":
            used = exp2(runs, args.paper)
        elif args.table == "ablation":
            used = ablation(runs)
        else:
            used = exp3(runs)
    if not used:
        return sr.usage_error(PROG, f"{args.db}: no setting of the {args.table} table has runs with "
                              f"stop.updates = {args.updates}")
    print(text.getvalue() + runs.footer(used))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
