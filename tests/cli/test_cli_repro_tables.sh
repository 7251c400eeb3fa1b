# scripts/repro_tables.py, the Markdown tables of docs/reproductions.md, on small synthetic
# runs named like the experiment scripts' settings (two seeds each): every printed value
# against the database read independently (sqlite3 and a few lines of Python: counts, the
# mean and sample sd over the seeds, Welch's t and its p by numerical integration; the
# script takes every number from sgdsim report --json and --welch),
# settings without runs or whose runs diverged left out, the footer's run count, and bad
# input (exit 2).  Skipped without python3 or sqlite3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipping"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TABLES=(python3 "$ROOT/scripts/repro_tables.py")
export SGDSIM # the binary repro_tables.py takes its numbers from

# 197 validation images: a mean of errors k/197 does not fall on a rounding tie at 4 decimals
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/e.db"
point() { # NAME ALGORITHM-JSON [--set ...]
  "$SGDSIM" sweep "$S" --db "$DB" --quiet --set "name=$1" --set seed=1,2 \
    --set stop.updates=80 --set eval.every=4 --set cluster.workers=4 \
    --set optimizer.momentum=0 --set data.n_validation=197 --set "algorithm=$2" "${@:3}"
  [ $? = 0 ] || [ "${3:-}" ] || fail "sweep $1"
}
point exp3/c_fetch=0/c_push=0 '{"name":"b-fasgd","c_fetch":0,"c_push":0}'
point exp3/c_fetch=1/c_push=0 '{"name":"b-fasgd","c_fetch":1,"c_push":0}'
point exp3/c_fetch=0/c_push=0.08 '{"name":"b-fasgd","c_fetch":0,"c_push":0.08}'
point exp3/fred-tau/c_fetch=1/c_push=0 \
  '{"name":"b-fasgd","c_fetch":1,"c_push":0,"skipped_fetch_tau":"fred"}'
# both seeds diverge (a step of 1e30): no row, counted in the footer
point exp3/c_fetch=0.25/c_push=0 '{"name":"b-fasgd","c_fetch":0.25,"c_push":0}' \
  --set optimizer.lr=1e30
point exp1/fasgd/mu=8/lambda=16 '{"name":"fasgd"}'
point exp1/sasgd/mu=8/lambda=16 '{"name":"sasgd"}'

# the values of one setting as the tables should print them, computed here
expect() { # SETTING -> "fetch_sent fetch_potential push_sent push_potential final last10 tau"
  python3 - "$DB" "$1" <<'PY'
import math, sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
ids = [r[0] for r in con.execute("SELECT id FROM runs WHERE scenario = ? ORDER BY seed",
                                 (sys.argv[2],))]
def ms(xs, f="{:.4f}"):
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return f.format(m) + " ± " + f.format(sd)
def vals(i):
    return [r[0] for r in con.execute("SELECT value FROM metrics WHERE run_id = ? AND name = "
                                      "'val_error' ORDER BY update_idx", (i,))]
cols = []
for kind in ("fetch", "push"):
    t = [con.execute("SELECT sent_msgs, sent_msgs + skipped_msgs FROM traffic WHERE run_id = ?"
                     " AND kind = ?", (i, kind)).fetchone() for i in ids]
    if None in t:
        cols += ["-", "-"]
        continue
    cols += [f"{round(sum(x[j] for x in t) / len(t)):,}" for j in (0, 1)]
tau = [con.execute("SELECT value FROM metrics WHERE run_id = ? AND name = 'staleness_mean' "
                   "ORDER BY update_idx DESC LIMIT 1", (i,)).fetchone()[0] for i in ids]
cols += [ms([vals(i)[-1] for i in ids]), ms([sum(vals(i)[-10:]) / 10 for i in ids]),
         ms(tau, "{:.0f}")]
print("|".join(cols))
PY
}
row() { grep -F "| $1 |" "$TMP/t.md"; }

"${TABLES[@]}" exp3 "$DB" --updates 80 > "$TMP/t.md" || fail "exp3 table: $(cat "$TMP/t.md")"
IFS='|' read -r fs fp ps pp fin l10 tau <<< "$(expect exp3/c_fetch=0/c_push=0)"
want="| c = 0 (= FASGD) | $fs / $fp | $ps / $pp | 1.00× | $fin | $l10 | $tau |"
[ "$(row 'c = 0 (= FASGD)')" = "$want" ] || fail "c = 0 row: $(row 'c = 0 (= FASGD)') != $want"
IFS='|' read -r fs fp ps pp fin l10 tau <<< "$(expect exp3/c_fetch=1/c_push=0)"
case "$(row 'c_fetch = 1')" in
  "| c_fetch = 1 | $fs / $fp | all | "*" | $fin | $l10 | $tau |") ;;
  *) fail "c_fetch = 1 row: $(row 'c_fetch = 1') (fetches $fs / $fp, $fin, $l10, $tau)" ;;
