# The two layer guards (docs/architecture.md, "Build") and their agreement:
#   grep   -- scripts/check-layers.sh passes on the source tree, and fails with file:line on a
#             copy with an injected upward include (sim/ -> models/), an include that climbs
#             out with "../", and a test of sim/ including algorithms/; and on a copy with
#             SQL above results/ (a statement's text in cli/) and SQLite used in render/ or
#             analysis/ (an sqlite3_ call, an #include <sqlite3.h>);
#   build  -- each row's include folder in the build tree (layers/<row>/) holds exactly the
#             folders cmake/layers.txt allows it, each a link to that source folder, so an
#             include of any other folder does not compile (checked with the C compiler's
#             preprocessor for every row and every folder it may not include).
# Arguments: SOURCE_DIR BUILD_DIR C_COMPILER
. "$(dirname "$0")/lib.sh"
SRC="$1" BUILD="$2" CC="$3"
CHECK="$SRC/scripts/check-layers.sh"
TABLE="$SRC/cmake/layers.txt"

out=$(bash "$CHECK" "$SRC" 2>&1) || fail "check-layers.sh refuses the source tree: $out"

# A copy of the layer folders with three offences.
mapfile -t folders < <(awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$TABLE" | cut -d/ -f1 | sort -u)
mkdir -p "$TMP/tree/cmake" "$TMP/tree/scripts"
cp "$TABLE" "$TMP/tree/cmake/"
cp "$CHECK" "$TMP/tree/scripts/"
for f in "${folders[@]}"; do cp -r "$SRC/$f" "$TMP/tree/"; done
bash "$TMP/tree/scripts/check-layers.sh" "$TMP/tree" >/dev/null 2>&1 || fail "the plain copy does not pass"
n=$(wc -l < "$TMP/tree/sim/engine.c")
printf '#include "models/model.h"\n' >> "$TMP/tree/sim/engine.c"
printf '#include "../cli/common.h"\n' >> "$TMP/tree/models/idx.h"
printf '#include "tests/check.h"\n#include <algorithms/alg.h>\n' > "$TMP/tree/tests/sim/injected.c"
out=$(bash "$TMP/tree/scripts/check-layers.sh" "$TMP/tree" 2>&1); rc=$?
[ "$rc" = 1 ] || fail "check-layers.sh: exit $rc on upward includes, wanted 1: $out"
for want in "sim/engine.c:$((n + 1)): includes \"models/model.h\": sim/ may include only sim, common" \
            'models/idx.h:' '"../cli/common.h": no ".." in includes' \
            'tests/sim/injected.c:2: includes "algorithms/alg.h"'; do
  case "$out" in *"$want"*) ;; *) fail "check-layers.sh output lacks '$want': $out" ;; esac
done
case "$out" in *injected.c:1:*) fail "tests/sim may include tests/, yet: $out" ;; esac
case "$out" in *"SQL outside results/; ask"*) fail "check-layers.sh finds SQL in the copy before any was put there: $out" ;; esac

# SQL above results/: refused as well, by file:line; a comment naming a keyword is not SQL.
fresh_copy() { rm -rf "$TMP/sqltree"; mkdir -p "$TMP/sqltree"; cp -r "$TMP/tree/cmake" "$TMP/tree/scripts" "$TMP/sqltree/"; for f in "${folders[@]}"; do cp -r "$SRC/$f" "$TMP/sqltree/"; done; }
fresh_copy
n=$(wc -l < "$TMP/sqltree/cli/cmd_report.c")
printf '/* SELECT in a comment is prose */\nstatic const char q[] = "SELECT id FROM runs";\n' >> "$TMP/sqltree/cli/cmd_report.c"
printf 'static int f(sqlite3 *h) { return sqlite3_exec (h, q, 0, 0, 0); }\n' >> "$TMP/sqltree/render/table.c"
m=$(wc -l < "$TMP/sqltree/render/table.c")
printf '#include <sqlite3.h>\n' >> "$TMP/sqltree/analysis/groups.c"
g=$(wc -l < "$TMP/sqltree/analysis/groups.c")
out=$(bash "$TMP/sqltree/scripts/check-layers.sh" "$TMP/sqltree" 2>&1); rc=$?
[ "$rc" = 1 ] || fail "check-layers.sh: exit $rc on SQL above results/, wanted 1: $out"
for want in "cli/cmd_report.c:$((n + 2)):" "SQL outside results/; ask" "render/table.c:$m:" \
            "analysis/groups.c:$g:" "SQLite used outside results/"; do
  case "$out" in *"$want"*) ;; *) fail "check-layers.sh output lacks '$want': $out" ;; esac
done
case "$out" in *"cli/cmd_report.c:$((n + 1)):"*) fail "a comment line counted as SQL: $out" ;; esac

# The build's include folders follow the table exactly.
while read -r row deps; do
  case "$row" in ''|'#'*) continue ;; esac
  view="$BUILD/layers/${row//\//-}"
  [ -d "$view" ] || { fail "no include folder $view for row $row"; continue; }
  have=$(cd "$view" && ls -A | sort | tr '\n' ' ')
  want=$(printf '%s\n' $deps | sort | tr '\n' ' ')
  [ "$have" = "$want" ] || fail "$view holds '$have', cmake/layers.txt says '$want'"
  for d in $deps; do
    [ "$(readlink -f "$view/$d")" = "$(readlink -f "$SRC/$d")" ] || fail "$view/$d is not a link to $SRC/$d"
  done
  for f in "${folders[@]}"; do
    case " $deps " in *" $f "*) continue ;; esac
    h=$(cd "$SRC" && ls "$f"/*.h 2>/dev/null | head -1)
    [ -n "$h" ] || continue
    printf '#include "%s"\n' "$h" > "$TMP/probe.c"
    if err=$("$CC" -E -I "$view" "$TMP/probe.c" -o /dev/null 2>&1); then
      fail "row $row: #include \"$h\" compiles through $view"
    else
      case "$err" in *"$h"*) ;; *) fail "row $row: #include \"$h\" failed for another reason: $err" ;; esac
    fi
  done
done < "$TABLE"
finish
