#!/usr/bin/env bash
# The results browser in a real browser (headless Chromium, driven by browser_check.py):
# a page written by report --html and a page served by serve load with no console error
# (no policy violation, no failed request), the file page makes no network request, the
# runs table has the database's number of runs, one series equals the database's rows, a
# page of hostile names shows them as text, the served page shows a run committed after it
# loaded, and the A/B page of two databases pairs their configurations under --ignore (no
# row missing) and draws each baseline configuration and its candidate in one colour, the
# candidate dashed.  Without Chromium it skips, unless CI is set: then it fails.
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

# The A/B view: lr 0.05 against 0.1 at two cluster sizes, paired with --ignore optimizer.lr.
for w in 2 3; do
  for seed in 1 2; do
    "$SGDSIM" run s.json --db base.db --seed "$seed" -q --set cluster.workers=$w || fail "base $w $seed"
    "$SGDSIM" run s.json --db cand.db --seed "$seed" -q --set cluster.workers=$w \
      --set optimizer.lr=0.1 || fail "cand $w $seed"
  done
done
"$SGDSIM" report base.db cand.db --ignore optimizer.lr --html ab.html || fail "report --html A/B"
PAIRED='window.sgdsim.verdictRows().length > 0 && window.sgdsim.verdictRows().every(function (r) { return r[4] !== "missing"; })'
COLOURS='(function () { var s = window.sgdsim.curves(), b = s.filter(function (x) { return !x.dashed; }), c = s.filter(function (x) { return x.dashed; }); return b.length === 2 && c.length === 2 && b[0].color !== b[1].color && c.every(function (x) { return b.some(function (y) { return y.color === x.color; }); }); })()'
$CHECK "file://$TMP/ab.html" --offline --check "$PAIRED" --check "$COLOURS" || fail "the A/B page"
"$SGDSIM" report base.db cand.db --html ab0.html || fail "report --html A/B without --ignore"
$CHECK "file://$TMP/ab0.html" --offline --check "!($PAIRED)" || fail "the A/B page without --ignore pairs something"

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
