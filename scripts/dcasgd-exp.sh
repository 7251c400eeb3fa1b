#!/usr/bin/env bash
# DC-ASGD (Zheng et al., ICML 2017; algorithms/rules/dcasgd.c) against FASGD and SASGD
# (docs/reproductions.md, "DC-ASGD"): the MNIST MLP of the FASGD experiments
# (scenarios/fasgd/mnist.json, mu = 128, fully asynchronous on the uniform schedule) at
# lambda = 16, 128, 1000, and LeNet-5 on Fashion-MNIST (scenarios/cnn/lenet5_*.json, mu = 16)
# at lambda = 16, 128.  FASGD and SASGD run as in scripts/fasgd-exp*.sh and cnn-exp.sh;
# DC-ASGD runs DC_ALG at DC_LR.  No learning rate was searched for DC-ASGD: DC_LR defaults to
# FASGD's 0.005 on the MLP and to the LeNet-5 SASGD scenario's rate on LeNet-5.  The paper's
# own setting (ResNet on CIFAR-10) is not modelled: this is no reproduction of its numbers.
# Tables: per setting the mean +- sd over SEEDS, Welch's test of DC-ASGD against FASGD and
# SASGD at each lambda, and the machine time (sum of runs.wall_s) each setting took.
# Environment (besides those of scripts/fasgd-common.sh: UPDATES, SEEDS, JOBS, THREADS,
# SGDSIM, OPENBLAS_CORETYPE):
#   LAMBDAS      MLP client counts (default "16 128 1000")
#   CNN_LAMBDAS  LeNet-5 client counts (default "16 128"; "" skips LeNet-5)
#   CNN_UPDATES  updates per LeNet-5 run (default 20000, as scripts/cnn-exp.sh)
#   DC_ALG       the DC-ASGD algorithm object (default {"name":"dc-asgd"}: DC-ASGD-c,
#                lambda_dc 0.04)
#   DC_LR        DC-ASGD's learning rate on the MLP (default 0.005)
#   DB           results database (default out/dcasgd-exp.db; the LeNet-5 runs go to
#                ${DB%.db}-cnn.db); runs are appended and sweeps resume
#   scripts/dcasgd-exp.sh                          # 100,000 updates per MLP run
#   UPDATES=20000 CNN_LAMBDAS= scripts/dcasgd-exp.sh
. "$(dirname "$0")/fasgd-common.sh"
[ "$DATA" = mnist ] || { echo "dcasgd-exp.sh: the MLP part runs on mnist (DATA=$DATA)" >&2; exit 2; }
DB="${DB:-out/dcasgd-exp.db}"
CNN_DB="${DB%.db}-cnn.db"
LAMBDAS="${LAMBDAS:-16 128 1000}"
CNN_LAMBDAS="${CNN_LAMBDAS-16 128}"
CNN_UPDATES="${CNN_UPDATES:-20000}"
DC_ALG="${DC_ALG:-{\"name\":\"dc-asgd\"\}}"
DC_LR="${DC_LR:-0.005}"
for v in CNN_UPDATES; do
  case "${!v}" in '' | *[!0-9]* | 0) echo "dcasgd-exp.sh: $v must be a positive integer, got '${!v}'" >&2; exit 2 ;; esac
done
for lam in $LAMBDAS $CNN_LAMBDAS; do
  case "$lam" in '' | *[!0-9]* | 0) echo "dcasgd-exp.sh: lambda '$lam' is not a positive integer" >&2; exit 2 ;; esac
done
# The algorithm object is checked by sgdsim itself (validate), never pasted into SQL.
"$SGDSIM" validate "$SCN" --set "algorithm=$DC_ALG" --set "optimizer.lr=$DC_LR" >/dev/null ||
  { echo "dcasgd-exp.sh: DC_ALG / DC_LR refused (above)" >&2; exit 2; }

# machine_time PATTERN: the machine time (sum of wall_s over the chosen runs) per setting.
machine_time() {
  sql "$DB" "$LATEST SELECT r.scenario, count(*) AS seeds, printf('%.0f', sum(r.wall_s)) AS wall_s
    FROM per_run p JOIN runs r ON r.id = p.id WHERE r.scenario LIKE '$1' GROUP BY r.scenario
    ORDER BY r.scenario"
}

# ---- the MNIST MLP ----------------------------------------------------------------------
for lam in $LAMBDAS; do
  common=(--set "cluster.workers=$lam" --set batch.per_worker=128)
  fasgd_run "dcasgd/mlp/fasgd/lambda=$lam" "${common[@]}" "${FASGD[@]}"
  fasgd_run "dcasgd/mlp/sasgd/lambda=$lam" "${common[@]}" "${SASGD[@]}"
  fasgd_run "dcasgd/mlp/dc-asgd/lambda=$lam" "${common[@]}" --set "optimizer.lr=$DC_LR" \
    --set "algorithm=$DC_ALG"
done
seed_spread 'dcasgd/mlp/%'
for lam in $LAMBDAS; do
  welch "dcasgd/mlp/dc-asgd/lambda=$lam" "dcasgd/mlp/fasgd/lambda=$lam"
  welch "dcasgd/mlp/dc-asgd/lambda=$lam" "dcasgd/mlp/sasgd/lambda=$lam"
done
echo "Machine time (s) per MLP setting, summed over seeds:"
machine_time 'dcasgd/mlp/%'

# ---- LeNet-5 on Fashion-MNIST ------------------------------------------------------------
[ -n "$CNN_LAMBDAS" ] || exit 0
DB="$CNN_DB" UPDATES="$CNN_UPDATES"
cnn_run() { # cnn_run SCENARIO TAG --set ...
  local scn="$1" tag="$2"; shift 2
  echo "== $tag ($UPDATES updates, seeds $SEEDS)" >&2
  nice "$SGDSIM" sweep "$scn" --db "$DB" --quiet -j "$JOBS" "${THREADS_ARG[@]}" \
    --set "name=$tag" --set "stop.updates=$UPDATES" --set "seed=$SEEDS" "$@"
}
for lam in $CNN_LAMBDAS; do
  cnn_run scenarios/cnn/lenet5_fasgd.json "dcasgd/cnn/fasgd/lambda=$lam" --set "cluster.workers=$lam"
  cnn_run scenarios/cnn/lenet5_sasgd.json "dcasgd/cnn/sasgd/lambda=$lam" --set "cluster.workers=$lam"
  cnn_run scenarios/cnn/lenet5_sasgd.json "dcasgd/cnn/dc-asgd/lambda=$lam" \
    --set "cluster.workers=$lam" --set "algorithm=$DC_ALG" --set algorithm.minibatch=random
done
# A LeNet-5 run is evaluated 11 times: the means are over the last 3, as in cnn-exp.sh.
echo "Spread over seeds (seeds $SEEDS):"
"${STATS[@]}" summary "$DB" --updates "$UPDATES" --last 3 --like 'dcasgd/cnn/%'
for lam in $CNN_LAMBDAS; do
  for other in fasgd sasgd; do
    "$SGDSIM" report "$DB" --welch "dcasgd/cnn/dc-asgd/lambda=$lam" "dcasgd/cnn/$other/lambda=$lam" \
      --updates "$UPDATES" --last 3 2>&1 || true
  done
done
echo "Machine time (s) per LeNet-5 setting, summed over seeds:"
machine_time 'dcasgd/cnn/%'
