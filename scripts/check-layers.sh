#!/usr/bin/env bash
# The layer guard by grep (docs/architecture.md, "Build"): every #include of a project header
# ("sim/engine.h", or <sim/engine.h>) in the C and CUDA sources of a folder listed in
# cmake/layers.txt must name a folder that the folder's row allows, and no include may climb
# out with "../".  Prints file:line: why, for each offence, and exits 1; exits 0 when the tree
# is clean.  The build applies the same table through each target's include directory
# (cmake/layers.cmake), so the two guards cannot disagree about what is allowed; this one
# also sees headers that no file of their own layer includes.
# It also keeps the schema inside results/: in the layers that read results (analysis/,
# web/, render/, sweep/, cli/) no string holds SQL (a keyword such as SELECT or PRAGMA in
# upper case, outside comment lines), and no file but cli/cmd_query.c, which runs the user's
# own SQL, includes <sqlite3.h> or names an sqlite3_ function or SQLITE_ constant: they read
# typed rows from results/.
#   scripts/check-layers.sh [ROOT]     # ROOT: the source tree (default: this checkout)
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
table="$root/cmake/layers.txt"
[ -f "$table" ] || { echo "check-layers: no $table" >&2; exit 2; }
cd "$root"

mapfile -t folders < <(awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$table")
for f in "${folders[@]}"; do
  [ -d "$f" ] || { echo "check-layers: $table names $f, which is no folder" >&2; exit 2; }
done
# Every include line of every C/CUDA file under a listed folder, as path:line:text.
includes=$(find "${folders[@]}" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
             -o -name '*.cuh' \) -print0 | sort -zu |
           xargs -0 grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' || true)

# awk: the table first (row folder -> allowed folders; every folder any row names counts as a
# project folder), then each include line.  A file uses the row of the longest folder that
# contains it.  Angle includes are checked only when they name a project folder (<gsl/...>
# is a system header); an include without a folder (same-folder or generated header) passes.
# SQL above results/: string literals with a keyword, and SQLite called outside cmd_query.c.
sql_bad=0
readers=()
for d in analysis web render sweep cli; do [ -d "$d" ] && readers+=("$d"); done
if [ ${#readers[@]} -gt 0 ]; then
  sql_hits=$(find "${readers[@]}" -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -zu |
             xargs -0 grep -nHE '"[^"]*\<(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|PRAGMA|ATTACH|DETACH|BEGIN|COMMIT|ROLLBACK|VACUUM|REPLACE)\>' |
             grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)' || true)
  lite_hits=$(find "${readers[@]}" -type f \( -name '*.c' -o -name '*.h' \) \
               ! -path cli/cmd_query.c -print0 | sort -zu |
               xargs -0 grep -nHE '\<sqlite3_[a-z0-9_]+|<sqlite3\.h>|\<SQLITE_[A-Z]' |
               grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)' || true)
  [ -z "$sql_hits" ] || { printf '%s: SQL outside results/; ask results/ (rdb_rows.h, rdb_read.h)\n' "$sql_hits"; sql_bad=1; }
  [ -z "$lite_hits" ] || { printf '%s: SQLite used outside results/ and cli/cmd_query.c; read through results/ (rdb_rows.h, rdb_curves.h, rdb_dump.h)\n' "$lite_hits"; sql_bad=1; }
fi

printf '%s\n' "$includes" | awk -v table="$table" '
  BEGIN {
    while ((getline line < table) > 0) {
      if (line ~ /^[[:space:]]*(#|$)/) continue
      n = split(line, w, /[[:space:]]+/)
      row[w[1]] = 1; list[w[1]] = ""
      for (i = 2; i <= n; i++) {
        allowed[w[1], w[i]] = 1; project[w[i]] = 1
        list[w[1]] = list[w[1]] (i > 2 ? ", " : "") w[i]
      }
    }
    bad = 0
  }
  $0 == "" { next }
  {
    # path:line:#include "x/y.h"
    p = index($0, ":"); file = substr($0, 1, p - 1); rest = substr($0, p + 1)
    p = index(rest, ":"); lineno = substr(rest, 1, p - 1); text = substr(rest, p + 1)
    if (!match(text, /["<][^">]*[">]/)) next
    quoted = substr(text, RSTART, 1) == "\""
    name = substr(text, RSTART + 1, RLENGTH - 2)
    best = ""
    for (r in row)
      if (index(file, r "/") == 1 && length(r) > length(best)) best = r
    if (name ~ /(^|\/)\.\.(\/|$)/) {
      printf "%s:%s: includes \"%s\": no \"..\" in includes; name the folder (%s/ may use %s)\n",
             file, lineno, name, best, list[best]
      bad = 1; next
    }
    if (index(name, "/") == 0) next
    top = substr(name, 1, index(name, "/") - 1)
    if (!quoted && !(top in project)) next
    if (!((best, top) in allowed)) {
      printf "%s:%s: includes \"%s\": %s/ may include only %s (cmake/layers.txt)\n",
             file, lineno, name, best, list[best]
      bad = 1
    }
  }
  END { exit bad }
' && [ "$sql_bad" = 0 ] && exit 0
echo "check-layers: upward or unlisted includes, or SQL outside results/ (see docs/architecture.md, \"Build\")" >&2
exit 1
