# Runs of one configuration made by different builds are never one sample: a merged database
# holding seeds 1-3 of two configurations run by two builds (the second build faked by
# editing runs.git_rev, its values and its digest with sqlite3, so that merge keeps both).
# Before, report averaged 6 runs into one cell (n=6, 3 seeds counted twice).  Now:
#   report        the build is an axis of the tables, n=3 per cell; --pool-builds: one cell
#                 of 3 seeds (each once, its latest run), and the output says so;
#   report --json one configuration per build, each with its "builds";
#   report --welch a setting of one configuration run by two builds is refused, naming them;
#   plot          series split by git_rev (said on stderr); --band refuses naming git_rev;
#                 --pool-builds draws one series per configuration;
#   compare       a candidate holding two builds of a configuration is ambiguous (exit 1);
#                 --pool-builds pairs it and says so;
#   report --html two groups of one configuration are labelled with their builds.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
"$SGDSIM" sweep "$S" --set cluster.workers=1,2 --set seed=1,2,3 --set stop.updates=30 \
  --db "$TMP/a.db" --quiet -j2 || fail "sweep"
cp "$TMP/a.db" "$TMP/b.db"
sqlite3 "$TMP/b.db" "UPDATE runs SET git_rev = 'otherbuild1', digest = 'f' || substr(digest, 2);
  UPDATE metrics SET value = value * 1.5 WHERE name = 'val_error'"
"$SGDSIM" merge "$TMP/m.db" "$TMP/a.db" "$TMP/b.db" > /dev/null || fail "merge"
[ "$(sqlite3 "$TMP/m.db" "SELECT count(*) || ' ' || count(DISTINCT git_rev) FROM runs")" = "12 2" ] ||
  fail "the merged database does not hold 12 runs of 2 builds"

# report: "build" is an axis, every cell n=3.
"$SGDSIM" report "$TMP/m.db" > "$TMP/r.txt" || fail "report"
grep -q "axes: cluster.workers (2) build (2); 3 seeds" "$TMP/r.txt" || fail "report: build is not an axis: $(cat "$TMP/r.txt")"
grep -q "the runs come from 2 builds" "$TMP/r.txt" || fail "report does not say the runs come from 2 builds"
grep -q "(n=6)" "$TMP/r.txt" && fail "report pools the builds: $(grep 'n=6' "$TMP/r.txt")"
[ "$(grep -c "(n=3).*(n=3)" "$TMP/r.txt")" -ge 6 ] || fail "report: not n=3 per build: $(cat "$TMP/r.txt")"
"$SGDSIM" report "$TMP/m.db" --pool-builds > "$TMP/rp.txt" || fail "report --pool-builds"
grep -q "builds pooled (--pool-builds): the runs come from 2 builds" "$TMP/rp.txt" || fail "--pool-builds is not said"
grep -q "(n=6)" "$TMP/rp.txt" && fail "--pool-builds counts a seed twice: $(cat "$TMP/rp.txt")"
grep -qE "^1 +[0-9.]+ ± [0-9.]+ \(n=3\)$" "$TMP/rp.txt" || fail "--pool-builds: no pooled cell of 3 seeds: $(cat "$TMP/rp.txt")"

# report --json: four configurations of 3 seeds, one build each; pooled: two.
"$SGDSIM" report "$TMP/m.db" --json > "$TMP/r.json" || fail "report --json"
"$SGDSIM" report "$TMP/m.db" --json --pool-builds > "$TMP/rp.json" || fail "report --json --pool-builds"
python3 - "$TMP/r.json" "$TMP/rp.json" <<'PY' || fail "report --json builds"
import json, sys
r, p = (json.load(open(x)) for x in sys.argv[1:])
c = r["scenarios"][0]["configurations"]
assert len(c) == 4 and all(x["n_seeds"] == 3 and len(x["builds"]) == 1 for x in c), c
assert sorted(x["builds"][0] for x in c).count("otherbuild1") == 2, c
assert r["statistics"]["pool_builds"] is False and p["statistics"]["pool_builds"] is True
c = p["scenarios"][0]["configurations"]
assert len(c) == 2 and all(x["n_seeds"] == 3 for x in c), c
PY

# report --welch: one configuration run by two builds is not one sample.
cp "$TMP/m.db" "$TMP/one.db"
sqlite3 "$TMP/one.db" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE workers = 2"
expect_exit 2 "holds runs of 2 builds of one configuration (git revisions" -- \
  "$SGDSIM" report "$TMP/one.db" --welch small small
"$SGDSIM" report "$TMP/one.db" --welch small small --pool-builds > /dev/null || fail "--welch --pool-builds"

# plot: split by git_rev, refused with --band, one series per configuration pooled.
if command -v gnuplot >/dev/null; then
  "$SGDSIM" plot "$TMP/m.db" --y val_error --by cluster.workers -o "$TMP/p.svg" \
    --data "$TMP/p.csv" 2> "$TMP/p.err" || fail "plot: $(cat "$TMP/p.err")"
  grep -q "series split by git_rev" "$TMP/p.err" || fail "plot: the split by build is not said: $(cat "$TMP/p.err")"
  [ "$(cut -d, -f2 "$TMP/p.csv" | sort -u | grep -c git_rev=)" = 4 ] || fail "plot: not 4 series: $(cut -d, -f2 "$TMP/p.csv" | sort -u)"
  expect_exit 2 "in git_rev; add git_rev to --by" -- "$SGDSIM" plot "$TMP/m.db" --y val_error \
    --by cluster.workers --band std -o "$TMP/b.svg"
  "$SGDSIM" plot "$TMP/m.db" --y val_error --by cluster.workers --band std --pool-builds \
    -o "$TMP/pb.svg" --data "$TMP/pb.csv" 2>/dev/null || fail "plot --pool-builds"
  [ "$(cut -d, -f2 "$TMP/pb.csv" | sort -u | grep -c cluster.workers=)" = 2 ] || fail "plot --pool-builds: not 2 series"
fi

# compare: two builds of a configuration in the candidate are ambiguous, unless pooled.
"$SGDSIM" compare "$TMP/a.db" "$TMP/m.db" > "$TMP/c.txt"; rc=$?
[ "$rc" = 1 ] || fail "compare against two builds exits $rc"
[ "$(grep -c "ambiguous  this configuration was run by several builds" "$TMP/c.txt")" = 2 ] ||
  fail "compare: two builds not ambiguous: $(cat "$TMP/c.txt")"
"$SGDSIM" compare "$TMP/a.db" "$TMP/m.db" --pool-builds > "$TMP/cp.txt" 2>&1
grep -q "0 ambiguous" "$TMP/cp.txt" && grep -q "builds pooled (--pool-builds): 2 configurations hold runs of several builds" "$TMP/cp.txt" ||
  fail "compare --pool-builds: $(tail -1 "$TMP/cp.txt")"

# report --html: the groups of one configuration are told apart by their build.
"$SGDSIM" report "$TMP/m.db" --html "$TMP/m.html" || fail "report --html"
grep -q "build=otherbuild1" "$TMP/m.html" || fail "report --html: no group labelled with its build"
finish
