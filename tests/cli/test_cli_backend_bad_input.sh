# Backend selection at the CLI: unknown names are refused with exit 2 (from --backend and from
# the scenario); "cuda" where it cannot run (no GPU, or a build without CUDA) is exit 2 with a
# message saying why and leaves no run row; `validate` accepts "cuda" anywhere; runs record
# their backend in runs.backend.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/r.db"

expect_exit 2 "--backend gpu: unknown backend (known: cpu, cuda)" -- "$SGDSIM" run "$S" --db "$DB" --backend gpu
expect_exit 2 "--backend: missing value" -- "$SGDSIM" run "$S" --db "$DB" --backend
expect_exit 2 'backend: expected one of' -- "$SGDSIM" run "$S" --db "$DB" --set backend=tpu
expect_exit 2 "unknown option --backend" -- "$SGDSIM" query "$DB" --backend cpu
"$SGDSIM" validate "$S" --backend cuda >/dev/null || fail "validate refused backend cuda"
"$SGDSIM" validate "$S" --backend cuda --print | grep -q '"backend": "cuda"' || fail "validate --print lacks backend cuda"

# --backend wins over --set backend=..., whichever comes first
"$SGDSIM" validate "$S" --backend cpu --set backend=cuda --print | grep -q '"backend": "cpu"' ||
  fail "--backend did not override --set backend"

"$SGDSIM" run "$S" --db "$DB" --quiet --backend cpu || fail "run --backend cpu failed"
[ "$(sqlite3 "$DB" "SELECT backend FROM runs")" = cpu ] || fail "runs.backend is not cpu"

version=$("$SGDSIM" --version)
case "$version" in
  *cuda_backend=0*)
    expect_exit 2 'backend: "cuda" is not available: this sgdsim was built without CUDA' -- \
      "$SGDSIM" run "$S" --db "$DB" --backend cuda ;;
  *cuda_backend=1*)
    out=$("$SGDSIM" run "$S" --db "$TMP/probe.db" --quiet --backend cuda 2>&1); rc=$?
    case "$out" in
      *'needs a CUDA GPU'*)
        [ "$rc" = 2 ] || fail "backend cuda without a GPU: exit $rc, wanted 2: $out"
        expect_exit 2 "s.json: backend: \"cuda\" needs a CUDA GPU, but none is usable here" -- \
          "$SGDSIM" run "$S" --db "$DB" --backend cuda ;;
      *) [ "$rc" = 0 ] || fail "backend cuda on a GPU machine: exit $rc: $out" ;;
    esac ;;
  *) fail "--version lacks cuda_backend=: $version" ;;
esac
[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" = 1 ] || fail "a refused backend left a run row"
finish
