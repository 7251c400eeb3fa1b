# `report --json`: the seed statistics of every configuration, checked against the database
# read independently (sqlite3 and Python's json module).  A FASGD sweep over two client
# counts and three seeds, with seed 1 at 2 clients run twice (the later run counts) and a
# single plain run of another scenario: each configuration's axis value is a JSON number,
# its seeds and runs are the latest finished run of each seed, and its final val_error and
# vtime_s are the mean and sample sd of those runs' values (as scripts/seed_stats.py
# computes them) with the 95% interval of Student's t (t(0.975, 2) = 4.302653); one run has
# no interval (null).  --csv is refused (exit 2).  Skipped without python3 or sqlite3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
S="$TMP/lam.json"
cat > "$S" <<'JSON'
{
  "schema_version": 1,
  "name": "lam",
  "seed": 5,
  "algorithm": { "name": "fasgd" },
  "cluster": { "workers": 2 },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 197, "dim": 20, "classes": 5 },
  "model": { "kind": "softmax" },
  "batch": { "per_worker": 16 },
  "optimizer": { "lr": 0.05 },
  "stop": { "updates": 40 },
  "eval": { "every": 10 }
}
JSON
DB="$TMP/a.db"
"$SGDSIM" sweep "$S" --set cluster.workers=2,4 --set seed=1,2,3 --db "$DB" --quiet -j2 ||
  fail "sweep"
"$SGDSIM" run "$S" --db "$DB" --quiet --set seed=1 || fail "repeat of seed 1"
"$SGDSIM" run "$S" --db "$DB" --quiet --set name=single || fail "single run"
"$SGDSIM" report "$DB" --json > "$TMP/r.json" || fail "report --json"

PYTHONPATH="$ROOT/scripts" python3 - "$DB" "$TMP/r.json" <<'PY' || fail "report --json values"
import json, math, sqlite3, sys
import seed_stats as ss
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
d = json.load(open(sys.argv[2]))
assert d["database"] == sys.argv[1], d["database"]
by = {s["scenario"]: s for s in d["scenarios"]}
assert sorted(by) == ["lam", "single"], sorted(by)
lam = by["lam"]
assert lam["axes"] == ["cluster.workers"], lam["axes"]
assert len(lam["configurations"]) == 2, lam["configurations"]

def final(run_id, name):
    row = con.execute("SELECT value FROM metrics WHERE run_id = ? AND name = ? "
                      "ORDER BY update_idx DESC LIMIT 1", (run_id, name)).fetchone()
    return row[0] if row else None

def check(stats, xs, what):
    assert stats["n"] == len(xs), (what, stats, xs)
    m, sd = ss.mean(xs), math.sqrt(ss.sample_var(xs))
    assert isinstance(stats["mean"], float) or isinstance(stats["mean"], int), stats
    assert abs(stats["mean"] - m) <= 1e-12 * max(1, abs(m)), (what, stats["mean"], m)
    assert abs(stats["sd"] - sd) <= 1e-12 * max(1, sd), (what, stats["sd"], sd)
    if len(xs) == 1:
        assert stats["ci95_low"] is None and stats["ci95_high"] is None, (what, stats)
        return
    half = 4.302653 * sd / math.sqrt(len(xs))   # t(0.975, 2): three seeds
    assert abs(stats["ci95_high"] - (m + half)) <= 1e-6 * max(1, half), (what, stats)
    assert abs(stats["ci95_low"] - (m - half)) <= 1e-6 * max(1, half), (what, stats)

for c in lam["configurations"]:
    w = c["values"]["cluster.workers"]
    assert isinstance(w, int), c["values"]
    runs = con.execute("SELECT max(id), seed FROM runs WHERE scenario = 'lam' AND workers = ?"
                       " AND status IN ('complete', 'diverged') GROUP BY seed ORDER BY seed",
                       (w,)).fetchall()
    assert c["seeds"] == [1, 2, 3] and c["n_seeds"] == 3, c
    assert c["runs"] == [r[0] for r in runs], (c["runs"], runs)
    assert c["n_diverged"] == 0, c
    ids = [r[0] for r in runs]
    check(c["final"]["val_error"], [final(i, "val_error") for i in ids], f"val_error at {w}")
    # the uniform driver has no clock: no virtual time, no images/s
    assert c["clock"] is False and "vtime_s" not in c["final"], c
    assert "images_per_s" not in c["final"], c
# the repeat of seed 1 at 2 clients is the run counted, not the sweep's
two = [c for c in lam["configurations"] if c["values"]["cluster.workers"] == 2][0]
latest = con.execute("SELECT max(id) FROM runs WHERE scenario = 'lam' AND seed = 1"
                     " AND workers = 2").fetchone()[0]
assert latest in two["runs"], (latest, two["runs"])
assert con.execute("SELECT count(*) FROM runs WHERE scenario = 'lam' AND seed = 1 AND "
                   "workers = 2").fetchone()[0] == 2
single = by["single"]
assert single["axes"] == [] and len(single["configurations"]) == 1, single
one = single["configurations"][0]
assert one["values"] == {} and one["n_seeds"] == 1, one
check(one["final"]["val_error"], [final(one["runs"][0], "val_error")], "single")
PY
expect_exit 2 "use sgdsim query or export for CSV" -- "$SGDSIM" report "$DB" --csv
# the tables are unchanged by the new option's existence
"$SGDSIM" report "$DB" > "$TMP/r.txt" || fail "report"
grep -q '^Sweep: scenario "lam", 7 finished runs, axes: ' "$TMP/r.txt" ||
  fail "report's sweep line: $(grep Sweep "$TMP/r.txt")"
finish
