#!/usr/bin/env bash
# FASGD paper, Experiment 2 (docs/papers.md §2): mu = 128, lambda = 250, 500, 1000, 10000, fully
# asynchronous; FASGD (lr 0.005) vs SASGD (1/(tau+1), lr 0.04), plus the ablation: SASGD's
# plain asynchronous update with FASGD's normaliser and no staleness scaling, and SASGD's
# published alpha/tau with FASGD's normaliser (both lr 0.005).  (SASGD's 1/(tau+1) with the
# normaliser IS FASGD: tests/algorithms/test_ps.c checks they are bit for bit equal.)
# Peak RSS of the lambda = 10,000 FASGD run is measured with /usr/bin/time -v when present.
# Tables: means over SEEDS, their spread over seeds, and a Welch test of FASGD vs SASGD per
# lambda.  LAMBDAS (default "250 500 1000 10000") picks the lambdas.
#   scripts/fasgd-exp2.sh                       # 100,000 updates per run
#   UPDATES=20000 ABLATION=0 scripts/fasgd-exp2.sh
. "$(dirname "$0")/fasgd-common.sh"
DB="${DB:-out/fasgd-exp2-$DATA.db}"
ABLATION="${ABLATION:-1}"
LAMBDAS="${LAMBDAS:-250 500 1000 10000}"
for lam in $LAMBDAS; do
  common=(--set "cluster.workers=$lam" --set batch.per_worker=128)
  if [ "$lam" = 10000 ] && [ -x /usr/bin/time ]; then
    # the largest resident set of the sweep's runs (one process per seed)
    /usr/bin/time -v -o "out/exp2-$DATA-lambda10000.time" \
      "$SGDSIM" sweep "$SCN" --db "$DB" --quiet -j "$JOBS" "${THREADS_ARG[@]}" \
      --set "name=exp2/fasgd/lambda=$lam" --set "stop.updates=$UPDATES" --set "seed=$SEEDS" \
      "${common[@]}" "${FASGD[@]}"
    grep -E "Maximum resident|Elapsed" "out/exp2-$DATA-lambda10000.time"
  else
    fasgd_run "exp2/fasgd/lambda=$lam" "${common[@]}" "${FASGD[@]}"
  fi
  fasgd_run "exp2/sasgd/lambda=$lam" "${common[@]}" "${SASGD[@]}"
  if [ "$ABLATION" = 1 ]; then
    fasgd_run "exp2/async+norm/lambda=$lam" "${common[@]}" --set optimizer.lr=0.005 \
      --set 'algorithm={"name":"sasgd","staleness":"none","normaliser":"fred"}'
    fasgd_run "exp2/sasgd-paper+norm/lambda=$lam" "${common[@]}" --set optimizer.lr=0.005 \
      --set 'algorithm={"name":"sasgd","staleness":"paper","normaliser":"fred"}'
  fi
done
sql "$DB" "$LATEST,
  paper(lambda, p_fasgd, p_sasgd) AS (VALUES (250,0.056,0.12), (500,0.062,0.135),
        (1000,0.079,0.16), (10000,0.18,0.30))
SELECT p.lambda, f.updates, f.n AS seeds,
       printf('%.4f', f.final_err) AS fasgd_final, printf('%.4f', f.last10_err) AS fasgd_last10,
       p.p_fasgd AS paper_fasgd,
       printf('%.4f', s.final_err) AS sasgd_final, printf('%.4f', s.last10_err) AS sasgd_last10,
       p.p_sasgd AS paper_sasgd,
       printf('%.4f', s.last10_err - f.last10_err) AS gap_last10,
       CASE WHEN a.id IS NULL THEN '-' ELSE printf('%.4f', a.last10_err) END AS async_norm_last10,
       CASE WHEN b.id IS NULL THEN '-' ELSE printf('%.4f', b.last10_err) END AS sasgdpaper_norm_last10,
       printf('%.0f', f.tau_mean) AS tau_mean
FROM paper p
JOIN fin f ON f.scenario = 'exp2/fasgd/lambda=' || p.lambda
JOIN fin s ON s.scenario = 'exp2/sasgd/lambda=' || p.lambda
LEFT JOIN fin a ON a.scenario = 'exp2/async+norm/lambda=' || p.lambda
LEFT JOIN fin b ON b.scenario = 'exp2/sasgd-paper+norm/lambda=' || p.lambda
ORDER BY p.lambda"
sql "$DB" "$LATEST SELECT r.scenario, max(m.value) AS snapshots_peak
  FROM per_run r JOIN metrics m ON m.run_id = r.id AND m.name = 'snapshots_peak'
  WHERE r.scenario LIKE 'exp2/fasgd/%' GROUP BY r.scenario ORDER BY r.scenario"
seed_spread 'exp2/%'
echo "FASGD - SASGD, last-10 mean validation error over seeds:"
for lam in $LAMBDAS; do welch "exp2/fasgd/lambda=$lam" "exp2/sasgd/lambda=$lam"; done
if [ "$DATA" = mnist ]; then markdown exp2 --paper; else markdown exp2; fi
if [ "$ABLATION" = 1 ]; then markdown ablation; fi
echo "database: $DB (data: $DATA, updates per run: $UPDATES, seeds $SEEDS)"
