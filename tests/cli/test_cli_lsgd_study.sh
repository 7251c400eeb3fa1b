# The LSGD study's headline, end to end through the CLI and the database: the scenarios in
# scenarios/lsgd/ at 4, 32 and 256 GPUs (one ImageNet epoch each, closed-form collectives)
# give the efficiencies docs/lsgd.md reports -- LSGD 100% at 32 and 94.5% at 256 GPUs, CSGD
# 69.1% and 65.2% -- so a change to the model that moves them is seen.  A few seconds.
. "$(dirname "$0")/lib.sh"
SC="$(dirname "$0")/../../scenarios/lsgd"
DB="$TMP/study.db"
for alg in csgd lsgd; do
  for p in 4 32 256; do
    "$SGDSIM" run "$SC/resnet50_$alg.json" --db "$DB" --quiet --set cluster.workers=$p \
      --set stop.updates=$((1281167 / (64 * p))) || fail "$alg at $p GPUs did not run"
  done
done
eff() { # algorithm gpus -> efficiency in percent, one decimal
  sqlite3 "$DB" "SELECT printf('%.1f', 100 * m.value / ($2 / 4.0 * b.value))
                 FROM runs r JOIN metrics m ON m.run_id = r.id AND m.name = 'images_per_s',
                      runs rb JOIN metrics b ON b.run_id = rb.id AND b.name = 'images_per_s'
                 WHERE r.algorithm = '$1' AND r.workers = $2 AND rb.algorithm = '$1' AND rb.workers = 4"
}
[ "$(eff lsgd 32)" = "100.0" ] || fail "LSGD at 32 GPUs: $(eff lsgd 32)%, docs say 100.0%"
[ "$(eff lsgd 256)" = "94.5" ] || fail "LSGD at 256 GPUs: $(eff lsgd 256)%, docs say 94.5%"
[ "$(eff csgd 32)" = "69.1" ] || fail "CSGD at 32 GPUs: $(eff csgd 32)%, docs say 69.1%"
[ "$(eff csgd 256)" = "65.2" ] || fail "CSGD at 256 GPUs: $(eff csgd 256)%, docs say 65.2%"
# the traffic of a cost-only run is ResNet-50's: LSGD's reduce carries every worker's 161
# tensors once per exchange (padded sizes are only used by the allreduce)
bytes=$(sqlite3 "$DB" "SELECT t.sent_bytes FROM traffic t JOIN runs r ON r.id = t.run_id
                       WHERE r.algorithm = 'lsgd' AND r.workers = 32 AND t.kind = 'reduce'")
[ "$bytes" = "$((25557032 * 4 * 32 * (1281167 / (64 * 32))))" ] || fail "reduce bytes $bytes"
finish
