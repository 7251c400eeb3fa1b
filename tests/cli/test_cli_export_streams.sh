# export streams rows: its memory does not grow with a table's size, and it reads nothing
# that could compute without end.
#   1. a view sgdsim did not create -- one without end (WITH RECURSIVE), or sgdsim's own
#      final_metrics replaced by one -- is refused at once, naming it (exit 2), and nothing is
#      written;
#   2. a table of 300,000 extra metric rows: every row is written, and the peak resident
#      memory is within 16 MB of an export of the small database;
#   3. SIGTERM while that table is written stops export between rows, removes the file
#      being written and keeps the ones finished (exit 1, says so).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
cd "$TMP" || exit 1
small_scenario s.json
# AddressSanitizer keeps freed memory in quarantine (resident memory grows with every row
# freed): there, only the streaming is checked, not the memory.
sanitized=0
"$SGDSIM" --version | grep -q "sanitizers=ON" && sanitized=1
"$SGDSIM" run s.json --db small.db --quiet || fail "run"
rm -f small.db-wal small.db-shm

# 1. Views without end.
endless="WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c"
cp small.db e.db
sqlite3 e.db "CREATE VIEW endless AS $endless" || fail "sqlite3"
# (under `timeout`: an export that streamed such a view would never end by itself)
expect_exit 2 "e.db: holds 1 view that sgdsim did not create (endless), which may compute without end" \
  -- timeout 60 "$SGDSIM" export e.db --csv out
cp small.db f.db
sqlite3 f.db "DROP VIEW final_metrics; CREATE VIEW final_metrics AS $endless" || fail "sqlite3"
expect_exit 2 "f.db: holds 1 view that sgdsim did not create (final_metrics, not as sgdsim wrote it)" \
  -- timeout 60 "$SGDSIM" export f.db --csv out
[ ! -e out ] || { fail "a refused export wrote $(ls out | head -3)"; rm -rf out; }

# 2. A large table: every row, bounded memory.
cp small.db big.db
sqlite3 big.db "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c LIMIT 300000)
                INSERT INTO metrics(run_id, update_idx, vtime_ns, name, value)
                SELECT 1, i, i * 1000, 'extra_' || (i % 7), i * 0.001 FROM c" || fail "sqlite3"
want=$(sqlite3 big.db "SELECT count(*) FROM metrics")
peak() { /usr/bin/time -f %M -o "$1.rss" "$SGDSIM" export "$1" --csv "$1.out" >/dev/null || fail "export $1"; cat "$1.rss"; }
if [ -x /usr/bin/time ]; then
  small=$(peak small.db); big=$(peak big.db)
  lines=$(wc -l < big.db.out/metrics.csv)
  [ "$lines" = $((want + 1)) ] || fail "metrics.csv has $lines lines for $want rows"
  [ "$sanitized" = 1 ] || [ $((big - small)) -lt 16384 ] || fail "peak memory $big kB for 300,000 more rows than $small kB"
else
  echo "no /usr/bin/time: the large table's peak memory is not measured"
fi

# 3. SIGTERM once metrics.csv is being written (its temporary file is there).
"$SGDSIM" export big.db --csv out >e.out 2>e.err & pid=$!
while kill -0 "$pid" 2>/dev/null && ! compgen -G "out/metrics.csv.tmp.*" >/dev/null; do sleep 0.01; done
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" = 1 ] || fail "export stopped by SIGTERM exits $rc (wanted 1): $(cat e.err)"
grep -q "stopped by a signal; out/metrics.csv was not written" e.err || fail "no message: $(cat e.err)"
[ ! -e out/metrics.csv ] || fail "a partial metrics.csv was left"
ls out | grep -q '\.tmp\.' && fail "a temporary file was left: $(ls out)"
[ -s out/artifacts.csv ] || fail "the file written before metrics.csv was not kept"
finish
