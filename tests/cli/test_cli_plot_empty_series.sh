# A series without a single row (a run that never evaluated, plotted by val_error beside one
# that did) is drawn without undefined behaviour: sorting its empty set of points must not
# hand qsort a null array (caught by the sanitizer build, where it aborted).
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || { echo "gnuplot not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/e.db"
"$SGDSIM" run "$S" --db "$DB" --quiet --set eval.every=0 >/dev/null || fail "run without evaluations"
"$SGDSIM" run "$S" --db "$DB" --quiet --set seed=2 >/dev/null || fail "run with evaluations"
out=$("$SGDSIM" plot "$DB" --y val_error -o "$TMP/e.svg" 2>&1) || fail "plot with an empty series: $out"
[ -s "$TMP/e.svg" ] || fail "plot with an empty series drew nothing: $out"
finish
