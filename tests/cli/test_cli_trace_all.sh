# Every algorithm's timeline, run through `sgdsim run --trace` and checked by trace_check
# (valid JSON, every span on a named track, no overlapping spans on a track, flows paired,
# counters numeric, otherData's counts right, nothing past the run's end unless cut there and
# marked): CSGD, LSGD (closed form and message level),
# FASGD timed and uniform, B-FASGD timed with skipped fetches and pushes, SASGD timed with
# c = 2.  Also: tracing never changes a parameter-server run's digest, the same run gives the
# same bytes, window and event limit keep flows whole, the uniform driver says (in the file
# and on stderr) that its spans are iterations, and --trace-window / --trace-max-events
# without --trace are refused, and scripts/trace_to_gnuplot.sh draws a chart.  First,
# trace_check itself must reject broken traces.
. "$(dirname "$0")/lib.sh"
CHECK="$2"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
DB="$TMP/t.db"

# ---- trace_check rejects what it should ---------------------------------------------------
END='"run_end_ns": 10000, "spans_cut_at_run_end": 0' # the run ended at 10 us
bad() { # bad NAME EVENTS [OTHERDATA]: a trace with these events must fail the check
  printf '{"traceEvents": [%s], "otherData": %s}\n' "$2" \
    "${3:-{\"spans_written\": 2, \"flows_written\": 0, \"counter_samples_written\": 0, \"events_dropped_over_max_events\": 0, $END}}" > "$TMP/bad.json"
  "$CHECK" "$TMP/bad.json" 2>/dev/null && fail "trace_check accepted a trace with $1"
}
M='{"ph": "M", "name": "thread_name", "pid": 1, "tid": 0, "args": {"name": "w"}}, {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "p"}}'
A='{"ph": "X", "name": "a", "pid": 1, "tid": 0, "ts": 0.000, "dur": 2.000}'
OK1="{\"spans_written\": 1, \"flows_written\": 0, \"counter_samples_written\": 0, \"events_dropped_over_max_events\": 0, $END}"
OK2="{\"spans_written\": 2, \"flows_written\": 0, \"counter_samples_written\": 0, \"events_dropped_over_max_events\": 0, $END}"
CUT='{"ph": "X", "name": "b", "pid": 1, "tid": 0, "ts": 5.000, "dur": 5.000, "args": {"cut_at_run_end": true}}'
printf '{"traceEvents": [%s, %s], "otherData": %s}\n' "$M" "$A" "$OK1" > "$TMP/good.json"
"$CHECK" "$TMP/good.json" >/dev/null || fail "trace_check rejected a good trace"
printf '{"traceEvents": [%s, %s, %s], "otherData": %s}\n' "$M" "$A" "$CUT" "${OK2/\"spans_cut_at_run_end\": 0/\"spans_cut_at_run_end\": 1}" > "$TMP/good.json"
"$CHECK" "$TMP/good.json" >/dev/null || fail "trace_check rejected a good trace with a span cut at the run's end"
bad "overlapping spans" "$M, $A, {\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 0, \"ts\": 1.999, \"dur\": 1.000}"
bad "a span on an unnamed track" "$M, $A, {\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 7, \"ts\": 5.000, \"dur\": 1.000}"
bad "a wrong span count" "$M, $A"
bad "a flow start without end" "$M, $A, {\"ph\": \"s\", \"name\": \"f\", \"cat\": \"flow\", \"id\": 1, \"pid\": 1, \"tid\": 0, \"ts\": 1.000}" "$OK1"
bad "a flow end without start" "$M, $A, {\"ph\": \"f\", \"name\": \"f\", \"cat\": \"flow\", \"id\": 1, \"pid\": 1, \"tid\": 0, \"ts\": 1.000, \"bp\": \"e\"}" "$OK1"
bad "a flow end outside every span" "$M, $A, {\"ph\": \"s\", \"name\": \"f\", \"cat\": \"flow\", \"id\": 1, \"pid\": 1, \"tid\": 0, \"ts\": 1.000}, {\"ph\": \"f\", \"name\": \"f\", \"cat\": \"flow\", \"id\": 1, \"pid\": 1, \"tid\": 0, \"ts\": 3.000, \"bp\": \"e\"}" \
  "{\"spans_written\": 1, \"flows_written\": 1, \"counter_samples_written\": 0, \"events_dropped_over_max_events\": 0, $END}"
bad "a non-numeric counter" "$M, $A, {\"ph\": \"C\", \"name\": \"q\", \"pid\": 1, \"ts\": 1.000, \"args\": {\"n\": \"3\"}}" \
  "{\"spans_written\": 1, \"flows_written\": 0, \"counter_samples_written\": 1, \"events_dropped_over_max_events\": 0, $END}"
