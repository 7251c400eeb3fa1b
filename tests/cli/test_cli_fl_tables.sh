# scripts/fl_peer/fl_tables.py, the tables of scripts/fl-peer-compare.sh and
# scripts/fedbuff-claim.sh, on small hand-made curves whose every printed value is worked
# out here: accuracy at matched rounds and simulated time (last evaluation at or before the
# point; a run that ended before it left out), mean +- sample sd (n), the difference of the
# two sides' means with Welch's p, the cost table from a JSON and a CSV summary, "not run"
# for a missing sgdsim side; time to target per seed, the paired speed-ups, their geometric
# mean with its t interval and the exact sign-flip p; the alternating wall-time table (median
# [min, max], per-repeat ratios); Student's t against closed forms; the --set arguments
# scripts/fl_peer/common.sh gives sgdsim (transfers as link latency, cv 0); and
# bad input (exit 2, naming the file or argument).  Skipped without python3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
T=(python3 "$ROOT/scripts/fl_peer/fl_tables.py")
H="side,algorithm,seed,round,client_trips,sim_time_s,test_accuracy,test_loss,wall_s,eval_wall_s"

cat > "$TMP/flgo.csv" <<EOF
$H
flgo,fedavg,1,0,0,0,0.1,,,
flgo,fedavg,1,5,50,20,0.5,,,
flgo,fedavg,1,10,100,40,0.7,,,
flgo,fedavg,2,0,0,0,0.1,,,
flgo,fedavg,2,5,50,30,0.6,,,
flgo,fedavg,2,10,100,60,0.8,,,
EOF
cat > "$TMP/sgdsim.csv" <<EOF
$H
sgdsim,fedavg,1,0,0,0,0.1,,,
sgdsim,fedavg,1,5,50,25,0.7,,,
sgdsim,fedavg,1,10,100,50,0.9,,,
sgdsim,fedavg,2,0,0,0,0.1,,,
sgdsim,fedavg,2,5,50,25,0.8,,,
sgdsim,fedavg,2,10,100,50,0.9,,,
sgdsim,fedavg,3,5,50,25,,,,
EOF
cat > "$TMP/run.json" <<'EOF'
{"side": "flgo", "algorithm": "fedavg", "seed": 1, "rounds": 10, "sim_time_s": 40,
 "wall_per_round_s": 0.5, "wall_per_round_no_eval_s": 0.25, "staleness_mean": 0}
EOF
cat > "$TMP/runs.csv" <<'EOF'
side,algorithm,seed,rounds,client_trips,sim_time_s,wall_run_s,wall_per_round_s,wall_per_round_no_eval_s,staleness_mean
flgo,fedavg,2,10,100,60,7,0.7,0.45,0
sgdsim,fedavg,1,10,100,50,0.1,0.01,,
EOF

out=$("${T[@]}" compare --curves "$TMP/flgo.csv" "$TMP/sgdsim.csv" --runs "$TMP/run.json" \
      "$TMP/runs.csv" --rounds 5 10 --times 35 50) || fail "compare exited $?"
has() { case "$out" in *"$1"*) ;; *) fail "compare lacks '$1': $out" ;; esac; }
# round 5 = 50 trips: flgo 0.5, 0.6; sgdsim 0.7, 0.8 (seed 3's NaN row is no evaluation)
has "| 5 | 0.5500 ± 0.0707 (n=2) | 0.7500 ± 0.0707 (n=2) | +0.2000 (p = 0.106) |"
# round 10: 0.7, 0.8 against 0.9, 0.9: sgdsim has no spread, Welch's t is still defined
has "| 10 | 0.7500 ± 0.0707 (n=2) | 0.9000 ± 0.0000 (n=2) | +0.1500 (p = 0.205) |"
# 35 s: flgo seeds at 20 s (0.5) and 30 s (0.6); sgdsim both at 25 s (0.7, 0.8)
has "| 35 | 0.5500 ± 0.0707 (n=2) | 0.7500 ± 0.0707 (n=2) |"
# 50 s: flgo seed 1 ended at 40 s (left out), seed 2 at 30 s reads 0.6
has "| 50 | 0.6000 (n=1) | 0.9000 ± 0.0000 (n=2) | — (fewer than 2 seeds) |"
# cost: simulated s per round 4 and 6; wall 0.5 and 0.7; without evaluation 0.25 and 0.45
has "| fedavg | flgo | 10 | 5.000 ± 1.414 (n=2) | 0.6000 ± 0.1414 (n=2) | 0.3500 ± 0.1414 (n=2) | 0.00 ± 0.00 (n=2) |"
has "| fedavg | sgdsim | 10 | 5.000 (n=1) | 0.0100 (n=1) | — | — |"

