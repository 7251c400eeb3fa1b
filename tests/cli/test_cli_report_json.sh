# `report --json`: the seed statistics of every configuration, checked against the database
# read independently (Python's sqlite3 and json modules, with mean and sample sd written
# here).  A FASGD sweep over two client counts and three seeds, with seed 1 at 2 clients run
# twice (the later run counts), a plain run of another scenario, one of another length and
# two runs that diverge: each configuration's axis value is a JSON number, its seeds and
# runs are the latest finished run of each seed, and for every run its final value, the
# mean of exactly its last K rows (10, and 3 with --last 3), min, max and value at --at's
# updates of every metric, its staleness histogram's mean, max and quantiles and its
# traffic by kind equal the database's; every statistic over the seeds is the mean, sample
# sd (n - 1), min and max of those with the 95% interval of Student's t (t(0.975, 2) =
# 4.302653), null where undefined; diverged runs are counted and left out; --updates keeps
# one length.  --csv and options without --json exit 2.  Skipped without python3 or sqlite3.
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
  "eval": { "every": 2 }
}
JSON
DB="$TMP/a.db"
"$SGDSIM" sweep "$S" --set cluster.workers=2,4 --set seed=1,2,3 --db "$DB" --quiet -j2 ||
  fail "sweep"
"$SGDSIM" run "$S" --db "$DB" --quiet --set seed=1 || fail "repeat of seed 1"
"$SGDSIM" run "$S" --db "$DB" --quiet --set name=single || fail "single run"
"$SGDSIM" run "$S" --db "$DB" --quiet --set name=short --set stop.updates=20 || fail "short run"
"$SGDSIM" sweep "$S" --db "$DB" --quiet --set name=div --set seed=1,2 --set optimizer.lr=1e200 \
  2>/dev/null
"$SGDSIM" report "$DB" --json > "$TMP/r.json" || fail "report --json"
"$SGDSIM" report "$DB" --json --last 3 --updates 40 --at 10,13,40 > "$TMP/r3.json" ||
  fail "report --json --last 3 --updates 40 --at 10,13,40"

python3 - "$DB" "$TMP/r.json" "$TMP/r3.json" <<'PY' || fail "report --json values"
import json, math, sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
d, d3 = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
assert d["database"] == sys.argv[1], d["database"]
st = d["statistics"]
assert st["last_k"] == 10 and st["updates"] is None and st["at"] == [], st
assert "diverged" in st["over"], st
assert d3["statistics"]["last_k"] == 3 and d3["statistics"]["updates"] == 40, d3["statistics"]
assert d3["statistics"]["at"] == [10, 13, 40], d3["statistics"]
by = {s["scenario"]: s for s in d["scenarios"]}
assert sorted(by) == ["div", "lam", "short", "single"], sorted(by)
assert sorted(s["scenario"] for s in d3["scenarios"]) == ["div", "lam", "single"], d3

def mean(xs):
    return sum(xs) / len(xs)

def sd(xs):
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))

def near(a, b, what, rel=1e-12):
    assert a is not None and abs(a - b) <= rel * max(1, abs(b)), (what, a, b)

def curve(run_id, name):
    return [r[0] for r in con.execute("SELECT value FROM metrics WHERE run_id = ? AND name = ?"
                                      " ORDER BY update_idx", (run_id, name))]

def at(run_id, name, u):
    row = con.execute("SELECT value FROM metrics WHERE run_id = ? AND name = ? AND "
                      "update_idx = ?", (run_id, name, u)).fetchone()
    return row[0] if row else None

def check_stats(stats, xs, what):
    """S against the values xs (None: left out)."""
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    assert stats["n"] == len(xs), (what, stats, xs)
    if not xs:
        assert stats["mean"] is None and stats["sd"] is None and stats["min"] is None, stats
        return
    near(stats["mean"], mean(xs), what)
    assert stats["min"] == min(xs) and stats["max"] == max(xs), (what, stats, xs)
    if len(xs) == 1:
        assert stats["sd"] == 0 and stats["ci95_low"] is None and stats["ci95_high"] is None
        return
    near(stats["sd"], sd(xs), what)
    if len(xs) == 3:
        half = 4.302653 * sd(xs) / math.sqrt(3)   # t(0.975, 2): three seeds
        near(stats["ci95_high"], mean(xs) + half, what, 1e-6)
        near(stats["ci95_low"], mean(xs) - half, what, 1e-6)

