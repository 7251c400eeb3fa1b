#!/usr/bin/env bash
# The results browser in headless Chromium (browser_check.py) says how far a running run has
# come and names a configuration's seeds by count and ranges: a run still going (held with
# SIGSTOP once the database has rows of it) reads "running, update N of M" in the runs table,
# N its last update with rows in the database and M its stop.updates; a configuration of
# seeds 1, 2, 3, 7 and 9 is "[5 seeds: 1–3, 7, 9]" in the legend and "5 seeds: 1–3, 7, 9"
# in the groups' table, never the list of seeds.  Without Chromium it skips, unless CI is set.
source "$(dirname "$0")/lib.sh"
CHECK="python3 $(cd "$(dirname "$0")" && pwd)/browser_check.py"
cd "$TMP" || exit 1
small_scenario s.json
for seed in 1 2 3 7 9; do "$SGDSIM" run s.json --db a.db --seed "$seed" -q || fail "run $seed"; done

# A run that goes on: held once the database shows rows of it while it reads 'running'.
TARGET=100000000
"$SGDSIM" run s.json --db a.db --seed 4 --set optimizer.lr=0.1 --set stop.updates=$TARGET \
  --set eval.every=10 -q > live.out 2>&1 &
LIVE=$!
last=""
for _ in $(seq 1200); do
  kill -0 "$LIVE" 2>/dev/null || break
  last=$(sqlite3 a.db "SELECT max(m.update_idx) FROM metrics m JOIN runs r ON r.id = m.run_id
                       WHERE r.status = 'running'" 2>/dev/null)
  [ -n "$last" ] && break
  sleep 0.05
done
kill -STOP "$LIVE" 2>/dev/null
last=$(sqlite3 a.db "SELECT max(m.update_idx) FROM metrics m JOIN runs r ON r.id = m.run_id
                     WHERE r.status = 'running'")
if [ -z "$last" ]; then
  fail "no rows of the running run reached the database: $(cat live.out)"
else
  "$SGDSIM" report a.db --html a.html || fail "report --html"
  LEGEND='window.sgdsim.curves().some(function (c) { return c.label.indexOf("[5 seeds: 1\u20133, 7, 9]") >= 0; }) && !window.sgdsim.curves().some(function (c) { return c.label.indexOf("1,2,3") >= 0; })'
  GROUP_TABLE='(document.getElementById("table-view").value = "groups", document.getElementById("table-view").dispatchEvent(new Event("change")), document.getElementById("groups-table").textContent.indexOf("5 seeds: 1\u20133, 7, 9") >= 0)'
  $CHECK "file://$TMP/a.html" --offline --text "running, update $last of $TARGET" \
    --check "$LEGEND" --check "$GROUP_TABLE"
  rc=$?
  if [ "$rc" = 77 ]; then kill -KILL "$LIVE"; wait "$LIVE" 2>/dev/null; exit 77; fi
  [ "$rc" = 0 ] || fail "the page of a running run (exit $rc)"
fi
kill -KILL "$LIVE" 2>/dev/null; wait "$LIVE" 2>/dev/null
finish
