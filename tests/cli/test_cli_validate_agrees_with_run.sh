# `validate` and `run` accept exactly the same scenarios (both make one check,
# alg_prepare_file): over the bad-input corpus (the cases of test_cli_bad_input.sh,
# test_cli_ps_bad_input.sh, test_cli_lsgd_bad_input.sh and test_cli_backend_bad_input.sh that
# concern the scenario), the field mutants of test_cli_mutants_run_or_refuse.sh and mutated
# layers of a convolutional network whose input shape only the dataset tells, each case is
# given to both, and
#   - run exits 2 <=> validate exits 2, with the same message on stderr, or validate exits 0
#     with a note naming run's message when this machine lacks something (a data file, the
#     GPU);
#   - a refused run creates no database file, and leaves an existing one byte-identical;
#   - sweep --skip-invalid sets aside a point that run refuses, with run's message.
# validate runs with --print (the same check, no pilot) to keep the test short; one case
# without it checks that the estimates' path refuses alike.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
OLD="$TMP/existing.db"
"$SGDSIM" run "$S" --db "$OLD" --quiet --set stop.updates=2 || fail "the base run failed"
cp "$OLD" "$TMP/existing.copy"
tried=0 refused=0 noted=0

# agree LABEL SCENARIO-ARGS...: run and validate the same arguments.
agree() {
  local label="$1"; shift
  local db="$TMP/new.db" rrc vrc msg
  rm -f "$db" "$TMP/new.trace.json"
  "$SGDSIM" run "$@" --db "$db" --trace "$TMP/new.trace.json" --quiet >/dev/null 2>"$TMP/run.err"; rrc=$?
  "$SGDSIM" validate "$@" --print >/dev/null 2>"$TMP/val.err"; vrc=$?
  tried=$((tried + 1))
  if [ "$rrc" != 2 ]; then
    [ "$vrc" = 0 ] || fail "$label: run exit $rrc, validate exit $vrc: $(cat "$TMP/val.err")"
    return
  fi
  refused=$((refused + 1))
  [ ! -e "$db" ] || fail "$label: the refused run left $(stat -c %s "$db") bytes in a new database"
  [ ! -e "$TMP/new.trace.json" ] || fail "$label: the refused run left a trace"
  "$SGDSIM" run "$@" --db "$OLD" --quiet >/dev/null 2>&1
  cmp -s "$OLD" "$TMP/existing.copy" || fail "$label: the refused run changed an existing database"
  [ -s "$TMP/run.err" ] || fail "$label: run refused without a message"
  if grep -q '^sgdsim: note: ' "$TMP/val.err"; then
    noted=$((noted + 1))
    msg=$(sed -n '1s/^sgdsim: //p' "$TMP/run.err")
    [ "$vrc" = 0 ] || fail "$label: validate noted what the machine lacks, but exit $vrc"
    grep -qF "sgdsim: note: $msg" "$TMP/val.err" ||
      fail "$label: validate's note is not run's message '$msg': $(cat "$TMP/val.err")"
  else
    [ "$vrc" = 2 ] || fail "$label: run refused it (exit 2), validate exit $vrc: $(cat "$TMP/run.err")"
    # an argument's message names the command ("run: --backend gpu: ..."); nothing else may differ
    sed -i 's/^sgdsim: \(run\|validate\): /sgdsim: /' "$TMP/run.err" "$TMP/val.err"
    cmp -s "$TMP/run.err" "$TMP/val.err" ||
      fail "$label: messages differ: run '$(cat "$TMP/run.err")', validate '$(cat "$TMP/val.err")'"
  fi
}

# ---- test_cli_bad_input.sh ----
printf '{"schema_version": 1,,}' > "$TMP/malformed.json"
: > "$TMP/empty.json"
echo '[1,2]' > "$TMP/array.json"
echo '{"schema_version": 1, "wokers": 3}' > "$TMP/unknown.json"
echo '{"schema_version": 1, "cluster": {"workers": "four"}}' > "$TMP/quickstart.json"
for f in malformed empty array unknown quickstart does-not-exist; do agree "$f.json" "$TMP/$f.json"; done
agree "bandwidth -5" "$S" --set network.bandwidth_gbps=-5
agree "bandwidth 0" "$S" --set network.bandwidth_gbps=0
agree "workers 0" "$S" --set cluster.workers=0
agree "unknown --set key" "$S" --set cluster.wrkers=2
agree "--set without =" "$S" --set cluster.workers
agree "hidden 3 x 30000" "$S" --set 'model.hidden=[30000,30000,30000]'
agree "huge synthetic data" "$S" --set data.n_train=2000000000 --set data.dim=100000
agree "1e9 workers" "$S" --set cluster.workers=1000000000
agree "hidden 2 x 1e6" "$S" --set 'model.hidden=[1000000,1000000]'
cat > "$TMP/ps.json" <<'JSON'
{ "schema_version": 1, "algorithm": { "name": "fasgd" }, "cluster": { "workers": 100000 },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20, "classes": 5 },
  "model": { "kind": "mlp", "hidden": [200000] }, "batch": { "per_worker": 4 },
  "stop": { "updates": 1000000 }, "eval": { "every": 0 } }
