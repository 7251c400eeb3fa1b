# plot --follow: it draws a running run, redraws when rows arrive, and stops by itself once
# no selected run is running, or at SIGINT, leaving a whole figure and no temporary file.
# A run in progress is made by hand (status 'running', rows held back and inserted later),
# so the test waits on the database, never on a simulation's speed.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
command -v gnuplot >/dev/null || { echo "gnuplot not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
"$SGDSIM" run "$S" --db "$TMP/done.db" --quiet >/dev/null || fail "run"
cd "$TMP" || exit 1

# A database whose run is still running and has only its rows up to update 30.
running_db() {
  cp done.db "$1"
  sqlite3 "$1" "UPDATE runs SET status = 'running';
                CREATE TABLE held AS SELECT * FROM metrics WHERE update_idx > 30;
                DELETE FROM metrics WHERE update_idx > 30" || fail "sqlite3 on $1"
}
# wait_for FILE PATTERN: up to 20 s for a line matching PATTERN in FILE.
wait_for() {
  for _ in $(seq 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  fail "no '$2' in $1 after 20 s: $(cat "$1" 2>/dev/null)"; return 1
}
# exits_within PID SECONDS: the process ends in time; its status in $rc.
exits_within() {
  for _ in $(seq $(($2 * 10))); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$1" 2>/dev/null; then fail "plot --follow still runs after $2 s"; kill "$1"; fi
  wait "$1"; rc=$?
}

# Finished runs only: one drawing, then it stops.
out=$(timeout 20 "$SGDSIM" plot done.db --y train_loss --follow --every 0.1 -o once.svg 2>&1)
rc=$?
[ "$rc" = 0 ] || fail "--follow on finished runs exits $rc: $out"
[ "$(grep -c 'points' <<<"$out")" = 1 ] || fail "--follow on finished runs drew more than once: $out"
[ -s once.svg ] || fail "--follow on finished runs: no figure"

# Rows arrive, then the run finishes.
running_db f.db
"$SGDSIM" plot f.db --y train_loss --follow --every 0.2 -o f.svg >f.out 2>&1 &
pid=$!
wait_for f.out '1 line, 30 points (running)'
[ -s f.svg ] || fail "--follow: no figure while the run is running"
sqlite3 f.db "INSERT INTO metrics SELECT * FROM held WHERE update_idx <= 45" || fail "sqlite3"
wait_for f.out '1 line, 45 points (running)'
sqlite3 f.db "INSERT INTO metrics SELECT * FROM held WHERE update_idx > 45;
              UPDATE runs SET status = 'complete'" || fail "sqlite3"
exits_within "$pid" 20
[ "$rc" = 0 ] || fail "--follow exits $rc after the run finished: $(cat f.out)"
grep -q '1 line, 60 points$' f.out || fail "--follow: no final drawing of every row: $(cat f.out)"
[ ! -e f.svg.tmp ] || fail "--follow left f.svg.tmp"
grep -q '</svg>' f.svg || fail "--follow: f.svg is not a whole SVG"

# SIGINT stops it between drawings: exit 0, the last figure kept whole.
running_db i.db
"$SGDSIM" plot i.db --y train_loss --follow --every 0.2 -o i.svg >i.out 2>&1 &
pid=$!
wait_for i.out '30 points (running)'
kill -INT "$pid"
exits_within "$pid" 20
[ "$rc" = 0 ] || fail "--follow exits $rc at SIGINT: $(cat i.out)"
grep -q 'stopped by signal' i.out || fail "--follow at SIGINT says nothing: $(cat i.out)"
grep -q '</svg>' i.svg || fail "--follow at SIGINT: i.svg is not a whole SVG"
[ ! -e i.svg.tmp ] || fail "--follow at SIGINT left i.svg.tmp"

# Bad input is refused before any polling.
expect_exit 2 "--every 0: expected seconds between redraws" -- \
  "$SGDSIM" plot done.db --y train_loss --follow --every 0 -o x.svg
expect_exit 2 "no running or finished runs match --where" -- \
  "$SGDSIM" plot done.db --y train_loss --follow --where seed=99 -o x.svg
[ ! -e x.svg ] || fail "a refused --follow wrote a figure"
finish
