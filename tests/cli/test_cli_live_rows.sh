# A long run's metric rows reach the database while it goes: besides every 4096 rows
# (RDB_BATCH_ROWS), the writer commits what it buffered once 2 s of wall time have passed
# since its last write, so `sgdsim query` sees rows of a run that still reads 'running';
# interrupted, the run ends 'failed' with those rows and more, as before.  The wall clock is
# the test's own (clock_shim.c, preloaded), so what must be seen follows from the clock, not
# from how fast this machine is:
#   - a clock that stands still: only whole batches are ever committed, so every count a
#     reader sees while the run goes is a multiple of 4096;
#   - a clock that moves 2 s at every reading: every row is committed as it comes, so the
#     counts a reader sees are not all multiples of 4096.
# Arguments: sgdsim, the clock shim.
. "$(dirname "$0")/lib.sh"
SHIM="$2"
BATCH=4096
# The shim comes before the sanitizer runtime in an ASan build; that is intended here.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
S="$TMP/s.json"; small_scenario "$S"

# watch STEP_MS DB: starts an endless run with the shim's clock stepping STEP_MS per reading,
# collects up to 5 distinct positive metric counts a reader sees while the run reads
# 'running' (into $TMP/seen), then interrupts it and checks it ended 'failed' with its rows.
watch() {
  local step="$1" db="$2" pid seen last="" n=0 rc row
  : > "$TMP/seen"
  SHIM_CLOCK_STEP_MS="$step" LD_PRELOAD="$SHIM" "$SGDSIM" run "$S" --db "$db" --quiet \
    --set stop.updates=100000000 --set eval.every=0 > "$TMP/run.out" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    kill -0 "$pid" 2>/dev/null || break
    seen=$("$SGDSIM" query "$db" "SELECT (SELECT count(*) FROM metrics) FROM runs WHERE status = 'running'" --csv 2>/dev/null | sed -n 2p)
    if [ -n "$seen" ] && [ "$seen" -gt 0 ] && [ "$seen" != "$last" ]; then
      echo "$seen" >> "$TMP/seen"; last=$seen; n=$((n + 1))
      [ "$n" -ge 5 ] && break
    fi
    sleep 0.05
  done
  kill -TERM "$pid"; wait "$pid"; rc=$?
  [ "$n" -gt 0 ] || { fail "clock step $step ms: no rows of the running run were visible: $(cat "$TMP/run.out")"; return; }
  [ "$rc" = 1 ] || fail "clock step $step ms: interrupted run: exit $rc"
  row=$("$SGDSIM" query "$db" "SELECT status, (SELECT count(*) FROM metrics) FROM runs" --csv | sed -n 2p)
  case "$row" in failed,*) ;; *) fail "clock step $step ms: interrupted run: $row" ;; esac
  [ "${row#failed,}" -ge "$last" ] || fail "clock step $step ms: rows went missing: $row after $last"
}

watch 0 "$TMP/still.db"
while read -r c; do
  [ $((c % BATCH)) = 0 ] || fail "clock standing still: a reader saw $c rows, not whole batches of $BATCH"
done < "$TMP/seen"

watch 2000 "$TMP/moving.db"
partial=0
while read -r c; do [ $((c % BATCH)) != 0 ] && partial=1; done < "$TMP/seen"
[ "$partial" = 1 ] || fail "clock moving 2 s a reading: a reader saw only whole batches: $(tr '\n' ' ' < "$TMP/seen")"
finish
