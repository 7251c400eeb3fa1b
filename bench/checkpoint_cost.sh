#!/usr/bin/env bash
# What a checkpoint costs a long parameter-server run (issue 31, docs/performance.md
# "Checkpoints"): FASGD with lambda = 10,000 clients and mu = 128 on MNIST (Experiment 2's
# largest setting, scenarios/fasgd/mnist.json), run to UPDATES updates and checkpointed
# there by bench_checkpoint (bench/bench_checkpoint.c), REPS times in each of two modes,
# alternating: `sync`, the file written while the run waits (as before background writes),
# and `bg`, the file handed to the background writer while the run goes on (as `run
# --checkpoint` does now).  Prints, per repetition and as the median (min-max) over them:
#   - the checkpoint's size against the run's live state (resident memory the run grew, an
#     upper bound of what it holds: parameter snapshots, ledger, clients), and in parameter
#     vectors (one vector = the MLP's 159,010 floats);
#   - the time the run stands still for one checkpoint (sync: settle, serialise, SHA-256,
#     write, fsync, rename; bg: settle, serialise, hand over), as a ratio to the run's own
#     mean update time; the file's write (SHA-256, write, fsync, rename), on the run's thread
#     or the writer's; in bg mode the run's update time while the writer works against its
#     update time just before, and the slowdown that costs (updates made meanwhile x the
#     difference);
#   - the time to read it back (read, SHA-256 check, restore), as a ratio to the update time;
#   - what one checkpoint every 10 minutes of wall time costs the run (sync: the stall; bg:
#     the stall plus the slowdown; over 600 s), at this size and extrapolated to the steady
#     state of 10,000 live snapshots (every client on its own version, reached after a few
#     times 10,000 updates), where size and times grow in proportion to the snapshots.
#   bench/checkpoint_cost.sh                  # UPDATES=3000, REPS=3: several minutes, ~8 GB RAM
#   UPDATES=1000 REPS=5 bench/checkpoint_cost.sh
# Environment: BUILD_DIR (default build), CKPT_DIR (where the file is written, default a
# scratch folder in out/: a checkpoint of 3000 updates is about 1.7 GB, and the disk under it
# is part of what is measured), MODES (default "sync bg"; "bg-again" measures a run's second
# checkpoint, which reuses the first one's buffer: bench/bench_checkpoint.c).  Needs
# data/mnist (README, "Data").  Asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${BUILD_DIR:-build}"
UPDATES="${UPDATES:-3000}" REPS="${REPS:-3}"
LAMBDA=10000 MU=128 SCN=scenarios/fasgd/mnist.json
[[ "$UPDATES" =~ ^[1-9][0-9]*$ ]] || { echo "UPDATES=$UPDATES: not a positive integer" >&2; exit 2; }
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || { echo "REPS=$REPS: not a positive integer" >&2; exit 2; }
[ -f data/mnist/train-images-idx3-ubyte.gz ] || { echo "needs data/mnist (README, \"Data\")" >&2; exit 2; }
[ -x "$BUILD/sgdsim" ] || { echo "$BUILD/sgdsim not built: cmake --build $BUILD" >&2; exit 2; }
cmake --build "$BUILD" --target bench_checkpoint >/dev/null
BENCH="$BUILD/bench/bench_checkpoint"
# The kernel a default `sgdsim run` uses, for the benchmark too.
KERNEL=$("$BUILD/sgdsim" --version | sed -n 's/.*(core \(.*\)).*/\1/p')
[ -n "$KERNEL" ] && export OPENBLAS_CORETYPE="$KERNEL"
mkdir -p out
dir=$(mktemp -d "${CKPT_DIR:-out}/checkpoint-cost.XXXXXX")
trap 'rm -rf "$dir"' EXIT

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs; kernel $(uname -r); OpenBLAS kernel ${KERNEL:-chosen by OpenBLAS}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); checkpoint written in $dir ($(df -P "$dir" | awk 'NR == 2 {print $1}'))"
echo "FASGD lambda = $LAMBDA, mu = $MU, checkpoint after update $UPDATES, $REPS repetitions"
echo

