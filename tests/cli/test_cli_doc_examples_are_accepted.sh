# Every example the documentation shows for a key is one sgdsim accepts.  The examples are
# read mechanically from README.md, docs/*.md, docs/sgdsim.1 (roff markup removed) and every
# command's --help, so a wrong example added later fails here:
#   --set KEY=VALUE[,VALUE...]  sweep --list on a small CSGD, LSGD, B-FASGD or IDX scenario
#                               (accepted when one of them takes it);
#   --where COND                plot on a real small database: drawn, or refused only
#                               because no run matches (the key and the terms were fine);
#   --by KEY,...                plot on that database: drawn;
#   --match-on / --ignore KEYS  compare of the database with itself: not bad input;
#   --zip KEY,...               each key a configuration key of some run (the params view);
#   configuration keys named in the --help texts (section.name, as in "cluster.workers or
#   model.hidden[0]"): each a key of some run.
# Placeholders (KEY, COND, key.path=value, v1,v2,..., a.b, $VAR) are not examples.  An
# example written as the start of an error message ("--set a..b=1: empty key segment") or
# listed in REFUSED below is documented as refused, and must be.
# Arguments: SGDSIM; the sources are found from this file's place in the repository.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMP"
# Examples the docs show on purpose as mistakes, with the message sgdsim gives.
REFUSED=" optimizer.lrr algorithm.decai the.new_key "

