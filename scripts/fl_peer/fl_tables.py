#!/usr/bin/env python3
"""Tables of federated runs from two simulators (sgdsim and FLGo, scripts/fl-peer-compare.sh)
or of several algorithms in one (scripts/fedbuff-claim.sh), as Markdown.  Standard library
only.  Unlike scripts/repro_tables.py, which formats what `sgdsim report --json/--welch`
computes, it computes its statistics itself: one side's curves come from another simulator
and are in no results database that sgdsim reads.

Curves are CSV files with the columns side, algorithm, seed, round, client_trips,
sim_time_s, test_accuracy (others are ignored): one row per evaluation of the global model.
Run summaries are FLGo's JSON files (scripts/fl_peer/flgo_run.py --summary) or CSV files
with the columns side, algorithm, seed, rounds, sim_time_s, wall_per_round_s (optional:
wall_per_round_no_eval_s, staleness_mean).

  fl_tables.py compare --curves F... [--runs F...] [--per-round 10]
                       [--rounds R...] [--times T...]
      Accuracy at matched rounds (R rounds = R x per-round client trips: an asynchronous
      run's "round" is per-round trips) and at matched simulated time (seconds), per
      (algorithm, side): mean +- sample sd over seeds (n), read at the last evaluation at or
      before the point; a run that ended before the point is left out of it (n says so).
      Where both sides have a cell: the difference of means and Welch's t test.  Then
      simulated seconds and wall seconds per round.
  fl_tables.py ttt --curves F... --target ACC --base ALG [--side SIDE]
      Time to a target accuracy: per (algorithm, seed) the first evaluation at or above ACC,
      its simulated time and client trips; mean +- sd; and each other algorithm paired with
      --base by seed: the per-seed speed-up (base's time / its time), the geometric mean
      speed-up with a 95% interval (t on the log ratios) and the exact two-sided sign-flip
      test of the log ratios (all 2^n sign patterns).  Seeds where either did not reach ACC
      are counted and left out of the pairs.

  fl_tables.py timing --csv F
      Wall time per round of the two simulators measured alternately (scripts/fl-peer-
      compare.sh timing): F has the columns side, algorithm, repeat, evaluation, rounds,
      wall_per_round_s.  Per (algorithm, evaluation, side) the median [min, max] over
      repeats; and per (algorithm, evaluation) the ratio flgo / sgdsim of each repeat (the
      two runs measured next to each other), median [min, max].

Exit codes: 0 printed, 2 bad input (a missing or malformed file, a bad argument)."""
import argparse
import csv
import itertools
import json
import math
import os
import sys

CURVE_COLUMNS = ("side", "algorithm", "seed", "round", "client_trips", "sim_time_s",
                 "test_accuracy")


class BadInput(Exception):
    pass


def number(text, what):
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise BadInput("%s: %r is not a number" % (what, text))
    if not math.isfinite(v):
        raise BadInput("%s: %r is not finite" % (what, text))
    return v


def read_curves(paths):
    """{(side, algorithm): {seed: [(trips, sim_time_s, accuracy), ...] by trips}}"""
    out = {}
    for path in paths:
        try:
            with open(path, newline="") as f:
                r = csv.DictReader(f)
                missing = [c for c in CURVE_COLUMNS if c not in (r.fieldnames or [])]
                if missing:
                    raise BadInput("%s: no column %s" % (path, ", ".join(missing)))
                for i, row in enumerate(r, start=2):
                    where = "%s line %d" % (path, i)
                    if row["test_accuracy"] in ("", None):
                        continue  # not finite in the run (sgdsim writes NULL)
                    key = (row["side"], row["algorithm"])
                    seed = int(number(row["seed"], where + " seed"))
                    point = (number(row["client_trips"], where + " client_trips"),
                             number(row["sim_time_s"], where + " sim_time_s"),
                             number(row["test_accuracy"], where + " test_accuracy"))
                    out.setdefault(key, {}).setdefault(seed, []).append(point)
        except OSError as e:
            raise BadInput("%s: %s" % (path, e.strerror))
    for runs in out.values():
        for pts in runs.values():
            pts.sort()
    return out


RUN_FIELDS = ("rounds", "sim_time_s", "wall_per_round_s", "wall_per_round_no_eval_s",
              "staleness_mean")


