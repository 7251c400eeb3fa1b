# docs/architecture.md and docs/design.md name only what exists: every backticked name that
# looks like a file (a path with a folder, or a name ending in a source or document
# extension) is a file of the tree -- a bare file name anywhere in it, a path from the root
# or from docs/ -- and every one that looks like a C identifier (with an underscore: a
# function, type, macro, field or build target) occurs as a whole word in the sources, the
# build files or the scripts.  Shell commands, options, JSON paths, SQL and quoted values are
# not names of the code and are left out.  Also: architecture.md stays a map (under 300
# lines).  Arguments: SOURCE_DIR [DOC...] (default: the two pages).
. "$(dirname "$0")/lib.sh"
SRC="$1"; shift
cd "$SRC" || exit 2
docs=("$@")
[ ${#docs[@]} -gt 0 ] || docs=(docs/architecture.md docs/design.md)

# The tree's files (build trees, data and the corpora aside) and the texts searched for
# identifiers (and the files' stems: a test or a fuzz target is named after its file).
find . -type f -not -path './.git/*' -not -path './build*' -not -path './data/*' \
  -not -path './fuzz/corpus/*' -not -path './fuzz/regressions/*' | sed 's|^\./||' | sort > "$TMP/files"
grep -E '\.(c|h|cu|cuh|sh|py|js|cmake)$|(^|/)CMakeLists\.txt$|^cmake/layers\.txt$' "$TMP/files" > "$TMP/texts"
sed -E 's|.*/||; s|\.[^.]*$||' "$TMP/files" | sort -u > "$TMP/stems"

file_exists() { # $1: a name that looks like a file
  local t="${1%/}"
  [ -e "$t" ] || [ -e "docs/$t" ] && return 0
  case "$t" in
    */*) grep -qE "(^|/)${t//./\\.}(/|$)" "$TMP/files" ;;
    *) grep -qE "(^|/)${t//./\\.}$" "$TMP/files" ;;
  esac
}

checked=0
for doc in "${docs[@]}"; do
  [ -f "$doc" ] || { fail "no $doc"; continue; }
  # every `...` span, one a line (spans never cross lines in these pages)
  grep -o '`[^`]*`' "$doc" | tr -d '`' | sort -u > "$TMP/names"
  while IFS= read -r t; do
    t="${t%()}"                                      # alg_prepare() -> alg_prepare
    case "$t" in *\(*) t="${t%%(*}" ;; esac           # sim_trace_span_args(ctx, ...) -> its name
    case "$t" in
      ''|*' '*|-*|*'"'*|*'='*|*':'*|*'<'*|*'>'*|*'*'*|*'['*|*'$'*|*','*) continue ;;
    esac
    if [[ "$t" == */* || "$t" =~ \.(c|h|cu|cuh|sh|py|js|md|txt|cmake|css|1)$ ]]; then
      checked=$((checked + 1))
      file_exists "$t" || fail "$doc names \`$t\`, which is no file of the tree"
    elif [[ "$t" =~ ^[A-Za-z_][A-Za-z0-9_]*$ && "$t" == *_* ]]; then
      checked=$((checked + 1))
      grep -qx -- "$t" "$TMP/stems" || xargs grep -qw -- "$t" < "$TMP/texts" 2>/dev/null ||
        fail "$doc names \`$t\`, which no source, build file or script holds"
    fi
  done < "$TMP/names"
done
[ "$checked" -gt 20 ] || fail "only $checked names checked: the parse is broken"
for doc in "${docs[@]}"; do
  case "$doc" in
    *architecture.md) n=$(wc -l < "$doc"); [ "$n" -lt 300 ] || fail "$doc has $n lines: a map stays under 300" ;;
  esac
done
finish
