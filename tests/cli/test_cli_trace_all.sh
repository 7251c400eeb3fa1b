# Every algorithm's timeline, run through `sgdsim run --trace` and checked by trace_check
# (valid JSON, every span on a named track, no overlapping spans on a track, flows paired,
# counters numeric, otherData's counts right, nothing past the run's end unless cut there
# and marked): CSGD, LSGD (closed form and message level), FASGD timed and uniform, B-FASGD
# timed with skipped fetches and pushes, SASGD timed with c = 2 and, under fetch
# "after_push", with c = 6 (no client waits for an update, and a fast client's two pushes
# end in one update).  Also: a link's messages merged per collective and update by default,
# and at --trace-level message each with what it belongs to; tracing never changes a run's
# digest, at either level; the same run gives the same bytes; window and event limit keep
# flows whole; the uniform driver says (in the file and on stderr) that its spans are
# iterations; the --trace-* options without --trace and a bad level are refused;
# scripts/trace_to_gnuplot.sh draws a chart, each collective in its own colour.  First,
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
ps_scenario "$TMP/sasgd_push.json" '{ "name": "sasgd", "driver": "timed", "n": 1, "server_time_s": 0.0002, "fetch": "after_push" }'
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

# A link's messages: by default one span per collective per update on each link, named after
# the collective; with --trace-level message one span each, with what it is part of.
STEP_ARGS=messages,bytes,busy_ns,waited_ns
COLL_ARGS=kind,update,call,step,from,to,bytes,waited_ns
run csgd "$S"
check csgd --span io --span compute --span wait --span allreduce --span update \
  --link-span allreduce --link-args allreduce=update,$STEP_ARGS
run csgd_msg "$S" --trace-level message
check csgd_msg --link-span message --link-args message=$COLL_ARGS
run lsgd "$LSGD" "${LSGD_SET[@]}"
check lsgd --span io --span compute --span wait --span reduce --span broadcast --span update --span allreduce
run lsgd_msg "$LSGD" "${LSGD_SET[@]}" --set network.fidelity=message --set network.granularity=fused
check lsgd_msg --span wait --span reduce --span broadcast --span allreduce \
  --link-args reduce=update,$STEP_ARGS --link-args allreduce=update,$STEP_ARGS \
  --link-args broadcast=update,$STEP_ARGS
run lsgd_msg_each "$LSGD" "${LSGD_SET[@]}" --set network.fidelity=message --set network.granularity=fused \
  --trace-level message
check lsgd_msg_each --link-args message=$COLL_ARGS
grep -q '"kind": "reduce", "update": 2, "call": 0, "step": 0, "from": "worker 5", "to": "node 1 communicator"' \
  "$TMP/lsgd_msg_each.trace" || fail "lsgd: no message of worker 5's reduce of update 2"
grep -q '"kind": "broadcast", "update": 3, "call": 0, "step": 0, "from": "node 0 communicator", "to": "worker 2"' \
  "$TMP/lsgd_msg_each.trace" || fail "lsgd: no message of node 0's broadcast of update 3"

# Per tensor (161 calls per collective) the step level is a small fraction of the message
# level, carrying the same messages and bytes.
links() { grep -c '"ph": "X", "name": "[a-z]*", "cat": "link"' "$TMP/$1.trace"; }
sum() { grep -o "\"$2\": [0-9]*" "$TMP/$1.trace" | awk '{ s += $2 } END { printf "%d", s }'; }
run lsgd_tensors "$LSGD" "${LSGD_SET[@]}" --set network.fidelity=message
run lsgd_tensors_each "$LSGD" "${LSGD_SET[@]}" --set network.fidelity=message --trace-level message
check lsgd_tensors
check lsgd_tensors_each
steps=$(links lsgd_tensors) messages=$(links lsgd_tensors_each)
[ "$steps" -gt 0 ] && [ $((steps * 50)) -lt "$messages" ] ||
  fail "lsgd per tensor: $steps link spans at the step level, $messages at the message level"
[ "$(sum lsgd_tensors messages)" = "$messages" ] ||
  fail "lsgd per tensor: the step level's spans hold $(sum lsgd_tensors messages) messages, not $messages"
[ "$(sum lsgd_tensors bytes)" = "$(grep '"name": "message"' "$TMP/lsgd_tensors_each.trace" | grep -o '"bytes": [0-9]*' | awk '{ s += $2 } END { printf "%d", s }')" ] ||
  fail "lsgd per tensor: the two levels carry different bytes"
grep -q '"trace_level": "step"' "$TMP/lsgd_tensors.trace" || fail "otherData does not name the step level"
grep -q '"trace_level": "message"' "$TMP/lsgd_tensors_each.trace" || fail "otherData does not name the message level"

PS_TIMED=(--span io --span compute --span push --span served --span update --span fetch
          --link-args push=client,version,$STEP_ARGS --link-args fetch=client,version,$STEP_ARGS
          --counter "server queue" --counter staleness --counter "bytes in flight" --note time_axis)
for a in fasgd_timed bfasgd_timed sasgd_timed sasgd_push; do
  run "$a" "$TMP/$a.json"
  check "$a" "${PS_TIMED[@]}"
