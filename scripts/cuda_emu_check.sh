#!/usr/bin/env bash
# Runs the GPU tests against a host emulation of CUDA, on a machine without a GPU.
#
# The plugin's sources (models/backend_cuda.cu, models/cuda_*.cu) are compiled by g++ as C++
# against scripts/cuda_emu/ (a tiny CUDA runtime and cuBLAS whose "device" is the host;
# kernels run thread by thread, with real barriers where the kernel synchronises) into the
# plugin libsgd_cuda.so of a CUDA build
# ($BUILD_DIR, default build-emu), and then test_models_backend_cuda_matches_cpu,
# test_cli_cuda_runs and the model conformance suite's CUDA parity (test_model_conformance_cuda,
# of sgdsim's kinds and of the test build's) run against it.  That checks everything in the backend but the hardware:
# GEMM arguments (transposes, leading dimensions, strides), kernel indexing, the fixed-order
# reductions, resident data and the order of operations -- and that results agree with the
# CPU within the tests' tolerances.  It cannot check cuBLAS's rounding, CUDA's memory model or
# speed: bench/gpu_check.sh on a real GPU does.  Takes a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-emu}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSGDSIM_CUDA=ON >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
plugin="$build/libsgd_cuda.so"
# Remove the emulated plugin afterwards, so the next build puts the real one back.
trap 'rm -f "$plugin"' EXIT
# The plugin's sources (models/CMakeLists.txt: backend_cuda.cu and models/cuda_*.cu).
sources=(models/backend_cuda.cu models/cuda_*.cu)
# CUDA syntax -> C++: kernel launches become emu_launch calls (threads with a barrier for the
# kernels whose body calls __syncthreads, found in the sources), dynamic shared memory a
# static buffer.  Each file becomes $build/emu_<name>.cpp.
python3 - "$build" "${sources[@]}" <<'PY'
import os, re, sys
build, sources = sys.argv[1], sys.argv[2:]
texts = {path: open(path).read() for path in sources}
# Kernels whose body calls __syncthreads (a kernel's body ends at the first "}" in column 0).
sync = {m.group(1) for t in texts.values()
        for m in re.finditer(r'__global__ void (k_\w+)\(.*?\n}\n', t, flags=re.S)
        if '__syncthreads' in m.group(0)}
assert {'k_softmax_rows', 'k_loss_reduce', 'k_bias_grad'} <= sync, sync
def launch(m):
    name, cfg, args = m.group(1), m.group(2), m.group(3)
    g, b = [p.strip() for p in re.split(r',(?![^()]*\))', cfg)][:2]
    return 'emu_launch(dim3(%s), dim3(%s), %s, [&]{ %s(%s); });' % (
        g, b, 'true' if name in sync else 'false', name, args)
total = 0
for path, s in texts.items():
    s, n = re.subn(r'(k_\w+)<<<(.*?)>>>\((.*?)\);', launch, s, flags=re.S)
    total += n
    s = s.replace('extern __shared__ double sh[];', 'double *sh = (double *)emu_shared;')
    assert '<<<' not in s and 'extern __shared__' not in s, path
    name = os.path.splitext(os.path.basename(path))[0]
    open(os.path.join(build, 'emu_%s.cpp' % name), 'w').write(s)
assert total >= 10, 'kernel launches not found: %d' % total
PY
emu_sources=()
for f in "${sources[@]}"; do emu_sources+=("$build/emu_$(basename "${f%.cu}").cpp"); done
g++ -std=c++20 -O2 -fPIC -shared -w -Iscripts/cuda_emu -I. -I"$build/generated" -o "$plugin" \
  "${emu_sources[@]}" -lpthread
log="$build/cuda_emu_check.log"
# Emulated kernels are slow (each thread of a __syncthreads kernel is a real thread): a longer
# limit than the suite's 300 s, for a loaded machine.
ctest --test-dir "$build" \
  -R 'test_models_backend_cuda_matches_cpu|test_cli_cuda_runs|test_model_conformance(_example)?_cuda' \
  -V --timeout 1200 > "$log" 2>&1 || true
grep -E "device:|loss cpu|bit for bit|training|largest|cuda against cpu|tests passed" "$log" |
  sed 's/^[0-9]*: //'
grep -q "100% tests passed, 0 tests failed out of 4" "$log" && ! grep -q "Skipped" "$log" ||
  { echo "cuda_emu_check: FAILED (or skipped), see $log" >&2; exit 1; }
echo "cuda_emu_check: the four GPU tests passed against the emulation"
