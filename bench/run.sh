#!/usr/bin/env bash
# bench/run.sh -- the CPU performance figures of docs/performance.md in one command.
#
#   bench/run.sh                          # about 5 minutes on an idle 2-core VM, more under load
#   QUICK=1 bench/run.sh                  # smoke version, about a minute: small sizes, one pair
#   BASELINE=/path/to/old/sgdsim bench/run.sh   # also times the quick start against that binary
#                                         # (BASELINE_NAME="sgdsim at abc123" labels it; it
#                                         # runs on the kernel it picks itself, as its users
#                                         # ran it, or on BASELINE_CORETYPE, e.g. Prescott)
#   BUILD_DIR=build-x bench/run.sh        # use (and if needed build) another build tree
#
# Prints the date, git revision, CPU model, core count, load average and the OpenBLAS kernel
# (sgdsim --version), then one markdown table (figure | measured | target | met?) ready for
# docs/performance.md, then the commands it ran.  Every figure is a ratio measured within this
# run, never an absolute time: the peak is measured next to the gradient, each A/B comparison
# runs as alternating pairs (REPS pairs, 3 by default), and the table gives the median with the
# spread (min-max) over the pairs.  Whole processes are timed with bash's `time`.  Thread
# comparisons check that both thread counts give the same digest, and run only when the cores
# are free: right before each, CORES copies of the FMA peak kernel must give CORES x (± 10%)
# of one; otherwise the row says why it was not measured (a busy core caps any thread ratio near
# 1x, which would read as sgdsim's).  The MLP gradient is also timed on the kernel sgdsim
# picks against another candidate, and the FASGD row gets the share of system time in its
# 1-thread runs.  The header also gives the transparent huge page settings, which the
# page-fault and system-time figures depend on.  Everything runs on the
# kernel `sgdsim --version` reports (exported as OPENBLAS_CORETYPE, so the benchmark
# executables and numpy use it too).  Benchmarks assert nothing: the exit status is 0 unless a
# command failed.  Sizes can be overridden: FASGD_UPDATES, FASGD_WARMUP, FASGD_CLI_UPDATES,
# CSGD_UPDATES, NUMPY_UPDATES, ENGINE_REPS, ENGINE_EVENTS, REPS.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD="${BUILD_DIR:-build}"
QUICK="${QUICK:-0}"
if [ "$QUICK" = 1 ]; then
  d_reps=1 d_fu=1500 d_fw=500 d_fcli=1000 d_csgd=3 d_np=300 d_er=2 d_ee=100000
else
  d_reps=3 d_fu=15000 d_fw=10000 d_fcli=10000 d_csgd=30 d_np=2000 d_er=5 d_ee=1000000
fi
REPS="${REPS:-$d_reps}"
FASGD_UPDATES="${FASGD_UPDATES:-$d_fu}" FASGD_WARMUP="${FASGD_WARMUP:-$d_fw}"
FASGD_CLI_UPDATES="${FASGD_CLI_UPDATES:-$d_fcli}" CSGD_UPDATES="${CSGD_UPDATES:-$d_csgd}"
NUMPY_UPDATES="${NUMPY_UPDATES:-$d_np}"
ENGINE_REPS="${ENGINE_REPS:-$d_er}" ENGINE_EVENTS="${ENGINE_EVENTS:-$d_ee}"
BASELINE="${BASELINE:-}" BASELINE_NAME="${BASELINE_NAME:-${BASELINE:-}}"
BASELINE_CORETYPE="${BASELINE_CORETYPE:-${OPENBLAS_CORETYPE:-}}" PY="${PY:-/usr/bin/python3}"
LAMBDA=10000 MU=128
CORES=$(nproc)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SGDSIM="$BUILD/sgdsim" BENCH="$BUILD/bench"
ROWS="$TMP/rows.md" CMDS="$TMP/commands.txt"
: > "$ROWS"
: > "$CMDS"
T0=$SECONDS

say() { echo "== $*" >&2; }
die() { echo "bench/run.sh: $*" >&2; exit 1; }

# ---- helpers ------------------------------------------------------------------------------

# stats X...: "median min max" of the numbers (the mean of the middle two for an even count).
stats() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print m, v[1], v[NR] }'
}

