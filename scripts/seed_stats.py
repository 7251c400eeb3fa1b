#!/usr/bin/env python3
"""Statistics over seeds for the experiment scripts (scripts/fasgd-exp*.sh), Python standard
library only.  A setting is a scenario name; its runs are the latest finished run of each seed
whose configuration has stop.updates = --updates (a database may hold several lengths).

  seed_stats.py summary DB [--like PATTERN] [--updates N] [--last K]
      one line per setting: n, final and last-K (default 10) validation error as
      mean +- sample standard deviation (min-max), mean staleness
  seed_stats.py welch DB SETTING_A SETTING_B [--updates N] [--last K] [--metric last|final]
      Welch's t test of mean(A) - mean(B) over the seeds (of the mean of each run's last K
      evaluations, or of its final one): t, degrees of freedom and the two-sided p-value
      (Student's t distribution via the regularised incomplete beta)

Exit codes: 0 printed, 2 bad input (missing database, a setting without runs, too few seeds
for a test).  The database is opened read-only; every value reaches SQL as a bound parameter.
"""
import argparse
import math
import sqlite3
import sys


def mean(xs):
    return sum(xs) / len(xs)


def sample_var(xs):
    """Unbiased variance (n - 1 in the denominator); 0 for a single value."""
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                    -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                + a * math.log(x) + b * math.log1p(-x))
    # the continued fraction converges fast only below the mean; use the symmetry above it
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(ln_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(ln_front) * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df (real, > 0) degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def welch(a, b):
    """Welch's unequal-variance t test: (t, df, two-sided p) for mean(a) - mean(b).

    Needs two values on each side; when both variances are 0, t is +-inf (p 0) for different
    means and 0 (p 1) for equal ones, and df is n_a + n_b - 2."""
    if len(a) < 2 or len(b) < 2:
        raise ValueError("Welch's test needs at least 2 values per side")
    va, vb = sample_var(a) / len(a), sample_var(b) / len(b)
    diff = mean(a) - mean(b)
    se2 = va + vb
    if se2 == 0.0:
        t = 0.0 if diff == 0.0 else math.copysign(math.inf, diff)
        return t, float(len(a) + len(b) - 2), (1.0 if diff == 0.0 else 0.0)
    t = diff / math.sqrt(se2)
    df = se2 * se2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    return t, df, t_two_sided_p(t, df)


RUNS_SQL = """
WITH picked AS (
  SELECT max(r.id) AS id FROM runs r
  JOIN params p ON p.run_id = r.id AND p.key = 'stop.updates'
  WHERE r.status IN ('complete', 'diverged') AND (:updates IS NULL OR p.value = :updates)
    AND r.scenario LIKE :like
  GROUP BY r.scenario, r.seed)
SELECT r.scenario, r.seed, r.status,
  (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'val_error'
   ORDER BY update_idx DESC LIMIT 1),
  (SELECT avg(value) FROM (SELECT value FROM metrics m WHERE m.run_id = r.id
   AND m.name = 'val_error' ORDER BY update_idx DESC LIMIT :last)),
  (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'staleness_mean'
   ORDER BY update_idx DESC LIMIT 1)
FROM picked JOIN runs r ON r.id = picked.id ORDER BY r.scenario, r.seed"""


def open_db(path):
    try:
        con = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
        con.execute("SELECT 1 FROM runs LIMIT 1")
    except sqlite3.Error as e:
        raise SystemExit(usage_error(f"{path}: not a readable sgdsim results database ({e})"))
    return con


def usage_error(msg):
    print(f"seed_stats: {msg}", file=sys.stderr)
    return 2


def settings(con, like, updates, last):
    """{scenario: {"final": [...], "last": [...], "tau": [...], "seeds": [...], ...}}, "last"
    the means of each run's last `last` evaluations"""
    out = {}
    for scen, seed, status, final, lastk, tau in con.execute(
            RUNS_SQL, {"like": like, "updates": updates, "last": last}):
        s = out.setdefault(scen, {"final": [], "last": [], "tau": [], "seeds": [],
                                  "diverged": 0})
        s["seeds"].append(seed)
        if status == "diverged":
            s["diverged"] += 1
            continue
        for key, v in (("final", final), ("last", lastk), ("tau", tau)):
            if v is not None:
                s[key].append(v)
    return out


def spread(xs):
    """'mean +- sd (min-max)'; one value alone (no spread to show), '-' without values."""
    if not xs:
        return "-"
    if len(xs) == 1:
        return f"{xs[0]:.4f} (one seed)"
    return (f"{mean(xs):.4f} ± {math.sqrt(sample_var(xs)):.4f} "
            f"({min(xs):.4f}–{max(xs):.4f})")


def cmd_summary(args):
    con = open_db(args.db)
    rows = settings(con, args.like, args.updates, args.last)
    if not rows:
        return usage_error(f"{args.db}: no finished run matches {args.like!r}"
                           f" with stop.updates = {args.updates}")
    w = max(len(s) for s in rows)
    print(f"{'setting':<{w}}  n  {'final val_error: mean ± sd (min–max)':<36}  "
          f"{f'last-{args.last} mean: mean ± sd (min–max)':<36}  mean tau")
    for scen, s in rows.items():
        tau = f"{mean(s['tau']):.1f}" if s["tau"] else "-"
        n = f"{len(s['seeds'])}" + (f" ({s['diverged']} diverged)" if s["diverged"] else "")
        print(f"{scen:<{w}}  {n}  {spread(s['final']):<36}  {spread(s['last']):<36}  {tau}")
    return 0


def cmd_welch(args):
    con = open_db(args.db)
    sides = []
    for scen in (args.a, args.b):
        s = settings(con, scen, args.updates, args.last).get(scen)
        if not s or len(s[args.metric]) < 2:
            n = len(s[args.metric]) if s else 0
            return usage_error(f"{args.db}: {scen!r} has {n} finished seed(s) with"
                               f" stop.updates = {args.updates}; Welch's test needs 2")
        sides.append(s[args.metric])
    t, df, p = welch(*sides)
    what = f"last{args.last}" if args.metric == "last" else "final"
    print(f"{what} {args.a} (n={len(sides[0])}) - {args.b} (n={len(sides[1])}):"
          f" {mean(sides[0]) - mean(sides[1]):+.4f}; Welch t = {t:.3f}, df = {df:.1f},"
          f" two-sided p = {p:.3g}")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="seed_stats.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("summary", "welch"):
        p = sub.add_parser(name)
        p.add_argument("db")
        p.add_argument("--updates", type=int, default=None,
                       help="only runs with this stop.updates (default: any)")
        p.add_argument("--last", type=int, default=10,
                       help="evaluations averaged at each run's end (default 10)")
        if name == "summary":
            p.add_argument("--like", default="%", help="SQL LIKE pattern of scenario names")
        else:
            p.add_argument("a")
            p.add_argument("b")
            p.add_argument("--metric", choices=("last", "final"), default="last")
    args = ap.parse_args(argv)
    if args.last < 1:
        return usage_error(f"--last: must be >= 1, got {args.last}")
    return cmd_summary(args) if args.cmd == "summary" else cmd_welch(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
