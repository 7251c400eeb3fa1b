# validate's event estimate for the parameter-server family is within 2x of the events the
# run reports.  Its updates are applied after the schedule has run ahead of them, so the
# pilot must count the events up to each update (alg_ctx_t.events_at_update), not the
# engine's count, which had run ahead (the estimate was 4.6-5.5x low: 646 against 3,000).
# Every registered algorithm with a driver (the parameter-server family's rules, from the
# loader's refusal of an unknown name: lib.sh's registered_algorithms) under each driver it
# takes (the FL rules refuse the uniform one), 8 and 32 clients.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
cat > ps.json <<'JSON'
{
  "schema_version": 1, "name": "ps", "seed": 5,
  "algorithm": { "name": "fasgd" },
  "cluster": { "workers": 8 },
  "data": { "source": "synthetic", "n_train": 600, "n_validation": 200, "dim": 20, "classes": 5 },
  "model": { "kind": "mlp", "hidden": [32], "init": "he" },
  "batch": { "per_worker": 16 },
  "optimizer": { "lr": 0.05, "momentum": 0.0 },
  "stop": { "updates": 600 },
  "eval": { "every": 100 }
}
JSON
family=()
for a in $(registered_algorithms ps.json); do
  "$SGDSIM" validate ps.json --set "algorithm.name=$a" --set algorithm.driver=timed \
    >/dev/null 2>&1 && family+=("$a")
done
[ ${#family[@]} -ge 3 ] || fail "fewer than three rules with a driver: ${family[*]}"
i=0
for alg in "${family[@]}"; do
  for driver in uniform timed; do
    for workers in 8 32; do
      i=$((i + 1))
      set -- --set algorithm.name=$alg --set algorithm.driver=$driver --set cluster.workers=$workers
      out=$("$SGDSIM" validate ps.json "$@" 2>&1) || {
        case "$driver:$out" in uniform:*'needs "timed"'*) continue ;; esac
        fail "validate $*: $out"; continue; }
      est=$(printf '%s\n' "$out" | sed -n 's/^  events: *about \([0-9.e+]*\) .*/\1/p')
      "$SGDSIM" run ps.json "$@" --db "r$i.db" --quiet >/dev/null 2>&1 || { fail "run $*"; continue; }
      got=$("$SGDSIM" query "r$i.db" "SELECT events FROM runs" --csv | tail -n 1)
      awk -v e="$est" -v g="$got" 'BEGIN { exit !(g > 0 && e >= g / 2 && e <= g * 2) }' ||
        fail "$alg, $driver, $workers clients: validate estimates '$est' events, the run reports '$got'"
    done
  done
done
finish
