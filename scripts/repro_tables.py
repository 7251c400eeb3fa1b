#!/usr/bin/env python3
"""The tables of docs/reproductions.md, as Markdown, from an experiment script's database
(scripts/fasgd-exp1.sh, fasgd-exp2.sh, fasgd-exp3.sh), Python standard library only.

  repro_tables.py exp1 DB --updates N [--paper]   Experiment 1, and its values along the way
  repro_tables.py exp2 DB --updates N [--paper]   Experiment 2, with staleness percentiles
  repro_tables.py ablation DB --updates N         Experiment 2's ablation (last-10 means)
  repro_tables.py exp3 DB --updates N             Experiment 3: truthful and FRED counting

A setting's runs are the latest finished run of each seed with stop.updates = N (as in
scripts/seed_stats.py, whose statistics these are); errors are mean +- sample standard
deviation over the seeds (one value alone: that seed's), counts means over the seeds, and a
comparison the difference of the last-10 means with the two-sided p of Welch's t test ("-"
with fewer than two seeds a side).  Runs that diverged are left out of every value, and a
setting without other runs is left out; the last line says how many runs and seeds the
tables hold, their machine time, and how many diverged.  --paper adds the paper's
values (MNIST).  Exit codes: 0 printed, 2 bad input (missing database, no runs).
"""
import argparse
import contextlib
import io
import math
import sys

import seed_stats as ss

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

RUNS_SQL = """
WITH picked AS (
  SELECT max(r.id) AS id FROM runs r
  JOIN params p ON p.run_id = r.id AND p.key = 'stop.updates' AND p.value = :updates
  WHERE r.status IN ('complete', 'diverged') AND substr(r.scenario, 1, length(:prefix)) = :prefix
  GROUP BY r.scenario, r.seed)
SELECT r.id, r.scenario, r.seed, r.status, r.wall_s,
  (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'val_error'
   ORDER BY update_idx DESC LIMIT 1),
  (SELECT avg(value) FROM (SELECT value FROM metrics m WHERE m.run_id = r.id
   AND m.name = 'val_error' ORDER BY update_idx DESC LIMIT 10)),
  (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'staleness_mean'
   ORDER BY update_idx DESC LIMIT 1)
FROM picked JOIN runs r ON r.id = picked.id ORDER BY r.id"""


class Runs:
    """The runs of one length and experiment in a database, by setting (scenario name)."""

    def __init__(self, con, updates, prefix):
        self.con, self.by = con, {}
        for rid, scen, seed, status, wall, final, last10, tau in con.execute(
                RUNS_SQL, {"updates": updates, "prefix": prefix}):
            run = {"id": rid, "seed": seed, "diverged": status == "diverged",
                   "wall": wall or 0.0, "final": final, "last10": last10, "tau": tau}
            for kind, sent, skipped in con.execute(
                    "SELECT kind, sent_msgs, skipped_msgs FROM traffic WHERE run_id = ?",
                    (rid,)):
                run[kind + "_sent"], run[kind + "_potential"] = sent, sent + skipped
            self.by.setdefault(scen, []).append(run)

    def present(self, *settings):
        """Those of the settings that have runs (diverged or not)."""
        return [x for x in settings if x in self.by]

    def has(self, *settings):
        """Whether each setting has a run that did not diverge."""
        return all(s in self.by and self.finished(s) for s in settings)

    def finished(self, setting):
        """The runs that did not diverge (as scripts/seed_stats.py, whose tests these are)."""
        return [r for r in self.by[setting] if not r["diverged"]]

    def values(self, setting, key):
        return [r[key] for r in self.finished(setting) if r.get(key) is not None]

    def metric_at(self, run, update):
        row = self.con.execute("SELECT value FROM metrics WHERE run_id = ? AND name = "
                               "'val_error' AND update_idx = ?", (run["id"], update)).fetchone()
        return row[0] if row else None

    def best(self, run):
        return self.con.execute("SELECT min(value) FROM metrics WHERE run_id = ? AND name = "
                                "'val_error'", (run["id"],)).fetchone()[0]

    def tau_quantile(self, run, q):
        """The smallest tau with at least q of the run's gradients at or below it."""
        rows = self.con.execute("SELECT tau, count FROM staleness WHERE run_id = ? ORDER BY "
                                "tau", (run["id"],)).fetchall()
        total, acc = sum(n for _, n in rows), 0
        for tau, n in rows:
            acc += n
            if acc >= q * total:
                return tau
        return None

    def footer(self, settings):
        runs = [r for s in dict.fromkeys(settings) for r in self.by[s]]
        seeds = sorted({r["seed"] for r in runs})
        walls = [r["wall"] for r in runs]
        diverged = sum(r["diverged"] for r in runs)
        return (f"{len(runs)} run{'' if len(runs) == 1 else 's'}, "
                f"seed{'' if len(seeds) == 1 else 's'} {','.join(map(str, seeds))}, "
                f"{sum(walls) / 3600:.2f} hours of machine time "
                f"({min(walls):.0f}-{max(walls):.0f} s per run)"
                + (f"; {diverged} diverged, left out of the values" if diverged else ""))


