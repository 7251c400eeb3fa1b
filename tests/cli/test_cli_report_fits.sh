# `report`'s per-run table reads on a 100-column terminal: it has a seed column, a long
# scenario name is cut with an ellipsis so that every line of the table fits 100
# characters, numbers are never cut, and `--wide` shows the whole name.  Numbers too wide to
# fit beside the rest (a 16-digit seed) are not cut either, also in vtime_s beside "no
# clock" text: the staleness columns are left out instead, and a line says so.
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/a.db"
long=a_scenario_name_long_enough_to_push_the_table_past_one_hundred_columns
"$SGDSIM" sweep "$S" --set name=$long --set seed=7,8 --db "$DB" --quiet ||
  fail "sweep"
out=$("$SGDSIM" report "$DB") || fail "report"
table=$(printf '%s\n' "$out" | sed -n '/^id /,/^$/p' | sed '/^$/d')
[ "$(printf '%s\n' "$table" | wc -l)" -eq 4 ] || fail "report: not a header, a rule and 2 runs:
$out"
printf '%s\n' "$table" | sed -n 1p | grep -q '  seed  ' || fail "report: no seed column"
printf '%s\n' "$table" | awk '{print $5}' | sed -n '3,4p' | tr '\n' ' ' |
  grep -qx '7 8 ' || fail "report: seeds are not 7 and 8:
$table"
printf '%s\n' "$table" | awk '{ if (length($0) > 100) bad = 1 } END { exit bad }' ||
  fail "report: a line is longer than 100 characters:
$table"
printf '%s\n' "$table" | grep -q " ${long:0:5}[a-z_]*… " || fail "report: the cut name has no ellipsis"
printf '%s\n' "$table" | grep -q "$long" && fail "report: the long name was not cut"
"$SGDSIM" report "$DB" --wide | grep -q "$long" || fail "report --wide: the name was cut"

# Lines of at most 100 characters (not bytes: the ellipsis is one).
fits() { local line; while IFS= read -r line; do [ "${#line}" -le 100 ] || return 1; done; }
W="$TMP/wide.db"
for set in "seed=9007199254740991" "algorithm.name=fasgd algorithm.driver=uniform optimizer.momentum=0" \
           "algorithm.name=fasgd algorithm.driver=timed optimizer.momentum=0"; do
  args=(); for kv in $set; do args+=(--set "$kv"); done
  "$SGDSIM" run "$S" --set name=$long "${args[@]}" --db "$W" --quiet >/dev/null || fail "run $set"
done
out=$("$SGDSIM" report "$W") || fail "report of the wide numbers"
table=$(printf '%s\n' "$out" | sed -n '/^id /,/^$/p' | sed '/^$/d')
printf '%s\n' "$table" | LC_ALL=C.UTF-8 fits || fail "report: a line is longer than 100 characters:
$table"
printf '%s\n' "$table" | grep -q ' 9007199254740991 ' || fail "report: the 16-digit seed was cut:
$table"
printf '%s\n' "$table" | grep -q 'no clock' || fail "report: no uniform-driver run:
$table"
vt=$("$SGDSIM" query "$W" "SELECT vtime_ns / 1e9 FROM runs WHERE id = 3" --csv | tail -n 1)
printf '%s\n' "$table" | awk '{ print $8 }' | sed -n 5p | grep -q '…' &&
  fail "report: vtime_s $vt was cut beside the text \"no clock\":
$table"
left='(mean_tau and max_tau|max_tau) left out to fit 100 columns \(--wide shows (them|it)\)'
printf '%s\n' "$out" | grep -qxE "$left" ||
  fail "report: no line says the staleness columns were left out:
$out"
"$SGDSIM" report "$W" --wide | sed -n '/^id /p' | grep -q 'mean_tau  max_tau' ||
  fail "report --wide: the staleness columns are missing"
finish
