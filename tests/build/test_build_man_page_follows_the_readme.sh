# docs/sgdsim.1 is written in step with README.md's "Command line" section: the manual page's
# SYNOPSIS, with its roff markup taken out, is the README's synopsis block, line for line
# (continuation lines joined, runs of spaces squeezed).  A change to one without the other
# fails here, with both versions shown.
# Arguments: SOURCE_DIR
. "$(dirname "$0")/lib.sh"
SRC="$1"
# Joins lines that start with spaces onto the line before, squeezes spaces.
join_lines() { awk '/^[[:space:]]/ { sub(/^[[:space:]]+/, ""); line = line " " $0; next }
                    { if (NR > 1) print line; line = $0 } END { print line }' | tr -s ' '; }
awk '/^## Command line/ { s = 1; next } s && /^```/ { if (inblock) exit; inblock = 1; next }
     inblock' "$SRC/README.md" | join_lines > "$TMP/readme.txt"
awk '/^\.SH SYNOPSIS/ { s = 1; next } s && /^\.SH/ { exit } s && !/^\.(nf|fi)/' "$SRC/docs/sgdsim.1" |
  sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' | join_lines > "$TMP/man.txt"
[ -s "$TMP/readme.txt" ] || fail "no synopsis block under README.md's \"## Command line\""
[ -s "$TMP/man.txt" ] || fail "no SYNOPSIS in docs/sgdsim.1"
diff -u "$TMP/readme.txt" "$TMP/man.txt" > "$TMP/diff.txt" ||
  fail "docs/sgdsim.1's SYNOPSIS (+) differs from README.md's Command line (-):
$(cat "$TMP/diff.txt")"
finish