# the Welch p values above, independently: t and df by hand, p by numerical integration
python3 - <<'PY' || fail "Welch p values"
import math
def p_two(t, df):  # 2 * integral of the t density from |t| to infinity (Simpson, substituted)
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    f = lambda u: c * (1 + (abs(t) + u / (1 - u)) ** 2 / df) ** (-(df + 1) / 2) / (1 - u) ** 2
    n = 200000; h = (1 - 1e-9) / n
    s = f(0) + f(n * h) + sum((4 if k % 2 else 2) * f(k * h) for k in range(1, n))
    return 2 * s * h / 3
for (x, y, want) in (([0.5, 0.6], [0.7, 0.8], "0.106"), ([0.7, 0.8], [0.9, 0.9], "0.205")):
    m = lambda v: sum(v) / len(v)
    var = lambda v: sum((a - m(v)) ** 2 for a in v) / (len(v) - 1) / len(v)
    t = (m(y) - m(x)) / math.sqrt(var(x) + var(y))
    df = (var(x) + var(y)) ** 2 / (var(x) ** 2 + var(y) ** 2)
    got = "%.3f" % p_two(t, df)
    assert got == want, (x, y, got, want)
PY

# no sgdsim curves: its columns say "not run", and no difference column
out=$("${T[@]}" compare --curves "$TMP/flgo.csv" --rounds 5) || fail "compare (peer only)"
has "| 5 | 0.5500 ± 0.0707 (n=2) | not run |"
case "$out" in *"sgdsim − flgo"*) fail "a difference column without sgdsim curves" ;; esac

# time to 0.75: fedavg seeds reach it at 40, 60, 80 s; fedbuff at 20, 20, 40 s; seed 4 of
# fedbuff never does and seed 4 of fedavg is absent
cat > "$TMP/ttt.csv" <<EOF
$H
sgdsim,fedavg,1,10,100,40,0.76,,,
sgdsim,fedavg,2,10,100,60,0.80,,,
sgdsim,fedavg,3,5,50,30,0.70,,,
sgdsim,fedavg,3,10,100,80,0.75,,,
sgdsim,fedbuff,1,10,100,20,0.75,,,
sgdsim,fedbuff,2,10,100,20,0.90,,,
sgdsim,fedbuff,3,20,200,40,0.80,,,
sgdsim,fedbuff,4,20,200,40,0.70,,,
EOF
out=$("${T[@]}" ttt --curves "$TMP/ttt.csv" --target 0.75 --base fedavg) || fail "ttt exited $?"
has "| fedavg | 3 of 3 | 60.0 ± 20.0 (n=3) | 100 ± 0 (n=3) |"
has "| fedbuff | 3 of 4 | 26.7 ± 11.5 (n=3) | 133 ± 58 (n=3) |"
has "| 4 | — | — |"
# speed-ups 2, 3, 2: geometric mean 12^(1/3) = 2.29, interval exp(m +- t(0.975,2) sd/sqrt 3),
# all three positive: sign-flip p = 2/8.  Trips 1, 1, 1/2: two zero logs, every sign pattern
# is as extreme as the observed one, p = 1
has "| fedbuff | simulated time | 3 | 2.29 [1.28, 4.10] | 1: 2.00, 2: 3.00, 3: 2.00 | 0.2500 |"
has "| fedbuff | client trips | 3 | 0.79 [0.29, 2.14] | 1: 1.00, 2: 1.00, 3: 0.50 | 1.0000 |"
python3 - <<'PY' || fail "interval"
import math
logs = [math.log(2), math.log(3), math.log(2)]
m = sum(logs) / 3; sd = math.sqrt(sum((x - m) ** 2 for x in logs) / 2)
h = 4.302652729911275 * sd / math.sqrt(3)  # t(0.975, 2)
assert "%.2f [%.2f, %.2f]" % (math.exp(m), math.exp(m - h), math.exp(m + h)) == "2.29 [1.28, 4.10]"
PY

# timing: per (algorithm, evaluation, side) the median [min, max] over repeats; the ratio of
# each repeat's pair (repeat 3 has no sgdsim run: no ratio); medians of even counts average
cat > "$TMP/timing.csv" <<'EOF'
side,algorithm,repeat,evaluation,rounds,sim_time_s,wall_run_s,wall_per_round_s
flgo,fedavg,1,every 5,40,170,20,0.5
sgdsim,fedavg,1,every 5,40,180,2,0.05
flgo,fedavg,2,every 5,40,170,24,0.6
sgdsim,fedavg,2,every 5,40,180,4,0.1
flgo,fedavg,3,every 5,40,170,28,0.7
flgo,fedasync,1,none,400,90,16,0.04
sgdsim,fedasync,1,none,400,95,0.8,0.002
EOF
out=$("${T[@]}" timing --csv "$TMP/timing.csv") || fail "timing exited $?"
has "| fedavg | every 5 | 0.6000 [0.5000, 0.7000] (n=3) | 0.0750 [0.0500, 0.1000] (n=2) | 8.0 [6.0, 10.0] (n=2) |"
has "| fedasync | none | 0.0400 [0.0400, 0.0400] (n=1) | 0.0020 [0.0020, 0.0020] (n=1) | 20.0 [20.0, 20.0] (n=1) |"
case "$out" in *"| fedavg |"*"| fedasync |"*) ;; *) fail "timing rows out of order: $out" ;; esac
printf 'side,algorithm,repeat\nflgo,fedavg,1\n' > "$TMP/tshort.csv"
expect_exit 2 "no column evaluation" -- "${T[@]}" timing --csv "$TMP/tshort.csv"
printf 'side,algorithm,repeat,evaluation,rounds,wall_per_round_s\nflgo,fedavg,1,none,4,slow\n' > "$TMP/tbad.csv"
expect_exit 2 "line 2 wall_per_round_s" -- "${T[@]}" timing --csv "$TMP/tbad.csv"

