# Shared by scripts/fasgd-exp{1,2,3}.sh: runs the FASGD paper's experiments (docs/papers.md
# §2) with build/sgdsim into one SQLite database per experiment and prints the results with
# the sqlite3 CLI.  Environment:
#   UPDATES   server updates per run (default 100000, the paper's Experiment 1 length)
#   DATA      mnist (default) or fashion-mnist: scenarios/fasgd/$DATA.json
#   SEEDS     comma-separated seeds, run as a sweep axis (default 1,2,3: three is the fewest
#             that give a standard deviation and a t test; use at least 3 for a table)
#   JOBS      sweep points run at once (default 1; each is one process, one BLAS thread)
#   THREADS   --threads of each run (default: the sweep's, CPUs / JOBS)
#   DB        results database (default out/fasgd-expN-$DATA.db); runs are appended and
#             sweeps resume: rerunning skips the (setting, seed) points already finished.
#             The tables use, per setting and seed, the latest finished run of this length
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
[[ "$UPDATES" =~ ^[1-9][0-9]*$ ]] || { echo "UPDATES=$UPDATES: not a positive integer" >&2; exit 2; }
SEEDS="${SEEDS:-1,2,3}"
[[ "$SEEDS" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "SEEDS=$SEEDS: not a comma-separated list of seeds" >&2; exit 2; }
JOBS="${JOBS:-1}"
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { echo "JOBS=$JOBS: not a positive integer" >&2; exit 2; }
THREADS_ARG=()
if [ -n "${THREADS:-}" ]; then THREADS_ARG=(--threads "$THREADS"); fi
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 CLI (apt-get install sqlite3)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "needs python3 (scripts/seed_stats.py, repro_tables.py)" >&2; exit 2; }
export SGDSIM # the binary scripts/seed_stats.py and repro_tables.py take their numbers from
STATS=(python3 scripts/seed_stats.py)
mkdir -p out

# The paper's two methods as the authors' code runs them, with the learning rates the paper
# reports as best of 16 (docs/papers.md §2).
FASGD=(--set optimizer.lr=0.005
       --set 'algorithm={"name":"fasgd","staleness":"fred","normaliser":"fred"}')
SASGD=(--set optimizer.lr=0.04 --set 'algorithm={"name":"sasgd","staleness":"fred"}')

# fasgd_run TAG --set ... : one setting, named TAG, over every seed of SEEDS: a sweep, so a
# rerun skips the seeds already finished (a diverged seed counts as finished).
fasgd_run() {
  local tag="$1"; shift
  echo "== $tag ($UPDATES updates, $DATA, seeds $SEEDS)" >&2
  nice "$SGDSIM" sweep "$SCN" --db "$DB" --quiet -j "$JOBS" "${THREADS_ARG[@]}" \
    --set "name=$tag" --set "stop.updates=$UPDATES" --set "seed=$SEEDS" "$@"
}

# sql DB QUERY: the sqlite3 CLI with UPDATES bound as @updates (never pasted into the SQL).
sql() {
  sqlite3 -header -column -cmd ".parameter init" -cmd ".parameter set @updates $UPDATES" "$@"
}

# SQL: per setting (scenario name), the latest finished run of each seed at this length
# (per_run: final validation error, mean of the last 10 evaluations -- the curves are noisy;
# the paper read values off plots -- and mean staleness), then fin: their means over seeds
# and n.  The spread over seeds is printed by scripts/seed_stats.py.
LATEST="WITH picked AS (SELECT max(r.id) AS id FROM runs r
            JOIN params p ON p.run_id = r.id AND p.key = 'stop.updates' AND p.value = @updates
            WHERE r.status IN ('complete', 'diverged') GROUP BY r.scenario, r.seed),
  per_run AS (SELECT r.scenario, r.id, r.status, r.updates,
            (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'val_error'
             ORDER BY update_idx DESC LIMIT 1) AS final_err,
            (SELECT avg(value) FROM (SELECT value FROM metrics m WHERE m.run_id = r.id AND
             m.name = 'val_error' ORDER BY update_idx DESC LIMIT 10)) AS last10_err,
            (SELECT value FROM metrics m WHERE m.run_id = r.id AND m.name = 'staleness_mean'
             ORDER BY update_idx DESC LIMIT 1) AS tau_mean
          FROM picked JOIN runs r ON r.id = picked.id),
  fin AS (SELECT scenario, count(*) AS n, max(id) AS id, max(updates) AS updates,
            avg(final_err) AS final_err, avg(last10_err) AS last10_err, avg(tau_mean) AS tau_mean
          FROM per_run GROUP BY scenario)"

# seed_spread PATTERN: mean +- sd (min-max) over seeds and n of every setting matching the
# SQL LIKE pattern.  welch A B: Welch's t test of A's last-10 mean against B's over seeds
# (sgdsim report --welch; not made, saying why, with fewer than 2 seeds).
seed_spread() {
  echo "Spread over seeds (seeds $SEEDS):"
  "${STATS[@]}" summary "$DB" --updates "$UPDATES" --like "$1"
}
welch() {
  "$SGDSIM" report "$DB" --welch "$1" "$2" --updates "$UPDATES" 2>&1 || true
}
# markdown TABLE [--paper]: the table(s) as docs/reproductions.md prints them
# (scripts/repro_tables.py: exp1, exp2, ablation or exp3).
markdown() {
  echo "As Markdown (docs/reproductions.md):"
  python3 scripts/repro_tables.py "$1" "$DB" --updates "$UPDATES" "${@:2}"
}
