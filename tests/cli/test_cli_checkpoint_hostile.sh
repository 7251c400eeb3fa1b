# run --resume of a checkpoint with one field changed and its SHA-256 written afresh (what
# anyone can do; ckpt_forge): a pending event's worker or client out of range, a NaN
# parameter, a negative time of update 1, a header whose update count is not its state's --
# each exits 2 naming what is wrong, before the database is touched (byte for byte the same:
# no 'running' mark, no resumes counted, no row deleted).  The unchanged checkpoint then
# resumes to the uninterrupted run's digest and rows.
. "$(dirname "$0")/lib.sh"
FORGE="$2"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
F="$TMP/f.json"  # FASGD on the timed driver: clients' events
sed -e 's/"algorithm": { "name": "csgd" }/"algorithm": { "name": "fasgd", "driver": "timed" }/' \
    -e 's/"momentum": 0.9/"momentum": 0/' "$S" > "$F"

"$SGDSIM" run "$S" --db "$TMP/full.db" --quiet || fail "uninterrupted run failed"
for scen in "$S" "$F"; do
  name=$(basename "$scen" .json)
  db="$TMP/$name.db"; ck="$TMP/$name.ckpt"
  "$SGDSIM" run "$scen" --db "$db" --quiet --checkpoint "$ck" --checkpoint-exit-at 30
  [ $? = 75 ] || fail "$name: no checkpoint"
  before=$(sha256sum "$db" | cut -d' ' -f1)
  refused() { # NEEDLE FORGE-ARGS...
    local needle="$1"; shift
    "$FORGE" "$ck" "$TMP/forged.ckpt" "$@" || { fail "$name: ckpt_forge $*"; return; }
    expect_exit 2 "$needle" -- "$SGDSIM" run "$scen" --db "$db" --quiet --resume "$TMP/forged.ckpt"
    [ "$(sha256sum "$db" | cut -d' ' -f1)" = "$before" ] || fail "$name: the database changed after: $*"
  }
  if [ "$name" = s ]; then
    refused "worker 7 of 3" event csgd.io_done entity 7
    refused "worker 4294967295 of 3" event csgd.io_done entity 4294967295
  else
    refused "client 9 of 3" event ps.compute_done entity 9
  fi
  refused "parameters: a value is NaN" param 3 nan
  refused "virtual times out of order: update 1 at -1000000 ns" first-vtime -1000000
  at=$(sqlite3 "$db" "SELECT updates FROM runs WHERE id=1")
  refused "its header says run 1 after update 15, its state is after update $at" header-updates 15
  refused "its header says run 1 after update $((at + 5))" header-updates $((at + 5))
  [ "$(sqlite3 "$db" "SELECT status || ' ' || resumes FROM runs WHERE id=1")" = "failed 0" ] ||
    fail "$name: the run was marked resumed"
  "$SGDSIM" run "$scen" --db "$db" --quiet --resume "$ck" || fail "$name: resume failed"
  [ "$(sqlite3 "$db" "SELECT status || ' ' || resumes FROM runs WHERE id=1")" = "complete 1" ] ||
    fail "$name: not complete after its resume"
done
want=$(sqlite3 "$TMP/full.db" "SELECT digest || ' ' || (SELECT count(*) FROM metrics) FROM runs")
got=$(sqlite3 "$TMP/s.db" "SELECT digest || ' ' || (SELECT count(*) FROM metrics) FROM runs")
[ "$got" = "$want" ] || fail "the resumed run is not the uninterrupted one: $got, wanted $want"
finish
