# What users read in run's and sweep's messages: a run without a clock (the uniform driver)
# says so in its summary instead of a virtual time; a data file that cannot be opened is
# named as given and as tried (resolved against the scenario's folder); a list of seeds
# given to run, or a range given to either, points to sweep's list syntax, never to quotes.
. "$(dirname "$0")/lib.sh"
cat > "$TMP/ps.json" <<'JSON'
{
  "schema_version": 1, "name": "ps", "seed": 1,
  "algorithm": { "name": "fasgd", "driver": "uniform" },
  "cluster": { "workers": 2 },
  "data": { "source": "synthetic", "n_train": 100, "n_validation": 50, "dim": 5, "classes": 3 },
  "model": { "kind": "softmax" },
  "batch": { "per_worker": 4 },
  "optimizer": { "lr": 0.05 },
  "stop": { "updates": 20 },
  "eval": { "every": 10 }
}
JSON

# --- the summary of a run without a clock --------------------------------------------------
out=$("$SGDSIM" run "$TMP/ps.json" --db "$TMP/u.db") || fail "uniform run: $out"
line=$(grep '^run 1: ' <<<"$out")
case "$line" in
  *", no clock (uniform driver), "*) ;;
  *) fail "a uniform-driver run's summary does not say it has no clock: $line" ;;
esac
case "$line" in *"virtual time"*) fail "a uniform-driver run's summary gives a virtual time: $line" ;; esac
out=$("$SGDSIM" run "$TMP/ps.json" --db "$TMP/t.db" --set algorithm.driver=timed) || fail "timed run: $out"
grep -qE '^run 1: complete, fasgd, 2 workers, 20 updates, [0-9]+\.[0-9]{3} s virtual time, ' <<<"$out" ||
  fail "a timed run's summary has no virtual time: $out"

# --- lists and ranges of values: sweep's list syntax, never quotes --------------------------
expect_exit 2 "--set seed=1,2,3: not a valid JSON value: one value here; to run once per value, give the list to sgdsim sweep SCENARIO --set seed=1,2,3" -- \
  "$SGDSIM" run "$TMP/ps.json" --set seed=1,2,3 --db "$TMP/l.db"
expect_exit 2 "--set seed=1..3: not a valid JSON value: there are no ranges; list the values, as sgdsim sweep SCENARIO --set seed=1,2,3 takes them" -- \
  "$SGDSIM" sweep "$TMP/ps.json" --set seed=1..3 --db "$TMP/l.db"
expect_exit 2 "--set seed=1..3: not a valid JSON value: there are no ranges" -- \
  "$SGDSIM" run "$TMP/ps.json" --set seed=1..3 --db "$TMP/l.db"
expect_exit 2 "--set optimizer.lr=0.1-0.3: not a valid JSON value: there are no ranges; list the values, as sgdsim sweep SCENARIO --set optimizer.lr=v1,v2,..." -- \
  "$SGDSIM" validate "$TMP/ps.json" --set optimizer.lr=0.1-0.3
for args in "run --set seed=1,2,3" "sweep --set seed=1..3" "run --set seed=1..3"; do
  # shellcheck disable=SC2086
  out=$("$SGDSIM" ${args%% *} "$TMP/ps.json" ${args#* } --db "$TMP/l.db" 2>&1)
  case "$out" in *quote*) fail "$args suggests quoting: $out" ;; esac
done
[ ! -e "$TMP/l.db" ] || fail "a refused --set wrote a database"
# The sweep really takes the list it points to.
"$SGDSIM" sweep "$TMP/ps.json" --set seed=1,2,3 --list >/dev/null || fail "sweep --set seed=1,2,3 --list"

# --- a data file that cannot be opened: as given (after the scenario's folder) and as tried
mkdir -p "$TMP/exp"
cat > "$TMP/exp/q.json" <<'JSON'
{
  "schema_version": 1, "name": "q", "algorithm": { "name": "csgd" },
  "data": { "source": "idx", "train_images": "../data/x-images.gz", "train_labels": "../data/x-labels.gz",
            "validation": "train_tail", "validation_size": 10 },
  "model": { "kind": "softmax" }, "stop": { "updates": 5 }
}
JSON
real=$(cd "$TMP" && pwd -P)
expect_exit 2 "q.json: data.train_images: exp/../data/x-images.gz: cannot open: No such file or directory (that is $real/data/x-images.gz)" -- \
  bash -c 'cd "$1" && "$2" run exp/q.json --db u2.db' _ "$TMP" "$SGDSIM"
expect_exit 2 "q.json: data.train_images: ../data/x-images.gz: cannot open: No such file or directory (that is $real/data/x-images.gz)" -- \
  bash -c 'cd "$1/exp" && "$2" run q.json --db u2.db' _ "$TMP" "$SGDSIM"
finish
