#!/usr/bin/env bash
# Reproduces the experiments of both papers in docs/reproductions.md (FASGD Experiments 1-3,
# the LSGD scaling study) with the experiment scripts.
#
#   scripts/reproduce.sh --quick   reduced forms of every experiment (a few minutes on one
#                                  core), each result compared with the value stored in
#                                  scripts/reproduce-quick.ref; exit 1 on a difference.  The
#                                  regression check to run after changing an algorithm.
#   scripts/reproduce.sh           every table of docs/reproductions.md, with the scripts'
#                                  defaults (3 seeds): some 24-30 hours of one core, most
#                                  of them Experiment 3 at 1,000,000 updates on MNIST and
#                                  Fashion-MNIST (JOBS=N runs N points at once; estimated,
#                                  docs/reproductions.md)
#
# Options (with --quick):
#   --only LIST    a comma-separated subset of exp1,exp2,exp3,lsgd (default: all)
#   --out DIR      where the databases go (default out/reproduce-quick; its databases are
#                  deleted first, so every check is a fresh run of this build)
#   --ref FILE     the reference (default scripts/reproduce-quick.ref)
#   --seeds LIST   seeds to run (default 1; the checks use the lowest)
#   --update-ref   rewrite the reference from this run instead of comparing (with
#                  --seeds 1,2,3 it also sets the other-kernel tolerances from the spread)
# Environment: SGDSIM (default build/sgdsim), JOBS (sweep points at once, default 1),
# OPENBLAS_CORETYPE (as in scripts/fasgd-common.sh: unset = the fastest kernel this CPU runs,
# which is what the reference's "# kernel:" line records).
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "reproduce: $*" >&2; exit 2; }

quick=0 only="exp1,exp2,exp3,lsgd" out="out/reproduce-quick" ref="scripts/reproduce-quick.ref"
seeds=1 update=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --only) [ $# -ge 2 ] || die "--only needs a list"; only="$2"; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out="$2"; shift ;;
    --ref) [ $# -ge 2 ] || die "--ref needs a file"; ref="$2"; shift ;;
    --seeds) [ $# -ge 2 ] || die "--seeds needs a list"; seeds="$2"; shift ;;
    --update-ref) update=1 ;;
    *) die "unknown argument '$1' (see the comment at the top of $0)" ;;
  esac
  shift
done
for part in ${only//,/ }; do
  case "$part" in exp1|exp2|exp3|lsgd) ;; *) die "--only: unknown part '$part' (exp1,exp2,exp3,lsgd)" ;; esac
done
command -v python3 >/dev/null || die "needs python3 (scripts/reproduce_check.py)"
[ "$quick" = 1 ] || [ "$update" = 0 ] || die "--update-ref needs --quick"
[ "$quick" = 1 ] || [ "$only" = "exp1,exp2,exp3,lsgd" ] || die "--only needs --quick"
[ "$quick" = 1 ] || [ "$ref" = "scripts/reproduce-quick.ref" ] || die "--ref needs --quick"
[ "$update" = 1 ] || [ -f "$ref" ] || die "$ref: no such reference file"
export SGDSIM="${SGDSIM:-build/sgdsim}"
wants() { [[ ",$only," == *",$1,"* ]]; }

# Every table of docs/reproductions.md, in the order of the document.
full() {
  local t0=$SECONDS
  scripts/fasgd-exp1.sh
  scripts/fasgd-exp2.sh
  UPDATES=20000 scripts/fasgd-exp2.sh
  UPDATES=30000 scripts/fasgd-exp3.sh
  UPDATES=300000 scripts/fasgd-exp3.sh
  UPDATES=1000000 scripts/fasgd-exp3.sh
  UPDATES=20000 DATA=fashion-mnist scripts/fasgd-exp1.sh
  UPDATES=100000 DATA=fashion-mnist scripts/fasgd-exp1.sh
  UPDATES=100000 DATA=fashion-mnist ABLATION=0 scripts/fasgd-exp2.sh
  UPDATES=20000 DATA=fashion-mnist ABLATION=0 scripts/fasgd-exp2.sh
  UPDATES=20000 DATA=fashion-mnist scripts/fasgd-exp3.sh
  UPDATES=1000000 DATA=fashion-mnist scripts/fasgd-exp3.sh
  scripts/cnn-exp.sh
  scripts/lsgd-study.sh out/lsgd-study.db
  echo "reproduce: every table regenerated in $((SECONDS - t0)) s"
}

# The reduced forms: short runs of every setting (Experiment 2 at two lambdas), one seed,
# one thread, into fresh databases under $out.  Each part prints its tables as usual.
quick_runs() {
  local part
  for part in exp1 exp2 exp3 lsgd; do
    if wants "$part"; then rm -f "$out/$part.db" "$out/$part.db-wal" "$out/$part.db-shm"; fi
  done
  export SEEDS="$seeds" THREADS=1
  if wants exp1; then UPDATES=1000 DB="$out/exp1.db" scripts/fasgd-exp1.sh || return 1; fi
  if wants exp2; then
    UPDATES=500 LAMBDAS="250 1000" DB="$out/exp2.db" scripts/fasgd-exp2.sh || return 1
  fi
  if wants exp3; then UPDATES=2000 DB="$out/exp3.db" scripts/fasgd-exp3.sh || return 1; fi
  if wants lsgd; then scripts/lsgd-study.sh "$out/lsgd.db" || return 1; fi
}

# The reference lines of the parts that ran (so that --only checks only those).
selected_ref() {
  local f="$1" pattern
  pattern="^($(echo "$only" | sed 's/,/|/g')):"
  grep -E "^#|^[[:space:]]*$|$pattern" "$ref" > "$f"
}

if [ "$quick" = 0 ]; then full; exit 0; fi
mkdir -p "$out"
t0=$SECONDS
log="$out/runs.log"
quick_runs > "$log" 2>&1 || { tail -20 "$log" >&2; die "a run failed (log: $log)"; }
echo "reproduce --quick: runs took $((SECONDS - t0)) s (tables and progress: $log)"
if [ "$update" = 1 ]; then exec python3 scripts/reproduce_check.py "$ref" "$out" --update; fi
selected="$out/selected.ref"
selected_ref "$selected"
exec python3 scripts/reproduce_check.py "$selected" "$out"
