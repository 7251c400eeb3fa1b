# Clients on slow links of their own send and receive at once: FedAvg's 5 clients a round,
# each on a 1000 B/s link behind a 100 Gbit/s server, take as long as the same transfers
# carried as link latency with no bandwidth limit (within 0.1%: the server's link is held
# for its own share of each message, 0.27 us of 3.3 s).  When the server's link was held
# for a slow client's whole transfer, the round's fetches and pushes queued one behind
# another and the run took about twice as long.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
FL="$(cd "$(dirname "$0")/../../scenarios/fl" && pwd)"
cd "$TMP" || exit 1
common=(--set network.bandwidth_gbps=100 --set stop.updates=6 --set eval.every=0)
vtime() { sqlite3 "$1" "SELECT vtime_ns FROM runs WHERE id = 1"; }
"$SGDSIM" run "$FL/fedavg_small.json" --db slow.db --quiet "${common[@]}" \
  --set 'clients={"bandwidth_Bps": 1000}' --set network.latency_us=0 >/dev/null ||
  fail "run on 1000 B/s client links"
bytes=$(sqlite3 slow.db "SELECT sent_bytes / sent_msgs FROM traffic WHERE run_id = 1 AND kind = 'push'")
[ -n "$bytes" ] && [ "$bytes" -gt 0 ] || fail "no pushes: '$bytes'"
# the same transfer time, half on each of a route's two links, as latency
lat_us=$(awk -v b="$bytes" 'BEGIN { printf "%.0f", b / 1000 / 2 * 1e6 }')
"$SGDSIM" run "$FL/fedavg_small.json" --db lat.db --quiet "${common[@]}" \
  --set 'clients={"bandwidth_Bps": 1.25e10}' --set network.latency_us="$lat_us" >/dev/null ||
  fail "run with the transfers as latency"
a=$(vtime slow.db) b=$(vtime lat.db)
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= b / 1000) }' ||
  fail "1000 B/s client links: $a ns; the same transfers as latency: $b ns (${bytes} B a message)"
finish
