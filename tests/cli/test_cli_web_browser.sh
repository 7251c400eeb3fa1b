#!/usr/bin/env bash
# The results browser in a real browser (headless Chromium, driven by browser_check.py):
# a page written by report --html and a page served by serve load with no console error
# (no policy violation, no failed request), the file page makes no network request, the
# runs table has the database's number of runs, one series equals the database's rows, a
# page of hostile names shows them as text, and the served page shows a run committed after
# it loaded.  Without Chromium it skips, unless CI is set: then it fails.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/web_hostile_db.sh"
CHECK="python3 $(cd "$(dirname "$0")" && pwd)/browser_check.py"
cd "$TMP"
small_scenario s.json
for seed in 1 2 3; do "$SGDSIM" run s.json --db a.db --seed "$seed" -q || fail "run $seed"; done
"$SGDSIM" run s.json --db a.db --seed 1 -q --set optimizer.lr=0.1 || fail "run lr"
# The rows as exact doubles (repr), which the sqlite3 shell's 15 digits are not.
python3 -c "import sqlite3; [print(u, repr(v)) for u, v in sqlite3.connect('a.db').execute(
  \"SELECT update_idx, value FROM metrics WHERE run_id = 2 AND name = 'train_loss' ORDER BY update_idx\")]" \
  > series.txt
nruns=$(sqlite3 a.db "SELECT count(*) FROM runs")

"$SGDSIM" report a.db --html a.html || fail "report --html"
$CHECK "file://$TMP/a.html" --offline --rows "$nruns" --series "0:2:train_loss=$TMP/series.txt"
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || fail "the report's page (exit $rc)"

hostile_db "$TMP/h.db" || fail "hostile database"
"$SGDSIM" report h.db --html h.html || fail "report --html h.db"
$CHECK "file://$TMP/h.html" --offline --rows 2 --text "$HOSTILE_SCRIPT" --text "$HOSTILE_QUOTES" \
  --text "$HOSTILE_SEP" || fail "the page of hostile names"

"$SGDSIM" serve a.db --port 0 > serve.out 2> serve.err &
SERVER=$!
URL=""
for _ in $(seq 600); do
  URL=$(sed -n 's/^serving //p' serve.out); [ -n "$URL" ] && break; sleep 0.1
done
if [ -z "$URL" ]; then
  fail "serve printed no address: $(cat serve.err)"
else
  $CHECK "$URL" --rows "$nruns" --series "0:2:train_loss=$TMP/series.txt" \
    --then-rows $((nruns + 1)) --then "$SGDSIM" run s.json --db a.db --seed 7 -q \
    || fail "the served page, live"
fi
kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null
finish
