# The federated setting that scripts/fl-peer-compare.sh and scripts/fedbuff-claim.sh run (in
# words in fl-peer-compare.sh's header), and the two sides that run it: FLGo through
# scripts/fl_peer/flgo_run.py (peer_run) and sgdsim's scenarios/fl/<alg>.json (sgdsim_run),
# each writing one curve CSV per (algorithm, seed) and one run summary, which
# scripts/fl_peer/fl_tables.py reads.  Sourced from the repository root; it reads SEEDS,
# ALGS, ROUNDS, PY, SGDSIM, FLGO_SRC, FACTOR_CV and EVAL_EVERY.

# ---- the setting (both sides read these) ------------------------------------------------
CLIENTS=100 PER_ROUND=10 BUFFER=10 ALPHA=0.5 MIN_SAMPLES=32
LOCAL_STEPS=20 BATCH=32 LR=0.1 SERVER_LR=1 STALENESS=sqrt
FEDASYNC_ALPHA=0.6 FEDASYNC_A=0.5
STEP_TIME_S=0.05 BANDWIDTH_BPS=1000000
EVAL_EVERY="${EVAL_EVERY:-5}"   # server updates between evaluations (FedAsync: x PER_ROUND)
FACTOR_CV="${FACTOR_CV:-1}"
DATA_DIR="data/fashion-mnist"

