# sgdsim sweep's research conveniences: zip groups from the command line (--zip) and from the
# scenario's sweep block ("zip"), crossed with the other axes; their bad inputs (unequal
# lengths, unknown keys, a key in two groups) refused with exit 2 and nothing written;
# --skip-invalid running the valid points and listing the invalid ones; --list marking the
# points already done in --db, read-only; the summary line counting failed points apart.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
sed -i 's/"updates": 60/"updates": 20/' "$S"

# --zip: (workers, batch) = (2, 8), (3, 16), (4, 32) crossed with two seeds: 6 points, in
# canonical order (the group where its first axis is, the last dimension fastest).
out=$("$SGDSIM" sweep "$S" --set cluster.workers=2,3,4 --set batch.per_worker=8,16,32 \
      --set seed=1,2 --zip cluster.workers,batch.per_worker --list)
want="cluster.workers=2 batch.per_worker=8 seed=1
cluster.workers=2 batch.per_worker=8 seed=2
cluster.workers=3 batch.per_worker=16 seed=1
cluster.workers=3 batch.per_worker=16 seed=2
cluster.workers=4 batch.per_worker=32 seed=1
cluster.workers=4 batch.per_worker=32 seed=2"
[ "$(echo "$out" | cut -f3)" = "$want" ] || fail "--zip points: $out"
[ "$(echo "$out" | cut -f1 | tr '\n' ' ')" = "0 1 2 3 4 5 " ] || fail "--zip indices: $out"

# The same sweep from the file's zip list: the same points and run keys; then run it.
sed 's/"eval": { "every": 20 }/"eval": { "every": 20 }, "sweep": { "cluster.workers": [2, 3, 4], "batch.per_worker": [8, 16, 32], "seed": [1, 2], "zip": [["cluster.workers", "batch.per_worker"]] }/' "$S" > "$TMP/z.json"
out2=$("$SGDSIM" sweep "$TMP/z.json" --list)
[ "$(echo "$out2" | cut -f2,3)" = "$(echo "$out" | cut -f2,3)" ] || fail "file zip differs from --zip: $out2"
"$SGDSIM" sweep "$TMP/z.json" -j2 --db "$TMP/z.db" --quiet || fail "zipped sweep failed"
got=$(sqlite3 "$TMP/z.db" "SELECT workers || ':' || json_extract(config_json, '$.batch.per_worker') || ':' || seed FROM runs WHERE status = 'complete' ORDER BY 1")
[ "$(echo "$got" | tr '\n' ' ')" = "2:8:1 2:8:2 3:16:1 3:16:2 4:32:1 4:32:2 " ] || fail "zipped runs: $got"
# Results do not depend on -j: the same digests with one process.
"$SGDSIM" sweep "$TMP/z.json" -j1 --db "$TMP/z1.db" --quiet || fail "zipped sweep -j1 failed"
keys() { sqlite3 "$1" "SELECT run_key || ' ' || digest FROM runs ORDER BY run_key"; }
[ "$(keys "$TMP/z.db")" = "$(keys "$TMP/z1.db")" ] || fail "zipped sweep: -j1 and -j2 differ"
# The command line's list replaces a zipped axis of the file (same length: still zipped).
out=$("$SGDSIM" sweep "$TMP/z.json" --set batch.per_worker=4,8,12 --list)
[ "$(echo "$out" | wc -l)" = 6 ] || fail "zip with a replaced axis: $out"
echo "$out" | grep -q "cluster.workers=4 batch.per_worker=12 seed=2" || fail "replaced zipped axis: $out"

# --list marks what --db already holds, read-only; a missing --db is not created.
"$SGDSIM" sweep "$S" --set cluster.workers=2,3 --db "$TMP/l.db" --quiet || fail "sweep for --list"
cp "$TMP/l.db" "$TMP/l.copy"
out=$("$SGDSIM" sweep "$S" --set cluster.workers=2,3,4 --db "$TMP/l.db" --list)
[ "$(echo "$out" | cut -f3,4 | tr '\t\n' ': ')" = "cluster.workers=2:done cluster.workers=3:done cluster.workers=4:pending " ] || fail "--list marks: $out"
cmp -s "$TMP/l.db" "$TMP/l.copy" || fail "--list changed the database"
[ ! -e "$TMP/l.db-wal" ] || fail "--list left a WAL file"
out=$("$SGDSIM" sweep "$S" --set cluster.workers=2,3 --db "$TMP/none.db" --list)
[ "$(echo "$out" | awk -F'\t' '{print NF}' | sort -u)" = 3 ] || fail "--list without a database marked: $out"
[ ! -e "$TMP/none.db" ] || fail "--list created its database"
echo junk > "$TMP/junk.db"
expect_exit 2 "junk.db" -- "$SGDSIM" sweep "$S" --db "$TMP/junk.db" --list

