# --version reports provenance; every subcommand has --help.
. "$(dirname "$0")/lib.sh"
v=$("$SGDSIM" --version) || fail "--version failed"
for needle in "sgdsim " "git revision:" "build:" "cuda_toolkit=" "BLAS:" "core"; do
  case "$v" in *"$needle"*) ;; *) fail "--version lacks '$needle': $v" ;; esac
done
"$SGDSIM" --help | grep -q "run" || fail "--help lists no run command"
"$SGDSIM" run --help | grep -q -- "--db PATH" || fail "run --help"
"$SGDSIM" validate --help | grep -q -- "--set" || fail "validate --help"
S="$TMP/s.json"; small_scenario "$S"
"$SGDSIM" validate "$S" | grep -q "ok" || fail "validate of a good scenario"
"$SGDSIM" validate "$S" --print | grep -q '"workers": 3' || fail "validate --print"
for f in "$(dirname "$0")"/../../scenarios/*.json; do
  "$SGDSIM" validate "$f" >/dev/null || fail "shipped scenario $f does not validate"
done
finish
