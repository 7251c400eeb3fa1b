# After any sgdsim command exits, the .db file alone holds every committed row, and no reader
# leaves a -wal or -shm behind (docs/results.md, "The file alone"):
#   1. a run with readers beside it (query in a loop, plot --follow): afterwards no side file,
#      and a copy of the .db alone holds every row a reference run wrote;
#   2. a run that ends while another program's reader still has the database open: the .db
#      copied at that moment already holds every row (the writer checkpoints on close); the
#      side files that reader leaves are gone after the next sgdsim command on the file;
#   3. a reader killed with SIGKILL mid-read: its -wal/-shm are gone after the next command;
#   4. a writer killed with SIGKILL: the next reader folds its committed rows into the .db.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
cd "$TMP" || exit 1
small_scenario s.json
sed 's/"updates": 60/"updates": 20000/' s.json > long.json
sed 's/"updates": 60/"updates": 80000/' s.json > longer.json # outlasts a reader's start

count() { "$SGDSIM" query "$1" "SELECT count(*) FROM metrics" --csv 2>&1 | tail -n 1; }
no_side_files() { # no_side_files DB LABEL
  local f
  for f in "$1-wal" "$1-shm" "$1-journal"; do
    [ ! -e "$f" ] || fail "$2: $(basename "$f") is left behind"
  done
}
# alone_holds DB WANT LABEL: a copy of DB without its side files holds WANT metric rows.
alone_holds() {
  rm -f alone.db alone.db-wal alone.db-shm
  cp "$1" alone.db
  local n; n=$(count alone.db)
  [ "$n" = "$2" ] || fail "$3: the .db alone holds $n metric rows, not $2"
}
# wait_for_file FILE: up to 30 s until FILE exists.
wait_for_file() {
  for _ in $(seq 300); do [ -e "$1" ] && return 0; sleep 0.1; done
  fail "no $1 after 30 s"; return 1
}

"$SGDSIM" run long.json --db ref.db --quiet || fail "reference run"
want=$(count ref.db)
[ "$want" -gt 1000 ] 2>/dev/null || fail "reference run wrote '$want' metric rows"

# 1. Readers beside a running run.
"$SGDSIM" run long.json --db x.db --quiet & run=$!
wait_for_file x.db-wal
if command -v gnuplot >/dev/null; then
  "$SGDSIM" plot x.db --y train_loss --follow --every 0.2 -o x.svg >plot.out 2>&1 & plot=$!
else
  plot=
fi
while kill -0 "$run" 2>/dev/null; do count x.db >/dev/null; done
wait "$run" || fail "the run beside readers exits $?"
if [ -n "$plot" ]; then
  for _ in $(seq 300); do kill -0 "$plot" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$plot" 2>/dev/null && { fail "plot --follow still runs"; kill "$plot"; }
  wait "$plot" || fail "plot --follow exits $?: $(cat plot.out)"
fi
no_side_files x.db "a run with readers beside it"
alone_holds x.db "$want" "a run with readers beside it"

# 2. Another program keeps the database open (no transaction) while the run ends.
python3 - y.db <<'PY' & holder=$!
import os, sqlite3, sys, time
path = sys.argv[1]
while not os.path.exists(path + "-wal"): time.sleep(0.05)
time.sleep(0.3)
con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
con.execute("SELECT count(*) FROM runs").fetchall()  # maps the log, then holds no transaction
open(path + ".holding", "w").close()
while not os.path.exists(path + ".release"): time.sleep(0.05)
con.close()
PY
"$SGDSIM" run longer.json --db y.db --quiet || fail "the run beside a held reader exits $?"
[ -e y.db.holding ] || fail "the holding reader had not opened the database when the run ended"
"$SGDSIM" run longer.json --db yref.db --quiet || fail "reference run of longer.json"
rm -f yref.db-wal yref.db-shm
alone_holds y.db "$(count yref.db)" "a run that ended while a reader held the database"
touch y.db.release; wait "$holder"
"$SGDSIM" query y.db "SELECT 1" >/dev/null || fail "query after the held reader"
no_side_files y.db "the next command after another program's reader"

# 3. A reader killed mid-read.
"$SGDSIM" query x.db "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c)
                      SELECT count(*) FROM c" >/dev/null 2>&1 & reader=$!
wait_for_file x.db-shm
sleep 0.3
kill -KILL "$reader"; wait "$reader" 2>/dev/null
[ -e x.db-wal ] || [ -e x.db-shm ] || echo "note: the killed reader left no side file to clean"
"$SGDSIM" query x.db "SELECT 1" >/dev/null || fail "query after a killed reader"
no_side_files x.db "the next command after a killed reader"
alone_holds x.db "$want" "after a killed reader"

# 4. A writer killed mid-run: its committed rows reach the .db with the next command.
"$SGDSIM" run long.json --db k.db --quiet & run=$!
for _ in $(seq 300); do
  n=$(count k.db)
  [ "${n:-0}" -gt 0 ] 2>/dev/null && break; sleep 0.1
done
kill -KILL "$run"; wait "$run" 2>/dev/null
got=$(count k.db)
[ "$got" -gt 0 ] 2>/dev/null || fail "the killed run left '$got' metric rows"
no_side_files k.db "the next command after a killed writer"
alone_holds k.db "$got" "after a killed writer"
finish
