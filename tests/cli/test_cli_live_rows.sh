# A long run's metric rows reach the database while it goes (committed at least every 2 s of
# wall time, not only every 4096 rows): `sgdsim query` sees rows of a run that still reads
# 'running'; interrupted, the run ends 'failed' with those rows and more, as before.
. "$(dirname "$0")/lib.sh"
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/live.db"
# A wide hidden layer makes each update slow: 4096 rows (2048 updates of train_loss and lr)
# take far longer than the 2 s after which the first rows must be visible.
"$SGDSIM" run "$S" --db "$DB" --quiet --set stop.updates=1000000 --set eval.every=0 \
  --set model.hidden=[1024] > "$TMP/run.out" 2>&1 &
pid=$!
seen=""
for _ in $(seq 1 300); do
  kill -0 "$pid" 2>/dev/null || break
  seen=$("$SGDSIM" query "$DB" "SELECT (SELECT count(*) FROM metrics) FROM runs WHERE status = 'running'" --csv 2>/dev/null | sed -n 2p)
  [ -n "$seen" ] && [ "$seen" -gt 0 ] && break
  sleep 0.1
done
[ -n "$seen" ] && [ "$seen" -gt 0 ] && [ "$seen" -lt 4096 ] ||
  fail "no rows of the running run were visible before 4096 (saw '$seen'): $(cat "$TMP/run.out")"
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" = 1 ] || fail "interrupted run: exit $rc"
row=$("$SGDSIM" query "$DB" "SELECT status, (SELECT count(*) FROM metrics) FROM runs" --csv | sed -n 2p)
case "$row" in failed,*) ;; *) fail "interrupted run: $row" ;; esac
[ "${row#failed,}" -ge "$seen" ] || fail "rows went missing: $row after $seen"
finish