# fmt FORMAT X...: the median in FORMAT, then the spread "(min-max, n=N)" when N > 1.
fmt() {
  local f="$1"; shift
  set -- $(stats "$@") "$#"
  awk -v f="$f" -v m="$1" -v lo="$2" -v hi="$3" -v n="$4" 'BEGIN {
    s = sprintf(f, m); if (n > 1) s = s sprintf(" (" f "–" f ", n=%d)", lo, hi, n); print s }'
}

# median X...: the median alone.
median() { stats "$@" | cut -d' ' -f1; }

# met VALUE OP TARGET [EXTRA_OK]: "yes" or "no" (OP is >= or <=; EXTRA_OK=0 forces "no").
met() {
  awk -v v="$1" -v op="$2" -v t="$3" -v ok="${4:-1}" 'BEGIN {
    r = op == ">=" ? v >= t : v <= t; print (r && ok) ? "yes" : "no" }'
}

row() { printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" >> "$ROWS"; }

# timed OUT CMD...: runs CMD with stdout+stderr to OUT, prints its wall seconds (bash's time).
timed() {
  local out="$1"; shift
  local TIMEFORMAT=%R t
  t=$( { time "$@" > "$out" 2>&1; } 2>&1 ) || { cat "$out" >&2; die "failed: $*"; }
  echo "$t"
}

# timed_sys OUT CMD...: as timed, but prints "wall_seconds system_seconds".
timed_sys() {
  local out="$1"; shift
  local TIMEFORMAT='%R %S' t
  t=$( { time "$@" > "$out" 2>&1; } 2>&1 ) || { cat "$out" >&2; die "failed: $*"; }
  echo "$t"
}

# ratio A B: A / B.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }

note_cmd() { echo "$*" | sed "s|$TMP|\$TMP|g" >> "$CMDS"; }

digest_of() { sed -n 's/^digest \([0-9a-f]*\).*/\1/p' "$1"; }

# ---- build --------------------------------------------------------------------------------

build() {
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    say "configure $BUILD"
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$TMP/cmake.log" 2>&1 ||
      { cat "$TMP/cmake.log" >&2; die "configure failed"; }
  fi
  say "build $BUILD (if needed)"
  cmake --build "$BUILD" -j"$CORES" --target sgdsim bench_mlp_grad bench_ps bench_engine \
    > "$TMP/build.log" 2>&1 || { tail -30 "$TMP/build.log" >&2; die "build failed"; }
}

# ---- scenarios ----------------------------------------------------------------------------

write_scenarios() {
  # FASGD as bench_ps runs it (bench/bench_ps.c): uniform driver, synthetic 784-dim data.
  cat > "$TMP/fasgd.json" <<JSON
{ "schema_version": 1, "name": "bench_fasgd", "algorithm": { "name": "fasgd" },
  "cluster": { "workers": $LAMBDA },
  "data": { "source": "synthetic", "n_train": 8192, "n_validation": 64, "dim": 784, "classes": 10 },
  "model": { "kind": "mlp", "hidden": [200] }, "batch": { "per_worker": $MU },
  "optimizer": { "lr": 0.005 }, "stop": { "updates": $FASGD_CLI_UPDATES }, "eval": { "every": 0 } }
JSON
  # CSGD 256 x 32 as bench/gpu_check.sh runs it, with less data (only speed is measured).
  cat > "$TMP/csgd.json" <<JSON
{ "schema_version": 1, "name": "bench_csgd256", "seed": 1, "algorithm": { "name": "csgd" },
  "cluster": { "workers": 256 },
  "data": { "source": "synthetic", "n_train": 16384, "n_validation": 2048, "dim": 784, "classes": 10, "separation": 0.05 },
  "model": { "kind": "mlp", "hidden": [256], "init": "he" }, "batch": { "per_worker": 32 },
  "optimizer": { "lr": 0.05, "momentum": 0.9 }, "compute": { "kind": "flops", "device_gflops": 50 },
  "network": { "bandwidth_gbps": 10, "latency_us": 5, "fidelity": "analytic" },
  "stop": { "updates": $CSGD_UPDATES }, "eval": { "every": 0 } }
JSON
}

# ---- figures ------------------------------------------------------------------------------

# Gradient vs peak (bench_mlp_grad) alternating with FASGD lambda = 10,000 on one thread
# (bench_ps, measured after FASGD_WARMUP updates), so every FASGD rate has a peak measured
# right before it.
gradient_and_fasgd() {
  say "gradient vs FMA peak, FASGD lambda=$LAMBDA mu=$MU on 1 thread ($REPS pairs)"
  local i g=() eff=() outs=() peaks=() ups=()
  note_cmd "$BENCH/bench_mlp_grad"
  note_cmd "$BENCH/bench_ps -t 1 -w $FASGD_WARMUP $MU $LAMBDA $FASGD_UPDATES"
  for i in $(seq "$REPS"); do
    "$BENCH/bench_mlp_grad" > "$TMP/grad.$i" 2>&1 || { cat "$TMP/grad.$i" >&2; die "bench_mlp_grad failed"; }
    local p r
    p=$(sed -n 's/^reference peak: .*, \([0-9.]*\) GFLOP\/s/\1/p' "$TMP/grad.$i")
    r=$(awk '$1 == "784-200-10" && $2 == 128 { print $8 }' "$TMP/grad.$i")
    "$BENCH/bench_ps" -t 1 -w "$FASGD_WARMUP" "$MU" "$LAMBDA" "$FASGD_UPDATES" > "$TMP/ps.$i" 2>&1 ||
      { cat "$TMP/ps.$i" >&2; die "bench_ps failed"; }
    set -- $(awk '/^sgdsim updates_per_s/ { print $3, $5, $9 }' "$TMP/ps.$i")
    peaks+=("$p"); g+=("$r"); ups+=("$1"); outs+=("$2")
    eff+=("$(awk -v u="$1" -v mf="$3" -v p="$p" 'BEGIN { printf "%.4f", u * mf * 1e6 / (p * 1e9) }')")
    MFLOP="$3"
  done
  PEAK=$(median "${peaks[@]}")
  row "gradient, MLP 784-200-10, μ = 128, 1 thread, $KERNEL (bench_mlp_grad)" \
      "$(fmt %.3f "${g[@]}") of the peak; peak $(fmt %.1f "${peaks[@]}") GFLOP/s" \
      "≥ 0.65 of the FP32 FMA peak" "$(met "$(median "${g[@]}")" ">=" 0.65)"
  row "FASGD λ = 10,000, μ = 128, 1 thread: update rate (bench_ps, updates $FASGD_WARMUP–$FASGD_UPDATES)" \
      "$(fmt %.3f "${eff[@]}") of the FLOP-bound rate; $(fmt %.1f "${ups[@]}") updates/s, bound $(awk -v p="$PEAK" -v m="$MFLOP" 'BEGIN { printf "%.1f", p * 1e3 / m }')/s ($MFLOP MFLOP per gradient)" \
      "≥ 0.55" "$(met "$(median "${eff[@]}")" ">=" 0.55)"
  local pct=()
  for i in "${outs[@]}"; do pct+=("$(awk -v x="$i" 'BEGIN { print 100 * x }')"); done
  row "the same: wall time outside gradient math" "$(fmt %.1f%% "${pct[@]}")" "≤ 10%" \
      "$(met "$(median "${pct[@]}")" "<=" 10)"
}

# What the cores give a perfectly parallel kernel: CORES copies of the FMA peak kernel at
# once (their sum) against one alone, alternating.  The reference for the thread rows below:
# a shared or busy machine gives less than CORES x.
parallel_peak_row() {
  say "FMA peak: $CORES copies at once vs 1 ($REPS pairs)"
  note_cmd "$BENCH/bench_mlp_grad --peak   (alone, then $CORES copies at once)"
  local i k r=() p1 sum
  for i in $(seq "$REPS"); do
    "$BENCH/bench_mlp_grad" --peak > "$TMP/peak1" 2>&1 || die "bench_mlp_grad --peak failed"
    p1=$(sed -n 's/^reference peak: .*, \([0-9.]*\) GFLOP\/s/\1/p' "$TMP/peak1")
    for k in $(seq "$CORES"); do "$BENCH/bench_mlp_grad" --peak > "$TMP/peakn.$k" 2>&1 & done
    wait
    sum=$(cat "$TMP"/peakn.* | sed -n 's/^reference peak: .*, \([0-9.]*\) GFLOP\/s/\1/p' |
          awk '{ s += $1 } END { print s }')
    r+=("$(ratio "$sum" "$p1")")
  done
  PARALLEL=$(median "${r[@]}")
  row "FP32 FMA peak, $CORES copies at once vs 1 (what the cores give a perfectly parallel kernel)" \
      "$(fmt %.2fx "${r[@]}")" "${CORES}x on $CORES free cores (reference for the thread rows)" "—"
}

# Whether the cores were free for a thread row: the parallel peak (median of the pairs just
# before the row, PARALLEL) is within FREE_SHARE of CORES x.  Another process on a core caps
# any thread ratio near 1x whatever sgdsim does; more than CORES x means the lone copy was
# slowed (the machine's load changed in between).  Either way the row is refused.
FREE_SHARE=0.1
cores_free() {
  awk -v p="$PARALLEL" -v c="$CORES" -v f="$FREE_SHARE" \
    'BEGIN { exit !(p >= (1 - f) * c && p <= (1 + f) * c) }'
}

# The kernel sgdsim picks against the other candidate this CPU runs (Haswell, or SkylakeX
# where the CPU has AVX-512 and the pick is Haswell), by the MLP gradient's GFLOP/s,
# alternating: the pick should be the faster (bench/blas_kernels.sh compares every kernel).
kernel_row() {
  local other=Haswell
  if ! grep -qw avx2 /proc/cpuinfo; then
    row "gradient, MLP 784-200-10, μ = 128: $KERNEL against another kernel" \
        "not measured: no other candidate on this CPU (no AVX2)" "the faster" "—"
    return
  elif [ "$KERNEL" = Haswell ]; then
    grep -qw avx512f /proc/cpuinfo || {
      row "gradient, MLP 784-200-10, μ = 128: $KERNEL against another kernel" \
          "not measured: no other candidate on this CPU (no AVX-512)" "the faster" "—"
      return
    }
    other=SkylakeX
  fi
  say "gradient: $KERNEL vs $other ($REPS pairs)"
  note_cmd "OPENBLAS_CORETYPE=$KERNEL $BENCH/bench_mlp_grad   (and OPENBLAS_CORETYPE=$other)"
  local i a b r=()
  for i in $(seq "$REPS"); do
    a=$(OPENBLAS_CORETYPE="$KERNEL" "$BENCH/bench_mlp_grad" | awk '$1 == "784-200-10" && $2 == 128 { print $4 }')
    b=$(OPENBLAS_CORETYPE="$other" "$BENCH/bench_mlp_grad" | awk '$1 == "784-200-10" && $2 == 128 { print $4 }')
    [ -n "$a" ] && [ -n "$b" ] || die "bench_mlp_grad failed on $KERNEL or $other"
    r+=("$(ratio "$a" "$b")")
  done
  row "gradient, MLP 784-200-10, μ = 128: $KERNEL (sgdsim's pick) vs $other, GFLOP/s" \
      "$(fmt %.2fx "${r[@]}")" "the faster: ≥ 0.98x" "$(met "$(median "${r[@]}")" ">=" 0.98)"
}

# threads_pair NAME SCENARIO [SYS_ROW]: REPS alternating pairs of `sgdsim run -t 1` and
# `-t CORES`, whole-process wall time; one row with the median speed-up and whether every
# digest agreed.  With SYS_ROW = 1, a second row gives the 1-thread runs' system time (the
# kernel's: page faults, zeroing fresh memory) as a share of their wall time.
# wall_of DB: the run's simulation wall time (runs.wall_s: the loop, without loading the data).
wall_of() { "$SGDSIM" query "$1" "SELECT wall_s FROM runs" --csv | sed -n 2p; }

threads_pair() {
  local name="$1" scn="$2" sys_row="${3:-0}" i r=() rs=() sys=() d1 d2 same=1 t1 t2
  parallel_peak_row
  if ! cores_free; then
    row "$name, $CORES threads vs 1" \
        "not measured: the cores are not free ($CORES copies of the FMA peak kernel gave $(fmt %.2fx "$PARALLEL") of one, not ${CORES}x ± $(awk -v f="$FREE_SHARE" 'BEGIN { print 100 * f }')%), so a thread ratio would measure the other load" \
        "≥ 1.8x, same digest" "—"
    return
  fi
  say "$name: $CORES threads vs 1 ($REPS pairs)"
  note_cmd "$SGDSIM run $scn --db \$TMP/x.db -t 1   (and -t $CORES; whole process timed, and runs.wall_s)"
  for i in $(seq "$REPS"); do
    set -- $(timed_sys "$TMP/t1.log" "$SGDSIM" run "$scn" --db "$TMP/t1.$i.db" -t 1)
    t1="$1" sys+=("$(awk -v s="$2" -v w="$1" 'BEGIN { print 100 * s / w }')")
    t2=$(timed "$TMP/t2.log" "$SGDSIM" run "$scn" --db "$TMP/t2.$i.db" -t "$CORES")
    d1=$(digest_of "$TMP/t1.log") d2=$(digest_of "$TMP/t2.log")
    [ -n "$d1" ] && [ "$d1" = "$d2" ] || same=0
    r+=("$(ratio "$t1" "$t2")")
    rs+=("$(ratio "$(wall_of "$TMP/t1.$i.db")" "$(wall_of "$TMP/t2.$i.db")")")
    rm -f "$TMP"/t[12].$i.db*
  done
  local m; m=$(median "${r[@]}")
  row "$name, $CORES threads vs 1" \
      "$(fmt %.2fx "${r[@]}") whole process, $(fmt %.2fx "${rs[@]}") the simulation alone (runs.wall_s); digests $([ "$same" = 1 ] && echo "the same (${d1:0:8}...)" || echo DIFFER)" \
      "≥ 1.8x, same digest" "$(met "$m" ">=" 1.8 "$same")"
  [ "$sys_row" = 1 ] || return 0
  row "the same, 1 thread, whole process: system time (kernel) of the wall time" \
      "$(fmt %.1f%% "${sys[@]}")" "≤ 3%" "$(met "$(median "${sys[@]}")" "<=" 3)"
}

# sgdsim vs the numpy port (bench/ps-vs-numpy.sh: bench_ps, then numpy, per pair).
numpy_rows() {
  if ! "$PY" -c "import numpy" 2> /dev/null; then
    row "sgdsim vs the numpy port, μ = 128, 1 thread each" "not measured: numpy missing" "≥ 1.5x" "—"
    row "sgdsim vs the numpy port, μ = 128, all $CORES cores each" "not measured: numpy missing" "≥ 2.7x" "—"
    return
  fi
  local th target label i r
  for th in 1 "$CORES"; do
    say "sgdsim vs numpy, $th thread(s) ($REPS pairs)"
    note_cmd "MUS=$MU THREADS=$th LAMBDA=128 bench/ps-vs-numpy.sh $NUMPY_UPDATES"
    r=()
    for i in $(seq "$REPS"); do
      MUS=$MU THREADS=$th LAMBDA=128 BENCH="$BENCH/bench_ps" SGDSIM="$SGDSIM" PY="$PY" \
        bench/ps-vs-numpy.sh "$NUMPY_UPDATES" > "$TMP/np.$th.$i" 2>&1 ||
        { cat "$TMP/np.$th.$i" >&2; die "ps-vs-numpy.sh failed"; }
      r+=("$(awk -v mu="$MU" '$1 == mu { sub("x", "", $6); print $6 }' "$TMP/np.$th.$i")")
    done
    if [ "$th" = 1 ]; then target=1.5 label="1 thread each"; else target=2.7 label="all $CORES cores each"; fi
    row "sgdsim vs the numpy port (FASGD λ = 128), μ = 128, $label" "$(fmt %.2fx "${r[@]}")" \
        "≥ ${target}x" "$(met "$(median "${r[@]}")" ">=" "$target")"
  done
}

# baseline ARGS...: the older binary on BASELINE_CORETYPE, or on its own kernel choice.
baseline() {
  if [ -n "$BASELINE_CORETYPE" ]; then
    OPENBLAS_CORETYPE="$BASELINE_CORETYPE" "$BASELINE" "$@"
  else
    env -u OPENBLAS_CORETYPE "$BASELINE" "$@"
  fi
}

# The quick start's whole-process wall time against an older binary, alternating.
quickstart_row() {
  if [ -z "$BASELINE" ]; then
    row "quickstart wall time vs a previous version" "not measured: no baseline binary" "≤ 0.4x" "—"
    return
  fi
  [ -x "$BASELINE" ] || die "BASELINE=$BASELINE is not an executable"
  say "quickstart vs $BASELINE ($REPS pairs)"
  note_cmd "$SGDSIM run scenarios/quickstart.json --db \$TMP/x.db   (and the same with BASELINE=$BASELINE_NAME, OPENBLAS_CORETYPE=${BASELINE_CORETYPE:-unset})"
  local i r=() tn to tns=() tos=()
  for i in $(seq "$REPS"); do
    tn=$(timed "$TMP/qn.log" "$SGDSIM" run scenarios/quickstart.json --db "$TMP/qn.$i.db")
    to=$(timed "$TMP/qo.log" baseline run scenarios/quickstart.json --db "$TMP/qo.$i.db")
    r+=("$(ratio "$tn" "$to")") tns+=("$tn") tos+=("$to")
  done
  local same=different
  [ "$(digest_of "$TMP/qn.log")" = "$(digest_of "$TMP/qo.log")" ] && same="the same"
  local core; core=$(baseline --version | sed -n 's/.*(core \(.*\))/\1/p')
  row "quickstart wall time vs $BASELINE_NAME (revision $("$BASELINE" --version | sed -n 's/^git revision: //p'), kernel ${core:-?})" \
      "$(fmt %.2fx "${r[@]}"); this $(median "${tns[@]}") s, baseline $(median "${tos[@]}") s; digests $same" \
      "≤ 0.4x" "$(met "$(median "${r[@]}")" "<=" 0.4)"
}

# The event engine on the hold model (bench_engine): one row per queue size.
engine_rows() {
  say "event engine hold model (bench_engine $ENGINE_REPS $ENGINE_EVENTS)"
  note_cmd "$BENCH/bench_engine $ENGINE_REPS $ENGINE_EVENTS"
  "$BENCH/bench_engine" "$ENGINE_REPS" "$ENGINE_EVENTS" > "$TMP/engine" 2>&1 ||
    { cat "$TMP/engine" >&2; die "bench_engine failed"; }
  awk '/^bench_engine pending/ {
    printf "| event engine hold (pop one, push one at now + Exp), %s pending | %.3g events/CPU-s (%.0f ns/event), %.2fx a plain binary heap%s | events/s reported | — |\n",
      $3, $5, 1e9 / $5, $9, $11 == "yes" ? "" : ", TRAJECTORIES DIFFER" }' "$TMP/engine" >> "$ROWS"
}