JSON
agree "snapshots of 1e5 clients" "$TMP/ps.json"
agree "4 clients" "$TMP/ps.json" --set cluster.workers=4 --set stop.updates=3
truncate -s 100M "$TMP/huge.json"
agree "100 MB file" "$TMP/huge.json"
printf '{"schema_version": 1, "x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}' > "$TMP/deep.json"
agree "deep JSON" "$TMP/deep.json"
idx_data() { # images labels
  echo "data={\"source\":\"idx\",\"validation\":\"train_tail\",\"validation_size\":10,\"train_images\":\"$1\",\"train_labels\":\"$2\"}"
}
printf '\x00\x00\x08\x07\x00\x00\x00\x01' > "$TMP/badmagic.idx"
printf '\x00\x00\x08\x03\x00\x00\x00\x64\x00\x00\x00\x1c\x00\x00\x00\x1c\x01\x02\x03' > "$TMP/trunc.idx"
{ printf '\x00\x00\x08\x03\x00\x00\x00\x28\x00\x00\x00\x02\x00\x00\x00\x02'; head -c 160 /dev/zero; } > "$TMP/img.idx"
{ printf '\x00\x00\x08\x01\x00\x00\x00\x28'; head -c 40 /dev/zero; } > "$TMP/lab.idx"
agree "missing images" "$S" --set "$(idx_data missing-images.gz missing-labels.gz)"
agree "bad magic" "$S" --set "$(idx_data badmagic.idx badmagic.idx)"
agree "truncated" "$S" --set "$(idx_data trunc.idx trunc.idx)"
agree "missing labels" "$S" --set "$(idx_data img.idx missing-labels.gz)"
agree "images as labels" "$S" --set "$(idx_data img.idx img.idx)"
agree "missing test labels" "$S" --set 'data={"source":"idx","train_images":"img.idx","train_labels":"lab.idx","test_images":"img.idx","test_labels":"missing-test-labels.gz"}'
agree "missing test images" "$S" --set 'data={"source":"idx","train_images":"img.idx","train_labels":"lab.idx","test_images":"missing-test-images.gz","test_labels":"lab.idx"}'

# ---- test_cli_ps_bad_input.sh ----
cat > "$TMP/sasgd.json" <<'JSON'
{ "schema_version": 1, "algorithm": { "name": "sasgd", "n": 2 }, "cluster": { "workers": 4 },
  "data": { "source": "synthetic", "n_train": 256, "n_validation": 64, "dim": 8, "classes": 3 },
  "batch": { "per_worker": 4 }, "stop": { "updates": 20 } }
JSON
P="$TMP/sasgd.json"
agree "sasgd" "$P"
agree "n 4 of 6" "$P" --set cluster.workers=6 --set algorithm.n=4
agree "n 2 of 3" "$P" --set cluster.workers=3
agree "lr -0.01" "$P" --set optimizer.lr=-0.01
agree "lr NaN" "$P" --set optimizer.lr=NaN
agree "c_fetch -0.5" "$P" --set 'algorithm={"name":"b-fasgd","c_fetch":-0.5}'
agree "staleness odena" "$P" --set algorithm.staleness=odena
agree "normaliser rmsprop" "$P" --set 'algorithm={"name":"fasgd","normaliser":"rmsprop"}'
agree "bfasgd" "$P" --set 'algorithm={"name":"bfasgd"}'
agree "c_push on sasgd" "$P" --set algorithm.c_push=0.01
agree "k_fetch on fasgd" "$P" --set 'algorithm={"name":"fasgd","k_fetch":4}'
agree "n on hardsync" "$P" --set algorithm.name=hardsync
agree "hardsync batch 1024" "$P" --set 'algorithm={"name":"hardsync"}' --set batch.per_worker=256
agree "first_push never" "$P" --set 'algorithm={"name":"b-fasgd","first_push":"never"}'
agree "first_push on fasgd" "$P" --set 'algorithm={"name":"fasgd","first_push":"always"}'
agree "initial_v -0.5" "$P" --set 'algorithm={"name":"b-fasgd","initial_v":-0.5}'
agree "initial_v 1e9" "$P" --set 'algorithm={"name":"b-fasgd","initial_v":1e9}'
agree "initial_v with always" "$P" --set 'algorithm={"name":"b-fasgd","first_push":"always","initial_v":1}'
agree "initial_v on sasgd" "$P" --set algorithm.initial_v=1