def read_runs(paths):
    """{(side, algorithm): {seed: {field: float or None}}}"""
    out = {}
    for path in paths:
        try:
            if path.endswith(".json"):
                with open(path) as f:
                    try:
                        rows = [json.load(f)]
                    except ValueError as e:
                        raise BadInput("%s: not JSON (%s)" % (path, e))
            else:
                with open(path, newline="") as f:
                    rows = list(csv.DictReader(f))
        except OSError as e:
            raise BadInput("%s: %s" % (path, e.strerror))
        for row in rows:
            for c in ("side", "algorithm", "seed", "rounds", "sim_time_s", "wall_per_round_s"):
                if c not in row:
                    raise BadInput("%s: no field %s" % (path, c))
            vals = {}
            for c in RUN_FIELDS:
                v = row.get(c)
                vals[c] = None if v in (None, "") else number(v, "%s %s" % (path, c))
            key = (str(row["side"]), str(row["algorithm"]))
            out.setdefault(key, {})[int(number(row["seed"], path + " seed"))] = vals
    return out


def mean_sd(xs):
    n = len(xs)
    if n == 0:
        return None, None, 0
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else None
    return m, sd, n


def fmt_ms(xs, f="%.4f"):
    m, sd, n = mean_sd(xs)
    if n == 0:
        return "—"
    if sd is None:
        return (f % m) + " (n=1)"
    return "%s ± %s (n=%d)" % (f % m, f % sd, n)


def betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b) (continued fraction, modified Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - betainc(b, a, 1.0 - x)
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return front * h


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(q, df):
    """The q-quantile (q > 0.5) of Student's t, by bisection on the two-sided p."""
    lo, hi = 0.0, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_two_sided_p(mid, df) > 2 * (1 - q):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def welch(xs, ys):
    """(difference of means y - x, t, df, two-sided p) or None with fewer than 2 each."""
    mx, sx, nx = mean_sd(xs)
    my, sy, ny = mean_sd(ys)
    if nx < 2 or ny < 2:
        return None
    vx, vy = sx * sx / nx, sy * sy / ny
    if vx + vy == 0:
        return (my - mx, None, None, None)
    t = (my - mx) / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx * vx / (nx - 1) + vy * vy / (ny - 1))
    return (my - mx, t, df, t_two_sided_p(t, df))


def at_or_before(points, axis, x):
    """Accuracy at the last evaluation with points[axis] <= x, or None when the run's last
    evaluation lies before x (it never got there)."""
    if not points or max(p[axis] for p in points) < x:
        return None
    best = None
    for p in points:
        if p[axis] <= x + 1e-9 and (best is None or p[axis] >= best[axis]):
            best = p
    return None if best is None else best[2]


def sides_of(curves):
    return sorted({s for s, _ in curves})


def algorithms_of(curves):
    order = {"fedavg": 0, "fedbuff": 1, "fedasync": 2}
    return sorted({a for _, a in curves}, key=lambda a: (order.get(a, 9), a))


def matched_table(curves, axis, points, label, scale, sgdsim_missing):
    sides, algs = sides_of(curves), algorithms_of(curves)
    cols = [(a, s) for a in algs for s in (sides if not sgdsim_missing else sorted(set(sides) | {"sgdsim"}))]
    head = [label] + ["%s, %s" % (a, s) for a, s in cols]
    pairs = [a for a in algs if (("flgo", a) in curves and ("sgdsim", a) in curves)]
    head += ["%s: sgdsim − flgo (Welch p)" % a for a in pairs]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for x in points:
        cells = [("%g" % x)]
        vals = {}
        for a, s in cols:
            runs = curves.get((s, a))
            if runs is None:
                cells.append("not run" if s == "sgdsim" else "—")
                continue
            xs = [v for v in (at_or_before(p, axis, x * scale) for p in runs.values()) if v is not None]
            vals[(a, s)] = xs
            cells.append(fmt_ms(xs))
        for a in pairs:
            w = welch(vals.get((a, "flgo"), []), vals.get((a, "sgdsim"), []))
            if w is None:
                cells.append("— (fewer than 2 seeds)")
            elif w[1] is None:
                cells.append("%+.4f (no spread)" % w[0])
            else:
                cells.append("%+.4f (p = %.3f)" % (w[0], w[3]))
        print("| " + " | ".join(cells) + " |")


