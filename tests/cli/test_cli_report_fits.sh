# `report`'s per-run table reads on a 100-column terminal: it has a seed column, a long
# scenario name is cut with an ellipsis so that every line of the table fits 100
# characters, numbers are never cut, and `--wide` shows the whole name.
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
finish
