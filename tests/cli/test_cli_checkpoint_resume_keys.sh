# run --resume with a scenario other than the checkpoint's names what differs: each
# configuration key (dotted path, as sgdsim diff names it) with the checkpoint's value and
# this run's, strings quoted, a key only one side has as (absent), keys that change no result
# (numerics.threads) left out, and the header's differing field (the run key's hashes) after
# them.  A database that does not hold the checkpoint's run (its id and start) shows no other
# run's keys: the header's field alone.  Every refusal exits 2 and leaves the database as it
# was; the right scenario then resumes.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
small_scenario s.json
db=r.db; ck=r.ckpt
"$SGDSIM" run s.json --db "$db" --quiet --checkpoint "$ck" --checkpoint-exit-at 20 2>/dev/null
[ $? = 75 ] || fail "no checkpoint written"
before=$(sha256sum "$db" | cut -d' ' -f1)
# refused OUT -- command...: exit 2, its stderr into OUT, the database unchanged.
refused() {
  local out=$1; shift 2
  "$@" >/dev/null 2>"$out"; local rc=$?
  [ "$rc" = 2 ] || fail "exit $rc (wanted 2) from: $* :: $(cat "$out")"
  [ "$(sha256sum "$db" | cut -d' ' -f1)" = "$before" ] || fail "the database changed after: $*"
}
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(cat "$1")"; }
hasnt() { ! grep -qF -- "$2" "$1" || fail "$1 has '$2': $(cat "$1")"; }

refused lr.txt -- "$SGDSIM" run s.json --db "$db" --quiet --resume "$ck" \
  --set optimizer.lr=0.1 --threads 2
has lr.txt "differs from that of run 1 in r.db, which the checkpoint continues, in 1 key:"
has lr.txt "  optimizer.lr: the checkpoint's 0.05, this run's 0.1"
has lr.txt "  (run key: the checkpoint's \""
hasnt lr.txt "numerics.threads"
[ "$(wc -l < lr.txt)" = 3 ] ||
  fail "lr.txt: not the message, one key and the hashes: $(cat lr.txt)"

refused alg.txt -- "$SGDSIM" run s.json --db "$db" --quiet --resume "$ck" --set algorithm.name=fasgd \
  --set optimizer.momentum=0 --seed 6
has alg.txt "  algorithm.name: the checkpoint's \"csgd\", this run's \"fasgd\""
has alg.txt "  optimizer.momentum: the checkpoint's 0.9, this run's 0"
has alg.txt "  seed: the checkpoint's 5, this run's 6"
has alg.txt "  algorithm.decay: the checkpoint's (absent), this run's 0.9"
has alg.txt "  (algorithm: the checkpoint's \"csgd\", this run's \"fasgd\")"

# Another database, whose run 1 is not the checkpoint's: no keys of that run.
"$SGDSIM" run s.json --db o.db --quiet --set optimizer.lr=0.2 || fail "the other database"
other=$(sha256sum o.db | cut -d' ' -f1)
"$SGDSIM" run s.json --db o.db --quiet --resume "$ck" --set optimizer.lr=0.2 >/dev/null 2>o.txt
[ $? = 2 ] || fail "resume in another database: $(cat o.txt)"
has o.txt "written by another run, bits would not be kept: run key: the checkpoint's \""
hasnt o.txt "optimizer.lr"
[ "$(sha256sum o.db | cut -d' ' -f1)" = "$other" ] || fail "the other database changed"

"$SGDSIM" run s.json --db "$db" --quiet --resume "$ck" --threads 2 ||
  fail "the right scenario does not resume"
finish
