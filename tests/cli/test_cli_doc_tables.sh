# The documentation's Markdown tables are whole: a blank line between two rows of the same
# number of columns ends the table there, and the rows after it render as a paragraph of
# pipes (README.md and docs/*.md).
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
for f in "$SRC/README.md" "$SRC"/docs/*.md; do
  awk -v f="${f#"$SRC"/}" '
    function cols(s,   t) { t = s; gsub(/\\\|/, "", t); gsub(/`[^`]*`/, "", t); return gsub(/\|/, "", t) }
    /^```/ { fence = !fence }
    !fence && /^\|/ && prev2 ~ /^\|/ && prev1 ~ /^[ \t]*$/ && cols($0) == cols(prev2) {
      printf "%s:%d: a blank line splits a table (its next row is not part of it)\n", f, NR; bad = 1 }
    { prev2 = prev1; prev1 = $0 }
    END { exit bad }' "$f" >&2 || fail "$f: a table is split by a blank line"
done
finish
