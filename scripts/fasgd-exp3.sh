#!/usr/bin/env bash
# FASGD paper, Experiment 3 (docs/papers.md §2): B-FASGD, sweeping c_fetch (pushes always sent) and
# c_push (fetches always sent) over the paper's values; reports actual vs potential copies
# (fetch and push opportunities) and the final validation error next to FASGD (c = 0).
# The paper does not give (mu, lambda) for this experiment; we use MU=8, LAMBDA=16 (its
# Experiment 1 middle setting), lr 0.005.  The paper ran 1,000,000 iterations.  FRED_TAU=0
# skips the extra sweep with the authors' staleness counting after skipped fetches.  C_FETCH,
# C_PUSH and FRED_C pick the c values of the three sweeps (defaults: the paper's, below;
# empty: none).
# Tables: means over SEEDS, their spread over seeds, and Welch tests of each FRED-counting
# setting against c = 0 (the paper's "fetch reduction is nearly free").
#   UPDATES=1000000 scripts/fasgd-exp3.sh
#   UPDATES=20000 scripts/fasgd-exp3.sh
. "$(dirname "$0")/fasgd-common.sh"
DB="${DB:-out/fasgd-exp3-$DATA.db}"
MU="${MU:-8}" LAMBDA="${LAMBDA:-16}"
common=(--set "cluster.workers=$LAMBDA" --set "batch.per_worker=$MU" --set optimizer.lr=0.005)
fasgd_run "exp3/c_fetch=0/c_push=0" "${common[@]}" \
  --set 'algorithm={"name":"b-fasgd","c_fetch":0,"c_push":0}'
C_FETCH="${C_FETCH-1 0.5 0.25 0.125 0.0625 0.03125 0.015625}"
C_PUSH="${C_PUSH-0.08 0.04 0.02 0.01 0.005 0.0025 0.00125}"
FRED_C="${FRED_C-1 0.25 0.0625 0.015625}"
for c in $C_FETCH; do
  fasgd_run "exp3/c_fetch=$c/c_push=0" "${common[@]}" \
    --set "algorithm={\"name\":\"b-fasgd\",\"c_fetch\":$c,\"c_push\":0}"
done
for c in $C_PUSH; do
  fasgd_run "exp3/c_fetch=0/c_push=$c" "${common[@]}" \
    --set "algorithm={\"name\":\"b-fasgd\",\"c_fetch\":0,\"c_push\":$c}"
done
# The authors' simulator stamps a client that skipped a fetch with the server's timestamp
# (docs/papers.md §2, "FRED quirk"), so its stale gradients are not damped.  The same c_fetch sweep
# with that counting shows how much of "fetch reduction is cheap" comes from it.
if [ "${FRED_TAU:-1}" = 1 ]; then
  for c in $FRED_C; do
    fasgd_run "exp3/fred-tau/c_fetch=$c/c_push=0" "${common[@]}" \
      --set "algorithm={\"name\":\"b-fasgd\",\"c_fetch\":$c,\"c_push\":0,\"skipped_fetch_tau\":\"fred\"}"
  done
fi
sql "$DB" "$LATEST
SELECT f.scenario, count(*) AS seeds,
       printf('%.0f', avg(fe.sent_msgs)) AS fetches,
       printf('%.0f', avg(fe.sent_msgs + fe.skipped_msgs)) AS fetch_potential,
       printf('%.0f', avg(pu.sent_msgs)) AS pushes,
       printf('%.0f', avg(pu.sent_msgs + pu.skipped_msgs)) AS push_potential,
       printf('%.2f', avg(1.0 * (fe.sent_msgs + fe.skipped_msgs + pu.sent_msgs + pu.skipped_msgs)
                          / (fe.sent_msgs + pu.sent_msgs))) AS total_reduction,
       printf('%.4f', avg(f.final_err)) AS val_final, printf('%.4f', avg(f.last10_err)) AS val_last10,
       printf('%.1f', avg(f.tau_mean)) AS tau_mean
FROM per_run f JOIN traffic fe ON fe.run_id = f.id AND fe.kind = 'fetch'
               JOIN traffic pu ON pu.run_id = f.id AND pu.kind = 'push'
WHERE f.scenario LIKE 'exp3/%' GROUP BY f.scenario ORDER BY min(f.id)"
seed_spread 'exp3/%'
if [ "${FRED_TAU:-1}" = 1 ]; then
  echo "FRED's counting minus no skipping (c = 0), last-10 mean validation error over seeds:"
  for c in $FRED_C; do welch "exp3/fred-tau/c_fetch=$c/c_push=0" "exp3/c_fetch=0/c_push=0"; done
fi
markdown exp3
echo "database: $DB (data: $DATA, updates per run: $UPDATES, mu $MU, lambda $LAMBDA, seeds $SEEDS)"