def ms(xs, fmt="{:.4f}"):
    """mean +- sample sd; a single value as it is; '-' for none."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    if len(xs) == 1:
        return fmt.format(xs[0])
    return fmt.format(ss.mean(xs)) + " ± " + fmt.format(math.sqrt(ss.sample_var(xs)))


def count(x):
    return f"{round(x):,}"


def welch(runs, a, b):
    """'+0.0123, p = 0.045': mean last-10 of a minus b's, Welch's p; '-' under 2 seeds."""
    xa, xb = runs.values(a, "last10"), runs.values(b, "last10")
    if len(xa) < 2 or len(xb) < 2:
        return "-"
    _, _, p = ss.welch(xa, xb)
    return f"{ss.mean(xa) - ss.mean(xb):+.4f}, p = {p:.3g}"


def errors(runs, setting):
    """The final and last-10 validation error columns."""
    return [ms(runs.values(setting, "final")), ms(runs.values(setting, "last10"))]


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


def exp1(runs, updates, paper):
    head = ["μ", "λ"] + versus_head(paper) + ["mean τ", "FASGD − SASGD (last-10), Welch p"]
    rows, along, used = [], [], []
    marks = [updates // 10, updates // 4, updates // 2, updates]
    for (mu, lam), paper_values in EXP1.items():
        f, s = f"exp1/fasgd/mu={mu}/lambda={lam}", f"exp1/sasgd/mu={mu}/lambda={lam}"
        used += runs.present(f, s)
        if not runs.has(f, s):
            continue
        rows.append([str(mu), str(lam)] + versus_cells(runs, f, s, paper_values, paper)
                    + [f"{ss.mean(runs.values(f, 'tau')):.1f}", welch(runs, f, s)])
        for alg, setting in (("FASGD", f), ("SASGD", s)):
            along.append([f"{alg} μ={mu} λ={lam}"]
                         + [ms([runs.metric_at(r, u) for r in runs.finished(setting)])
                            for u in marks]
                         + [ms([runs.best(r) for r in runs.finished(setting)])])
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
        quantile = [ss.mean([runs.tau_quantile(r, q) for r in runs.finished(f)])
                    for q in (0.5, 0.99)]
        rows.append([str(lam)] + versus_cells(runs, f, s, paper_values, paper)
                    + [welch(runs, s, f), count(ss.mean(runs.values(f, "tau")))]
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
            rows.append([str(lam)] + [ms(runs.values(s, "last10")) for s in settings])
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
    v = runs.finished(setting)
    if not always_counts and all(r[kind + "_sent"] == r[kind + "_potential"] for r in v):
        return "all"
    return (f"{count(ss.mean([r[kind + '_sent'] for r in v]))} / "
            f"{count(ss.mean([r[kind + '_potential'] for r in v]))}")


def reduction(runs, setting):
    return "{:.2f}×".format(ss.mean([
        (r["fetch_potential"] + r["push_potential"]) / (r["fetch_sent"] + r["push_sent"])
        for r in runs.finished(setting)]))


def exp3(runs):
    truthful = [EXP3_C0] + [f"exp3/c_fetch={c}/c_push=0" for c in EXP3_FETCH] + \
        [f"exp3/c_fetch=0/c_push={c}" for c in EXP3_PUSH]
    used = runs.present(*truthful)
    rows = []
    for s in (s for s in used if runs.has(s)):
        rows.append([exp3_label(s), sent_column(runs, s, "fetch", s == EXP3_C0),
                     sent_column(runs, s, "push", s == EXP3_C0), reduction(runs, s)]
                    + errors(runs, s) + [ms(runs.values(s, "tau"), "{:.0f}")])
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
                    + [ms(runs.values(same, "last10")) if runs.has(same) else "-",
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
    runs = Runs(ss.open_db(args.db), args.updates, PREFIX[args.table])
    if not runs.by:
        return ss.usage_error(f"{args.db}: no finished {args.table} run with stop.updates = "
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
        return ss.usage_error(f"{args.db}: no setting of the {args.table} table has runs with "
                              f"stop.updates = {args.updates}")
    print(text.getvalue() + runs.footer(used))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
