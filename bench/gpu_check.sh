#!/usr/bin/env bash
# bench/gpu_check.sh -- everything GPU-related in one go, for a machine with an NVIDIA GPU.
# Run it once from anywhere (a few minutes on 16 cores):
#     bench/gpu_check.sh                 # CUDA_ARCH=90 by default (H100/H200); e.g. CUDA_ARCH=80
#     GPU_CHECK_OUT=$OUT/gpu_check_results.md bench/gpu_check.sh   # where the block is copied
#                                        # (default ./gpu_check_results.md)
# It
#   1. builds with CUDA (build-gpu/, -DSGDSIM_CUDA=ON) and runs the whole test suite, insisting
#      that the GPU tests ran rather than skipped:
#        test_models_backend_cuda_matches_cpu  CPU vs GPU loss/gradient/evaluation/20 training
#                                              steps within the stated tolerances; GPU results
#                                              identical (memcmp) when repeated
#        test_cli_cuda_runs                    the same scenario twice on the GPU -> identical
#                                              digests and rows; CPU vs GPU metrics within 1e-3
#                                              (an MLP, batched FASGD and a small CNN)
#        test_model_conformance_cuda           every registered model kind's example, CPU vs
#        test_model_conformance_example_cuda   GPU as above (the test-only kind: refused)
#   2. bench_cuda_grad: gradient throughput as a fraction of cuBLAS SGEMM on the same shapes
#      (MLPs and LeNet-5);
#   3. speed-up of the GPU backend over the CPU backend (wall_s of the simulation) for CSGD with
#      256 workers x 32 rows (MLPs, and LeNet-5, whose train_loss must agree with the CPU's at
#      every update within 1e-3), and for FASGD with lambda = 10,000 clients (batched, and with
#      algorithm.gradient_batch = 1);
#   4. prints a results block to paste into docs/performance.md.
# Exit status: 0 when every check passed (benchmarks print figures, they assert nothing).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD="${BUILD_DIR:-build-gpu}"
ARCH="${CUDA_ARCH:-90}"
JOBS=$(nproc)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
RESULTS="$TMP/results.md"
fail() { echo "GPU CHECK FAILED: $*" >&2; FAILS=$((FAILS + 1)); }
T0=$(date +%s)

echo "== device"
nvidia-smi -L 2>/dev/null || echo "(nvidia-smi not available)"
DEVICE=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)

echo "== build ($BUILD, CUDA architectures $ARCH)"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSGDSIM_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="$ARCH" > "$TMP/cmake.log" 2>&1 ||
  { cat "$TMP/cmake.log"; echo "configure failed"; exit 1; }
cmake --build "$BUILD" -j"$JOBS" > "$TMP/build.log" 2>&1 || { tail -40 "$TMP/build.log"; echo "build failed"; exit 1; }
grep -iE "warning" "$TMP/build.log" && fail "the CUDA build printed warnings"
SGDSIM="$ROOT/$BUILD/sgdsim"
"$SGDSIM" --version | grep -q "cuda_backend=1" || fail "--version does not report cuda_backend=1"

echo "== tests"
ctest --test-dir "$BUILD" -j"$JOBS" --output-on-failure --timeout 300 > "$TMP/ctest.log" 2>&1 ||
  fail "ctest: $(grep -E 'tests failed|\(Failed\)' "$TMP/ctest.log" | head -5)"
tail -15 "$TMP/ctest.log"
for t in test_models_backend_cuda_matches_cpu test_cli_cuda_runs test_model_conformance_cuda \
         test_model_conformance_example_cuda; do
  grep -E "$t .*Passed" "$TMP/ctest.log" >/dev/null || fail "$t did not pass (skipped or failed)"
done
# Their figures (normalised errors, bitwise equality), shown verbosely.
ctest --test-dir "$BUILD" \
  -R 'test_models_backend_cuda_matches_cpu|test_cli_cuda_runs|test_model_conformance_cuda' -V 2>&1 |
  grep -E "device:|loss cpu|bit for bit|training|largest|cuda against cpu" |
  sed 's/^[0-9]*: //' > "$TMP/agree.txt"
cat "$TMP/agree.txt"

echo "== bench_cuda_grad"
# The plugin sits next to sgdsim, not next to bench/: name it (models/backend.c, load_plugin).
SGDSIM_CUDA_PLUGIN="$ROOT/$BUILD/libsgd_cuda.so" "$BUILD/bench/bench_cuda_grad" > "$TMP/grad.txt" 2>&1 ||
  fail "bench_cuda_grad: exit $?"
cat "$TMP/grad.txt"