bad "invalid JSON" "$M, $A,"
bad "no run end" "$M, $A" "{\"spans_written\": 1, \"flows_written\": 0, \"counter_samples_written\": 0, \"events_dropped_over_max_events\": 0}"
bad "an unmarked span past the run's end" "$M, $A, {\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 0, \"ts\": 9.000, \"dur\": 1.001}"
bad "a span marked cut that does not end at the run's end" "$M, $A, {\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 0, \"ts\": 5.000, \"dur\": 4.000, \"args\": {\"cut_at_run_end\": true}}" \
  "${OK2/\"spans_cut_at_run_end\": 0/\"spans_cut_at_run_end\": 1}"
bad "a cut span not counted" "$M, $A, $CUT"
# (events dropped: the flow's ends need not lie in spans, so only its time is wrong)
bad "a flow ending after the run's end" "$M, $A, {\"ph\": \"s\", \"name\": \"f\", \"cat\": \"flow\", \"id\": 1, \"pid\": 1, \"tid\": 0, \"ts\": 1.000}, {\"ph\": \"f\", \"name\": \"f\", \"cat\": \"flow\", \"id\": 1, \"pid\": 1, \"tid\": 0, \"ts\": 10.001, \"bp\": \"e\"}" \
  "{\"spans_written\": 1, \"flows_written\": 1, \"counter_samples_written\": 0, \"events_dropped_over_max_events\": 1, $END}"
bad "a counter sample after the run's end" "$M, $A, {\"ph\": \"C\", \"name\": \"q\", \"pid\": 1, \"ts\": 10.001, \"args\": {\"n\": 3}}" \
  "{\"spans_written\": 1, \"flows_written\": 0, \"counter_samples_written\": 1, \"events_dropped_over_max_events\": 0, $END}"

# ---- the algorithms ----------------------------------------------------------------------
S="$TMP/csgd.json"; small_scenario "$S"
ps_scenario() { # ps_scenario FILE ALGORITHM-OBJECT
  cat > "$1" <<JSON
{
  "schema_version": 1, "name": "ps-small", "seed": 3,
  "algorithm": $2,
  "cluster": { "workers": 6, "time_factor": { "dist": "uniform", "min": 1.0, "max": 3.0 } },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 100, "dim": 20, "classes": 4 },
  "model": { "kind": "mlp", "hidden": [16], "init": "he" },
  "batch": { "per_worker": 8 },
  "optimizer": { "lr": 0.05 },
  "compute": { "kind": "time", "time_s": { "dist": "gamma", "mean": 0.002, "cv": 0.3 } },
  "io": { "time_s": { "dist": "exponential", "mean": 0.0005 } },
  "network": { "bandwidth_gbps": 0.01, "latency_us": 20 },
  "stop": { "updates": 120 },
  "eval": { "every": 40 }
}
JSON
}
ps_scenario "$TMP/fasgd_timed.json" '{ "name": "fasgd", "driver": "timed", "minibatch": "random", "server_time_s": 0.002 }'
ps_scenario "$TMP/fasgd_uniform.json" '{ "name": "fasgd", "driver": "uniform" }'
ps_scenario "$TMP/bfasgd_timed.json" '{ "name": "b-fasgd", "driver": "timed", "c_fetch": 0.05, "c_push": 0.05, "server_time_s": 0.0002 }'
ps_scenario "$TMP/sasgd_timed.json" '{ "name": "sasgd", "driver": "timed", "n": 3, "server_time_s": 0.0002 }'
LSGD="$(dirname "$0")/../../scenarios/lsgd/resnet50_lsgd.json"
LSGD_SET=(--set cluster.workers=8 --set stop.updates=4 --set 'cluster.time_factor={"dist": "uniform", "min": 1, "max": 2}')

run() { # run NAME SCENARIO ARGS...: traced run into $TMP/NAME.trace, stderr in $TMP/NAME.err
  local name="$1" scn="$2"; shift 2
  "$SGDSIM" run "$scn" --db "$DB" --quiet --trace "$TMP/$name.trace" "$@" 2>"$TMP/$name.err" ||
    fail "traced $name run: $(cat "$TMP/$name.err")"
}
check() { # check NAME REQUIREMENTS...
  local name="$1"; shift
  "$CHECK" "$TMP/$name.trace" "$@" >/dev/null || fail "$name: the trace failed trace_check"
}
flows() { sed -n 's/.*"flows_written": \([0-9]*\).*/\1/p' "$TMP/$1.trace"; }

run csgd "$S"
check csgd --span io --span compute --span wait --span allreduce --span update --span message
run lsgd "$LSGD" "${LSGD_SET[@]}"
check lsgd --span io --span compute --span wait --span reduce --span broadcast --span update --span allreduce
run lsgd_msg "$LSGD" "${LSGD_SET[@]}" --set network.fidelity=message --set network.granularity=fused
check lsgd_msg --span wait --span reduce --span broadcast --span allreduce --span message

PS_TIMED=(--span io --span compute --span push --span served --span update --span fetch --span message
          --counter "server queue" --counter staleness --counter "bytes in flight" --note time_axis)
