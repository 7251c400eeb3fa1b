#!/usr/bin/env bash
# Extreme and non-numeric metric values never abort the analysis and are never read as
# numbers they are not.  Against a baseline of 3 seeds, candidates whose val_loss holds
#   1.5e308 (finite, but its sums overflow), a REAL +Inf another program stored (a
#   non-finite value: that seed diverged), and the text 'n/a' (not a number):
# compare, report A B --html, report --welch --final and serve A B answer (no SIGABRT from
# GSL's error handler), a running serve survives a poll after such a row is committed,
# the text is left out with a warning (report does not show 0, compare does not say
# "better"), and report --welch --metric nosuch says "unknown metric".
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
cd "$TMP"
small_scenario s.json
"$SGDSIM" sweep s.json --set seed=1,2,3 --set stop.updates=30 --db a.db --quiet -j2 || fail "sweep"
first="(SELECT min(id) FROM runs)"
cp a.db big.db; sqlite3 big.db "UPDATE metrics SET value = 1.5e308 WHERE name = 'val_loss' AND run_id = $first"
cp a.db inf.db; sqlite3 inf.db "UPDATE metrics SET value = 9e999 WHERE name = 'val_loss' AND run_id = $first"
cp a.db text.db; sqlite3 text.db "UPDATE metrics SET value = 'n/a' WHERE name = 'val_loss'"
[ "$(sqlite3 inf.db "SELECT count(*) FROM metrics WHERE value > 1e308 AND nonfinite IS NULL")" -gt 0 ] ||
  fail "sqlite3 did not store a REAL +Inf"

answered() { # LABEL RC: an exit code compare or report may give (0, 1, 2, 4), never a signal
  case "$2" in 0|1|2|4) ;; *) fail "$1 exits $2 (a crash)";; esac
}
for db in big inf text; do
  "$SGDSIM" compare a.db $db.db > c_$db.txt 2> c_$db.err; answered "compare a.db $db.db" $?
  grep -q "val_loss" c_$db.txt || fail "compare $db: no val_loss row: $(cat c_$db.txt)"
  "$SGDSIM" report a.db $db.db --html $db.html 2>/dev/null; answered "report --html $db" $?
  [ -s $db.html ] || fail "report a.db $db.db --html wrote no page"
  "$SGDSIM" report $db.db --welch small small --final --metric val_loss > w_$db.txt 2>&1
  answered "report --welch --final $db" $?
  "$SGDSIM" report $db.db --json > /dev/null 2>&1; answered "report --json $db" $?
done
# An infinite loss is a diverged seed: worse.  1.5e308 is a number: judged, not a crash.
grep -qE "val_loss +worse +.*not finite \(diverged\)" c_inf.txt || fail "+Inf is not a diverged seed: $(grep val_loss c_inf.txt)"
grep -qE "val_loss +(inconclusive|worse) " c_big.txt || fail "1.5e308: $(grep val_loss c_big.txt)"
# The text is no number: left out with a warning, never 0, never "better".
grep -q "warning: text.db: .* metric rows whose value is not a number .* left out" c_text.err ||
  fail "compare: no warning about the text values: $(cat c_text.err)"
grep -qE "val_loss +(better|equivalent|inconclusive|worse) " c_text.txt && fail "compare judged text values: $(grep val_loss c_text.txt)"
grep -qE "val_loss +missing +no val_loss rows in the candidate" c_text.txt || fail "compare: text values are not missing rows: $(grep val_loss c_text.txt)"
"$SGDSIM" report text.db --wide > r_text.txt 2> r_text.err || fail "report --wide"
col=$(awk 'NR == 3 { for (i = 1; i <= NF; i++) if ($i == "final_val_loss") print i }' r_text.txt)
[ -n "$col" ] && awk -v c="$col" 'NR > 4 && NF > 5 && $c == "0"' r_text.txt | grep -q . &&
  fail "report shows the text as 0: $(cat r_text.txt)"
grep -q "not a number" r_text.err || fail "report: no warning about the text values"
expect_exit 2 "--metric nosuch: unknown metric" -- "$SGDSIM" report a.db --welch small small --metric nosuch

# serve A B: answers with such rows, and survives one committed while it runs.
cp a.db live.db
: > serve.out; : > serve.err
"$SGDSIM" serve a.db live.db --port 0 > serve.out 2> serve.err &
SERVER=$!
URL=""
for _ in $(seq 600); do
  URL=$(sed -n 's/^serving //p' serve.out); [ -n "$URL" ] && break
  kill -0 "$SERVER" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$URL" ]; then
  fail "serve printed no address: $(cat serve.err)"
else
  get() { python3 -c "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1] + 'data.json', timeout=60).status)" "$URL"; }
  [ "$(get)" = 200 ] || fail "serve: data.json before"
  sqlite3 live.db "UPDATE metrics SET value = 1.5e308 WHERE name = 'val_loss' AND run_id = $first"
  [ "$(get 2>/dev/null)" = 200 ] || fail "serve: data.json after 1.5e308 was committed"
  sqlite3 live.db "UPDATE metrics SET value = 9e999 WHERE name = 'val_loss' AND run_id = $first"
  [ "$(get 2>/dev/null)" = 200 ] || fail "serve: data.json after +Inf was committed"
  kill -0 "$SERVER" 2>/dev/null || fail "serve died: $(cat serve.err)"
fi
kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null
finish
