# `validate` estimates what a run would cost, from a short pilot of the scenario itself:
#   - stop.updates = 1e15 stays valid, and the estimates say what it means (about 27 events
#     per update of the small CSGD scenario, so about 2.7e16 events, and years);
#   - the parameter-server family's memory counts the parameter snapshots that accumulate
#     up to about min(clients, updates) versions;
#   - what the model is, in its kind's words with its parameter count (none for a cost-only
#     preset, which has no model);
#   - the updates, and the memory guard's estimates that run refuses on (with the limit,
#     and which one refuses a scenario too large for this machine: exit 2, as run);
#   - --print prints the configuration only, pretty-printed JSON equal to what a run stores,
#     and a pilot that cannot run because this machine lacks a data file is said, with a
#     note and exit code 0: the reason is the machine's, not the scenario's.
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"

out=$("$SGDSIM" validate "$S" --set stop.updates=1e15 2>&1) || fail "validate of stop.updates=1e15: $out"
case "$out" in *"s.json: ok"*"estimates for stop.updates = 1000000000000000"*) ;; *) fail "no estimates: $out" ;; esac
events=$(printf '%s\n' "$out" | sed -n 's/^  events: *about \([0-9.e+]*\) .*/\1/p')
awk -v e="$events" 'BEGIN { exit !(e >= 1e15 && e <= 1e18) }' || fail "events estimate '$events' is not about 1e15 x events per update: $out"
printf '%s\n' "$out" | grep -q "^  memory: *about [0-9.]* [kMG]B" || fail "no memory estimate: $out"
printf '%s\n' "$out" | grep -q "^  wall time: *about [0-9.e+]* years" || fail "wall time of 1e15 updates is not years: $out"
printf '%s\n' "$out" | grep -q "^  updates: *1000000000000000 (stop.updates)" || fail "no updates line: $out"
printf '%s\n' "$out" | grep -q "^  memory guard: cluster.workers about [0-9.]* KiB, data about [0-9.]* KiB, model about [0-9.]* KiB; run refuses an estimate above this machine's [0-9.]* GiB" || fail "no memory guard line: $out"
printf '%s\n' "$out" | grep -qx "model: mlp 20-32-5, 837 parameters" || fail "no model line: $out"
out=$("$SGDSIM" validate "$S" --set 'model={"kind":"cnn","layers":[{"fc":4}]}' 2>&1) || fail "validate of a cnn: $out"
printf '%s\n' "$out" | grep -qx "model: cnn 1x1x20: fc 4, output 5, 109 parameters" || fail "cnn model line: $out"
out=$("$SGDSIM" validate "$S" --set 'model={"kind":"preset","preset":"resnet50"}' 2>&1) || fail "validate of a preset: $out"
case "$out" in *"model: "*) fail "a cost-only preset has no model to describe: $out" ;; esac
# A model too large for this machine: validate refuses it as run does (exit 2, run's
# message), after showing the guard's estimates.
out=$("$SGDSIM" validate "$S" --set 'model.hidden=[400000,400000]' 2>&1); rc=$?
[ "$rc" = 2 ] || fail "validate of a huge model: exit $rc, wanted 2: $out"
case "$out" in *"memory guard:"*"model about "*" TiB; run refuses this scenario: model exceeds this machine's "*" GiB"*"s.json: model: needs about"*) ;; *) fail "huge model: $out" ;; esac
"$SGDSIM" run "$S" --set 'model.hidden=[400000,400000]' --db "$TMP/huge.db" --quiet 2>/dev/null; [ $? = 2 ] || fail "run of the huge model did not refuse it"
# The estimate follows stop.updates: ten times the updates, about ten times the events.
small=$("$SGDSIM" validate "$S" --set stop.updates=100000 | sed -n 's/^  events: *about \([0-9.e+]*\) .*/\1/p')
large=$("$SGDSIM" validate "$S" --set stop.updates=1000000 | sed -n 's/^  events: *about \([0-9.e+]*\) .*/\1/p')
awk -v a="$small" -v b="$large" 'BEGIN { exit !(b / a > 9.9 && b / a < 10.1) }' || fail "events for 1e5 and 1e6 updates: $small, $large"

# Snapshots of a fully asynchronous run with 1000 clients, not with 10: as many versions as
# the memory guard counts (the algorithm's alg_snapshot_versions: 1000 clients' and the
# server's), less those the pilot held.
ps() { "$SGDSIM" validate "$S" --set 'algorithm={"name":"fasgd"}' --set optimizer.momentum=0 \
         --set cluster.workers="$1" --set stop.updates=100000 --set model.hidden=[256]; }
out=$(ps 1000) || fail "fasgd validate: $out"
case "$out" in *"more parameter snapshots of 26.6 kB: about 1001 versions held at once"*) ;; *) fail "fasgd, 1000 clients: $out" ;; esac
out=$(ps 10) || fail "fasgd validate: $out"
case "$(printf '%s\n' "$out" | grep '^  memory: ')" in
  *"snapshots"*) fail "fasgd, 10 clients, counts snapshots beyond the pilot's: $out" ;;
esac
# The guard counts a snapshot per version the clients may hold: 1001 of 26.6 kB, about 26 MiB.
case "$(ps 1000 | grep '^  memory guard:')" in
  *"parameter snapshots about 25.4 MiB"*) ;;
  *) fail "fasgd, 1000 clients: the guard's snapshot estimate: $(ps 1000)" ;;
esac

# --print: the configuration alone.
out=$("$SGDSIM" validate "$S" --print) || fail "validate --print"
case "$out" in "{"*"}") ;; *) fail "validate --print printed more than the configuration: $out" ;; esac
[ "$(printf '%s\n' "$out" | wc -l)" -gt 20 ] || fail "validate --print is not pretty-printed: $out"
printf '%s\n' "$out" | grep -q '^    "workers": 3,$' || fail "validate --print indentation: $out"
printf '%s\n' "$out" | grep -q '^    "hidden": \[32\]$' || fail "validate --print keeps arrays of numbers on one line: $out"
# The same configuration as the run stores, exact numbers included.
"$SGDSIM" run "$S" --set optimizer.lr=0.30000000000000004 --db "$TMP/p.db" --quiet || fail "run for --print"
if command -v sqlite3 >/dev/null && command -v python3 >/dev/null; then
  "$SGDSIM" validate "$S" --set optimizer.lr=0.30000000000000004 --print > "$TMP/print.json"
  sqlite3 "$TMP/p.db" "SELECT config_json FROM runs" > "$TMP/stored.json"
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a != b or a["optimizer"]["lr"] != 0.30000000000000004)' "$TMP/print.json" "$TMP/stored.json" ||
    fail "validate --print differs from the stored configuration"
fi
# A pilot that cannot run: said, and still exit 0.
out=$("$SGDSIM" validate "$S" --set 'data={"source":"idx","validation":"train_tail","validation_size":10,"train_images":"none.gz","train_labels":"none.gz"}' 2>&1) ||
  fail "validate with a missing data file failed: $out"
case "$out" in *"note: "*"data.train_images"*"none.gz: cannot open"*"this machine lacks it"*) ;; *) fail "missing data: $out" ;; esac
case "$out" in *"estimates: not available"*) ;; *) fail "missing data, no estimates said: $out" ;; esac
finish
