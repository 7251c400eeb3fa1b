# The BLAS kernel and thread count at the CLI (numerics.blas_core, --blas-core,
# numerics.threads, --threads): bad input is exit 2 naming the file, path, flag or variable;
# runs record the kernel that really ran (runs.blas_core) and the resolved numerics in
# config_json; the run key covers the kernel but not the threads; `auto` and --version follow
# the CPU's flags; a sweep hands its points their kernel and a share of the CPUs.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
grep -qw pni /proc/cpuinfo 2>/dev/null || { echo "not an x86 CPU with SSE3: skipping"; exit 77; }
unset OPENBLAS_CORETYPE SGDSIM_BLAS_ENV
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/r.db"
has() { grep -m1 '^flags' /proc/cpuinfo | grep -qw "$1"; }
q() { sqlite3 "$1" "$2"; }

# --- bad input ---------------------------------------------------------------------------
expect_exit 2 "--blas-core Skylake: unknown OpenBLAS kernel (known: auto, Prescott," -- "$SGDSIM" run "$S" --db "$DB" --blas-core Skylake
expect_exit 2 "--blas-core: missing value" -- "$SGDSIM" validate "$S" --blas-core
expect_exit 2 "--blas-core Katmai: Katmai is a 32-bit x86 kernel" -- "$SGDSIM" validate "$S" --blas-core Katmai
expect_exit 2 '--set numerics.blas_core=foo: numerics.blas_core: unknown OpenBLAS kernel "foo"' -- "$SGDSIM" run "$S" --db "$DB" --set numerics.blas_core=foo
sed 's/"stop"/"numerics": { "blas_core": "Haswel" }, "stop"/' "$S" > "$TMP/typo.json"
expect_exit 2 'typo.json: numerics.blas_core: unknown OpenBLAS kernel "Haswel"' -- "$SGDSIM" run "$TMP/typo.json" --db "$DB"
sed 's/"stop"/"numerics": { "thread": 2 }, "stop"/' "$S" > "$TMP/key.json"
expect_exit 2 "key.json: numerics.thread: unknown key" -- "$SGDSIM" validate "$TMP/key.json"
sed 's/"stop"/"numerics": { "threads": 1000 }, "stop"/' "$S" > "$TMP/many.json"
expect_exit 2 "many.json: numerics.threads: expected integer <= 256, got 1000" -- "$SGDSIM" run "$TMP/many.json" --db "$DB"
expect_exit 2 "--set numerics.threads=-2: numerics.threads: expected integer >= 0, got -2" -- "$SGDSIM" validate "$S" --set numerics.threads=-2
expect_exit 2 "--threads -1: expected a number of threads in 0..256" -- "$SGDSIM" run "$S" --db "$DB" --threads -1
expect_exit 2 "-t 257: expected a number of threads in 0..256" -- "$SGDSIM" validate "$S" -t 257
expect_exit 2 "--threads four: expected a number of threads" -- "$SGDSIM" sweep "$S" --db "$DB" --threads four
expect_exit 2 "unknown option --blas-core" -- "$SGDSIM" query "$DB" "SELECT 1" --blas-core Haswell

# A kernel this CPU cannot execute: refused before OpenBLAS could die of SIGILL.
refused=0
for pair in "Bulldozer fma4" "SkylakeX avx512bw" "Cooperlake avx512_bf16" "Haswell avx2"; do
  set -- $pair
  if ! has "$2"; then
    expect_exit 2 "--blas-core $1: the $1 kernel needs" -- "$SGDSIM" run "$S" --db "$DB" --blas-core "$1"
    expect_exit 2 "which this CPU lacks (missing: " -- "$SGDSIM" validate "$S" --set "numerics.blas_core=$1"
    refused=$((refused + 1))
  fi
done
[ "$refused" -gt 0 ] || echo "note: this CPU runs every kernel tried (it has FMA4 and AVX-512)"

