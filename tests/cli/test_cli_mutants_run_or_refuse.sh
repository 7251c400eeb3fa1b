# Every accepted value runs or is refused, never an abort: a fixed sample of mutants of two
# small scenarios (CSGD and timed FASGD) -- each numeric field set to 0, -1, a fraction, a
# huge value or a wrong type -- is RUN, not only validated.  Each must exit 0 (complete),
# 1 (failed, e.g. a modelled time past the virtual-time horizon), 2 (refused as bad input,
# leaving no row) or 3 (diverged), within a time limit, with the row's status agreeing with
# the exit code.  In the sanitizer build (CI's second pass) this also proves that no mutant
# reaches undefined behaviour: UBSan and ASan abort, which this test reports.  (stop.updates
# is left out: a huge count is accepted and runs until stopped, by design -- validate
# estimates it.)
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/m.db"
PS=(--set 'algorithm={"name":"fasgd","driver":"timed","server_time_s":0.0005}'
    --set optimizer.momentum=0 --set cluster.workers=4)
fields=(cluster.workers batch.per_worker optimizer.lr optimizer.momentum compute.time_s
        io.time_s network.bandwidth_gbps network.latency_us stop.vtime_s eval.every data.n_train data.n_validation data.dim data.classes seed
        cluster.time_factor.min cluster.time_factor.max)
ps_fields=(algorithm.server_time_s algorithm.gradient_batch algorithm.n algorithm.decay
           algorithm.eps)
values=(0 -1 0.5 4.5 1e10 1e300 9007199254740993 '"x"')
rows() { sqlite3 "$DB" "SELECT count(*) FROM runs" 2>/dev/null || echo 0; }
status_of_last() { sqlite3 "$DB" "SELECT status FROM runs ORDER BY id DESC LIMIT 1"; }
tried=0
mutant() { # label, then sgdsim run arguments
  local label="$1"; shift
  local before rc after
  before=$(rows)
  timeout 60 "$SGDSIM" run "$S" --db "$DB" --quiet --set stop.updates=8 "$@" \
    >/dev/null 2>"$TMP/err"
  rc=$?; after=$(rows); tried=$((tried + 1))
  case "$rc" in
    0) [ "$after" -gt "$before" ] && [ "$(status_of_last)" = complete ] ||
         fail "$label: exit 0 without a complete row" ;;
    1) [ "$after" -gt "$before" ] && [ "$(status_of_last)" = failed ] ||
         fail "$label: exit 1 but the row is not 'failed'" ;;
    2) [ "$after" = "$before" ] || fail "$label: refused (exit 2) but left a row"
       [ -s "$TMP/err" ] || fail "$label: refused without a message" ;;
    3) [ "$(status_of_last)" = diverged ] || fail "$label: exit 3 but the row is not 'diverged'" ;;
    *) fail "$label: exit $rc: $(tail -c 400 "$TMP/err")" ;;
  esac
}
for f in "${fields[@]}"; do
  for v in "${values[@]}"; do mutant "csgd $f=$v" --set "$f=$v"; done
done
for f in "${ps_fields[@]}" compute.time_s io.time_s network.bandwidth_gbps; do
  for v in "${values[@]}"; do mutant "fasgd $f=$v" "${PS[@]}" --set "$f=$v"; done
done
# B-FASGD's first push: initial_v (read by the gates before the first gradient arrives) and
# first_push, on the timed driver with pushes gated.
BF=(--set 'algorithm={"name":"b-fasgd","driver":"timed","server_time_s":0.0005,"c_push":0.08}'
    --set optimizer.momentum=0 --set cluster.workers=4)
for v in "${values[@]}"; do mutant "b-fasgd algorithm.initial_v=$v" "${BF[@]}" --set "algorithm.initial_v=$v"; done
for v in '"gate"' '"always"' '"x"' 1 true; do
  mutant "b-fasgd algorithm.first_push=$v" "${BF[@]}" --set "algorithm.first_push=$v"
done
# Distributions with extreme parameters.
for d in '{"dist":"gamma","mean":0.004,"cv":1e200}' '{"dist":"gamma","mean":1e11,"cv":1e3}' \
         '{"dist":"lognormal","mean":1e12,"cv":1e3}' '{"dist":"normal","mean":1e12,"sd":1e12}' \
         '{"dist":"uniform","min":0,"max":1e12}' '{"dist":"exponential","mean":1e12}'; do
  mutant "csgd compute.time_s=$d" --set "compute.time_s=$d"
  mutant "fasgd algorithm.server_time_s=$d" "${PS[@]}" --set "algorithm.server_time_s=$d"
  mutant "csgd cluster.time_factor=$d" --set "cluster.time_factor=$d"
done
echo "$tried mutants run"
[ "$tried" -ge 203 ] || fail "only $tried mutants ran"
finish
