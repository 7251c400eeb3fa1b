# Names live only in registries: the names of algorithms (algorithms/registry.c) and model
# kinds (models/model_registry.c) appear in the code only where they are registered -- the
# registry and the file that defines each, with the files of the same stem (lsgd_ckpt.c
# beside lsgd.c) -- and no list of them is kept anywhere else, tests included.
#   1. in the layers' C and CUDA sources, comments stripped by the C compiler, no string
#      literal "NAME" of a registered algorithm or model kind outside those files (a reader
#      that needs to know something of an algorithm asks its registry);
#   2. in every other source, test, script and benchmark (docs, test data and the build's
#      lists of source files aside), no list of them: no line naming 3 or more algorithms, or
#      3 or more model kinds, and no 6 consecutive lines naming 5 or more algorithms (a table
#      of them, one a line) -- except the files of ALLOWED below, each with why.
# The names are the binaries' own: the loader's refusal of an unknown algorithm.name and
# model.kind lists every registered one, and the test builds' (sgdsim_with_example,
# sgdsim_with_example_model) add the test-only rule and kind, which must be among them.
#   test_build_names_live_in_registries.sh SOURCE_DIR C_COMPILER SGDSIM_WITH_EXAMPLE \
#     SGDSIM_WITH_EXAMPLE_MODEL
. "$(dirname "$0")/lib.sh"
SRC="$1" CC="$2" ALG_BIN="$3" MODEL_BIN="$4"
LAYERS=(common sim models results config algorithms analysis web render sweep cli)

# Files that hold a list of registered names on purpose: path, then why.
ALLOWED=(
  "tests/cli/test_cli_threads_give_the_same_results.sh" "beside every registered algorithm,
    which it takes from the registry, variants that exercise one rule's own options each
    (test data)"
  "fuzz/fuzz_checkpoint.c" "a scenario per seed checkpoint of its corpus, each written by
    sgdsim run of that scenario (test data)"
)
# The peer comparison (docs/reproductions.md) runs the FL algorithms that its other side,
# FLGo, implements too (scripts/fl_peer/flgo_run.py): a list of the peer's, not sgdsim's.
for f in scripts/fl-peer-compare.sh scripts/fedbuff-claim.sh scripts/fl_peer/common.sh \
         scripts/fl_peer/fl_tables.py scripts/fl_peer/flgo_run.py; do
  ALLOWED+=("$f" "the algorithms both sides of the peer comparison implement")
done

cat > "$TMP/s.json" <<'JSON'
{ "schema_version": 1, "algorithm": { "name": "csgd" }, "cluster": { "workers": 2 },
  "data": { "source": "synthetic", "n_train": 64, "n_validation": 16, "dim": 4, "classes": 2 },
  "batch": { "per_worker": 4 }, "stop": { "updates": 2 } }
JSON
# "expected one of "a", "b", got ..." -> a b
listed() { sed -n "s/.*$1: expected one of \\(.*\\), got.*/\\1/p" | tr -d '",'; }
algorithms=$("$ALG_BIN" validate "$TMP/s.json" --set algorithm.name=no-such-name 2>&1 |
             listed algorithm.name)
# "preset" is the loader's cost-only kind (models/model_kind.h), not a registered model.
models=$("$MODEL_BIN" validate "$TMP/s.json" --set model.kind=no-such-kind 2>&1 |
         listed model.kind | tr ' ' '\n' | grep -vx preset | tr '\n' ' ')
case " $algorithms " in *" example-clipped "*) ;; *) fail "no test-only rule among: $algorithms" ;; esac
case " $models " in *" example-lowrank "*) ;; *) fail "no test-only model among: $models" ;; esac
[ "$FAILS" = 0 ] || finish

cd "$SRC" || exit 2
# The file that registers each name (its own file), and the registries.
registries="algorithms/registry.c models/model_registry.c"
declare -A OWN
for n in $algorithms $models; do
  OWN[$n]="$registries $(grep -rlE "(PS_RULE_OPS\(|\.name = |DENSE_KIND\()\"$n\"" \
                          "${LAYERS[@]}" tests 2>/dev/null | tr '\n' ' ')"
done
# Whether file $2 is name $1's own file, one of its stem (same folder, stem + "_"), or a
# registry.
is_own() {
  local f
  for f in ${OWN[$1]}; do
    [ "$2" = "$f" ] && return 0
    case "$2" in "${f%.*}"_*) return 0 ;; esac
  done
  return 1
}

# 1. String literals in the layers' code, comments stripped.
for f in $(find "${LAYERS[@]}" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort); do
  code=$("$CC" -x c -fpreprocessed -dD -E -P "$f" 2>/dev/null) || { fail "$f: the compiler cannot strip its comments"; continue; }
  for n in $algorithms $models; do
    case "$code" in *"\"$n\""*) ;; *) continue ;; esac
    is_own "$n" "$f" || fail "$f: names \"$n\", whose registry and own file are elsewhere (ask the registry)"
  done
done

# 2. Lists, anywhere but docs and test data.
allowed() {
  local i
  for ((i = 0; i < ${#ALLOWED[@]}; i += 2)); do [ "$1" = "${ALLOWED[i]}" ] && return 0; done
  return 1
}
others=$(find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.sh' \
           -o -name '*.py' -o -name '*.js' \) -not -path './.git/*' \
           -not -path './build*' -not -path './tests/data/*' -not -path './fuzz/corpus/*' \
           -not -path './fuzz/regressions/*' -not -path './data/*' | sed 's|^\./||' | sort)
for f in $others; do
  allowed "$f" && continue
  skip=false
  for n in $algorithms $models; do is_own "$n" "$f" && skip=true; done
  $skip && continue
  out=$(awk -v algs="$algorithms" -v mods="$models" -v file="$f" '
    function count(line, names, n,   i, c, re) {
      c = 0
      for (i = 1; i <= n; i++) {
        re = "(^|[^A-Za-z0-9_-])" names[i] "([^A-Za-z0-9_-]|$)"
        if (line ~ re) { c++; if (names[1] == A[1]) seen[NR, i] = 1 }
      }
      return c
    }
    BEGIN { na = split(algs, A, " "); nm = split(mods, M, " ") }
    {
      line[NR] = $0
      if (count($0, A, na) >= 3 || count($0, M, nm) >= 3)
        printf "%s:%d: a list of registered names on one line\n", file, NR
      # 5 or more algorithms within the 6 lines ending here
      if (NR >= 6) {
        k = 0
        for (i = 1; i <= na; i++) {
          hit = 0
          for (j = NR - 5; j <= NR; j++) hit = hit || seen[j, i]
          k += hit
        }
        if (k >= 5) printf "%s:%d: a list of registered names over lines %d-%d\n", file, NR, NR - 5, NR
      }
    }' "$f")
  [ -z "$out" ] || fail "$(printf '%s\n' "$out" | head -3) (derive it from the registry, as lib.sh's registered_algorithms does)"
done
finish
