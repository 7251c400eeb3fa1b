#!/usr/bin/env bash
# The LSGD scaling study (docs/lsgd.md): ResNet-50 cost model, 4..256 GPUs at 4 per node,
# batch 64 per GPU, CSGD and LSGD, one ImageNet epoch each (1,281,167 images), then the
# 256-GPU sensitivity to I/O time per batch and NIC bandwidth (halved and doubled).  Every run
# goes into one results database; the tables are printed from it with the sqlite3 CLI.
#
#   scripts/lsgd-study.sh [DB]        (default build/lsgd-study.db, recreated)
#
# Efficiency at P GPUs = (images/s at P) / (P/4 x images/s at 4 GPUs), per algorithm and
# per set of assumptions; images/s is the runs' images_per_s metric (virtual time, steady
# state: update 1 to the last update).
set -euo pipefail
cd "$(dirname "$0")/.."
SGDSIM="${SGDSIM:-build/sgdsim}"
DB="${1:-build/lsgd-study.db}"
IMAGES=1281167
command -v sqlite3 >/dev/null || { echo "lsgd-study: needs the sqlite3 CLI (apt-get install sqlite3)" >&2; exit 2; }
if [ ! -x "$SGDSIM" ]; then # a fresh checkout: build first
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j"$(nproc)" --target sgdsim >/dev/null
fi
rm -f "$DB"

run() { # algorithm workers label [--set ...]
  local alg="$1" p="$2" label="$3"; shift 3
  local updates=$((IMAGES / (64 * p)))
  "$SGDSIM" run "scenarios/lsgd/resnet50_$alg.json" --db "$DB" --quiet \
    --set "name=$label" --set "cluster.workers=$p" --set "stop.updates=$updates" "$@"
}

for alg in csgd lsgd; do
  for p in 4 8 16 32 64 128 256; do run "$alg" "$p" "base"; done
  for p in 4 256; do
    run "$alg" "$p" "io x0.5"  --set io.time_s=0.08
    run "$alg" "$p" "io x2"    --set io.time_s=0.32
    run "$alg" "$p" "nic x0.5" --set 'topology.nic={"bandwidth_gbps":5,"latency_us":5}'
    run "$alg" "$p" "nic x2"   --set 'topology.nic={"bandwidth_gbps":20,"latency_us":5}'
  done
done

# images_per_s of every run, with the same algorithm and assumptions at 4 GPUs next to it.
RATES="WITH r AS (SELECT runs.scenario AS label, runs.algorithm AS alg, runs.workers AS p,
                         metrics.value AS ips
                  FROM runs JOIN metrics ON metrics.run_id = runs.id
                  WHERE metrics.name = 'images_per_s' AND runs.status = 'complete')
       SELECT r.label, r.alg, r.p, r.ips, r.ips / (r.p / 4.0 * b.ips) AS eff
       FROM r JOIN r AS b ON b.label = r.label AND b.alg = r.alg AND b.p = 4"

echo "Scaling (images/s of virtual time; efficiency relative to one node of 4 GPUs):"
sqlite3 -box "$DB" "WITH t AS ($RATES)
  SELECT c.p AS gpus,
         printf('%.0f', c.ips) AS csgd_images_s, printf('%.1f%%', 100 * c.eff) AS csgd_eff,
         printf('%.0f', l.ips) AS lsgd_images_s, printf('%.1f%%', 100 * l.eff) AS lsgd_eff
  FROM t AS c JOIN t AS l ON l.label = c.label AND l.p = c.p AND l.alg = 'lsgd'
  WHERE c.label = 'base' AND c.alg = 'csgd' ORDER BY c.p"

echo
echo "Sensitivity at 256 GPUs (efficiency; each relative to 4 GPUs under the same assumptions):"
sqlite3 -box "$DB" "WITH t AS ($RATES)
  SELECT c.label AS assumptions, printf('%.1f%%', 100 * c.eff) AS csgd_eff,
         printf('%.1f%%', 100 * l.eff) AS lsgd_eff
  FROM t AS c JOIN t AS l ON l.label = c.label AND l.p = c.p AND l.alg = 'lsgd'
  WHERE c.alg = 'csgd' AND c.p = 256
  ORDER BY CASE c.label WHEN 'base' THEN 0 WHEN 'io x0.5' THEN 1 WHEN 'io x2' THEN 2
                        WHEN 'nic x0.5' THEN 3 ELSE 4 END"
echo
echo "results: $DB ($(sqlite3 "$DB" 'SELECT count(*) FROM runs') runs)"
