#!/usr/bin/env bash
# The results browser at scale (docs/performance.md, "Results browser"): a database of 1,000
# runs with 1,000,000 metric rows, timed through `report --html` (page generation) and through
# headless Chromium opening the page, OPENINGS times each, the page in a fresh browser each
# time (the page's own clock from navigation start to its first drawing done,
# window.sgdsim.ready, polled every 20 ms, and the CPU time of its main thread until then,
# from Chromium's trace: a figure that other processes on the machine change much less; then
# the first drawing of runs, which inflates the exact rows and reads those it draws).  The database is one real run of sgdsim, cloned: its
# schema and rows are sgdsim's own, and 1,000 runs of it would take minutes that measure
# nothing here.  Each clone's values and virtual times are scaled by its own factor, so no two
# runs share their rows (as no two real runs do, and as compression would otherwise exploit).
# Usage: bench/web_scale.sh [BUILD_DIR] [RUNS] [ROWS_PER_RUN] [OPENINGS]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-1000}
ROWS=${3:-1000}
OPENINGS=${4:-5}
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
              "SELECT ?, update_idx, CAST(vtime_ns * (1 + 0.001 * ?) AS INTEGER), name, "
              "value * (1 + 0.001 * ?), nonfinite FROM metrics WHERE run_id = 1", (i, i, i))
c.commit()
print('database:', c.execute('SELECT count(*) FROM runs').fetchone()[0], 'runs,',
      c.execute('SELECT count(*) FROM metrics').fetchone()[0], 'metric rows')
PY
for k in $(seq "$OPENINGS"); do
  rm -f big.html
  start=$(date +%s.%N)
  "$SGDSIM" report big.db --html big.html
  end=$(date +%s.%N)
  printf "page generation %d: %.2f s\n" "$k" "$(echo "$end - $start" | bc)"
done
echo "page: $(stat -c %s big.html) bytes"
python3 - "file://$WORK/big.html" "$OPENINGS" <<PY
import statistics, sys, time
sys.path.insert(0, "$HERE/tests/cli")
import browser_check as b
# The runs drawn the first time: the view switched to runs, until their chart is drawn.
DRAW_RUNS = """new Promise(function (done) {
  var t0 = performance.now(), view = document.getElementById('view'), chart = document.getElementById('chart');
  view.value = 'runs';
  view.dispatchEvent(new Event('change'));
  (function poll() {
    if (chart.querySelector('canvas')) done(performance.now() - t0); else setTimeout(poll, 10);
  })();
})"""


def main_thread_cpu(cdp):
    """Seconds of CPU of the page's main thread (its tasks' thread time) since Tracing.start."""
    cdp.send('Tracing.end')
    events = []
    while True:
        msg = cdp._recv_message()
        if msg.get('method') == 'Tracing.dataCollected':
            events += msg['params']['value']
        elif msg.get('method') == 'Tracing.tracingComplete':
            break
    main = {(e['pid'], e['tid']) for e in events
            if e.get('name') == 'thread_name' and e['args'].get('name') == 'CrRendererMain'}
    return sum(e.get('tdur', 0) for e in events if e.get('ph') == 'X'
               and e.get('name') == 'ThreadControllerImpl::RunTask'
               and (e['pid'], e['tid']) in main) / 1e6


opens, cpus, runs = [], [], []
for k in range(int(sys.argv[2])):
    proc, port = b.start_chromium(b.find_chromium(), f"$WORK/profile{k}", 1400, 1000)
    try:
        cdp = b.Cdp(b.page_socket(port))
        cdp.send('Page.enable')
        cdp.send('Runtime.enable')
        cdp.send('Tracing.start', categories='toplevel', transferMode='ReportEvents')
        t0 = time.time()
        cdp.send('Page.navigate', url=sys.argv[1])
        # the page's own clock: navigation start to its first complete drawing
        ms = -1
        while ms < 0 and time.time() < t0 + 120:
            time.sleep(0.02)
            try:
                ms = cdp.evaluate('window.sgdsim && window.sgdsim.ready ? performance.now() : -1')
            except RuntimeError:  # asked of the blank page the navigation replaced
                pass
        if ms < 0:
            raise RuntimeError('the page never became ready')
        opens.append(ms / 1000)
        cpus.append(main_thread_cpu(cdp))
        rows = cdp.evaluate('window.sgdsim.tableRows()')
        runs.append(cdp.evaluate(DRAW_RUNS) / 1000)
        print(f'opening {k + 1}: {opens[-1]:.2f} s ({cpus[-1]:.2f} s of CPU on the page\'s main '
              f'thread), {rows} runs in the table; drawing runs the first time: {runs[-1]:.2f} s',
              flush=True)
    finally:
        b.stop_chromium(proc)
for what, v in (('page open in Chromium', opens), ('CPU of the page\'s main thread', cpus),
                ('drawing runs the first time', runs)):
    print(f'{what}: median {statistics.median(v):.2f} s, min {min(v):.2f}, max {max(v):.2f} '
          f'({len(v)} openings)')
PY
