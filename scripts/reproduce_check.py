#!/usr/bin/env python3
"""Compares the results of `scripts/reproduce.sh --quick` with the values stored in the
repository (scripts/reproduce-quick.ref), Python standard library only.

  reproduce_check.py REF DIR             compare; print check, expected, got, tolerance, verdict
  reproduce_check.py REF DIR --update    rewrite REF's expected values, kernel and
                                         other-kernel tolerances from DIR (see below)

DIR holds one results database per experiment (exp1.db, exp2.db, exp3.db, lsgd.db).  A check
is named DB:SELECTOR:QUANTITY, e.g. exp3:exp3/c_fetch=0.0625/c_push=0:fetch_sent:

  val_error, val_last10, staleness_mean   the final value / mean of the last 10 evaluations
  digest                                  runs.digest (metric rows and final parameters)
  fetch_sent, push_sent                   messages sent (traffic table)
      SELECTOR is a scenario name; its run with the lowest seed is used
  efficiency, images_per_s                SELECTOR LABEL/ALGORITHM/GPUS (the LSGD study):
      images/s, and images/s over (GPUS/4 x images/s at 4 GPUs) under the same label

REF lines: CHECK EXPECTED SAME_KERNEL OTHER_KERNEL SOURCE..., where the tolerances are
`exact` (equal as written), `abs:X`, `rel:X` or `skip` (not compared); `# kernel: NAME` gives
the OpenBLAS kernel REF was made on.  The same-kernel tolerance applies when DIR's runs ran on
that kernel, the other-kernel one otherwise.  --update keeps every line's tolerance tags and
source, sets EXPECTED from DIR's lowest seed, and -- where DIR holds at least 3 seeds of a
setting -- an `abs:`/`rel:` other-kernel tolerance to 3 x the sample standard deviation over
those seeds (relative for rel:), at least FLOOR below.

Exit codes: 0 every check passed or was skipped, 1 a check failed or has no value, 2 bad
input (unreadable REF or database, malformed line).  Databases are opened read-only and every
value reaches SQL as a bound parameter.
"""
import math
import os
import sqlite3
import sys

RUN_METRICS = {"val_error", "staleness_mean"}
TRAFFIC = {"fetch_sent": "fetch", "push_sent": "push"}


# the narrowest other-kernel tolerance --update writes, per quantity: an error rate is
# compared to 0.03 at least (3 seeds estimate the spread roughly: on the Haswell kernel one
# error differed from SkylakeX by 0.021 where 3 sd was 0.020), counts and staleness to 5%
FLOOR = {"val_error": 0.03, "val_last10": 0.03, "staleness_mean": 0.05,
         "fetch_sent": 0.05, "push_sent": 0.05}


class BadInput(Exception):
    pass


def open_db(dirpath, name, cache):
    if name not in cache:
        path = os.path.join(dirpath, name + ".db")
        if not os.path.exists(path):
            raise BadInput(f"{path}: no such results database")
        try:
            con = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
            con.execute("SELECT 1 FROM runs LIMIT 1")
        except sqlite3.Error as e:
            raise BadInput(f"{path}: not a readable sgdsim results database ({e})")
        cache[name] = con
    return cache[name]


def scenario_runs(con, scenario):
    """[(run id, seed)] of the finished runs named SCENARIO, lowest seed first."""
    return con.execute("SELECT id, seed FROM finished_runs WHERE scenario = ? "
                       "ORDER BY seed, id DESC", (scenario,)).fetchall()


def run_value(con, run_id, quantity):
    if quantity == "digest":
        return con.execute("SELECT digest FROM runs WHERE id = ?", (run_id,)).fetchone()[0]
    if quantity in TRAFFIC:
        row = con.execute("SELECT sent_msgs FROM traffic WHERE run_id = ? AND kind = ?",
                          (run_id, TRAFFIC[quantity])).fetchone()
        return row[0] if row else None
    if quantity == "val_last10":
        return con.execute("SELECT avg(value) FROM (SELECT value FROM metrics WHERE run_id = ? "
                           "AND name = 'val_error' ORDER BY update_idx DESC LIMIT 10)",
                           (run_id,)).fetchone()[0]
    if quantity in RUN_METRICS:
        row = con.execute("SELECT value FROM metrics WHERE run_id = ? AND name = ? "
                          "ORDER BY update_idx DESC LIMIT 1", (run_id, quantity)).fetchone()
        return row[0] if row else None
    raise BadInput(f"unknown quantity {quantity!r}")


def study_rate(con, label, alg, gpus):
    row = con.execute("SELECT m.value FROM finished_runs r JOIN metrics m ON m.run_id = r.id "
                      "AND m.name = 'images_per_s' WHERE r.scenario = ? AND r.algorithm = ? "
                      "AND r.workers = ? ORDER BY r.id DESC LIMIT 1",
                      (label, alg, gpus)).fetchone()
    return row[0] if row else None


def study_value(con, selector, quantity):
    try:
        label, alg, gpus = selector.split("/")
        gpus = int(gpus)
    except ValueError:
        raise BadInput(f"{selector!r}: the LSGD study's selector is LABEL/ALGORITHM/GPUS")
    rate = study_rate(con, label, alg, gpus)
    if quantity == "images_per_s" or rate is None:
        return [rate]
    base = study_rate(con, label, alg, 4)
    return [None if base is None else rate / (gpus / 4.0 * base)]


