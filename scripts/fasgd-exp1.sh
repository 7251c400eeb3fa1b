#!/usr/bin/env bash
# FASGD paper, Experiment 1 (docs/papers.md §2): (mu, lambda) = (1,128), (4,32), (8,16), (32,4),
# fully asynchronous, FASGD (authors'-code form, lr 0.005) vs SASGD (1/(tau+1), lr 0.04).
# Prints the simulator's final validation errors (means over SEEDS) next to the paper's (read
# off its figures), their spread over seeds, and a Welch test of FASGD vs SASGD per setting.
# SETTINGS (default "1:128 4:32 8:16 32:4") picks mu:lambda pairs.
#   scripts/fasgd-exp1.sh                       # the paper's 100,000 updates per run
#   SEEDS=1,2,3,4,5 JOBS=2 scripts/fasgd-exp1.sh
#   UPDATES=20000 DATA=fashion-mnist scripts/fasgd-exp1.sh
. "$(dirname "$0")/fasgd-common.sh"
DB="${DB:-out/fasgd-exp1-$DATA.db}"
SETTINGS="${SETTINGS:-1:128 4:32 8:16 32:4}"
for ml in $SETTINGS; do
  mu=${ml%:*} lam=${ml#*:}
  common=(--set "cluster.workers=$lam" --set "batch.per_worker=$mu")
  fasgd_run "exp1/fasgd/mu=$mu/lambda=$lam" "${common[@]}" "${FASGD[@]}"
  fasgd_run "exp1/sasgd/mu=$mu/lambda=$lam" "${common[@]}" "${SASGD[@]}"
done
sql "$DB" "$LATEST,
  paper(mu, lambda, p_fasgd, p_sasgd) AS (VALUES (1,128,0.13,0.18), (4,32,0.065,0.10),
        (8,16,0.046,0.087), (32,4,0.033,0.062))
SELECT p.mu, p.lambda, f.updates, f.n AS seeds,
       printf('%.4f', f.final_err) AS fasgd_final, printf('%.4f', f.last10_err) AS fasgd_last10,
       p.p_fasgd AS paper_fasgd,
       printf('%.4f', s.final_err) AS sasgd_final, printf('%.4f', s.last10_err) AS sasgd_last10,
       p.p_sasgd AS paper_sasgd, printf('%.1f', f.tau_mean) AS tau_mean
FROM paper p
JOIN fin f ON f.scenario = 'exp1/fasgd/mu=' || p.mu || '/lambda=' || p.lambda
JOIN fin s ON s.scenario = 'exp1/sasgd/mu=' || p.mu || '/lambda=' || p.lambda
ORDER BY p.mu"
seed_spread 'exp1/%'
echo "FASGD - SASGD, last-10 mean validation error over seeds:"
for ml in $SETTINGS; do
  welch "exp1/fasgd/mu=${ml%:*}/lambda=${ml#*:}" "exp1/sasgd/mu=${ml%:*}/lambda=${ml#*:}"
done
if [ "$DATA" = mnist ]; then markdown exp1 --paper; else markdown exp1; fi
echo "database: $DB (data: $DATA, updates per run: $UPDATES, seeds $SEEDS)"
