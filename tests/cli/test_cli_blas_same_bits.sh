# Kernels that sgdsim treats as computing the same bits (`sgdsim --version`: "BLAS kernels
# with the same bits", models/blas_kernel.c) must give the same digests: on every pair whose
# two kernels this CPU runs, the CLI tests' small CSGD scenario, a wide MLP under FASGD at
# batch 128 and LeNet-5 on synthetic 28 x 28 images, each forced onto each kernel
# (OPENBLAS_CORETYPE and --blas-core together, so OpenBLAS runs exactly that kernel).
# Skipped (77) where no pair has both kernels runnable here.
. "$(dirname "$0")/lib.sh"
grep -qw pni /proc/cpuinfo 2>/dev/null || { echo "not an x86 CPU with SSE3: skipping"; exit 77; }
unset OPENBLAS_CORETYPE SGDSIM_BLAS_ENV
S="$TMP/s.json"; small_scenario "$S"
MLP=(--set 'algorithm={"name":"fasgd","driver":"timed","minibatch":"random","server_time_s":0.0005}'
     --set optimizer.momentum=0 --set cluster.workers=6 --set stop.updates=60
     --set 'model.hidden=[200,100]' --set data.dim=784 --set batch.per_worker=128)
CNN=(--set data.dim=784 --set 'model={"kind":"cnn","layers":"lenet5","init":"he",
     "input":{"height":28,"width":28}}' --set stop.updates=30 --set batch.per_worker=32)

# digests KERNEL: the three scenarios' digests on KERNEL, one line.
digests() {
  local args out line=""
  for args in "" "MLP" "CNN"; do
    case "$args" in
      MLP) out=$(OPENBLAS_CORETYPE="$1" "$SGDSIM" run "$S" --db "$TMP/d.db" --blas-core "$1" "${MLP[@]}") ;;
      CNN) out=$(OPENBLAS_CORETYPE="$1" "$SGDSIM" run "$S" --db "$TMP/d.db" --blas-core "$1" "${CNN[@]}") ;;
      *) out=$(OPENBLAS_CORETYPE="$1" "$SGDSIM" run "$S" --db "$TMP/d.db" --blas-core "$1") ;;
    esac || { fail "run on $1 failed"; return; }
    line+="$(sed -n 's/^digest //p' <<< "$out") "
  done
  echo "$line"
}

pairs=$("$SGDSIM" --version | sed -n 's/^BLAS kernels with the same bits: //p')
[ -n "$pairs" ] || fail "--version lists no kernels with the same bits"
compared=0
IFS=, read -ra list <<< "$pairs"
for pair in "${list[@]}"; do
  read -r a eq b <<< "$pair"
  [ "$eq" = "=" ] || { fail "unreadable pair '$pair'"; continue; }
  runs_both=1
  for k in "$a" "$b"; do
    "$SGDSIM" validate "$S" --blas-core "$k" >/dev/null 2>&1 || runs_both=0
  done
  [ "$runs_both" = 1 ] || { echo "this CPU does not run both $a and $b: not compared"; continue; }
  da=$(digests "$a"); db=$(digests "$b")
  [ -n "${da// /}" ] && [ "$da" = "$db" ] || fail "$a and $b give different digests: $da vs $db"
  # The scenarios tell kernels apart: the generic kernel gives other bits.
  [ "$(digests Prescott)" != "$da" ] || fail "Prescott gives the digests of $a: the scenarios cannot tell kernels apart"
  compared=$((compared + 1))
done
if [ "$FAILS" = 0 ] && [ "$compared" = 0 ]; then echo "skipping: no pair runs here"; exit 77; fi
finish