def values(dirpath, check, cache):
    """Every seed's value of CHECK, lowest seed first ([] when there is no run)."""
    try:
        db, selector, quantity = check.split(":")
    except ValueError:
        raise BadInput(f"{check!r}: a check is DB:SELECTOR:QUANTITY")
    con = open_db(dirpath, db, cache)
    if quantity in ("efficiency", "images_per_s"):
        return [v for v in study_value(con, selector, quantity) if v is not None]
    out = [run_value(con, rid, quantity) for rid, _ in scenario_runs(con, selector)]
    return [v for v in out if v is not None]


def kernel(dirpath, cache):
    """The one OpenBLAS kernel DIR's runs ran on ('mixed' when they differ)."""
    cores = set()
    for name in sorted(cache):
        cores.update(r[0] for r in cache[name].execute("SELECT DISTINCT blas_core FROM runs"))
    if not cores:
        return "none"
    return cores.pop() if len(cores) == 1 else "mixed"


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def short(text):
    """A digest cut to its first 16 hex digits for the table (compared in full)."""
    return text[:16] + "..." if len(text) > 24 else text


def within(expected, got, tol):
    """True/False, or None when TOL says skip."""
    if tol == "skip":
        return None
    if got is None:
        return False
    if tol == "exact":
        return fmt(got) == expected
    kind, _, x = tol.partition(":")
    try:
        x, e, g = float(x), float(expected), float(got)
    except ValueError:
        raise BadInput(f"tolerance {tol!r} or value {expected!r} is not a number")
    if kind == "abs":
        return abs(g - e) <= x
    if kind == "rel":
        return abs(g - e) <= x * abs(e)
    raise BadInput(f"tolerance {tol!r}: use exact, abs:X, rel:X or skip")


def read_ref(path):
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}")
    ref_kernel, checks = None, []
    for n, line in enumerate(lines, 1):
        if line.startswith("# kernel:"):
            ref_kernel = line.split(":", 1)[1].strip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        f = line.split(None, 4)
        if len(f) < 5:
            raise BadInput(f"{path}:{n}: want CHECK EXPECTED SAME_KERNEL OTHER_KERNEL SOURCE")
        checks.append((n, f))
    if ref_kernel is None:
        raise BadInput(f"{path}: no '# kernel: NAME' line")
    return lines, ref_kernel, checks


def compare(ref, dirpath):
    _, ref_kernel, checks = read_ref(ref)
    cache = {}
    got_all = [(f, values(dirpath, f[0], cache)) for _, f in checks]
    here = kernel(dirpath, cache)
    same = here == ref_kernel
    print(f"kernel: reference {ref_kernel}, this run {here}"
          + ("" if same else " -- other-kernel tolerances apply"))
    rows, failed = [], 0
    for f, vals in got_all:
        tol = f[2] if same else f[3]
        ok = within(f[1], vals[0] if vals else None, tol)
        verdict = "skip" if ok is None else ("ok" if ok else "FAIL")
        failed += verdict == "FAIL"
        got = fmt(vals[0]) if vals else "(no run)"
        rows.append((f[0], short(f[1]), short(got), tol, verdict))
    widths = [max(len(r[i]) for r in rows + [("check", "expected", "got", "tolerance", "")])
              for i in range(4)]
    head = ("check", "expected", "got", "tolerance", "result")
    for r in [head] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
    print(f"{len(rows) - failed} of {len(rows)} checks passed or skipped, {failed} failed")
    return 1 if failed else 0


def spread_tolerance(tag, quantity, vals):
    """An abs:/rel: TAG set to 3 x the sample sd over >= 3 seeds (at least FLOOR)."""
    kind = tag.partition(":")[0]
    if kind not in ("abs", "rel") or len(vals) < 3 or isinstance(vals[0], str):
        return tag
    floor = FLOOR.get(quantity, 0.0)
    m = sum(vals) / len(vals)
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))
    width = 3 * sd if kind == "abs" else (3 * sd / abs(m) if m else 0.0)
    return f"{kind}:{float(f'{max(width, floor):.2g}'):g}"


def update(ref, dirpath):
    lines, _, checks = read_ref(ref)
    cache = {}
    for n, f in checks:
        vals = values(dirpath, f[0], cache)
        if not vals:
            raise BadInput(f"{ref}:{n}: {f[0]} has no run in {dirpath}")
        f[1] = fmt(vals[0])
        f[3] = spread_tolerance(f[3], f[0].rsplit(":", 1)[-1], vals)
        lines[n - 1] = "  ".join(f)
    here = kernel(dirpath, cache)
    lines = [f"# kernel: {here}" if l.startswith("# kernel:") else l for l in lines]
    with open(ref, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    print(f"{ref}: {len(checks)} check{'' if len(checks) == 1 else 's'} written (kernel {here})")
    return 0


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--update"):
        print("usage: reproduce_check.py REF DIR [--update]", file=sys.stderr)
        return 2
    try:
        return update(*argv[:2]) if len(argv) == 3 else compare(*argv)
    except BadInput as e:
        print(f"reproduce_check: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