def cost_table(curves, runs):
    print("Per server update: a round of FedAvg or FedBuff, one client trip of FedAsync.\n")
    print("| algorithm | side | rounds | simulated s per round | wall s per round | "
          "wall s per round, evaluation excluded | mean staleness |")
    print("|---|---|---|---|---|---|---|")
    for a in algorithms_of(curves) or algorithms_of(runs):
        for s in sorted(set(sides_of(curves)) | set(sides_of(runs))):
            r = runs.get((s, a))
            if not r:
                continue
            per = [v["sim_time_s"] / v["rounds"] for v in r.values() if v["rounds"]]
            wall = [v["wall_per_round_s"] for v in r.values() if v["wall_per_round_s"] is not None]
            noev = [v["wall_per_round_no_eval_s"] for v in r.values()
                    if v["wall_per_round_no_eval_s"] is not None]
            tau = [v["staleness_mean"] for v in r.values() if v["staleness_mean"] is not None]
            rounds = sorted({int(v["rounds"]) for v in r.values()})
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                a, s, ",".join(str(x) for x in rounds), fmt_ms(per, "%.3f"),
                fmt_ms(wall, "%.4f"), fmt_ms(noev, "%.4f") if noev else "—",
                fmt_ms(tau, "%.2f") if tau else "—"))


def cmd_compare(a):
    curves = read_curves(a.curves)
    runs = read_runs(a.runs or [])
    sgdsim_missing = "sgdsim" not in sides_of(curves)
    print("### Accuracy at matched rounds (1 round = %d client trips)\n" % a.per_round)
    matched_table(curves, 0, a.rounds, "rounds", a.per_round, sgdsim_missing)
    print("\n### Accuracy at matched simulated time\n")
    matched_table(curves, 1, a.times, "simulated s", 1.0, sgdsim_missing)
    if runs:
        print("\n### Simulated and wall time per round\n")
        cost_table(curves, runs)
    return 0


def sign_flip_p(ds):
    """Exact two-sided sign-flip test of the mean of ds: the share of the 2^n sign patterns
    whose |mean| is at least the observed one."""
    obs = abs(sum(ds))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(ds))
               if abs(sum(s * d for s, d in zip(signs, ds))) >= obs - 1e-12)
    return hits / 2 ** len(ds)


def first_reach(points, target):
    for trips, t, acc in points:
        if acc >= target:
            return trips, t
    return None


def cmd_ttt(a):
    curves = read_curves(a.curves)
    side = a.side
    algs = [x for x in algorithms_of(curves) if (side, x) in curves]
    if a.base not in algs:
        raise BadInput("--base %s: no curves of it on side %s" % (a.base, side))
    reach = {x: {seed: first_reach(p, a.target) for seed, p in curves[(side, x)].items()}
             for x in algs}
    print("### Time to %.4f test accuracy (%s)\n" % (a.target, side))
    print("| algorithm | seeds reaching it | simulated s | client trips |")
    print("|---|---|---|---|")
    for x in algs:
        got = [v for v in reach[x].values() if v is not None]
        print("| %s | %d of %d | %s | %s |" % (x, len(got), len(reach[x]),
                                               fmt_ms([v[1] for v in got], "%.1f"),
                                               fmt_ms([v[0] for v in got], "%.0f")))
    print("\nPer seed, simulated s (client trips); '—' = not reached:\n")
    seeds = sorted({s for x in algs for s in reach[x]})
    print("| seed | " + " | ".join(algs) + " |")
    print("|---|" + "---|" * len(algs))
    for s in seeds:
        cells = []
        for x in algs:
            v = reach[x].get(s)
            cells.append("—" if v is None else "%.1f (%.0f)" % (v[1], v[0]))
        print("| %d | %s |" % (s, " | ".join(cells)))
    print("\nPaired with %s by seed (speed-up = %s's value / the other's; > 1: the other is "
          "faster):\n" % (a.base, a.base))
    print("| algorithm | measure | pairs | geometric mean speed-up [95% interval] | "
          "per-seed speed-ups | sign-flip p |")
    print("|---|---|---|---|---|---|")
    for x in algs:
        if x == a.base:
            continue
        for name, k in (("simulated time", 1), ("client trips", 0)):
            ratios = []
            for s in seeds:
                b, o = reach[a.base].get(s), reach[x].get(s)
                if b is not None and o is not None and o[k] > 0 and b[k] > 0:
                    ratios.append((s, b[k] / o[k]))
            logs = [math.log(r) for _, r in ratios]
            m, sd, n = mean_sd(logs)
            if n >= 2 and sd is not None and sd > 0:
                h = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
                gm = "%.2f [%.2f, %.2f]" % (math.exp(m), math.exp(m - h), math.exp(m + h))
            elif n >= 1:
                gm = "%.2f" % math.exp(m)
            else:
                gm = "—"
            per = ", ".join("%d: %.2f" % (s, r) for s, r in ratios) or "—"
            p = "%.4f" % sign_flip_p(logs) if n >= 1 else "—"
            print("| %s | %s | %d | %s | %s | %s |" % (x, name, n, gm, per, p))
    return 0


