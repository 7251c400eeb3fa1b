# Sampled clients that come and go, resumed from a checkpoint taken while pushes are in
# flight, end as the uninterrupted run does: every metric row and the digest.  Two seeds
# that each broke it once: a slot left empty when the checkpoint was written (its cursor
# belonged to nobody, and the resume was refused as a period [0, 0)), and a push in flight
# from a sampled client (its task and client were not saved, so the resumed run drew
# another minibatch for it: same times, other losses).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
cd "$TMP" || exit 1
cat > s.json <<'JSON'
{ "schema_version": 1, "name": "sampled", "algorithm": { "name": "sasgd", "driver": "timed",
    "concurrency": 2 },
  "cluster": { "workers": 4, "time_factor": { "dist": "uniform", "min": 1.0, "max": 1.5 } },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20, "classes": 5,
            "partition": { "scheme": "dirichlet", "alpha": 0.5 } },
  "model": { "kind": "mlp", "hidden": [32], "init": "he" }, "batch": { "per_worker": 16 },
  "optimizer": { "lr": 0.05, "momentum": 0 },
  "compute": { "kind": "time", "time_s": { "dist": "gamma", "mean": 0.004, "cv": 0.2 } },
  "io": { "time_s": { "dist": "exponential", "mean": 0.001 } },
  "clients": { "availability": "renewal",
               "online_s": { "dist": "exponential", "mean": 0.05 },
               "offline_s": { "dist": "exponential", "mean": 0.02 },
               "compute_factor": { "dist": "lognormal", "mean": 1, "cv": 0.5 },
               "bandwidth_Bps": { "dist": "uniform", "min": 2e6, "max": 2e7 } },
  "network": { "bandwidth_gbps": 1, "latency_us": 20 }, "stop": { "updates": 60 },
  "eval": { "every": 20 } }
JSON
rows() {
  sqlite3 "$1" "SELECT digest, status FROM runs WHERE id = 1;
    SELECT update_idx, vtime_ns, name, quote(value) FROM metrics WHERE run_id = 1
    ORDER BY name, update_idx"
}
for seed in 2 5; do
  rm -f full.db part.db c.ckpt
  "$SGDSIM" run s.json --set seed=$seed --db full.db --quiet >/dev/null ||
    { fail "seed $seed: uninterrupted run"; continue; }
  "$SGDSIM" run s.json --set seed=$seed --db part.db --quiet --checkpoint c.ckpt \
    --checkpoint-exit-at 23 2>/dev/null
  [ $? = 75 ] || { fail "seed $seed: no checkpoint at update 23"; continue; }
  "$SGDSIM" run s.json --set seed=$seed --db part.db --quiet --resume c.ckpt >/dev/null \
    2>err || { fail "seed $seed: resume refused: $(cat err)"; continue; }
  [ "$(rows part.db)" = "$(rows full.db)" ] ||
    fail "seed $seed: the resumed run differs from the uninterrupted one:
$(diff <(rows part.db) <(rows full.db) | head -4)"
done
finish
