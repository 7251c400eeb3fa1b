#!/usr/bin/env bash
# Issue 16's LeNet-5 experiments on Fashion-MNIST (docs/reproductions.md, "LeNet-5 on
# Fashion-MNIST"): FASGD vs SASGD at lambda = 16, 128, 1000 clients on the uniform schedule
# (scenarios/cnn/lenet5_{fasgd,sasgd}.json, minibatch 16), and CSGD vs LSGD on 4 workers x 16
# (scenarios/cnn/lenet5_csgd.json; LSGD on 2 nodes x 2 GPUs), whose parameters must be the
# same bit for bit: the script compares every loss and error row of the two runs and fails
# if one differs.  One thread per run.  Environment:
#   UPDATES       server updates per asynchronous run (default 20000)
#   LAMBDAS       client counts (default "16 128 1000")
#   SEEDS         seeds of every asynchronous setting, run as a sweep axis (default 1,2,3; a
#                 rerun skips the seeds already finished); the tables give mean +- sd over
#                 them and Welch's test of FASGD against SASGD at each lambda
#   JOBS          asynchronous runs at once (default 1)
#   SYNC_UPDATES  updates per synchronous run (default 2000)
#   DB            results database (default out/cnn-exp.db; runs are appended, the tables
#                 use the latest finished run of each setting, seed and length); the
#                 synchronous runs (seed 1: CSGD = LSGD is exact) go to ${DB%.db}-sync.db
#   FIGURES       folder for the figures, drawn with `sgdsim plot` (default docs/figures)
#   SGDSIM, OPENBLAS_CORETYPE   as in scripts/fasgd-common.sh
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATES="${UPDATES:-20000}" LAMBDAS="${LAMBDAS:-16 128 1000}" SYNC_UPDATES="${SYNC_UPDATES:-2000}"
SEEDS="${SEEDS:-1,2,3}" JOBS="${JOBS:-1}"
DB="${DB:-out/cnn-exp.db}" FIGURES="${FIGURES:-docs/figures}" SGDSIM="${SGDSIM:-build/sgdsim}"
SYNC_DB="${DB%.db}-sync.db"
[[ "$SEEDS" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "cnn-exp.sh: SEEDS=$SEEDS: not a comma-separated list of seeds" >&2; exit 2; }
for v in UPDATES SYNC_UPDATES JOBS; do
  case "${!v}" in '' | *[!0-9]* | 0) echo "cnn-exp.sh: $v must be a positive integer, got '${!v}'" >&2; exit 2 ;; esac
done
[ -x "$SGDSIM" ] || { echo "cnn-exp.sh: $SGDSIM not built: run scripts/test.sh or cmake first" >&2; exit 2; }
if [ -z "${OPENBLAS_CORETYPE+x}" ]; then
  if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell; fi
fi
mkdir -p "$(dirname "$DB")" "$FIGURES"

# run DB SCENARIO TAG UPDATES EVERY --set ... : one run, tagged by its scenario name.
run() {
  local db="$1" scn="$2" tag="$3" updates="$4" every="$5"; shift 5
  echo "== $tag ($updates updates)" >&2
  nice "$SGDSIM" run "$scn" --db "$db" --quiet --threads 1 --set "name=$tag" \
    --set "stop.updates=$updates" --set "eval.every=$every" "$@" || {
    rc=$?; [ "$rc" = 3 ] || exit "$rc"; echo "   (diverged)" >&2; }
}

# seeds SCENARIO TAG: one asynchronous setting over every seed of SEEDS, as a sweep (a rerun
# skips the seeds already finished; a diverged seed counts as finished).
seeds() {
  local scn="$1" tag="$2"; shift 2
  echo "== $tag ($UPDATES updates, seeds $SEEDS)" >&2
  nice "$SGDSIM" sweep "$scn" --db "$DB" --quiet -j "$JOBS" --threads 1 --set "name=$tag" \
    --set "stop.updates=$UPDATES" --set "eval.every=$every" --set "seed=$SEEDS" "$@"
}

every=$(( UPDATES / 10 > 0 ? UPDATES / 10 : 1 ))
for lam in $LAMBDAS; do
  seeds scenarios/cnn/lenet5_fasgd.json "cnn/fasgd/lambda=$lam" --set "cluster.workers=$lam"
  seeds scenarios/cnn/lenet5_sasgd.json "cnn/sasgd/lambda=$lam" --set "cluster.workers=$lam"