# ---- test_cli_lsgd_bad_input.sh ----
lsgd_scenario() { # file [extra topology keys]
  cat > "$1" <<JSON
{ "schema_version": 1, "name": "lsgd-small", "seed": 3, "algorithm": { "name": "lsgd" },
  "cluster": { "workers": 8 },
  "data": { "source": "synthetic", "n_train": 400, "n_validation": 100, "dim": 8, "classes": 3 },
  "model": { "kind": "mlp", "hidden": [8] }, "batch": { "per_worker": 4 },
  "compute": { "kind": "time", "time_s": 0.002 }, "io": { "time_s": 0.001 },
  "topology": { "kind": "cluster", "gpus_per_node": 4 $2 },
  "network": { "fidelity": "message", "granularity": "per_tensor" }, "stop": { "updates": 5 } }
JSON
}
L="$TMP/lsgd.json"; lsgd_scenario "$L" ""
lsgd_scenario "$TMP/nodes.json" ', "nodes": 4'
lsgd_scenario "$TMP/bw.json" ', "nic": { "bandwidth_gbps": 0 }'
agree "lsgd" "$L"
agree "3 GPUs per node" "$L" --set topology.gpus_per_node=3
agree "4 nodes" "$TMP/nodes.json"
agree "6 workers" "$L" --set cluster.workers=6
agree "0 GPUs per node" "$L" --set topology.gpus_per_node=0
agree "nic bandwidth 0" "$TMP/bw.json"
agree "intra bandwidth -1" "$L" --set topology.intra.bandwidth_gbps=-1
agree "nic latency -2" "$L" --set topology.nic.latency_us=-2
agree "intra latency -0.5" "$L" --set topology.intra.latency_us=-0.5
agree "oversubscription 0.5" "$L" --set topology.oversubscription=0.5
agree "allreduce butterfly" "$L" --set network.allreduce=butterfly
agree "reduce ring" "$L" --set algorithm.reduce=ring
agree "broadcast tree" "$L" --set algorithm.broadcast=tree
agree "granularity layer" "$L" --set network.granularity=layer
agree "preset vgg16" "$L" --set 'model={"kind":"preset","preset":"vgg16"}'
agree "cost_preset alexnet" "$L" --set model.cost_preset=alexnet
agree "preset missing" "$L" --set 'model={"kind":"preset"}'
agree "bucket 0" "$L" --set network.bucket_bytes=0
agree "ring over 8192 ranks" "$L" --set algorithm.name=csgd --set cluster.workers=8192 \
  --set network.allreduce=ring --set batch.per_worker=1 --set data.n_train=9000
agree "flat topology" "$L" --set 'topology={"kind":"flat"}'
agree "nic on flat" "$L" --set 'topology={"kind":"flat","nic":{"bandwidth_gbps":1}}' --set algorithm.name=csgd
agree "bandwidth on cluster" "$L" --set network.bandwidth_gbps=10
agree "hidden on preset" "$L" --set 'model={"kind":"preset","preset":"resnet50","hidden":[8]}'
agree "preset on mlp" "$L" --set model.preset=resnet50
agree "overlap 3" "$L" --set algorithm.overlap=3
agree "fanout" "$L" --set algorithm.fanout=2

# ---- test_cli_backend_bad_input.sh ----
agree "--backend gpu" "$S" --backend gpu
agree "backend tpu" "$S" --set backend=tpu
agree "--backend cuda" "$S" --backend cuda --set stop.updates=2

# ---- test_cli_mutants_run_or_refuse.sh's fields ----
PS=(--set 'algorithm={"name":"fasgd","driver":"timed","server_time_s":0.0005}'
    --set optimizer.momentum=0 --set cluster.workers=4)
fields=(cluster.workers batch.per_worker optimizer.lr optimizer.momentum compute.time_s
        io.time_s network.bandwidth_gbps network.latency_us stop.vtime_s eval.every data.n_train
        data.n_validation data.dim data.classes seed cluster.time_factor.min
        cluster.time_factor.max)
ps_fields=(algorithm.server_time_s algorithm.gradient_batch algorithm.n algorithm.decay
           algorithm.eps)
values=(-1 0.5 1e10) # 0 and a string are the loader's, shared by both already
for f in "${fields[@]}"; do
  for v in "${values[@]}"; do agree "csgd $f=$v" "$S" --set stop.updates=4 --set "$f=$v"; done