# --skip-invalid: the valid points run, the invalid one is listed with its error, exit 0.
out=$("$SGDSIM" sweep "$S" --set cluster.workers=2,0,3 --skip-invalid --db "$TMP/v.db" 2>&1); rc=$?
[ "$rc" = 0 ] || fail "--skip-invalid: exit $rc: $out"
case "$out" in *"invalid, skipped: sweep point 2 of 3 (cluster.workers=0)"*"expected integer >= 1"*) ;; *) fail "--skip-invalid did not list the point: $out" ;; esac
case "$out" in *"2 points done (2 complete, 0 diverged), 0 failed, 1 invalid"*) ;; *) fail "--skip-invalid summary: $out" ;; esac
[ "$(sqlite3 "$TMP/v.db" "SELECT group_concat(workers) FROM (SELECT workers FROM runs WHERE status = 'complete' ORDER BY 1)")" = "2,3" ] || fail "--skip-invalid runs"
# Without it, the same sweep stops at the invalid point before anything runs.
expect_exit 2 "sweep point 2 of 3 (cluster.workers=0)" -- "$SGDSIM" sweep "$S" --set cluster.workers=2,0,3 --db "$TMP/v2.db"
[ ! -e "$TMP/v2.db" ] || fail "an invalid point without --skip-invalid created the database"
# A point found invalid when it runs does not stop the others either.
out=$("$SGDSIM" sweep "$S" --set batch.per_worker=16,1000 --set cluster.workers=2 --skip-invalid --db "$TMP/v3.db" 2>&1); rc=$?
[ "$rc" = 0 ] || fail "--skip-invalid with a run-time invalid point: exit $rc: $out"
case "$out" in *"exceeds"*"1 point done (1 complete, 0 diverged), 0 failed, 1 invalid"*) ;; *) fail "run-time invalid point: $out" ;; esac
# Every point invalid: nothing to run, exit 2, nothing written.
expect_exit 2 "no valid point" -- "$SGDSIM" sweep "$S" --set cluster.workers=0,-1 --skip-invalid --db "$TMP/v4.db"
[ ! -e "$TMP/v4.db" ] || fail "a sweep of invalid points created its database"

# Bad zip groups: exit 2 naming the argument or JSON path, nothing written.
zbad() { # NEEDLE SCENARIO ARGS...: refused, and no database
  local needle="$1"; shift
  rm -f "$TMP/zb.db"
  expect_exit 2 "$needle" -- "$SGDSIM" sweep "$@" --db "$TMP/zb.db"
  [ ! -e "$TMP/zb.db" ] || fail "refused sweep ($*) created its database"
}
zbad "--zip cluster.workers,batch.per_worker: cluster.workers has 2 values but batch.per_worker has 3" \
  "$S" --set cluster.workers=2,3 --set batch.per_worker=8,16,4 --zip cluster.workers,batch.per_worker