TIMING_COLUMNS = ("side", "algorithm", "repeat", "evaluation", "rounds", "wall_per_round_s")


def median(xs):
    v = sorted(xs)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def fmt_range(xs, f):
    return "%s [%s, %s] (n=%d)" % (f % median(xs), f % min(xs), f % max(xs), len(xs))


def cmd_timing(a):
    rows = {}
    try:
        with open(a.csv, newline="") as f:
            r = csv.DictReader(f)
            missing = [c for c in TIMING_COLUMNS if c not in (r.fieldnames or [])]
            if missing:
                raise BadInput("%s: no column %s" % (a.csv, ", ".join(missing)))
            for i, row in enumerate(r, start=2):
                where = "%s line %d" % (a.csv, i)
                key = (row["algorithm"], row["evaluation"])
                rep = int(number(row["repeat"], where + " repeat"))
                rows.setdefault(key, {}).setdefault(row["side"], {})[rep] = \
                    number(row["wall_per_round_s"], where + " wall_per_round_s")
    except OSError as e:
        raise BadInput("%s: %s" % (a.csv, e.strerror))
    if not rows:
        raise BadInput("%s: no rows" % a.csv)
    order = {"fedavg": 0, "fedbuff": 1, "fedasync": 2}
    print("| algorithm | evaluation | wall s per round, flgo | wall s per round, sgdsim | "
          "flgo / sgdsim, per repeat |")
    print("|---|---|---|---|---|")
    for (alg, ev) in sorted(rows, key=lambda k: (order.get(k[0], 9), k[0], k[1])):
        by = rows[(alg, ev)]
        cells = [fmt_range(list(by[s].values()), "%.4f") if by.get(s) else "—"
                 for s in ("flgo", "sgdsim")]
        reps = sorted(set(by.get("flgo", {})) & set(by.get("sgdsim", {})))
        ratios = [by["flgo"][k] / by["sgdsim"][k] for k in reps if by["sgdsim"][k] > 0]
        cells.append(fmt_range(ratios, "%.1f") if ratios else "—")
        print("| %s | %s | %s |" % (alg, ev, " | ".join(cells)))
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--curves", nargs="+", required=True)
    c.add_argument("--runs", nargs="*")
    c.add_argument("--per-round", type=int, default=10)
    c.add_argument("--rounds", type=float, nargs="+", default=[25, 50, 100, 200])
    c.add_argument("--times", type=float, nargs="+", default=[100, 200, 400, 800])
    t = sub.add_parser("ttt")
    t.add_argument("--curves", nargs="+", required=True)
    t.add_argument("--target", type=float, required=True)
    t.add_argument("--base", default="fedavg")
    t.add_argument("--side", default="sgdsim")
    w = sub.add_parser("timing")
    w.add_argument("--csv", required=True)
    a = p.parse_args(argv)
    try:
        if a.cmd == "compare":
            if a.per_round < 1:
                raise BadInput("--per-round must be >= 1")
            if any(not (x > 0 and math.isfinite(x)) for x in a.rounds + a.times):
                raise BadInput("--rounds and --times must be finite and > 0")
            return cmd_compare(a)
        if a.cmd == "timing":
            return cmd_timing(a)
        if not (0 < a.target <= 1):
            raise BadInput("--target %g: an accuracy in (0, 1]" % a.target)
        return cmd_ttt(a)
    except BadInput as e:
        print("fl_tables.py: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
