# Shared by scripts/fasgd-exp{1,2,3}.sh: runs the FASGD paper's experiments (NOTES.md §2) with
# build/sgdsim into one SQLite database per experiment and prints the results with the
# sqlite3 CLI.  Environment:
#   UPDATES   server updates per run (default 100000, the paper's Experiment 1 length)
#   DATA      mnist (default) or fashion-mnist: scenarios/fasgd/$DATA.json
#   DB        results database (default out/fasgd-expN-$DATA.db); runs are appended, and
#             the tables show the latest run of each setting
#   SGDSIM    the binary (default build/sgdsim)
#   OPENBLAS_CORETYPE  unset = pick the fastest OpenBLAS kernel this CPU runs (SkylakeX with
#             AVX-512, Haswell with AVX2); set it to keep your own choice ("" = OpenBLAS's).
#             The kernel changes the last bits of results (README, "Determinism").
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATES="${UPDATES:-100000}"
DATA="${DATA:-mnist}"
SGDSIM="${SGDSIM:-build/sgdsim}"
SCN="scenarios/fasgd/$DATA.json"
[ -f "$SCN" ] || { echo "no scenario $SCN (DATA=mnist or fashion-mnist)" >&2; exit 2; }
[ -x "$SGDSIM" ] || { echo "$SGDSIM not built: run scripts/test.sh or cmake first" >&2; exit 2; }
if [ -z "${OPENBLAS_CORETYPE+x}" ]; then
  if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell; fi
fi
mkdir -p out

# The paper's two methods as the authors' code runs them, with the learning rates the paper
# reports as best of 16 (NOTES.md §2).
FASGD=(--set optimizer.lr=0.005
       --set 'algorithm={"name":"fasgd","staleness":"fred","normaliser":"fred"}')
SASGD=(--set optimizer.lr=0.04 --set 'algorithm={"name":"sasgd","staleness":"fred"}')

# fasgd_run TAG --set ... : one run, tagged by its scenario name.
fasgd_run() {
  local tag="$1"; shift
  echo "== $tag ($UPDATES updates, $DATA)" >&2
  nice "$SGDSIM" run "$SCN" --db "$DB" --quiet --set "name=$tag" \
    --set "stop.updates=$UPDATES" "$@" || {
    rc=$?; [ "$rc" = 3 ] || exit "$rc"; echo "   (diverged)" >&2; }
}

# SQL for the latest run of every scenario name, with its final validation error and the mean
# over its last 10 evaluations (the curves are noisy; the paper read values off plots).
LATEST="WITH latest AS (SELECT max(id) AS id, scenario FROM runs GROUP BY scenario),
  fin AS (SELECT l.scenario, r.id, r.status, r.updates,
            (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'val_error'
             ORDER BY update_idx DESC LIMIT 1) AS final_err,
            (SELECT avg(value) FROM (SELECT value FROM metrics m WHERE m.run_id = r.id AND
             m.name = 'val_error' ORDER BY update_idx DESC LIMIT 10)) AS last10_err,
            (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'staleness_mean'
             ORDER BY update_idx DESC LIMIT 1) AS tau_mean
          FROM latest l JOIN runs r ON r.id = l.id)"