# The user's own OPENBLAS_CORETYPE: checked like a request; a different pinned kernel is a
# conflict, not a silent choice.
expect_exit 2 'OPENBLAS_CORETYPE="Haswel" in the environment: OpenBLAS knows no such kernel' -- env OPENBLAS_CORETYPE=Haswel "$SGDSIM" run "$S" --db "$DB"
expect_exit 2 'OPENBLAS_CORETYPE="Haswel" in the environment' -- env OPENBLAS_CORETYPE=Haswel "$SGDSIM" --version
expect_exit 2 "--blas-core Prescott: asks for the Prescott kernel but OPENBLAS_CORETYPE=Core2 in the environment asks for Core2" -- env OPENBLAS_CORETYPE=Core2 "$SGDSIM" run "$S" --db "$DB" --blas-core Prescott
expect_exit 2 'SGDSIM_BLAS_ENV="junk" in the environment: malformed' -- env SGDSIM_BLAS_ENV=junk "$SGDSIM" validate "$S"
[ ! -e "$DB" ] || [ "$(q "$DB" "SELECT count(*) FROM runs")" = 0 ] || fail "refused runs left rows"

# --- what runs is what is recorded ---------------------------------------------------------
# Which kernel `auto` gives which CPU is the kernel table's business (tested with made-up and
# real CPUs in test_models_blas_kernel); here: an AVX2+FMA CPU gets one of the table's kernels.
core=$("$SGDSIM" --version | sed -n 's/.*(core \(.*\))$/\1/p')
if has avx2 && has fma; then
  case "$core" in SkylakeX|Haswell) ;; *) fail "--version runs core $core on an AVX2+FMA CPU" ;; esac
fi
[ -n "$core" ] || fail "--version names no core"
"$SGDSIM" --version | grep -q "^BLAS kernel choice: auto" || fail "--version does not say how the kernel was chosen"

run_one() { # DB ARGS... -> prints the run's id
  "$SGDSIM" run "$S" --quiet --db "$@" || fail "run $* failed"
  q "$1" "SELECT max(id) FROM runs"
}
id=$(run_one "$DB")
[ "$(q "$DB" "SELECT blas_core FROM runs WHERE id = $id")" = "$core" ] || fail "a default run's blas_core is not --version's core $core"
[ "$(q "$DB" "SELECT json_extract(config_json, '$.numerics.blas_core') FROM runs WHERE id = $id")" = "$core" ] ||
  fail "config_json does not name the resolved kernel $core"
ncpu=$(nproc)
[ "$(q "$DB" "SELECT json_extract(config_json, '$.numerics.threads') FROM runs WHERE id = $id")" = "$ncpu" ] ||
  fail "threads auto did not resolve to the $ncpu CPUs this process may use"
key_auto=$(q "$DB" "SELECT run_key FROM runs WHERE id = $id")

for k in Haswell SkylakeX; do
  if ! "$SGDSIM" validate "$S" --blas-core "$k" >/dev/null 2>&1; then echo "this CPU cannot run $k: not run"; continue; fi
  id=$(run_one "$DB" --blas-core "$k")
  [ "$(q "$DB" "SELECT blas_core FROM runs WHERE id = $id")" = "$k" ] || fail "--blas-core $k: runs.blas_core is $(q "$DB" "SELECT blas_core FROM runs WHERE id = $id")"
  key=$(q "$DB" "SELECT run_key FROM runs WHERE id = $id")
  if [ "$k" = "$core" ]; then [ "$key" = "$key_auto" ] || fail "pinning $k (what auto picks) changed the run key"
  else [ "$key" != "$key_auto" ] || fail "the $k run has the run key of the $core run"; fi
done
id=$(env OPENBLAS_CORETYPE=prescott "$SGDSIM" run "$S" --quiet --db "$DB" --blas-core PRESCOTT && q "$DB" "SELECT max(id) FROM runs")
[ "$(q "$DB" "SELECT blas_core FROM runs WHERE id = $id")" = Prescott ] || fail "OPENBLAS_CORETYPE=prescott with the same --blas-core did not run Prescott"
id=$(env OPENBLAS_CORETYPE=prescott "$SGDSIM" run "$S" --quiet --db "$DB" && q "$DB" "SELECT max(id) FROM runs")
[ "$(q "$DB" "SELECT blas_core FROM runs WHERE id = $id")" = Prescott ] || fail "the user's OPENBLAS_CORETYPE did not win over auto"