done
for f in "${ps_fields[@]}"; do
  for v in "${values[@]}"; do agree "fasgd $f=$v" "$S" "${PS[@]}" --set stop.updates=4 --set "$f=$v"; done
done

# ---- layers of a convolutional network on 8 x 8 images from IDX files ----
# The loader cannot know the input's shape: the run finds it in the images, so every shape
# below is checked only there -- and now by validate alike.
{ printf '\x00\x00\x08\x03\x00\x00\x00\x3c\x00\x00\x00\x08\x00\x00\x00\x08'
  head -c 3840 /dev/zero | tr '\0' '\7'; } > "$TMP/img8.idx"
{ printf '\x00\x00\x08\x01\x00\x00\x00\x3c'
  for i in $(seq 0 59); do printf "\\$(printf %03o $((i % 5)))"; done; } > "$TMP/lab8.idx"
CNN=(--set 'data={"source":"idx","validation":"train_tail","validation_size":12,"train_images":"img8.idx","train_labels":"lab8.idx"}'
     --set batch.per_worker=4 --set stop.updates=3)
layers() { agree "layers $1" "$S" "${CNN[@]}" --set "model={\"kind\":\"cnn\",\"init\":\"he\",\"layers\":$1}"; }
layers '[{"conv":{"out":4,"k":3,"pad":1}},{"pool":{"max":2}},{"fc":16}]'
layers '[{"conv":{"out":6,"k":40}}]'
layers '[{"conv":{"out":6,"k":9}}]'
layers '[{"conv":{"out":6,"k":8}}]'
layers '[{"conv":{"out":6,"k":3,"stride":9}}]'
layers '[{"conv":{"out":6,"k":3,"pad":100}}]'
layers '[{"pool":{"max":9}}]'
layers '[{"pool":{"avg":4}},{"pool":{"max":4}}]'
layers '[{"conv":{"out":4,"k":5}},{"conv":{"out":4,"k":5}}]'
layers '[{"conv":{"out":0,"k":3}}]'
layers '[{"fc":0}]'
layers '[{"fc":16},{"conv":{"out":4,"k":3}}]'
layers '[{"conv":{"out":100000000,"k":3}}]'
layers '"lenet5"'
agree "input 7 x 7 of 8 x 8 images" "$S" "${CNN[@]}" \
  --set 'model={"kind":"cnn","input":{"height":7,"width":7},"layers":[{"fc":8}]}'

echo "$tried cases: $refused refused by run, $noted of them for what this machine lacks"
[ "$tried" -ge 150 ] || fail "only $tried cases ran"
[ "$noted" -ge 3 ] || fail "only $noted cases were the machine's"

# ---- validate's estimates refuse alike (no --print) ----
K='model={"kind":"cnn","layers":[{"conv":{"out":6,"k":40}}]}'
"$SGDSIM" run "$S" "${CNN[@]}" --set "$K" --db "$TMP/k.db" 2>"$TMP/run.err" >/dev/null
"$SGDSIM" validate "$S" "${CNN[@]}" --set "$K" 2>"$TMP/val.err" >"$TMP/val.out"; rc=$?
[ "$rc" = 2 ] || fail "validate without --print of a 40 x 40 kernel: exit $rc"
grep -q "model.layers\[0\].conv.k: a 40 x 40 kernel does not fit the 8 x 8 input" "$TMP/val.err" ||
  fail "validate's message: $(cat "$TMP/val.err")"
cmp -s "$TMP/run.err" "$TMP/val.err" || fail "validate without --print: another message than run's"
[ ! -s "$TMP/val.out" ] || fail "validate said more than the refusal: $(cat "$TMP/val.out")"

# ---- sweep --skip-invalid sets such a point aside ----
out=$("$SGDSIM" sweep "$S" "${CNN[@]}" --skip-invalid --db "$TMP/sweep.db" --quiet \
      --set "$K"',{"kind":"cnn","layers":[{"conv":{"out":4,"k":3}},{"fc":8}]}' 2>&1) ||
  fail "sweep --skip-invalid: $out"
case "$out" in
  *"invalid, skipped: sweep point 1 of 2"*"$(cat "$TMP/run.err" | sed 's/^sgdsim: //')"*) ;;
  *) fail "sweep did not set the refused point aside with run's message: $out" ;;
esac
[ "$(sqlite3 "$TMP/sweep.db" "SELECT count(*) FROM runs WHERE status = 'complete'")" = 1 ] ||
  fail "sweep: not exactly the valid point ran"
finish
