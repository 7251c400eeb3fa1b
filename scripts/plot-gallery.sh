#!/bin/bash
# plot-gallery.sh -- draws every documented option of `sgdsim plot` (but --follow, which
# redraws a figure while runs go) into docs/figures/gallery/, from a small database it makes
# itself with short runs of a synthetic parameter-server scenario (FASGD and SASGD, four
# learning rates, three cluster sizes, three seeds: 72 runs of 200 updates, seconds in all).
#
#   scripts/plot-gallery.sh [SGDSIM [OUTDIR]]   (default build/sgdsim, docs/figures/gallery)
#
# Each figure is a PNG at a modest size, and OUTDIR/README.md lists the command that drew
# it, so a change to plot's layout is seen by running this and looking at the figures.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
sgdsim=${1:-$root/build/sgdsim}
out=${2:-$root/docs/figures/gallery}
[ -x "$sgdsim" ] || { echo "$0: $sgdsim: no sgdsim executable (build it first)" >&2; exit 2; }
sgdsim=$(cd "$(dirname "$sgdsim")" && pwd)/$(basename "$sgdsim")
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v gnuplot >/dev/null || { echo "$0: gnuplot is not installed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/ps.json" <<'JSON'
{
  "schema_version": 1, "name": "gallery", "seed": 3,
  "algorithm": { "name": "fasgd", "driver": "timed" },
  "cluster": { "workers": 2, "time_factor": { "dist": "uniform", "min": 1.0, "max": 3.0 } },
  "data": { "source": "synthetic", "n_train": 300, "n_validation": 100, "dim": 10, "classes": 4 },
  "model": { "kind": "mlp", "hidden": [8], "init": "he" },
  "batch": { "per_worker": 8 },
  "optimizer": { "lr": 0.05 },
  "compute": { "kind": "time", "time_s": { "dist": "gamma", "mean": 0.002, "cv": 0.3 } },
  "io": { "time_s": { "dist": "exponential", "mean": 0.0005 } },
  "network": { "bandwidth_gbps": 0.01, "latency_us": 20 },
  "stop": { "updates": 200 },
  "eval": { "every": 20, "train_loss_every": 5 }
}
JSON
db=$work/gallery.db
"$sgdsim" sweep "$work/ps.json" --set algorithm.name=fasgd,sasgd --set optimizer.lr=0.02,0.05,0.1,0.2 \
  --set cluster.workers=2,4,8 --set seed=1,2,3 -j 1 --db "$db" >/dev/null 2>&1 # -j 1: run ids in plan order

{
  echo "# plot gallery"
  echo
  echo "Drawn by \`scripts/plot-gallery.sh\` from its own database (72 short runs of a"
  echo "synthetic parameter-server scenario, \`gallery\`); one figure per documented option of"
  echo "\`sgdsim plot\`. Redraw them after changing plot, and look at each."
  echo
} > "$out/README.md"

# fig NAME ARGS...: draws NAME.png with `sgdsim plot DB ARGS...` and lists the command.
fig() {
  local name=$1; shift
  "$sgdsim" plot "$db" "$@" -o "$out/$name.png" >/dev/null 2>&1 ||
    { echo "$0: plot $name failed: sgdsim plot DB $*" >&2; exit 1; }
  local line="- \`$name.png\`: \`sgdsim plot DB" word
  for word in "$@"; do
    if [[ $word =~ ^[A-Za-z0-9_.,:=/+-]+$ ]]; then line+=" $word"
    else line+=" '${word//\'/\'\\\'\'}'"; fi
  done
  echo "$line -o $name.png\`" >> "$out/README.md"
}
small=(--size 640,420)
cd "$work" # --data writes beside the database
fig basic "${small[@]}" --y val_error --by optimizer.lr --where algorithm.name=fasgd,cluster.workers=4 --data basic.csv --record
fig band-std "${small[@]}" --y val_error --by optimizer.lr --where algorithm.name=fasgd,cluster.workers=4 --band std
fig band-minmax "${small[@]}" --y train_loss --by cluster.workers --where algorithm.name=sasgd,optimizer.lr=0.05 --band minmax
fig pool "${small[@]}" --y val_error --by algorithm.name --where optimizer.lr=0.05,cluster.workers=8 --pool
fig vtime "${small[@]}" --y val_error --x vtime --by cluster.workers --where algorithm.name=fasgd,optimizer.lr=0.05
fig logy "${small[@]}" --y val_error --by optimizer.lr --where algorithm.name=fasgd,cluster.workers=2 --logy
fig logy-one-decade "${small[@]}" --y val_error --by optimizer.lr --where algorithm.name=fasgd,cluster.workers=2 --logy --xrange 100:200 --yrange 0.04:0.095
fig logx "${small[@]}" --y train_loss --by cluster.workers --where algorithm.name=fasgd,optimizer.lr=0.1 --logx
fig color-dash "${small[@]}" --y val_error --by cluster.workers,algorithm.name --where optimizer.lr=0.05 --color-by cluster.workers --dash-by algorithm.name
fig labels "${small[@]}" --y val_error --by cluster.workers --where algorithm.name=fasgd,optimizer.lr=0.05 \
  --label 'cluster.workers=λ' --label 'cluster.workers:8=λ=8 (largest)' --legend-title 'workers' \
  --title 'FASGD, lr 0.05' --xlabel 'server updates' --ylabel 'validation error' --xrange 0:150 --yrange 0:0.9
fig legend-below "${small[@]}" --y val_error --by cluster.workers --where algorithm.name=fasgd,optimizer.lr=0.05 --legend below
fig legend-inside "${small[@]}" --y val_error --by cluster.workers --where algorithm.name=fasgd,optimizer.lr=0.05 --legend inside
fig long-names --size 800,560 --y val_error --by optimizer.lr,cluster.workers,algorithm.name --where seed=1
fig long-names-outside --size 800,560 --y val_error --by optimizer.lr,cluster.workers,algorithm.name --where seed=1,algorithm.name=fasgd --legend outside
fig many-series --size 800,560 --y val_error --where algorithm.name=sasgd,seed=1
fig many-runs --size 800,560 --y val_error --where algorithm.name=fasgd,seed!=3
fig facet --size 900,600 --y val_error --by optimizer.lr --facet cluster.workers --band std --where algorithm.name=fasgd
fig facet-share-x --size 900,600 --y train_loss --by optimizer.lr --facet cluster.workers --where algorithm.name=sasgd --share-axes x --logy
fig facet-share-none --size 900,600 --y val_error --by optimizer.lr --facet cluster.workers --where algorithm.name=sasgd --share-axes none
fig facet-two --size 900,420 --y val_error --by optimizer.lr --facet algorithm.name --where cluster.workers=4
fig facet-four --size 900,600 --y val_error --by algorithm.name,cluster.workers --facet optimizer.lr --where cluster.workers!=8 --color-by algorithm.name --dash-by cluster.workers
echo "$out: $(ls "$out"/*.png | wc -l) figures"
