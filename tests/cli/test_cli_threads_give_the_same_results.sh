# Threads inside one run change nothing: for every registered algorithm (the loader's refusal
# of an unknown algorithm.name lists them: lib.sh's registered_algorithms), and for variants
# that exercise more of them (CSGD's shards, FASGD's timed driver and random minibatches,
# B-FASGD's gates, Downpour's k_push and k_fetch, SASGD's n), runs with --threads 1, 2, 3 and 8
# give the same run key, digest and rows in every table but the wall-clock columns.  The parameter-server
# runs evaluate batched gradients on the threads (algorithm.gradient_batch 16, the CPU
# default), the CSGD runs' evaluations are split into chunks and the 16 x 20 = 320-row
# stacked batch into shards of 128 rows, so the threads really work.  The same for a
# convolutional network (6 x 6 images: conv, max pool, conv, fc) under CSGD's shards and
# FASGD's batched gradients.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
L="$TMP/l.json" # LSGD: 2 nodes of 2 GPUs
cat > "$L" <<'JSON'
{
  "schema_version": 1, "name": "lsgd-small", "seed": 3,
  "algorithm": { "name": "lsgd" },
  "cluster": { "workers": 4 },
  "data": { "source": "synthetic", "n_train": 400, "n_validation": 100, "dim": 8, "classes": 3 },
  "model": { "kind": "mlp", "hidden": [8] },
  "batch": { "per_worker": 4 },
  "optimizer": { "lr": 0.05 },
  "compute": { "kind": "time", "time_s": 0.002 },
  "topology": { "kind": "cluster", "gpus_per_node": 2 },
  "stop": { "updates": 30 }, "eval": { "every": 10 }
}
JSON

dump() { # what must not depend on the thread count, for the last run of db $1
  sqlite3 "$1" "SELECT run_key, config_hash, status, vtime_ns, updates, events, digest FROM runs ORDER BY id DESC LIMIT 1;
                SELECT update_idx, vtime_ns, name, quote(value) FROM metrics WHERE run_id=(SELECT max(id) FROM runs) ORDER BY name, update_idx;
                SELECT kind, sent_msgs, sent_bytes, skipped_msgs, skipped_bytes FROM traffic WHERE run_id=(SELECT max(id) FROM runs) ORDER BY kind;
                SELECT tau, count FROM staleness WHERE run_id=(SELECT max(id) FROM runs) ORDER BY tau;"
}
CNN='--set data.dim=36 --set model={"kind":"cnn","input":{"height":6,"width":6},"layers":[{"conv":{"out":4,"k":3,"pad":1}},{"pool":{"max":2}},{"conv":{"out":6,"k":2}},{"fc":10}]}'
PSCOMMON=(--set optimizer.momentum=0 --set cluster.workers=6 --set stop.updates=90)
# Each registered algorithm as it is, on the small flat scenario or, where that is refused
# (LSGD's communicators need a cluster), the cluster one; then the variants.
cases=()
for a in $(registered_algorithms "$S"); do
  if "$SGDSIM" validate "$S" --set "algorithm.name=$a" "${PSCOMMON[@]}" >/dev/null 2>&1; then
    cases+=("$a|--set algorithm.name=$a")
  else
    cases+=("$a (cluster)|--set algorithm.name=$a")
  fi
done
[ ${#cases[@]} -gt 2 ] || fail "no algorithms registered: ${cases[*]}"
cases+=(
  "csgd sharded|--set cluster.workers=16 --set batch.per_worker=20"
  "sasgd n 2|--set algorithm={\"name\":\"sasgd\",\"n\":2}"
  "fasgd random minibatch|--set algorithm={\"name\":\"fasgd\",\"minibatch\":\"random\"}"
  "fasgd timed|--set algorithm={\"name\":\"fasgd\",\"driver\":\"timed\",\"server_time_s\":0.0005}"
  "b-fasgd gates timed|--set algorithm={\"name\":\"b-fasgd\",\"driver\":\"timed\",\"c_fetch\":0.2}"
  "downpour k|--set algorithm={\"name\":\"downpour\",\"k_push\":2,\"k_fetch\":3}"
  "csgd cnn sharded|--set cluster.workers=16 --set batch.per_worker=20 $CNN"
  "fasgd cnn timed|--set algorithm={\"name\":\"fasgd\",\"driver\":\"timed\",\"server_time_s\":0.0005} $CNN"
)
# Whether the settings "$@" name an algorithm with a driver (the parameter-server family,
# which takes PSCOMMON: no momentum, more clients, more updates).
has_driver() {
  local d
  for d in uniform timed; do
    "$SGDSIM" validate "$S" "$@" "${PSCOMMON[@]}" --set "algorithm.driver=$d" >/dev/null 2>&1 && return 0
  done
  return 1
}
for c in "${cases[@]}"; do
  name=${c%%|*}; set -- ${c#*|}
  extra=("$@")
  has_driver "${extra[@]}" && extra+=("${PSCOMMON[@]}")
  for t in 1 2 3 8; do
    db="$TMP/${name// /_}-$t.db"
    file=$S; case "$name" in *"(cluster)") file=$L ;; esac
    "$SGDSIM" run "$file" --db "$db" --quiet --threads "$t" "${extra[@]}" 2>"$TMP/err" ||
      { fail "$name, $t threads: run failed: $(cat "$TMP/err")"; continue; }
    dump "$db" > "$TMP/$t.txt"
  done
  [ "$(wc -l < "$TMP/1.txt")" -gt 10 ] || fail "$name: too few rows to compare"
  for t in 2 3 8; do
    cmp -s "$TMP/1.txt" "$TMP/$t.txt" ||
      { fail "$name: $t threads differ from 1"; diff "$TMP/1.txt" "$TMP/$t.txt" | head -5 >&2; }
  done
done
finish
