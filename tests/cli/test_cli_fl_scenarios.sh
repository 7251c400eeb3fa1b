# The federated-learning scenarios (scenarios/fl/): every one validates; each small synthetic
# one runs complete with the same digest on 1 and 2 threads and stores what docs/results.md
# says -- the partition in client_labels (every training row of the split, once), the
# population's metrics, staleness rows -- and export writes client_labels.csv; runs whose
# clients follow FedScale's availability trace (tests/data/fedscale: one client of it never
# online) stop with a checkpoint and resume to the uninterrupted digest, with every client
# in its own slot (SASGD) and sampled (FedBuff); the clients section's errors reach the
# command line as exit 2 naming the JSON path (a file that cannot be read too, and before
# any database is written).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
FL="$(cd "$(dirname "$0")/../../scenarios/fl" && pwd)"
for f in "$FL"/*.json; do
  "$SGDSIM" validate "$f" >/dev/null 2>"$TMP/err" || fail "$f does not validate: $(cat "$TMP/err")"
done
for a in fedavg fedasync fedbuff; do
  f="$FL/${a}_small.json"; db="$TMP/$a.db"
  d1=$("$SGDSIM" run "$f" --db "$db" --threads 1 2>"$TMP/err" | sed -n 's/^digest //p')
  [ -n "$d1" ] || { fail "$a: no digest: $(cat "$TMP/err")"; continue; }
  d2=$("$SGDSIM" run "$f" --db "$TMP/${a}2.db" --threads 2 2>/dev/null | sed -n 's/^digest //p')
  [ "$d1" = "$d2" ] || fail "$a: threads 1 and 2 give $d1 and $d2"
  [ "$(sqlite3 "$db" "SELECT status FROM runs WHERE id = 1")" = complete ] || fail "$a: not complete"
  [ "$(sqlite3 "$db" "SELECT sum(count) FROM client_labels WHERE run_id = 1")" = 3000 ] ||
    fail "$a: client_labels do not hold the 3000 training rows"
  [ "$(sqlite3 "$db" "SELECT count(DISTINCT client) FROM client_labels WHERE run_id = 1")" -le 30 ] ||
    fail "$a: client_labels name a client beyond the 30"
  for m in clients_participated clients_contributed contributions_mean contributions_max \
           tasks_dropped dropped_compute_s bytes_up_per_client bytes_down_per_client slot_waits; do
    [ "$(sqlite3 "$db" "SELECT count(*) FROM metrics WHERE run_id = 1 AND name = '$m'")" -gt 0 ] ||
      fail "$a: no metric $m"
  done
  [ "$(sqlite3 "$db" "SELECT value > 0 FROM metrics WHERE run_id = 1 AND name = 'tasks_dropped'
                      ORDER BY update_idx DESC LIMIT 1")" = 1 ] || fail "$a: nobody dropped out"
  [ "$(sqlite3 "$db" "SELECT count(*) FROM staleness WHERE run_id = 1")" -gt 0 ] ||
    fail "$a: no staleness rows"
done
[ "$(sqlite3 "$TMP/fedavg.db" "SELECT count(*) FROM metrics WHERE run_id = 1 AND name = 'rounds'")" -gt 0 ] ||
  fail "fedavg: no rounds metric"
"$SGDSIM" export "$TMP/fedbuff.db" --csv "$TMP/csv" >/dev/null || fail "export"
[ "$(wc -l < "$TMP/csv/client_labels.csv")" -gt 30 ] || fail "export wrote no client_labels.csv"

# FedScale's availability trace, through a checkpoint.
T="$(cd "$(dirname "$0")/../data/fedscale" && pwd)/client_behave_trace"
S0="$TMP/s.json"; small_scenario "$S0"
for alg in '{"name":"sasgd","driver":"timed"}' \
           '{"name":"fedbuff","concurrency":4,"buffer":2,"local":{"steps":1}}'; do
  A=(--set "algorithm=$alg" --set cluster.workers=24 --set optimizer.momentum=0
     --set "clients={\"availability\":\"trace\",\"trace\":\"$T\"}"
     --set 'compute={"kind":"time","time_s":{"dist":"exponential","mean":60}}')
  rm -f "$TMP/tf.db" "$TMP/tc.db" "$TMP/t.ckpt"
  want=$("$SGDSIM" run "$S0" --db "$TMP/tf.db" "${A[@]}" 2>/dev/null | sed -n 's/^digest //p')
  [ -n "$want" ] || { fail "$alg with a trace: no digest"; continue; }
  "$SGDSIM" run "$S0" --db "$TMP/tc.db" "${A[@]}" --checkpoint "$TMP/t.ckpt" \
    --checkpoint-exit-at 23 --quiet 2>/dev/null
  [ $? = 75 ] || fail "$alg with a trace: no checkpoint at update 23"
  got=$("$SGDSIM" run "$S0" --db "$TMP/tc.db" "${A[@]}" --resume "$TMP/t.ckpt" --threads 2 \
        2>"$TMP/err" | sed -n 's/^digest //p')
  [ "$got" = "$want" ] || fail "$alg with a trace: resumed to '$got', not $want: $(cat "$TMP/err")"
done

# Bad input from the command line: exit 2, the path named, no database written.
S="$FL/fedbuff_small.json"
expect_exit 2 "clients.dropout_p" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --set clients.dropout_p=1
expect_exit 2 "clients.online_s: required" -- "$SGDSIM" validate "$S" --set clients.online_s=null \
  --set 'clients={"availability":"renewal","offline_s":1}'
expect_exit 2 "data.partition.alpha" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --set data.partition.alpha=0
expect_exit 2 "algorithm.concurrency" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --set algorithm.concurrency=31
expect_exit 2 "algorithm.driver" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" --set algorithm.driver=uniform
expect_exit 2 "clients.trace: $TMP/none" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" \
  --set "clients={\"availability\":\"trace\",\"trace\":\"$TMP/none\"}"
expect_exit 2 "clients: only valid with name" -- "$SGDSIM" run "$S" --db "$TMP/bad.db" \
  --set 'algorithm={"name":"csgd"}' --set optimizer.lr=0.1
[ ! -e "$TMP/bad.db" ] || fail "a refused run wrote a database"
finish