# The thread count is stored but is not part of the run key: results do not depend on it.
a=$(run_one "$DB" --threads 1); b=$(run_one "$DB" -t 3)
[ "$(q "$DB" "SELECT count(DISTINCT run_key) FROM runs WHERE id IN ($a, $b)")" = 1 ] || fail "the thread count changed the run key"
[ "$(q "$DB" "SELECT group_concat(t) FROM (SELECT json_extract(config_json, '$.numerics.threads') AS t FROM runs WHERE id IN ($a, $b) ORDER BY id)")" = "1,3" ] ||
  fail "config_json does not record the thread counts 1 and 3"
[ "$(q "$DB" "SELECT count(DISTINCT digest) FROM runs WHERE id IN ($a, $b)")" = 1 ] || fail "the thread count changed the digest"
"$SGDSIM" validate "$S" -t 5 --print | tr -d ' \n' | grep -q "\"numerics\":{\"blas_core\":\"$core\",\"threads\":5}" || fail "validate --print lacks the resolved numerics"

# --- sweeps ------------------------------------------------------------------------------
SW="$TMP/sw.db"
"$SGDSIM" sweep "$S" --set numerics.blas_core=Prescott,$core --set seed=1,2 -j 2 --db "$SW" --quiet || fail "sweep over kernels failed"
[ "$(q "$SW" "SELECT count(*) FROM runs WHERE blas_core IS NOT json_extract(config_json, '$.numerics.blas_core')")" = 0 ] ||
  fail "a sweep point ran another kernel than its configuration names"
kernels=$(q "$SW" "SELECT group_concat(k, ' ') FROM (SELECT DISTINCT blas_core AS k FROM runs ORDER BY k)")
[ "$kernels" = "$(printf '%s\n' Prescott "$core" | sort -u | tr '\n' ' ' | sed 's/ $//')" ] ||
  fail "a sweep over Prescott,$core ran the kernels: $kernels"
share=$((ncpu / 2)); [ "$share" -ge 1 ] || share=1
[ "$(q "$SW" "SELECT group_concat(DISTINCT json_extract(config_json, '$.numerics.threads')) FROM runs")" = "$share" ] ||
  fail "sweep -j 2 points did not get threads = max(1, $ncpu / 2) = $share"
"$SGDSIM" sweep "$S" --set seed=1,2 --db "$TMP/sw2.db" --quiet --threads 3 --blas-core Prescott || fail "sweep --threads 3 --blas-core Prescott failed"
[ "$(q "$TMP/sw2.db" "SELECT group_concat(DISTINCT blas_core || '/' || json_extract(config_json, '$.numerics.threads')) FROM runs")" = "Prescott/3" ] ||
  fail "sweep --threads 3 --blas-core Prescott: points ran $(q "$TMP/sw2.db" "SELECT group_concat(blas_core || '/' || config_json) FROM runs")"
expect_exit 2 "--blas-core Prescott: the sweep also has a numerics.blas_core axis (2 values); give one or the other" -- \
  "$SGDSIM" sweep "$S" --set numerics.blas_core=Prescott,Haswell --blas-core Prescott --db "$TMP/sw3.db"
expect_exit 2 "--threads 2: the sweep also has a numerics.threads axis" -- "$SGDSIM" sweep "$S" --set numerics.threads=1,4 -t 2 --db "$TMP/sw3.db"
# A threads axis collapses into one point: every thread count is the same configuration.
[ "$("$SGDSIM" sweep "$S" --set numerics.threads=1,2,4 --list --db "$TMP/sw3.db" 2>/dev/null | wc -l)" = 1 ] ||
  fail "a numerics.threads axis gave more than one point"
finish