# ---- speed-up of the GPU backend over the CPU backend -------------------------------------
# Synthetic data (no files needed); compute charged by FLOPs; collectives in closed form, so
# the wall time is the numerics.  wall_s covers the simulation only (not data generation,
# CUDA start-up or the final evaluation), eval.every = 0.
cat > "$TMP/csgd.json" <<'JSON'
{
  "schema_version": 1,
  "name": "gpu_check_csgd256",
  "seed": 1,
  "algorithm": { "name": "csgd" },
  "cluster": { "workers": 256 },
  "data": { "source": "synthetic", "n_train": 65536, "n_validation": 2048, "dim": 784, "classes": 10, "separation": 0.05 },
  "model": { "kind": "mlp", "hidden": [256], "init": "he" },
  "batch": { "per_worker": 32 },
  "optimizer": { "lr": 0.05, "momentum": 0.9 },
  "compute": { "kind": "flops", "device_gflops": 50 },
  "network": { "bandwidth_gbps": 10, "latency_us": 5, "fidelity": "analytic" },
  "stop": { "updates": 40 },
  "eval": { "every": 0 }
}
JSON
# q DB SQL: the rows of one statement, CSV without header (sgdsim query: no sqlite3 CLI needed).
q() { "$SGDSIM" query "$1" "$2" --csv | tail -n +2; }
# speedup NAME SCENARIO [--set ...]: runs both backends, prints wall times and the ratio.
speedup() {
  local name="$1" scn="$2"; shift 2
  local db="$TMP/$name.db" wc wg
  "$SGDSIM" run "$scn" --db "$db" --quiet --backend cpu "$@" > "$TMP/$name.cpu.log" 2>&1 ||
    { fail "$name on cpu: $(tail -2 "$TMP/$name.cpu.log")"; return; }
  "$SGDSIM" run "$scn" --db "$db" --quiet --backend cuda "$@" > "$TMP/$name.cuda.log" 2>&1 ||
    { fail "$name on cuda: $(tail -2 "$TMP/$name.cuda.log")"; return; }
  wc=$(q "$db" "SELECT wall_s FROM runs WHERE backend='cpu'")
  wg=$(q "$db" "SELECT wall_s FROM runs WHERE backend='cuda'")
  local fc fg
  fc=$(q "$db" "SELECT printf('%.4f', value) FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.backend='cpu' AND name='val_loss' ORDER BY update_idx DESC LIMIT 1")
  fg=$(q "$db" "SELECT printf('%.4f', value) FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.backend='cuda' AND name='val_loss' ORDER BY update_idx DESC LIMIT 1")
  awk -v n="$name" -v c="$wc" -v g="$wg" -v fc="$fc" -v fg="$fg" 'BEGIN {
    printf "| %s | %.3f | %.4f | %.2fx | %s / %s |\n", n, c, g, c / g, fc, fg }' | tee -a "$TMP/speedup.md"
}
echo "== speed-up, GPU backend over CPU backend"
: > "$TMP/speedup.md"
speedup "CSGD 256x32, MLP 784-256-10, 40 updates" "$TMP/csgd.json"
speedup "CSGD 256x32, MLP 784-1024-1024-10, 10 updates" "$TMP/csgd.json" \
  --set 'model.hidden=[1024,1024]' --set stop.updates=10
# The CNN on both backends: also every update's train_loss compared (within 1e-3 relative).
LENET="CSGD 256x32, LeNet-5, 10 updates"
speedup "$LENET" "$TMP/csgd.json" --set 'model={"kind":"cnn","layers":"lenet5","init":"he"}' \
  --set stop.updates=10
bad=$(q "$TMP/$LENET.db" "SELECT g.update_idx, g.value, c.value FROM metrics g JOIN runs rg
        ON rg.id = g.run_id AND rg.backend = 'cuda' JOIN metrics c ON c.name = g.name AND
        c.update_idx = g.update_idx JOIN runs rc ON rc.id = c.run_id AND rc.backend = 'cpu'
      WHERE g.name = 'train_loss' AND abs(g.value - c.value) > 1e-3 * max(1, abs(c.value))")
n=$(q "$TMP/$LENET.db" "SELECT count(*) FROM metrics m JOIN runs r ON r.id = m.run_id
      WHERE r.backend = 'cuda' AND m.name = 'train_loss'")
[ "$n" = 10 ] && [ -z "$bad" ] ||
  fail "LeNet-5: cuda vs cpu train_loss beyond 1e-3 (or $n of 10 updates): $(head -3 <<< "$bad")"

# FASGD, fully asynchronous: the GPU backend evaluates up to algorithm.gradient_batch scheduled
# gradients per call (64 by default with "cuda"); the second row shows what batching is worth
# (gradient_batch = 1: one call per gradient on both backends).  The family applies its own
# rule on the server: no momentum.
FASGD=(--set algorithm.name=fasgd --set optimizer.momentum=0 --set optimizer.lr=0.005
       --set cluster.workers=10000 --set batch.per_worker=16 --set data.n_train=160000
       --set stop.updates=5000)
speedup "FASGD lambda=10000 x 16, MLP 784-256-10, 5000 updates" "$TMP/csgd.json" "${FASGD[@]}"
speedup "same, algorithm.gradient_batch=1" "$TMP/csgd.json" "${FASGD[@]}" \
  --set algorithm.gradient_batch=1

# ---- the block for docs/performance.md ----------------------------------------------------
{
  echo
  echo "----- paste into docs/performance.md (GPU figures) -----"
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by bench/gpu_check.sh at $(git describe --always --dirty 2>/dev/null)"
  echo "on ${DEVICE:-unknown device}; host CPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $JOBS cores;"
  echo "$("$SGDSIM" --version | tr '\n' ';' | sed 's/;$//')"
  echo
  echo "Tests: $([ "$FAILS" = 0 ] && echo "all passed, GPU tests included (none skipped)" || echo "$FAILS check(s) FAILED, see the log")"
  echo
  echo '```'
  cat "$TMP/agree.txt"
  echo '```'
  echo
  echo "Gradient throughput (bench_cuda_grad; grad/sgemm = fraction of the cuBLAS SGEMM throughput on the same shapes, same run):"
  echo
  echo '```'
  cat "$TMP/grad.txt"
  echo '```'
  echo
  echo "| run | CPU backend wall_s | GPU backend wall_s | speed-up | final val_loss cpu / gpu |"
  echo "|---|---|---|---|---|"
  cat "$TMP/speedup.md"
  echo "----- end -----"
} | tee "$RESULTS"
cp "$RESULTS" "${GPU_CHECK_OUT:-$ROOT/gpu_check_results.md}" 2>/dev/null || true
echo "gpu_check: $(( $(date +%s) - T0 )) s, $FAILS failure(s)"
[ "$FAILS" = 0 ]