# check_common: SEEDS, ALGS, ROUNDS and FACTOR_CV as the runs need them, or exit 2.
check_common() {
  local s a
  for s in $SEEDS; do
    [[ "$s" =~ ^[0-9]+$ ]] || { echo "SEEDS: '$s' is not a seed (a non-negative integer)" >&2; exit 2; }
  done
  [ -n "${SEEDS// /}" ] || { echo "SEEDS is empty" >&2; exit 2; }
  for a in $ALGS; do
    case "$a" in fedavg | fedbuff | fedasync) ;; *)
      echo "ALGS: '$a' is not fedavg, fedbuff or fedasync" >&2; exit 2 ;;
    esac
  done
  [[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS=$ROUNDS: not a positive integer" >&2; exit 2; }
  [[ "$FACTOR_CV" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
    { echo "FACTOR_CV=$FACTOR_CV: not a non-negative number" >&2; exit 2; }
  [[ "$EVAL_EVERY" =~ ^[1-9][0-9]*$ ]] || { echo "EVAL_EVERY=$EVAL_EVERY: not a positive integer" >&2; exit 2; }
}

# updates ALG, eval_every ALG: server updates of one run and its evaluation period.  FedAsync
# updates on every arrival: it runs PER_ROUND times as many updates, the same client trips.
updates() { if [ "$1" = fedasync ]; then echo $((ROUNDS * PER_ROUND)); else echo "$ROUNDS"; fi; }
eval_every() { if [ "$1" = fedasync ]; then echo $((EVAL_EVERY * PER_ROUND)); else echo "$EVAL_EVERY"; fi; }

# ---- FLGo -------------------------------------------------------------------------------
# peer_check: FLGO_SRC holds FLGo and PY has what it imports, or exit 2.
peer_check() {
  [ -n "${FLGO_SRC:-}" ] && [ -f "$FLGO_SRC/flgo/__init__.py" ] ||
    { echo "FLGO_SRC='${FLGO_SRC:-}' holds no flgo/__init__.py (scripts/fl-peer-compare.sh's header says how to get it)" >&2; exit 2; }
  "$PY" -c 'import torch, numpy, networkx, tqdm, requests' 2>/dev/null ||
    { echo "$PY lacks torch, numpy, networkx, tqdm or requests (scripts/fl-peer-compare.sh's header)" >&2; exit 2; }
  echo "FLGo at $(git -C "$FLGO_SRC" rev-parse HEAD 2>/dev/null || echo 'an unknown commit'), $("$PY" -c 'import torch; print("torch", torch.__version__)')" >&2
}

# peer_once ALG SEED BASE WORKDIR: one FLGo run into BASE.{csv,json,log} (FLGo's generated
# task under WORKDIR), or exit 1 showing the log's tail.
peer_once() {
  local alg="$1" seed="$2" base="$3" work="$4"
  # One BLAS thread, as sgdsim's runs are measured with numerics.threads 1.
  if ! OPENBLAS_NUM_THREADS=1 nice "$PY" scripts/fl_peer/flgo_run.py --flgo-src "$FLGO_SRC" \
    --data "$DATA_DIR" --algorithm "$alg" --seed "$seed" --rounds "$(updates "$alg")" \
    --clients "$CLIENTS" --per-round "$PER_ROUND" --buffer "$BUFFER" --alpha "$ALPHA" \
    --min-samples "$MIN_SAMPLES" --local-steps "$LOCAL_STEPS" --batch "$BATCH" --lr "$LR" \
    --server-lr "$SERVER_LR" --staleness "$STALENESS" --fedasync-alpha "$FEDASYNC_ALPHA" \
    --fedasync-a "$FEDASYNC_A" --step-time-s "$STEP_TIME_S" --factor-cv "$FACTOR_CV" \
    --bandwidth-Bps "$BANDWIDTH_BPS" --eval-every "$(eval_every "$alg")" --threads 1 \
    --workdir "$work" --curve "$base.csv" --summary "$base.json.tmp" > "$base.log" 2>&1
  then
    echo "FLGo $alg seed $seed failed ($base.log):" >&2; tail -5 "$base.log" >&2; exit 1
  fi
  mv "$base.json.tmp" "$base.json"
}

# peer_run DIR: FLGo runs of ALGS x SEEDS into DIR/<alg>-seed<s>.{csv,json,log}; a run whose
# summary exists is skipped, so a rerun resumes.
peer_run() {
  local dir="$1" alg seed
  peer_check
  mkdir -p "$dir"
  for alg in $ALGS; do
    for seed in $SEEDS; do
      [ -s "$dir/$alg-seed$seed.json" ] && continue
      echo "== FLGo $alg seed $seed, factor cv $FACTOR_CV" >&2
      peer_once "$alg" "$seed" "$dir/$alg-seed$seed" "$dir/tasks"
    done
  done
}

# ---- sgdsim -----------------------------------------------------------------------------
# sgdsim_settings ALG: the --set arguments that put scenarios/fl/ALG.json into the setting
# (every key as docs/scenario.md and docs/federated.md define it).
#
# The transfers.  The setting's transfer time (the model at BANDWIDTH_BPS, no contention) is
# carried by the links' latency, a propagation delay that holds no link: two links of
# MODEL_BYTES / BANDWIDTH_BPS / 2 each per message, every link at 100 Gbit/s (51 us of
# occupancy per model, so ten messages through the server's link add at most 0.5 ms).  The
# published tables were made this way because sgdsim's network then held the server's link
# for a slow client's whole transfer; it now holds each link for the message's own share
# (sim/network.h), and clients.bandwidth_Bps = BANDWIDTH_BPS with no latency gives the same
# clock here (docs/reproductions.md), where every client has the same bandwidth.
MODEL_BYTES=636040   # MLP 784-200-10: 159,010 float32 parameters
LINK_GBPS=100
sgdsim_settings() {
  local alg="$1" algo factor latency_us
  local part="{\"scheme\":\"dirichlet\",\"alpha\":$ALPHA,\"min_samples\":$MIN_SAMPLES}"
  local local_tr="{\"steps\":$LOCAL_STEPS,\"lr\":$LR,\"momentum\":0}"
  case "$alg" in
    fedavg) algo="{\"name\":\"fedavg\",\"clients_per_round\":$PER_ROUND,\"server_lr\":$SERVER_LR,\"local\":$local_tr}" ;;
    # FedBuff's staleness weight 1/sqrt(1+tau) is the rule's own (STALENESS=sqrt), no key.
    fedbuff) algo="{\"name\":\"fedbuff\",\"concurrency\":$PER_ROUND,\"buffer\":$BUFFER,\"server_lr\":$SERVER_LR,\"local\":$local_tr}" ;;
    fedasync) algo="{\"name\":\"fedasync\",\"concurrency\":$PER_ROUND,\"alpha\":$FEDASYNC_ALPHA,\"staleness\":\"polynomial\",\"a\":$FEDASYNC_A,\"local\":$local_tr}" ;;
  esac
  # A lognormal needs cv > 0; cv 0 is every client at factor 1, a constant.
  if awk -v c="$FACTOR_CV" 'BEGIN { exit !(c == 0) }'; then factor=1
  else factor="{\"dist\":\"lognormal\",\"mean\":1,\"cv\":$FACTOR_CV}"; fi
  latency_us=$(awk -v b="$MODEL_BYTES" -v bw="$BANDWIDTH_BPS" 'BEGIN { printf "%.3f", b / bw / 2 * 1e6 }')
  printf '%s\n' --set "algorithm=$algo" --set "cluster.workers=$CLIENTS" \
    --set "data.partition=$part" --set "clients.compute_factor=$factor" \
    --set "clients.bandwidth_Bps=$((LINK_GBPS * 125000000))" \
    --set "compute={\"kind\":\"time\",\"time_s\":$STEP_TIME_S}" --set "io.time_s=0" \
    --set "network.bandwidth_gbps=$LINK_GBPS" --set "network.latency_us=$latency_us" \
    --set "model={\"kind\":\"mlp\",\"hidden\":[200],\"init\":\"he\"}" \
    --set "batch.per_worker=$BATCH" --set "optimizer.lr=$LR" --set "optimizer.momentum=0" \
    --set "data.validation=test" --set "data.validation_size=0" \
    --set "eval.every=$(eval_every "$alg")" --set "stop.updates=$(updates "$alg")" \
    --set "numerics.threads=1"
}