done
sync_every=$(( SYNC_UPDATES / 10 > 0 ? SYNC_UPDATES / 10 : 1 ))
run "$SYNC_DB" scenarios/cnn/lenet5_csgd.json cnn/csgd "$SYNC_UPDATES" "$sync_every"
run "$SYNC_DB" scenarios/cnn/lenet5_csgd.json cnn/lsgd "$SYNC_UPDATES" "$sync_every" \
  --set algorithm.name=lsgd --set 'topology={"kind":"cluster","gpus_per_node":2}'

# The asynchronous settings over the seeds: final and last-3 validation error, mean +- sd
# (min-max), and FASGD against SASGD at each lambda (Welch's t over the seeds, last 3).
echo "Over seeds $SEEDS, $UPDATES updates:"
SGDSIM="$SGDSIM" python3 scripts/seed_stats.py summary "$DB" --like 'cnn/%' --updates "$UPDATES" --last 3
for lam in $LAMBDAS; do
  "$SGDSIM" report "$DB" --welch "cnn/fasgd/lambda=$lam" "cnn/sasgd/lambda=$lam" \
    --updates "$UPDATES" --last 3 || true
done

# The synchronous runs: the latest run of each, its final validation error, the mean over its
# last 3 evaluations, and its virtual and wall-clock seconds.
LATEST="WITH latest AS (SELECT max(id) AS id, scenario FROM runs GROUP BY scenario)
SELECT l.scenario, r.status, r.updates,
  printf('%.4f', (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'val_error'
                  ORDER BY update_idx DESC LIMIT 1)) AS final_err,
  printf('%.4f', (SELECT avg(value) FROM (SELECT value FROM metrics m WHERE m.run_id = r.id
                  AND m.name = 'val_error' ORDER BY update_idx DESC LIMIT 3))) AS last3_err,
  (SELECT printf('%.1f', value) FROM metrics m WHERE m.run_id = r.id AND
   m.name = 'staleness_mean') AS tau_mean,
  printf('%.3f', r.vtime_ns / 1e9) AS vtime_s, printf('%.0f', r.wall_s) AS wall_s
FROM latest l JOIN runs r ON r.id = l.id ORDER BY l.scenario"
sqlite3 -header -column "$SYNC_DB" "$LATEST"

# CSGD and LSGD: the same loss and error rows, value for value (their parameters are the same
# bit for bit, tests/algorithms/test_cnn.c), at different virtual times.
differ=$(sqlite3 "$SYNC_DB" "
  WITH c AS (SELECT max(id) AS id FROM runs WHERE scenario = 'cnn/csgd'),
       l AS (SELECT max(id) AS id FROM runs WHERE scenario = 'cnn/lsgd'),
       mc AS (SELECT update_idx, name, value FROM metrics WHERE run_id = (SELECT id FROM c)
              AND name IN ('train_loss', 'val_loss', 'val_error')),
       ml AS (SELECT update_idx, name, value FROM metrics WHERE run_id = (SELECT id FROM l)
              AND name IN ('train_loss', 'val_loss', 'val_error'))
  SELECT (SELECT count(*) FROM mc) || ' ' ||
         (SELECT count(*) FROM mc LEFT JOIN ml USING (update_idx, name)
          WHERE ml.value IS NOT mc.value) || ' ' || (SELECT count(*) FROM ml)")
set -- $differ
if [ "$1" -gt 0 ] && [ "$2" = 0 ] && [ "$1" = "$3" ]; then
  echo "CSGD = LSGD: all $1 loss and error rows identical"
else
  echo "cnn-exp.sh: CSGD and LSGD differ: $2 of $1 rows (LSGD has $3)" >&2
  exit 1
fi

band=(); [[ "$SEEDS" == *,* ]] && band=(--band std)
# Colour = lambda and dash = algorithm, so that the two algorithms at one lambda pair up.
"$SGDSIM" plot "$DB" --y val_error --by algorithm,cluster.workers --color-by cluster.workers \
  --dash-by algorithm --label algorithm= --label cluster.workers=λ "${band[@]}" \
  --where "stop.updates=$UPDATES" \
  --title "LeNet-5, Fashion-MNIST: FASGD vs SASGD, mu = 16, $UPDATES updates, seeds $SEEDS" \
  -o "$FIGURES/cnn_fasgd_sasgd_val_error.png"
"$SGDSIM" plot "$SYNC_DB" --y val_error --x vtime --by scenario --label scenario= \
  --title "LeNet-5, Fashion-MNIST: CSGD and LSGD, 4 x 16, $SYNC_UPDATES updates" \
  -o "$FIGURES/cnn_csgd_lsgd_val_error.png"
echo "databases: $DB, $SYNC_DB; figures: $FIGURES/cnn_fasgd_sasgd_val_error.png, $FIGURES/cnn_csgd_lsgd_val_error.png"
