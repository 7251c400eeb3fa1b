# LSGD's timeline shows its defining overlap: every communicator's inter-node allreduce of
# step t runs while its node's workers load batch t+1; with algorithm.overlap=false it never
# does.  Also: every worker has io, compute, reduce, broadcast and update spans.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
SCN="$(dirname "$0")/../../scenarios/lsgd/resnet50_lsgd.json"
COMMON=(--db "$TMP/l.db" --quiet --set cluster.workers=8 --set stop.updates=4)
"$SGDSIM" run "$SCN" "${COMMON[@]}" --trace "$TMP/on.json" || fail "traced LSGD run"
"$SGDSIM" run "$SCN" "${COMMON[@]}" --trace "$TMP/off.json" --set algorithm.overlap=false || fail "traced LSGD run without overlap"
check() { # trace expected-overlapping(1/0)
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); want = sys.argv[2] == "1"
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
spans = [e for e in d["traceEvents"] if e["ph"] == "X"]
def of(track_prefix, name):
    return [(e["ts"], e["ts"] + e["dur"], names.get((e["pid"], e["tid"]), "")) for e in spans
            if e["name"] == name and names.get((e["pid"], e["tid"]), "").startswith(track_prefix)]
ar = of("node", "allreduce")
io = of("worker", "io")
assert len(ar) == 2 * 4, f"{len(ar)} communicator allreduce spans, wanted 8"
for n in ("io", "compute", "reduce", "broadcast", "update"):
    assert len(of("worker", n)) >= 8 * 3, f"too few worker {n} spans: {len(of('worker', n))}"
overlapping = sum(1 for (a0, a1, _) in ar if any(i0 < a1 and a0 < i1 for (i0, i1, _) in io))
if want:
    assert overlapping == len(ar), f"only {overlapping} of {len(ar)} allreduces overlap a load"
else:
    assert overlapping == 0, f"{overlapping} allreduces overlap a load without overlap"
PY
}
check "$TMP/on.json" 1 || fail "overlap not visible in the LSGD timeline"
check "$TMP/off.json" 0 || fail "overlap visible with algorithm.overlap=false"
finish
