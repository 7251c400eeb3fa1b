#!/usr/bin/env bash
# The results browser at scale (docs/performance.md, "Results browser"): a database of 1,000
# runs with 1,000,000 metric rows, timed through `report --html` (page generation) and through
# headless Chromium opening the page (navigation start to the page's first drawing done,
# window.sgdsim.ready).  The database is one real run of sgdsim, cloned: its schema and rows
# are sgdsim's own, and 1,000 runs of it would take minutes that measure nothing here.
# Usage: bench/web_scale.sh [BUILD_DIR] [RUNS] [ROWS_PER_RUN]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-1000}
ROWS=${3:-1000}
SGDSIM=$(cd "$BUILD" && pwd)/sgdsim
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
cd "$WORK"
source "$HERE/tests/cli/lib.sh" "$SGDSIM" >/dev/null  # small_scenario (and a TMP of its own)
trap 'rm -rf "$WORK" "$TMP"' EXIT
small_scenario s.json
"$SGDSIM" run s.json --db big.db -q --set stop.updates="$ROWS" --set eval.every="$ROWS"
python3 - big.db "$RUNS" "$ROWS" <<'PY'
import sqlite3, sys
db, runs, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = sqlite3.connect(db)
cols = [r[1] for r in c.execute('PRAGMA table_info(runs)') if r[1] not in ('id', 'seed')]
c.execute("DELETE FROM metrics WHERE name <> 'train_loss'")
for i in range(2, runs + 1):
    # seeds 1..10 of 100 configurations (optimizer.lr varies), each a copy of run 1's rows
    lr = 0.01 * (1 + (i - 1) // 10)
    c.execute(f"INSERT INTO runs(id, seed, {', '.join(cols)}) SELECT ?, ?, {', '.join(cols)} "
              "FROM runs WHERE id = 1", (i, 1 + (i - 1) % 10))
    c.execute("UPDATE runs SET config_json = json_set(config_json, '$.optimizer.lr', ?), "
              "config_hash = ?, run_key = ? WHERE id = ?", (lr, str(lr), str(lr), i))
    c.execute("INSERT INTO metrics(run_id, update_idx, vtime_ns, name, value, nonfinite) "
              "SELECT ?, update_idx, vtime_ns, name, value * (1 + 0.001 * ?), nonfinite "
              "FROM metrics WHERE run_id = 1", (i, i))
c.commit()
print('database:', c.execute('SELECT count(*) FROM runs').fetchone()[0], 'runs,',
      c.execute('SELECT count(*) FROM metrics').fetchone()[0], 'metric rows')
PY
start=$(date +%s.%N)
"$SGDSIM" report big.db --html big.html
end=$(date +%s.%N)
echo "page generation: $(echo "$end - $start" | bc) s, page $(($(stat -c %s big.html) / 1000000)) MB"
python3 - "file://$WORK/big.html" <<PY
import sys, time
sys.path.insert(0, "$HERE/tests/cli")
import browser_check as b
proc, port = b.start_chromium(b.find_chromium(), "$WORK/profile", 1400, 1000)
try:
    cdp = b.Cdp(b.page_socket(port))
    cdp.send('Page.enable')
    cdp.send('Runtime.enable')
    t0 = time.time()
    cdp.send('Page.navigate', url=sys.argv[1])
    deadline = t0 + 120
    b.wait_ready(cdp, deadline)
    t1 = time.time()
    # the page's own clock: navigation start to its first complete drawing
    ms = cdp.evaluate('performance.now()')
    print(f'page open in Chromium: {t1 - t0:.2f} s (wall, polled), {ms / 1000:.2f} s (page clock)')
    print('runs in the table:', cdp.evaluate('window.sgdsim.tableRows()'))
finally:
    b.stop_chromium(proc)
PY