# Student's t against closed forms: df 1 (Cauchy), df 2, and the 0.975 quantiles
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$ROOT/scripts/fl_peer" python3 - <<'PY' || fail "Student's t"
import math, fl_tables as f
for t in (0.3, 1.0, 2.5, 10.0):
    assert abs(f.t_two_sided_p(t, 1) - (1 - 2 / math.pi * math.atan(t))) < 1e-12, t
    assert abs(f.t_two_sided_p(t, 2) - (1 - t / math.sqrt(t * t + 2))) < 1e-12, t
assert abs(f.t_quantile(0.975, 2) - 4.302652729911275) < 1e-9
assert abs(f.t_quantile(0.975, 4) - 2.7764451051977987) < 1e-9
assert abs(f.sign_flip_p([1.0, 2.0, -0.5]) - 0.5) < 1e-12  # |sum| >= 2.5: ++-, +++ and their negations
PY

# scripts/fl_peer/common.sh's sgdsim side: the transfer time as latency on both links of a
# message (636,040 bytes at 1 MB/s = 2 x 318,020 us), cv 0 as a constant factor (a lognormal
# needs cv > 0), FedAsync's updates and evaluation period x 10
args=$(cd "$ROOT" && SEEDS=1 ALGS=fedasync ROUNDS=200 EVAL_EVERY=5 FACTOR_CV=0 bash -c \
       '. scripts/fl_peer/common.sh; check_common; sgdsim_settings fedasync; FACTOR_CV=2 sgdsim_settings fedavg') ||
  fail "common.sh exited $?"
for want in "network.latency_us=318020.000" "network.bandwidth_gbps=100" \
            "clients.bandwidth_Bps=12500000000" "clients.compute_factor=1" \
            'clients.compute_factor={"dist":"lognormal","mean":1,"cv":2}' \
            "stop.updates=2000" "eval.every=50" "stop.updates=200" "eval.every=5" \
            '"name":"fedasync","concurrency":10,"alpha":0.6,"staleness":"polynomial","a":0.5'; do
  grep -qF -- "$want" <<<"$args" || fail "sgdsim_settings lacks $want: $args"
done

# bad input: exit 2, naming what is wrong
expect_exit 2 "nonexistent.csv" -- "${T[@]}" compare --curves "$TMP/nonexistent.csv"
printf 'side,algorithm,seed\nflgo,fedavg,1\n' > "$TMP/short.csv"
expect_exit 2 "no column round" -- "${T[@]}" compare --curves "$TMP/short.csv"
printf '%s\nflgo,fedavg,1,0,zero,0,0.1,,,\n' "$H" > "$TMP/nan.csv"
expect_exit 2 "line 2 client_trips" -- "${T[@]}" compare --curves "$TMP/nan.csv"
printf '%s\nflgo,fedavg,1,0,0,inf,0.1,,,\n' "$H" > "$TMP/inf.csv"
expect_exit 2 "is not finite" -- "${T[@]}" compare --curves "$TMP/inf.csv"
echo '{"side": "flgo"' > "$TMP/bad.json"
expect_exit 2 "bad.json: not JSON" -- "${T[@]}" compare --curves "$TMP/flgo.csv" --runs "$TMP/bad.json"
echo '{"side": "flgo", "algorithm": "fedavg", "seed": 1}' > "$TMP/part.json"
expect_exit 2 "part.json: no field rounds" -- "${T[@]}" compare --curves "$TMP/flgo.csv" --runs "$TMP/part.json"
expect_exit 2 "--target 1.5" -- "${T[@]}" ttt --curves "$TMP/ttt.csv" --target 1.5
expect_exit 2 "--base fedprox" -- "${T[@]}" ttt --curves "$TMP/ttt.csv" --target 0.7 --base fedprox
expect_exit 2 "--rounds and --times" -- "${T[@]}" compare --curves "$TMP/flgo.csv" --rounds 0
finish