# Room for the updates a bg run makes while its file is written (it stops once it is).
sets=(--set "cluster.workers=$LAMBDA" --set "batch.per_worker=$MU" --set "stop.updates=$((UPDATES + 100000))")
MODES="${MODES:-sync bg}"
lines="$dir/lines"
: > "$lines"
for r in $(seq 1 "$REPS"); do
  for mode in $MODES; do
    "$BENCH" "$mode" "$SCN" "$UPDATES" "$dir/run.ckpt" "${sets[@]}" | tee -a "$lines"
    rm -f "$dir/run.ckpt"
  done
done
echo

# Per repetition the derived figures, then each one's median (min-max) over the repetitions,
# one table per mode.
for mode in $MODES; do
echo "mode $mode:"
awk -v lambda="$LAMBDA" -v mode="$mode" '
function val(k,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] } return "" }
function med(a, n,   i, j, t, b) {
  for (i = 1; i <= n; i++) b[i] = a[i]
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
  lo = b[1]; hi = b[n]
  return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
function row(name, a, fmt,   m) { m = med(a, n); printf "| %s | " fmt " (" fmt "-" fmt ") |\n", name, m, lo, hi }
val("mode") == mode {
  n++
  u = val("update_s"); b = val("base_s"); st = val("stall_s"); f = val("file_s"); rd = val("read_s")
  dn = val("during_n"); ds = val("during_s"); c = val("ckpt_bytes"); p = val("params_bytes"); l = val("live_bytes")
  size_mb[n] = c / 1e6; live_mb[n] = l / 1e6; ratio[n] = c / l; vecs[n] = c / p
  upd_ms[n] = u * 1e3; base_ms[n] = b * 1e3; stall[n] = st; sr[n] = st / u; file_s[n] = f
  af = val("after_s"); after_ms[n] = af * 1e3
  # the pace without the writer during the write: between the one before and the one after
  # (the update time drifts as the run grows its snapshots)
  during_ms[n] = ds * 1e3; during[n] = dn; slow[n] = dn * (ds - (b + af) / 2); if (slow[n] < 0) slow[n] = 0
  cost = st + slow[n]; cost_s[n] = cost; read_s[n] = rd; rr[n] = rd / u
  per10[n] = 100 * cost / 600
  scale = lambda / (c / p); steady_gb[n] = c * scale / 1e9; steady10[n] = 100 * cost * scale / 600
}
END {
  if (!n) exit
  printf "| figure | median (min-max) over %d runs |\n|---|---|\n", n
  row("checkpoint size, MB", size_mb, "%.0f")
  row("live state (resident memory the run grew), MB", live_mb, "%.0f")
  row("checkpoint / live state", ratio, "%.2f")
  row("checkpoint in parameter vectors", vecs, "%.0f")
  row("mean update time, updates 1-UPDATES, ms", upd_ms, "%.2f")
  row("mean update time, the 300 updates before the checkpoint, ms", base_ms, "%.2f")
  row("the run stands still, s", stall, "%.2f")
  row("standing still / update time", sr, "%.0f")
  row("file write (SHA-256, write, fsync, rename), s", file_s, "%.2f")
  if (mode != "sync") {
    row("updates made while the file was written", during, "%.0f")
    row("update time while the file was written, ms", during_ms, "%.2f")
    row("update time over as many updates after it, ms", after_ms, "%.2f")
    row("slowdown while the file was written, s", slow, "%.2f")
  }
  row("cost to the run of one checkpoint, s", cost_s, "%.2f")
  row("read (and restore), s", read_s, "%.2f")
  row("read / update time", rr, "%.0f")
  row("one checkpoint every 10 min at this size, % of the run", per10, "%.2f")
  row("extrapolated to 10,000 live snapshots: size, GB", steady_gb, "%.1f")
  row("extrapolated to 10,000 live snapshots: every 10 min, % of the run", steady10, "%.1f")
}' "$lines"
echo
done
echo "command: $0 (UPDATES=$UPDATES REPS=$REPS MODES=\"$MODES\"); each run: $BENCH MODE $SCN $UPDATES FILE ${sets[*]}"