esac
[ "$fs" != "$fp" ] || fail "c_fetch = 1 skipped no fetch: the row checks nothing"
IFS='|' read -r fs fp ps pp fin l10 tau <<< "$(expect exp3/c_fetch=0/c_push=0.08)"
case "$(row 'c_push = 0.08')" in
  "| c_push = 0.08 | all | $ps / $pp | "*" | $fin | $l10 | $tau |") ;;
  *) fail "c_push = 0.08 row: $(row 'c_push = 0.08') (pushes $ps / $pp, $fin, $l10)" ;;
esac
row 'c_fetch = 0.5' && fail "a setting without runs has a row"
row 'c_fetch = 0.25' && fail "a setting whose runs diverged has a row"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE status = 'diverged'")" = 2 ] ||
  fail "the 1e30 steps did not diverge twice"
# the FRED row: its truthful twin's last-10 and Welch's test against c = 0, computed here
IFS='|' read -r _ _ _ _ _ twin _ <<< "$(expect exp3/c_fetch=1/c_push=0)"
read -r diff p <<< "$(python3 - "$DB" exp3/fred-tau/c_fetch=1/c_push=0 exp3/c_fetch=0/c_push=0 <<'PY'
import math, sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
def last10(setting):
    ids = [r[0] for r in con.execute("SELECT id FROM runs WHERE scenario = ?", (setting,))]
    return [sum(v[-10:]) / 10 for v in
            ([r[0] for r in con.execute("SELECT value FROM metrics WHERE run_id = ? AND name ="
                                        " 'val_error' ORDER BY update_idx", (i,))] for i in ids)]
a, b = last10(sys.argv[2]), last10(sys.argv[3])
m = lambda x: sum(x) / len(x)
v = lambda x: sum((y - m(x)) ** 2 for y in x) / (len(x) - 1) / len(x)
t = (m(a) - m(b)) / math.sqrt(v(a) + v(b))
df = (v(a) + v(b)) ** 2 / (v(a) ** 2 / (len(a) - 1) + v(b) ** 2 / (len(b) - 1))
c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
g = lambda s: 0.0 if s == 0 else c * (1 + (abs(t) / s) ** 2 / df) ** (-(df + 1) / 2) * abs(t) / s ** 2
n = 20000
p = 2 / (3 * n) * sum((1 if k in (0, n) else 4 if k % 2 else 2) * g(k / n) for k in range(n + 1))
print(f"{m(a) - m(b):+.4f} {p:.3g}")
PY
)"
case "$(row 'c_fetch = 1, FRED τ')" in
  *"| $twin | $diff, p = $p |") ;;
  *) fail "FRED row: $(row 'c_fetch = 1, FRED τ') (twin $twin, Welch $diff, p = $p)" ;;
esac
grep -q "^10 runs, seeds 1,2, .*; 2 diverged, left out of the values$" "$TMP/t.md" ||
  fail "exp3 footer: $(tail -1 "$TMP/t.md")"

"${TABLES[@]}" exp1 "$DB" --updates 80 --paper > "$TMP/t.md" || fail "exp1 table"
IFS='|' read -r _ _ _ _ ffin fl10 ftau <<< "$(expect exp1/fasgd/mu=8/lambda=16)"
IFS='|' read -r _ _ _ _ sfin sl10 _ <<< "$(expect exp1/sasgd/mu=8/lambda=16)"
case "$(row 8)" in
  "| 8 | 16 | $ffin | $fl10 | 0.046 | $sfin | $sl10 | 0.087 | "*) ;;
  *) fail "exp1 row: $(row 8) (FASGD $ffin $fl10, SASGD $sfin $sl10)" ;;
esac
grep -q "^| run | 8 | 20 | 40 | 80 | best |$" "$TMP/t.md" ||
  fail "exp1 checkpoints: $(cat "$TMP/t.md")"
[ "$(grep -c '^| [FS]ASGD μ=8 λ=16 | [0-9]' "$TMP/t.md")" = 2 ] || fail "exp1 along the way"
row 1 && fail "exp1: a setting without runs has a row"
grep -q "^4 runs, seeds 1,2, " "$TMP/t.md" || fail "exp1 footer: $(tail -1 "$TMP/t.md")"

# bad input
expect_exit 2 "none.db: no such results database" -- "${TABLES[@]}" exp3 "$TMP/none.db" \
  --updates 80
expect_exit 2 "no finished exp3 run with stop.updates = 81" -- "${TABLES[@]}" exp3 "$DB" \
  --updates 81
expect_exit 2 "no finished exp2 run with stop.updates = 80" -- "${TABLES[@]}" exp2 "$DB" \
  --updates 80
expect_exit 2 "invalid choice" -- "${TABLES[@]}" exp4 "$DB" --updates 80
finish
