# A sweep killed with SIGKILL at many moments — before any point finished, between points,
# in the middle of writes — and resumed each time, always leaves a valid database (complete
# runs intact, killed points unfinished, never two rows for one point) and, resumed to the
# end, equals a sweep that was never interrupted.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
AXES=(--set cluster.workers=2,3 --set seed=1,2 --set stop.updates=600 --set eval.every=100)

dump() { # reproducible columns, keyed by run_key (ids depend on start order)
  sqlite3 "$1" "SELECT run_key, status, vtime_ns, updates, events, digest FROM runs ORDER BY run_key;
    SELECT r.run_key, m.update_idx, m.vtime_ns, m.name, quote(m.value) FROM metrics m JOIN runs r ON r.id = m.run_id ORDER BY 1, 4, 2;
    SELECT r.run_key, t.kind, t.sent_msgs, t.sent_bytes FROM traffic t JOIN runs r ON r.id = t.run_id ORDER BY 1, 2;"
}
"$SGDSIM" sweep "$S" "${AXES[@]}" -j1 --db "$TMP/ref.db" --quiet || fail "reference sweep failed"
dump "$TMP/ref.db" > "$TMP/ref.txt"

DB="$TMP/k.db"
for delay in 0.05 0.2 0.35 0.5 0.8 1.2 0.1 0.6; do
  "$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$DB" --quiet >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  sleep 0.2 # the point processes die with the sweep
  [ -e "$DB" ] || continue
  # Killed after the file was created but before the schema was: an empty database, which
  # the resume below completes (more likely in slow builds: ASan with the CUDA libraries).
  [ "$(sqlite3 "$DB" "SELECT count(*) FROM sqlite_master WHERE name = 'runs'")" = 1 ] || continue
  [ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ] || fail "integrity_check after a kill at $delay s"
  dup=$(sqlite3 "$DB" "SELECT count(*) FROM (SELECT run_key FROM runs WHERE status = 'complete' GROUP BY run_key HAVING count(*) > 1)")
  [ "$dup" = 0 ] || fail "a point has two complete runs after a kill at $delay s"
  bad=$(sqlite3 "$DB" "SELECT count(*) FROM runs r WHERE status = 'complete' AND (SELECT count(*) FROM metrics m WHERE m.run_id = r.id) = 0")
  [ "$bad" = 0 ] || fail "a complete run without its rows after a kill at $delay s"
done
"$SGDSIM" sweep "$S" "${AXES[@]}" -j2 --db "$DB" --quiet || fail "final resume failed"
dump "$DB" > "$TMP/k.txt"
cmp -s "$TMP/ref.txt" "$TMP/k.txt" || { fail "resumed sweep differs from an uninterrupted one"; diff "$TMP/ref.txt" "$TMP/k.txt" | head >&2; }
[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" = 4 ] || fail "extra runs left: $(sqlite3 "$DB" "SELECT count(*) FROM runs")"
finish