# sgdsim_run DB DIR TAG: sgdsim runs of ALGS x SEEDS (a sweep per algorithm, named TAG/<alg>;
# a rerun resumes) into DB, exported to DIR; one run at a time, niced.  Returns 3, saying
# why, where this tree cannot run the setting (no scenarios/fl/<alg>.json, or keys it
# refuses).
sgdsim_run() {
  local db="$1" dir="$2" tag="$3" alg scn seeds sets
  [ -x "$SGDSIM" ] || { echo "$SGDSIM not built" >&2; return 2; }
  mkdir -p "$dir"
  seeds=$(echo $SEEDS | tr ' ' ',')
  for alg in $ALGS; do
    scn="scenarios/fl/$alg.json"
    if [ ! -f "$scn" ]; then
      echo "sgdsim: $scn is not in this tree: not run" >&2
      return 3
    fi
    mapfile -t sets < <(sgdsim_settings "$alg")
    if ! "$SGDSIM" validate "$scn" "${sets[@]}" >/dev/null; then
      echo "sgdsim: $scn refuses the setting (above): adapt sgdsim_settings in $BASH_SOURCE" >&2
      return 3
    fi
    echo "== sgdsim $alg, seeds $seeds, factor cv $FACTOR_CV" >&2
    nice "$SGDSIM" sweep "$scn" --db "$db" --quiet -j 1 "${sets[@]}" --set "name=$tag/$alg" \
      --set "seed=$seeds"
    sgdsim_export "$db" "$tag/$alg" "$alg" "$dir"
  done
}

# sgdsim_export DB NAME ALG DIR: per seed, the latest complete run named NAME as the files
# the FLGo side writes: DIR/ALG-seed<s>.csv (accuracy = 1 - val_error; client trips =
# updates x trips per update) and DIR/ALG-seed<s>.runs.csv.  Seeds whose latest run did not
# complete are named on stderr.
sgdsim_export() {
  local per=1
  [ "$3" = fedasync ] || per=$PER_ROUND
  "$PY" - "$1" "$2" "$3" "$per" "$4" <<'PY'
import csv, sqlite3, sys
db, name, alg, per, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
latest = con.execute("SELECT max(id) FROM runs WHERE scenario = ? GROUP BY seed", (name,)).fetchall()
for (rid,) in latest:
    seed, status, wall, upd, vt = con.execute(
        "SELECT seed, status, wall_s, updates, vtime_ns FROM runs WHERE id = ?", (rid,)).fetchone()
    if status != "complete":
        print(f"sgdsim {name} seed {seed}: latest run {rid} is {status}: left out", file=sys.stderr)
        continue
    rows = con.execute("SELECT e.update_idx, e.vtime_ns, e.value, l.value FROM metrics e "
                       "LEFT JOIN metrics l ON l.run_id = e.run_id AND l.update_idx = e.update_idx "
                       "AND l.name = 'val_loss' WHERE e.run_id = ? AND e.name = 'val_error' "
                       "ORDER BY e.update_idx", (rid,)).fetchall()
    with open(f"{out}/{alg}-seed{seed}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["side", "algorithm", "seed", "round", "client_trips", "sim_time_s",
                    "test_accuracy", "test_loss", "wall_s", "eval_wall_s"])
        for u, t, err, loss in rows:
            w.writerow(["sgdsim", alg, seed, u, u * per, "%.6f" % (t / 1e9),
                        "" if err is None else "%.6f" % (1 - err),
                        "" if loss is None else "%.6f" % loss, "", ""])
    tau = con.execute("SELECT value FROM metrics WHERE run_id = ? AND name = 'staleness_mean' "
                      "ORDER BY update_idx DESC LIMIT 1", (rid,)).fetchone()
    with open(f"{out}/{alg}-seed{seed}.runs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["side", "algorithm", "seed", "rounds", "client_trips", "sim_time_s",
                    "wall_run_s", "wall_per_round_s", "wall_per_round_no_eval_s", "staleness_mean"])
        w.writerow(["sgdsim", alg, seed, upd, upd * per, vt / 1e9, wall, wall / upd, "",
                    "" if tau is None or tau[0] is None else tau[0]])
PY
}

# curve_files DIR..., run_files DIR...: the curves and run summaries under the folders.
curve_files() { local d; for d in "$@"; do ls "$d"/*-seed*.csv 2>/dev/null | grep -v '\.runs\.csv$' || true; done; }
run_files() { local d; for d in "$@"; do ls "$d"/*-seed*.json "$d"/*.runs.csv 2>/dev/null || true; done; }