def quantile(bins, q):
    total, acc = sum(n for _, n in bins), 0
    for tau, n in bins:
        acc += n
        if n and acc >= q * total:
            return tau

def check_run(r, k, ats):
    """One run's own values against the database."""
    row = con.execute("SELECT seed, status, wall_s FROM runs WHERE id = ?", (r["id"],)).fetchone()
    assert (r["seed"], r["status"], r["wall_s"]) == row, (r, row)
    assert r["diverged"] == (row[1] == "diverged"), r
    names = [n for (n,) in con.execute("SELECT DISTINCT name FROM metrics WHERE run_id = ?",
                                       (r["id"],))]
    assert sorted(r["metrics"]) == sorted(n for n in names if n != "images_per_s"), r["metrics"]
    for name, m in r["metrics"].items():
        v = curve(r["id"], name)
        fin = [x for x in v if x is not None]
        assert m["final"] == v[-1], (name, m, v[-1])
        window = v[-k:]
        if None in window:
            assert m["last"] is None, (name, m)
        else:
            near(m["last"], sum(window) / len(window), (r["id"], name, "last"))
        assert m["last_n"] == min(k, len(v)), m
        assert m["min"] == (min(fin) if fin else None) and m["max"] == (max(fin) if fin else None)
        assert m["at"] == [at(r["id"], name, u) for u in ats], (name, m["at"])
    bins = con.execute("SELECT tau, count FROM staleness WHERE run_id = ? ORDER BY tau",
                       (r["id"],)).fetchall()
    counted = [(t, n) for t, n in bins if n > 0]
    s = r["staleness"]
    if counted:
        total = sum(n for _, n in counted)
        assert s["gradients"] == total, s
        near(s["mean"], sum(t * n for t, n in counted) / total, "tau mean")
        assert s["max"] == max(t for t, _ in counted), s
        for q, key in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
            assert s[key] == quantile(bins, q), (key, s, bins)
    traffic = {k: dict(zip(("sent_msgs", "sent_bytes", "skipped_msgs", "skipped_bytes"), v))
               for k, *v in con.execute("SELECT kind, sent_msgs, sent_bytes, skipped_msgs, "
                                        "skipped_bytes FROM traffic WHERE run_id = ?", (r["id"],))}
    for kind, t in traffic.items():
        t["potential_msgs"] = t["sent_msgs"] + t["skipped_msgs"]
    assert r["traffic"] == traffic, (r["traffic"], traffic)
    sent = sum(t["sent_msgs"] for t in traffic.values())
    if sent:
        near(r["traffic_reduction"], sum(t["potential_msgs"] for t in traffic.values()) / sent,
             "reduction")

def check_config(c, k, ats):
    """Every statistic of a configuration over its runs that did not diverge."""
    assert [r["id"] for r in c["per_run"]] == c["runs"], c
    assert c["n_diverged"] == sum(r["diverged"] for r in c["per_run"]), c
    for r in c["per_run"]:
        check_run(r, k, ats)
    ok = [r for r in c["per_run"] if not r["diverged"]]
    for window in ("final", "last", "min", "max"):
        for name, stats in c[window].items():
            if name == "vtime_s":
                continue
            check_stats(stats, [r["metrics"].get(name, {}).get(window) for r in ok],
                        (window, name))
    for j, u in enumerate(ats):
        assert c["at"][j]["update"] == u
        for name, stats in c["at"][j]["values"].items():
            check_stats(stats, [r["metrics"][name]["at"][j] for r in ok], ("at", u, name))
    for key, stats in c["staleness"].items():
        check_stats(stats, [r["staleness"][key] for r in ok], ("staleness", key))
    for kind, fields in c["traffic"].items():
        for f, stats in fields.items():
            check_stats(stats, [r["traffic"][kind][f] for r in ok], (kind, f))
    check_stats(c["traffic_reduction"], [r["traffic_reduction"] for r in ok], "reduction")