# ---- the text the examples come from -------------------------------------------------------
{
  cat "$SRC/README.md" "$SRC"/docs/*.md
  sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(em/--/g' "$SRC/docs/sgdsim.1"
  for c in run validate sweep merge query report export compare plot show diff; do
    "$SGDSIM" "$c" --help
  done
} > docs.txt
helps() { for c in run validate sweep merge query report export compare plot show diff; do
  "$SGDSIM" "$c" --help; done; }
# examples OPTION: every argument the docs give OPTION, quotes removed, one per line.
examples() {
  grep -oE -- "$1[ =]('[^']*'|\"[^\"]*\"|[^ \`'\")]+)" docs.txt | sed -E "s/^$1[ =]//" |
    sed -E "s/^'(.*)'\$/\\1/; s/^\"(.*)\"\$/\\1/" | sort -u
}
# placeholder ARG: true for a stand-in rather than an example.
placeholder() {
  case "$1" in
    *...* | *'$'* | *'<'* | *, | key | key.path* | key=* | a.b* | *[A-Z][A-Z]* | *=[A-Z] | [A-Z]*)
      return 0 ;;
  esac
  return 1
}
# refused_example ARG: documented as refused (an error message's start, or listed).
refused_example() { case "$1" in *:) return 0 ;; esac; case "$REFUSED" in *" $1 "*) return 0 ;; esac
                    return 1; }

# ---- a small database and three small scenarios --------------------------------------------
small_scenario csgd.json
sed -e 's/"name": "csgd"/"name": "lsgd"/' -e 's/"workers": 3,/"workers": 4,/' \
    -e 's/"network": {[^}]*},/"topology": { "kind": "cluster", "gpus_per_node": 2 },/' csgd.json > lsgd.json
sed -e 's/"name": "csgd"/"name": "b-fasgd", "c_fetch": 0.5/' -e 's/, "momentum": 0.9//' \
    csgd.json > ps.json
# and one on IDX files (tiny ones made here), for the keys only IDX data has (data.cache ...)
{ printf '\x00\x00\x08\x03\x00\x00\x00\x28\x00\x00\x00\x02\x00\x00\x00\x02'; head -c 160 /dev/zero; } > img.idx
{ printf '\x00\x00\x08\x01\x00\x00\x00\x28'; head -c 40 /dev/zero; } > lab.idx
"$SGDSIM" sweep csgd.json --set 'data={"source":"idx","validation":"train_tail","validation_size":10,"train_images":"img.idx","train_labels":"lab.idx"}' --list >/dev/null 2>&1 &&
  sed 's|"data": {[^}]*}|"data": { "source": "idx", "validation": "train_tail", "validation_size": 10, "train_images": "img.idx", "train_labels": "lab.idx" }|' csgd.json > idx.json ||
  fail "the IDX scenario"
DB=db.sqlite
for s in csgd lsgd ps; do
  "$SGDSIM" sweep "$s.json" --db "$DB" --set seed=1,2 --quiet >/dev/null 2>&1 || fail "sweep $s.json"
done
KEYS=$(sqlite3 "$DB" "SELECT DISTINCT key FROM params") || fail "no params view"
# is_key K: K is a configuration key of some run: a leaf, or an object or array above leaves.
is_key() { printf '%s\n' "$KEYS" | awk -v k="$1" '$0 == k || index($0, k "[") == 1 ||
                                                  index($0, k ".") == 1 { f = 1 } END { exit !f }'; }

# ---- --set -------------------------------------------------------------------------------
n=0
while IFS= read -r a; do
  case "$a" in *=*) ;; *) continue ;; esac # prose ("--set lists")
  placeholder "$a" && continue
  want=ok; refused_example "$a" && { want=refused; a=${a%:}; }
  [ "$want" = refused ] || [[ "${a%%=*}" =~ ^[a-z_][a-z0-9_.]*(\[[0-9]+\])*$ ]] || continue
  got=refused; why=""
  for s in csgd lsgd ps idx; do
    out=$("$SGDSIM" sweep "$s.json" --set "$a" --list 2>&1 >/dev/null) && { got=ok; break; }
    case "$out" in *OPENBLAS_CORETYPE* | *"kernel"*) got=ok; break ;; esac # machine-dependent
    why="$why; $s.json: $out"
  done
  [ "$got" = "$want" ] || fail "--set $a: $got, the docs show it $want$why"
  n=$((n + 1))
done < <(examples --set)
[ "$n" -ge 10 ] || fail "only $n --set examples found"

# ---- --where and --by (plot) -------------------------------------------------------------
n=0
while IFS= read -r a; do
  placeholder "$a" && continue
  want=ok; refused_example "$a" && { want=refused; a=${a%:}; }
  out=$("$SGDSIM" plot "$DB" --y val_error --where "$a" -o w.svg 2>&1 >/dev/null); rc=$?
  got=refused; { [ "$rc" = 0 ] || [[ "$out" == *"runs match --where"* ]]; } && got=ok
  [ "$got" = "$want" ] || fail "--where $a: $got, the docs show it $want: $out"
  n=$((n + 1))
done < <(examples --where)
[ "$n" -ge 2 ] || fail "only $n --where examples found"
n=0
while IFS= read -r a; do
  placeholder "$a" && continue
  out=$("$SGDSIM" plot "$DB" --y val_error --by "${a%:}" -o b.svg 2>&1 >/dev/null) ||
    fail "--by $a is refused: $out"
  n=$((n + 1))
done < <(examples --by)
[ "$n" -ge 2 ] || fail "only $n --by examples found"

# ---- --match-on and --ignore (compare), --zip (keys) -------------------------------------
for opt in --match-on --ignore; do
  while IFS= read -r a; do
    placeholder "$a" && continue
    want=ok; refused_example "$a" && { want=refused; a=${a%:}; }
    "$SGDSIM" compare "$DB" "$DB" "$opt" "$a" >/dev/null 2>out.txt; rc=$?
    got=ok; [ "$rc" = 2 ] && got=refused
    [ "$got" = "$want" ] || fail "$opt $a: $got, the docs show it $want: $(cat out.txt)"
  done < <(examples "$opt")
done
while IFS= read -r a; do
  placeholder "$a" && continue
  for k in ${a//,/ }; do is_key "$k" || fail "--zip $a: $k is no configuration key"; done
done < <(examples --zip)

# ---- configuration keys named in the --help texts ----------------------------------------
sections=$(printf '%s\n' "$KEYS" | sed 's/[.[].*//' | sort -u | paste -sd'|')
n=0
for k in $(helps | grep -oE "\\<($sections)\\.[a-z_]+(\\[[0-9]+\\])?(\\.[a-z_]+)*" | sort -u); do
  is_key "$k" || fail "a --help text names $k, which no run has"
  n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n keys found in the --help texts"
finish