for a in fasgd_timed bfasgd_timed sasgd_timed; do
  run "$a" "$TMP/$a.json"
  check "$a" "${PS_TIMED[@]}"
done
check fasgd_timed --span queued --span "wait link" --flows 120
[ "$(flows fasgd_timed)" = 120 ] || fail "fasgd timed: $(flows fasgd_timed) flows for 120 one-push updates"
[ "$(flows sasgd_timed)" = 240 ] || fail "sasgd timed (c = 2): $(flows sasgd_timed) flows for 120 updates"
check sasgd_timed --span "wait update"
grep -q '"reapply": 1' "$TMP/bfasgd_timed.trace" || fail "b-fasgd: no re-applied push in the trace"
grep -q '"name": "server downlink (pushes)"' "$TMP/fasgd_timed.trace" || fail "the server's links are not named"
grep -q '"name": "client 5 uplink"' "$TMP/fasgd_timed.trace" || fail "the clients' links are not named"

run fasgd_uniform "$TMP/fasgd_uniform.json"
check fasgd_uniform --span push --span update --counter staleness --note time_axis --note warnings --flows 120
grep -q "no clock" "$TMP/fasgd_uniform.err" || fail "uniform: no warning on stderr that spans are iterations"
[ "$(grep -c "no clock" "$TMP/fasgd_uniform.err")" = 1 ] || fail "uniform: the warning is not printed once"
grep -q '"time_axis": "iterations' "$TMP/fasgd_uniform.trace" || fail "uniform: otherData does not say the axis is iterations"
grep -q '"time_axis": "virtual time"' "$TMP/fasgd_timed.trace" || fail "timed: otherData does not say the axis is virtual time"

# ---- nothing past the run's end (trace_check checked every trace above); there was some ---
after() { sed -n 's/.*"events_after_run_end": \([0-9]*\).*/\1/p' "$TMP/$1.trace"; }
cut() { sed -n 's/.*"spans_cut_at_run_end": \([0-9]*\).*/\1/p' "$TMP/$1.trace"; }
[ "$(after bfasgd_timed)" -gt 0 ] || fail "b-fasgd timed: nothing booked after the run's end was left out"
[ "$(cut fasgd_timed)" -gt 0 ] || fail "fasgd timed: no span cut at the run's end"
grep -q '"name": "compute", .*"cut_at_run_end": true' "$TMP/lsgd.trace" ||
  fail "lsgd: no compute span cut at the run's end"

# ---- tracing never changes the run; the same run gives the same bytes -------------------
for a in fasgd_timed fasgd_uniform bfasgd_timed; do
  "$SGDSIM" run "$TMP/$a.json" --db "$TMP/$a.db" --quiet || fail "untraced $a run"
  "$SGDSIM" run "$TMP/$a.json" --db "$TMP/$a.db" --quiet --trace "$TMP/$a.again" 2>/dev/null || fail "traced $a run"
  [ "$(sqlite3 "$TMP/$a.db" "SELECT count(DISTINCT digest) FROM runs")" = 1 ] || fail "$a: tracing changed the digest"
  cmp -s "$TMP/$a.trace" "$TMP/$a.again" || fail "$a: the same run gave different traces"
done

# ---- a window and an event limit keep every flow whole ----------------------------------
run win "$TMP/fasgd_timed.json" --trace-window 0.05:0.1
check win --span push
[ "$(flows win)" -gt 0 ] && [ "$(flows win)" -lt 120 ] || fail "window kept $(flows win) of 120 flows"
run cap "$TMP/sasgd_timed.json" --trace-max-events 500
check cap
grep -q '"events_dropped_over_max_events": 0' "$TMP/cap.trace" && fail "no events counted as dropped"
[ "$(grep -c '"ph": "[XCs]"' "$TMP/cap.trace")" = 500 ] || fail "max events: $(grep -c '"ph": "[XCs]"' "$TMP/cap.trace") events"

# ---- scripts/trace_to_gnuplot.sh draws a trace (where gnuplot is installed) --------------
if command -v gnuplot >/dev/null; then
  "$(dirname "$0")/../../scripts/trace_to_gnuplot.sh" "$TMP/fasgd_timed.trace" "$TMP/g.png" \
    --from 10 --to 60 --tracks '^client|^server$' --title test 2>"$TMP/g.err" || fail "trace_to_gnuplot.sh: $(cat "$TMP/g.err")"
  [ "$(head -c 4 "$TMP/g.png" | tail -c 3)" = PNG ] || fail "trace_to_gnuplot.sh wrote no PNG"
fi

# ---- the trace options need --trace -----------------------------------------------------
expect_exit 2 "--trace-window: only valid with --trace FILE" -- "$SGDSIM" run "$S" --db "$DB" --trace-window 0:1
expect_exit 2 "--trace-max-events: only valid with --trace FILE" -- "$SGDSIM" run "$S" --db "$DB" --trace-max-events 10
finish
