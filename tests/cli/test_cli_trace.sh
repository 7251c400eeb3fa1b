# sgdsim run --trace: the timeline has every worker's io, compute, allreduce and update
# spans and the ring's messages on link tracks -- per update and link by default, one by one
# with --trace-level message, each tagged with its update, call, step and workers -- is the
# same bytes for the same run, does not change the run's results, and honours
# --trace-window and --trace-max-events.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet --trace "$TMP/a.json" || fail "traced run"
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet --trace "$TMP/b.json" || fail "second traced run"
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet || fail "untraced run"
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet --trace "$TMP/msg.json" --trace-level message || fail "traced run, message level"
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "the same run gave different traces"
[ "$(sqlite3 "$TMP/a.db" "SELECT count(*), count(DISTINCT digest) FROM runs")" = "4|1" ] || fail "tracing changed the run's digest"
head -c 40 "$TMP/a.json" | grep -q '"traceEvents"' || fail "not a trace-event file"
tail -c 400 "$TMP/a.json" | grep -q '"events_dropped_over_max_events": 0' || fail "no footer"
n() { grep -c "\"ph\": \"X\", \"name\": \"$2\"" "$1"; }
# 3 workers x 60 updates: each update is one compute, allreduce and update span per worker;
# the ring sends 2(P-1) = 4 messages per worker per update, each occupying 2 links (its
# worker's uplink and its receiver's downlink): per link and update, one span of 4 messages.
[ "$(n "$TMP/a.json" allreduce)" = $((180 + 60 * 6)) ] || fail "allreduce spans: $(n "$TMP/a.json" allreduce)"
[ "$(grep -c '"cat": "link", .*"messages": 4, ' "$TMP/a.json")" = $((60 * 6)) ] ||
  fail "link spans of 4 messages: $(grep -c '"cat": "link", .*"messages": 4, ' "$TMP/a.json")"
[ "$(n "$TMP/a.json" update)" = 180 ] || fail "update spans: $(n "$TMP/a.json" update)"
[ "$(n "$TMP/a.json" message)" = 0 ] || fail "message spans at the step level: $(n "$TMP/a.json" message)"
[ "$(n "$TMP/msg.json" message)" = $((60 * 3 * 4 * 2)) ] || fail "message spans: $(n "$TMP/msg.json" message)"
grep -q '"args": {"kind": "allreduce", "update": 60, "call": 0, "step": 3, "from": "worker 2", "to": "worker 0", ' "$TMP/msg.json" ||
  fail "no message of the last step of update 60 from worker 2 to worker 0"
[ "$(n "$TMP/a.json" compute)" -ge 180 ] || fail "compute spans: $(n "$TMP/a.json" compute)"
[ "$(n "$TMP/a.json" io)" -ge 180 ] || fail "io spans: $(n "$TMP/a.json" io)"
grep -q '"name": "worker 2 uplink"' "$TMP/a.json" || fail "link tracks are not named"
if command -v python3 >/dev/null; then
  for f in a msg; do
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert all(e['dur'] >= 0 for e in d['traceEvents'] if e['ph'] == 'X')" "$TMP/$f.json" || fail "$f.json is not valid JSON"
  done
fi
# Window 0.1 s .. 0.2 s: every span overlaps it; max events caps the count.
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet --trace "$TMP/w.json" --trace-window 0.1:0.2 || fail "windowed run"
total=$(grep -c '"ph": "X"' "$TMP/w.json")
[ "$total" -gt 0 ] && [ "$total" -lt "$(grep -c '"ph": "X"' "$TMP/a.json")" ] || fail "window kept $total spans"
bad=$(grep '"ph": "X"' "$TMP/w.json" | sed 's/.*"ts": \([0-9.]*\), "dur": \([0-9.]*\).*/\1 \2/' | awk '$1 > 200000 || $1 + $2 < 100000' | wc -l)
[ "$bad" = 0 ] || fail "$bad spans outside the window"
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet --trace "$TMP/m.json" --trace-max-events 100 || fail "capped run"
[ "$(grep -c '"ph": "X"' "$TMP/m.json")" = 100 ] || fail "max events: $(grep -c '"ph": "X"' "$TMP/m.json") spans"
grep -q '"events_dropped_over_max_events": 0' "$TMP/m.json" && fail "no spans counted as dropped"
expect_exit 2 "--trace-window 2:1" -- "$SGDSIM" run "$S" --db "$TMP/a.db" --trace "$TMP/x.json" --trace-window 2:1
for bad in "0x1:2" " 1:2" "1: 2" "nan:1" "1:inf" "1e:2"; do
  expect_exit 2 "--trace-window $bad" -- "$SGDSIM" run "$S" --db "$TMP/a.db" --trace "$TMP/x.json" --trace-window "$bad"
done
"$SGDSIM" run "$S" --db "$TMP/a.db" --quiet --trace "$TMP/open.json" --trace-window ":0.2" || fail "a window open at its start"
expect_exit 2 "--trace-max-events -3" -- "$SGDSIM" run "$S" --db "$TMP/a.db" --trace "$TMP/x.json" --trace-max-events -3
expect_exit 2 "cannot write the trace" -- "$SGDSIM" run "$S" --db "$TMP/a.db" --trace "$TMP/no/such/dir.json"
finish
