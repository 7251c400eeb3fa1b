# Bad topology, collective, preset and LSGD input: a clear message naming the file (or the
# --set argument) and the JSON path, exit code 2, and no run row left behind.
. "$(dirname "$0")/lib.sh"
DB="$TMP/r.db"
lsgd_scenario() { # file [extra topology keys]
  cat > "$1" <<JSON
{
  "schema_version": 1, "name": "lsgd-small", "seed": 3,
  "algorithm": { "name": "lsgd" },
  "cluster": { "workers": 8 },
  "data": { "source": "synthetic", "n_train": 400, "n_validation": 100, "dim": 8, "classes": 3 },
  "model": { "kind": "mlp", "hidden": [8] },
  "batch": { "per_worker": 4 },
  "compute": { "kind": "time", "time_s": 0.002 },
  "io": { "time_s": 0.001 },
  "topology": { "kind": "cluster", "gpus_per_node": 4 $2 },
  "network": { "fidelity": "message", "granularity": "per_tensor" },
  "stop": { "updates": 5 }
}
JSON
}
S="$TMP/lsgd.json"; lsgd_scenario "$S" ""

# the scenario itself is fine
"$SGDSIM" run "$S" --db "$TMP/ok.db" --quiet || fail "the valid LSGD scenario did not run"

# G must divide the workers; an explicit node count must agree with them
expect_exit 2 "--set topology.gpus_per_node=3: topology.gpus_per_node: 3 GPUs per node does not divide cluster.workers = 8" \
  -- "$SGDSIM" run "$S" --db "$DB" --set topology.gpus_per_node=3
lsgd_scenario "$TMP/nodes.json" ', "nodes": 4'
expect_exit 2 "nodes.json: topology.nodes: 4 nodes x 4 GPUs per node = 16 workers, but cluster.workers = 8" \
  -- "$SGDSIM" run "$TMP/nodes.json" --db "$DB"
expect_exit 2 "lsgd.json: topology.gpus_per_node: 4 GPUs per node does not divide cluster.workers = 6" \
  -- "$SGDSIM" run "$S" --db "$DB" --set cluster.workers=6
expect_exit 2 "topology.gpus_per_node: expected integer >= 1, got 0" \
  -- "$SGDSIM" validate "$S" --set topology.gpus_per_node=0

# bandwidths > 0, latencies >= 0, oversubscription >= 1
lsgd_scenario "$TMP/bw.json" ', "nic": { "bandwidth_gbps": 0 }'
expect_exit 2 "bw.json: topology.nic.bandwidth_gbps: expected number > 0, got 0" \
  -- "$SGDSIM" run "$TMP/bw.json" --db "$DB"
expect_exit 2 "topology.intra.bandwidth_gbps: expected number > 0, got -1" \
  -- "$SGDSIM" run "$S" --db "$DB" --set topology.intra.bandwidth_gbps=-1
expect_exit 2 "topology.nic.latency_us: expected number >= 0, got -2" \
  -- "$SGDSIM" run "$S" --db "$DB" --set topology.nic.latency_us=-2
expect_exit 2 "topology.intra.latency_us: expected number >= 0, got -0.5" \
  -- "$SGDSIM" validate "$S" --set topology.intra.latency_us=-0.5
expect_exit 2 "topology.oversubscription: expected number >= 1, got 0.5" \
  -- "$SGDSIM" validate "$S" --set topology.oversubscription=0.5

# unknown collective and preset names; bucket size 0
expect_exit 2 'network.allreduce: expected one of "ring", "recursive_doubling", "rsag", got "butterfly"' \
  -- "$SGDSIM" run "$S" --db "$DB" --set network.allreduce=butterfly
expect_exit 2 'algorithm.reduce: expected one of "star", "binomial", got "ring"' \
  -- "$SGDSIM" run "$S" --db "$DB" --set algorithm.reduce=ring
expect_exit 2 'algorithm.broadcast: expected one of "star", "binomial", got "tree"' \
  -- "$SGDSIM" validate "$S" --set algorithm.broadcast=tree
expect_exit 2 'network.granularity: expected one of "fused", "per_tensor", got "layer"' \
  -- "$SGDSIM" validate "$S" --set network.granularity=layer
expect_exit 2 'model.preset: expected one of "resnet50", got "vgg16"' \
  -- "$SGDSIM" run "$S" --db "$DB" --set 'model={"kind":"preset","preset":"vgg16"}'
expect_exit 2 'model.cost_preset: expected one of "resnet50", got "alexnet"' \
  -- "$SGDSIM" run "$S" --db "$DB" --set model.cost_preset=alexnet
expect_exit 2 "model.preset: required field is missing" \
  -- "$SGDSIM" validate "$S" --set 'model={"kind":"preset"}'
expect_exit 2 "network.bucket_bytes: expected integer >= 1, got 0" \
  -- "$SGDSIM" run "$S" --db "$DB" --set network.bucket_bytes=0

# a schedule too large to build is refused before allocating it
expect_exit 2 'network.allreduce: a ring allreduce over 8192 ranks has 134201344 messages per call' \
  -- "$SGDSIM" run "$S" --db "$DB" --set algorithm.name=csgd --set cluster.workers=8192 \
     --set network.allreduce=ring --set batch.per_worker=1 --set data.n_train=9000

# keys that do not fit the rest of the scenario
expect_exit 2 'topology.kind: algorithm "lsgd" needs "cluster"' \
  -- "$SGDSIM" run "$S" --db "$DB" --set 'topology={"kind":"flat"}'
expect_exit 2 'topology.nic: only valid with kind "cluster"' \
  -- "$SGDSIM" validate "$S" --set 'topology={"kind":"flat","nic":{"bandwidth_gbps":1}}' --set algorithm.name=csgd
expect_exit 2 'network.bandwidth_gbps: not used with topology.kind "cluster"' \
  -- "$SGDSIM" validate "$S" --set network.bandwidth_gbps=10
expect_exit 2 'model.hidden: not valid with kind "preset"' \
  -- "$SGDSIM" validate "$S" --set 'model={"kind":"preset","preset":"resnet50","hidden":[8]}'
expect_exit 2 'model.preset: only valid with kind "preset"' \
  -- "$SGDSIM" validate "$S" --set model.preset=resnet50
expect_exit 2 "algorithm.overlap: expected" \
  -- "$SGDSIM" validate "$S" --set algorithm.overlap=3
expect_exit 2 "algorithm.fanout: unknown key" \
  -- "$SGDSIM" validate "$S" --set algorithm.fanout=2

[ ! -e "$DB" ] || [ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 0 ] || fail "bad input left a run row"
finish