# ---- main ---------------------------------------------------------------------------------

build
KERNEL=$("$SGDSIM" --version | sed -n 's/.*(core \(.*\))/\1/p')
[ -n "$KERNEL" ] || die "sgdsim --version names no kernel"
export OPENBLAS_CORETYPE="$KERNEL"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
write_scenarios
gradient_and_fasgd
kernel_row
threads_pair "FASGD λ = 10,000, μ = 128 ($FASGD_CLI_UPDATES updates)" "$TMP/fasgd.json" 1
threads_pair "CSGD 256 workers × 32, MLP 784-256-10 ($CSGD_UPDATES updates)" "$TMP/csgd.json"
numpy_rows
quickstart_row
engine_rows
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by bench/run.sh$([ "$QUICK" = 1 ] && echo " (QUICK=1)") at $(git describe --always --dirty 2> /dev/null || echo "an unknown revision"), in $((SECONDS - T0)) s"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $CORES cores$(grep -qw avx512f /proc/cpuinfo && echo ", AVX-512"); kernel $(uname -sr)"
echo "$("$SGDSIM" --version | grep '^BLAS:')"
echo "Load average (1, 5, 15 min) at the start: $LOAD0; at the end: $LOAD1"
echo "Transparent huge pages: enabled $(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null || echo unknown), defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag 2> /dev/null || echo unknown)"
echo
echo "| figure | measured | target | met? |"
echo "|---|---|---|---|"
cat "$ROWS"
echo
echo "Commands (OPENBLAS_CORETYPE=$KERNEL; REPS=$REPS alternating pairs; \$TMP holds the generated scenarios):"
sed 's/^/    /' "$CMDS"
