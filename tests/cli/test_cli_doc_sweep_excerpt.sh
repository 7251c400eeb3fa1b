# docs/workflow.md §1 shows a sweep's stderr: the same command on a small scenario prints
# lines of exactly that shape, in that order (numbers, the scenario's path aside).
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMP" || exit 1
# The block after the sweep command that opens §1.
awk '/^## 1\. Sweep/ { s = 1 } s && /^sgdsim sweep/ && !c { c = 1; next }
     c == 1 && /^```/ { c = 2; next } c == 2 && /^```/ { c = 3; next }
     c == 3 && /^```/ { exit } c == 3' "$SRC/docs/workflow.md" > shown.txt
cmd=$(awk '/^## 1\. Sweep/ { s = 1 } s && /^sgdsim sweep/ { print; exit }' "$SRC/docs/workflow.md")
[ "$cmd" = "sgdsim sweep scenarios/quickstart.json --set cluster.workers=1,2,4,8 -j 2 --db wf.db" ] ||
  fail "the command of §1 changed: $cmd"
[ -s shown.txt ] || fail "no output shown in §1"
small_scenario small.json
"$SGDSIM" sweep small.json --set cluster.workers=1,2,4,8 -j 2 --db wf.db 2> got.txt >/dev/null ||
  fail "sweep"
shape() { sed -E 's#scenarios/quickstart\.json|small\.json#SCENARIO#; s/[0-9]+(\.[0-9]+)?/N/g' "$1"; }
diff <(shape shown.txt) <(shape got.txt) >&2 || fail "docs/workflow.md §1 shows another shape than sweep prints"
finish
