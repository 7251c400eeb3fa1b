# export streams rows: its memory does not grow with a table's size.
#   1. an endless view (WITH RECURSIVE) under `ulimit -v`: export never aborts; its resident
#      memory stays flat while it writes; SIGTERM (timeout) stops it between rows, removes
#      the file being written and keeps the ones finished (exit 1, says so);
#   2. a table of 300,000 extra metric rows: every row is written, and the peak resident
#      memory is within 16 MB of an export of the small database.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
cd "$TMP" || exit 1
small_scenario s.json
# AddressSanitizer reserves terabytes of address space (no `ulimit -v`) and keeps freed memory
# in quarantine (resident memory grows with every row freed): there, only the streaming and
# the signal are checked, not the memory.
sanitized=0
"$SGDSIM" --version | grep -q "sanitizers=ON" && sanitized=1
vlimit=400000; [ "$sanitized" = 1 ] && vlimit=unlimited
"$SGDSIM" run s.json --db small.db --quiet || fail "run"
rm -f small.db-wal small.db-shm

# 1. An endless view.
cp small.db e.db
sqlite3 e.db "CREATE VIEW endless AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL
              SELECT i + 1 FROM c) SELECT i, 'row ' || i AS label FROM c" || fail "sqlite3"
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null; }
(ulimit -v "$vlimit"; exec "$SGDSIM" export e.db --csv out) >e.out 2>e.err & pid=$!
sleep 1.5; early=$(hwm "$pid")
sleep 3; late=$(hwm "$pid")
kill -0 "$pid" 2>/dev/null || fail "export of an endless view ended by itself: $(cat e.err)"
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" = 1 ] || fail "export of an endless view, stopped by SIGTERM, exits $rc (wanted 1): $(cat e.err)"
grep -q "stopped by a signal; out/endless.csv was not written" e.err || fail "no message: $(cat e.err)"
[ "$sanitized" = 1 ] || { [ -n "$early" ] && [ -n "$late" ] && [ $((late - early)) -lt 4096 ]; } ||
  fail "export's memory grew from ${early:-?} kB to ${late:-?} kB while streaming an endless view"
[ ! -e out/endless.csv ] || fail "a partial endless.csv was left"
ls out | grep -q '\.tmp\.' && fail "a temporary file was left: $(ls out)"
[ -s out/artifacts.csv ] || fail "the file written before the endless view was not kept"

# 2. A large table: every row, bounded memory.
peak() { /usr/bin/time -f %M -o "$1.rss" "$SGDSIM" export "$1" --csv "$1.out" >/dev/null || fail "export $1"; cat "$1.rss"; }
if [ -x /usr/bin/time ]; then
  cp small.db big.db
  sqlite3 big.db "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c LIMIT 300000)
                  INSERT INTO metrics(run_id, update_idx, vtime_ns, name, value)
                  SELECT 1, i, i * 1000, 'extra_' || (i % 7), i * 0.001 FROM c" || fail "sqlite3"
  want=$(sqlite3 big.db "SELECT count(*) FROM metrics")
  small=$(peak small.db); big=$(peak big.db)
  lines=$(wc -l < big.db.out/metrics.csv)
  [ "$lines" = $((want + 1)) ] || fail "metrics.csv has $lines lines for $want rows"
  [ "$sanitized" = 1 ] || [ $((big - small)) -lt 16384 ] || fail "peak memory $big kB for 300,000 more rows than $small kB"
else
  echo "no /usr/bin/time: the large table's peak memory is not measured"
fi
finish