zbad "z.json: sweep.zip[0]: cluster.workers has 2 values but batch.per_worker has 3" "$TMP/z.json" --set cluster.workers=2,3
zbad "--zip seed,cluster.workers: cluster.workers is already zipped by" "$TMP/z.json" --zip seed,cluster.workers
zbad "--zip cluster.workers,nope: nope is not an axis" "$S" --set cluster.workers=2,3 --zip cluster.workers,nope
zbad "--zip cluster.workers: expected two or more axis keys" "$S" --set cluster.workers=2,3 --zip cluster.workers
zbad "--zip seed,seed: seed is given twice" "$S" --set seed=1,2 --zip seed,seed
expect_exit 2 "--zip: missing value" -- "$SGDSIM" sweep "$S" --zip
mk() { sed "s/\"eval\": { \"every\": 20 }/\"eval\": { \"every\": 20 }, \"sweep\": $1/" "$S" > "$TMP/zz.json"; }
mk '{ "cluster.workers": [2, 3], "zip": [["cluster.workers", "seed"]] }'
zbad 'sweep.zip[0][1]: "seed" is not an axis of this sweep block' "$TMP/zz.json"
mk '{ "cluster.workers": [2, 3], "seed": [1, 2], "zip": [["cluster.workers", "seed"], ["seed", "cluster.workers"]] }'
zbad 'sweep.zip[1][0]: "seed" is already in sweep.zip[0]' "$TMP/zz.json"
mk '{ "cluster.workers": [2, 3], "zip": [["cluster.workers"]] }'
zbad "sweep.zip[0]: expected an array of two or more axis keys" "$TMP/zz.json"
mk '{ "cluster.workers": [2, 3], "zip": ["cluster.workers"] }'
zbad "sweep.zip[0]: expected an array of two or more axis keys" "$TMP/zz.json"
mk '{ "cluster.workers": [2, 3], "seed": [1, 2], "zip": [["cluster.workers", 4]] }'
zbad "sweep.zip[0][1]: expected an axis key" "$TMP/zz.json"
mk '{ "cluster.workers": [2, 3], "zip": {} }'
zbad "sweep.zip: expected a non-empty array" "$TMP/zz.json"
# run and validate check the block's shape too.
expect_exit 2 "sweep.zip: expected a non-empty array" -- "$SGDSIM" validate "$TMP/zz.json" --print
# Live progress: never when stderr is not a terminal (logs and tests see plain lines) ...
out=$("$SGDSIM" sweep "$S" --set cluster.workers=2,3 -j2 --db "$TMP/p.db" 2>&1) || fail "sweep for progress: $out"
case "$out" in *$'\r'*|*$'\033'*) fail "progress drawn without a terminal: $out" ;; esac
# ... and on one (script(1) gives the sweep a terminal): each running point's updates of its
# total and the sweep's of all.
if command -v script >/dev/null; then
  SWEEP_CMD="$SGDSIM sweep $S --set cluster.workers=2,3 --set stop.updates=3000 --set eval.every=0 -j2 --db $TMP/p2.db"
  script -qc "$SWEEP_CMD" /dev/null > "$TMP/tty.txt" 2>&1 < /dev/null || fail "sweep on a terminal failed"
  grep -aq $'\033\[Ksweep: updates [0-9]*/6000 ([0-9]*%) | #[01] [0-9]*/3000' "$TMP/tty.txt" || fail "no live progress line: $(head -c 600 "$TMP/tty.txt")"
  grep -aq "2 points done (2 complete, 0 diverged), 0 failed" "$TMP/tty.txt" || fail "no summary on a terminal"
fi
# run --progress-fd: "UPDATE TOTAL" lines, the last one at the last update; a closed fd is
# bad input.
"$SGDSIM" run "$S" --db "$TMP/pf.db" --quiet --progress-fd 3 3> "$TMP/pf.txt" || fail "run --progress-fd"
[ "$(tail -n1 "$TMP/pf.txt")" = "20 20" ] || fail "--progress-fd lines: $(cat "$TMP/pf.txt")"
# A reader that went away (a closed pipe) does not stop the run.
if command -v python3 >/dev/null; then
  python3 - "$SGDSIM" "$S" "$TMP/pc.db" <<'PY' || fail "run --progress-fd into a closed pipe did not complete"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run([sys.argv[1], "run", sys.argv[2], "--db", sys.argv[3], "--quiet",
                    "--progress-fd", str(w)], pass_fds=[w])
sys.exit(p.returncode)
PY
fi
expect_exit 2 "--progress-fd 987: not an open file descriptor" -- "$SGDSIM" run "$S" --db "$TMP/pf2.db" --progress-fd 987
expect_exit 2 "--progress-fd x: expected an open file descriptor" -- "$SGDSIM" run "$S" --db "$TMP/pf2.db" --progress-fd x
[ ! -e "$TMP/pf2.db" ] || fail "a refused --progress-fd created the database"
finish