done
check fasgd_timed --span queued --span "wait link" --flows 120
[ "$(flows fasgd_timed)" = 120 ] || fail "fasgd timed: $(flows fasgd_timed) flows for 120 one-push updates"
[ "$(flows sasgd_timed)" = 240 ] || fail "sasgd timed (c = 2): $(flows sasgd_timed) flows for 120 updates"
check sasgd_timed --span "wait update"
[ "$(flows sasgd_push)" = 720 ] || fail "sasgd timed after_push (c = 6): $(flows sasgd_push) flows for 120 updates"
grep -q '"name": "wait update"' "$TMP/sasgd_push.trace" && fail "sasgd after_push: a client waited for an update"
# one update whose two flows (a flow's end carries its update's time) start on one client
# track: the server held two pushes of that client
awk '/"ph": "s"/ { match($0, /"id": [0-9]+/); id = substr($0, RSTART, RLENGTH)
                   match($0, /"tid": [0-9]+/); tid[id] = substr($0, RSTART, RLENGTH) }
     /"ph": "f"/ { match($0, /"id": [0-9]+/); id = substr($0, RSTART, RLENGTH)
                   match($0, /"ts": [0-9.]+/); k = substr($0, RSTART, RLENGTH) tid[id]
                   if (seen[k]++) twice = 1 }
     END { exit !twice }' "$TMP/sasgd_push.trace" ||
  fail "sasgd after_push: no update took two pushes of one client"
grep -q '"reapply": 1' "$TMP/bfasgd_timed.trace" || fail "b-fasgd: no re-applied push in the trace"
grep -q '"name": "server downlink (pushes)"' "$TMP/fasgd_timed.trace" || fail "the server's links are not named"
grep -q '"name": "client 5 uplink"' "$TMP/fasgd_timed.trace" || fail "the clients' links are not named"
run fasgd_timed_each "$TMP/fasgd_timed.json" --trace-level message
check fasgd_timed_each --link-args message=kind,client,version,bytes,waited_ns

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
# (at both levels: the messages' tags are the timeline's only)
for a in fasgd_timed fasgd_uniform bfasgd_timed sasgd_push csgd_msg lsgd_tensors_each; do
  case $a in
  csgd_msg) scn=("$S") ;;
  lsgd_tensors_each) scn=("$LSGD" "${LSGD_SET[@]}" --set network.fidelity=message) ;;
  *) scn=("$TMP/$a.json") ;;
  esac
  "$SGDSIM" run "${scn[@]}" --db "$TMP/$a.db" --quiet || fail "untraced $a run"
  "$SGDSIM" run "${scn[@]}" --db "$TMP/$a.db" --quiet --trace "$TMP/$a.step" 2>/dev/null || fail "traced $a run"
  "$SGDSIM" run "${scn[@]}" --db "$TMP/$a.db" --quiet --trace "$TMP/$a.again" --trace-level message \
    2>/dev/null || fail "traced $a run, message level"
  [ "$(sqlite3 "$TMP/$a.db" "SELECT count(*), count(DISTINCT digest) FROM runs")" = "3|1" ] ||
    fail "$a: tracing changed the digest"
done
for a in fasgd_timed fasgd_uniform bfasgd_timed sasgd_push; do
  cmp -s "$TMP/$a.trace" "$TMP/$a.step" || fail "$a: the same run gave different traces"
done
for a in csgd_msg lsgd_tensors_each; do
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
  "$(dirname "$0")/../../scripts/trace_to_gnuplot.sh" "$TMP/lsgd_msg.trace" "$TMP/l.png" 2>"$TMP/g.err" ||
    fail "trace_to_gnuplot.sh, LSGD: $(cat "$TMP/g.err")"
fi
# Its colours tell the collectives apart (the function as the script has it).
sed -n '/^colour() {$/,/^}$/p' "$(dirname "$0")/../../scripts/trace_to_gnuplot.sh" > "$TMP/colour.sh"
. "$TMP/colour.sh"
[ "$(for c in reduce allreduce broadcast message compute; do colour "$c"; done | sort -u | wc -l)" = 5 ] ||
  fail "trace_to_gnuplot.sh colours reduce, allreduce, broadcast, message and compute alike"

# ---- the trace options need --trace; a level is step or message -------------------------
expect_exit 2 "--trace-window: only valid with --trace FILE" -- "$SGDSIM" run "$S" --db "$DB" --trace-window 0:1
expect_exit 2 "--trace-max-events: only valid with --trace FILE" -- "$SGDSIM" run "$S" --db "$DB" --trace-max-events 10
expect_exit 2 "--trace-level: only valid with --trace FILE" -- "$SGDSIM" run "$S" --db "$DB" --trace-level message
for bad in messages Step "" "step "; do
  expect_exit 2 "--trace-level $bad: expected step or message" -- \
    "$SGDSIM" run "$S" --db "$DB" --trace "$TMP/x.trace" --trace-level "$bad"
done
[ ! -e "$TMP/x.trace" ] || fail "a refused --trace-level left a trace file"
finish