lam = by["lam"]
assert lam["axes"] == ["cluster.workers"], lam["axes"]
assert len(lam["configurations"]) == 2, lam["configurations"]
blind = 0
for c in lam["configurations"]:
    w = c["values"]["cluster.workers"]
    assert isinstance(w, int), c["values"]
    runs = con.execute("SELECT max(id), seed FROM runs WHERE scenario = 'lam' AND workers = ?"
                       " AND status IN ('complete', 'diverged') GROUP BY seed ORDER BY seed",
                       (w,)).fetchall()
    assert c["seeds"] == [1, 2, 3] and c["n_seeds"] == 3, c
    assert c["runs"] == [r[0] for r in runs], (c["runs"], runs)
    assert c["n_diverged"] == 0, c
    # the uniform driver has no clock: no virtual time, no images/s
    assert c["clock"] is False and "vtime_s" not in c["final"], c
    assert "images_per_s" not in c["final"], c
    assert c["last"]["val_error"]["n"] == 3 and c["final"]["staleness_mean"]["n"] == 3, c
    assert set(c["traffic"]) == {"fetch", "push"}, c["traffic"]
    for i, _ in runs:   # the checks can fail: windows of 9, 10 and 11 rows differ
        v = curve(i, "val_error")
        assert len(v) > 11, len(v)
        blind += mean(v[-9:]) == mean(v[-10:]) or mean(v[-11:]) == mean(v[-10:])
assert blind < 6, "last-K windows of 9, 10, 11 rows agree: the window check is blind"
for doc, k, ats in ((d, 10, []), (d3, 3, [10, 13, 40])):
    for s in doc["scenarios"]:
        for c in s["configurations"]:
            check_config(c, k, ats)
# the repeat of seed 1 at 2 clients is the run counted, not the sweep's
two = [c for c in lam["configurations"] if c["values"]["cluster.workers"] == 2][0]
latest = con.execute("SELECT max(id) FROM runs WHERE scenario = 'lam' AND seed = 1"
                     " AND workers = 2").fetchone()[0]
assert latest in two["runs"], (latest, two["runs"])
single = by["single"]
assert single["axes"] == [] and len(single["configurations"]) == 1, single
one = single["configurations"][0]
assert one["values"] == {} and one["n_seeds"] == 1, one
assert one["final"]["val_error"]["n"] == 1, one
# diverged runs: counted, listed, left out of every statistic
div = by["div"]["configurations"][0]
assert div["n_seeds"] == 2 and div["n_diverged"] == 2, div
assert all(r["diverged"] and r["status"] == "diverged" for r in div["per_run"]), div
assert div["final"]["val_error"]["n"] == 0 and div["final"]["val_error"]["mean"] is None, div
assert div["last"]["train_loss"]["n"] == 0, div
PY
expect_exit 2 "use sgdsim query or export for CSV" -- "$SGDSIM" report "$DB" --csv
expect_exit 2 "--last 0: expected a whole number" -- "$SGDSIM" report "$DB" --json --last 0
expect_exit 2 "--last only with --json or --welch" -- "$SGDSIM" report "$DB" --last 3
expect_exit 2 "--updates only with --json or --welch" -- "$SGDSIM" report "$DB" --updates 40
expect_exit 2 "--at 10,5: expected" -- "$SGDSIM" report "$DB" --json --at 10,5
expect_exit 2 "--at 10,: expected" -- "$SGDSIM" report "$DB" --json --at 10,
expect_exit 2 "--at x: expected" -- "$SGDSIM" report "$DB" --json --at x
expect_exit 2 "--metric only with --welch" -- "$SGDSIM" report "$DB" --json --metric val_error
expect_exit 2 "unexpected argument lam" -- "$SGDSIM" report "$DB" lam
expect_exit 2 "none.db: no such results database" -- "$SGDSIM" report "$TMP/none.db" --json
# the tables are unchanged by the new option's existence
"$SGDSIM" report "$DB" > "$TMP/r.txt" || fail "report"
grep -q '^Sweep: scenario "lam", 7 finished runs, axes: ' "$TMP/r.txt" ||
  fail "report's sweep line: $(grep Sweep "$TMP/r.txt")"
finish
