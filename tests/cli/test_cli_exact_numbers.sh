# query --csv/--json, export --csv and plot --data write a real as the shortest text that
# reads back as the same double (0.32, not 0.32000000000000001), every value of a run's
# metrics reading back exactly; an infinity is the text inf/-inf (a string in JSON).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/r.db"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "run"
sqlite3 "$DB" "UPDATE metrics SET value = 0.32 WHERE run_id = 1 AND name = 'val_error' AND
                 update_idx = (SELECT min(update_idx) FROM metrics WHERE name = 'val_error')" ||
  fail "sqlite3"
cd "$TMP" || exit 1

SQL='SELECT 0.32 AS a, 0.1 + 0.2 AS b, 1e-7 AS c, 1.0 / 3 AS d, 4.0 AS e, 9e999 AS f, -9e999 AS g, 2.5e-320 AS h'
out=$("$SGDSIM" query "$DB" "$SQL" --csv) || fail "query --csv: $out"
[ "$out" = "a,b,c,d,e,f,g,h
0.32,0.30000000000000004,1e-07,0.3333333333333333,4,inf,-inf,2.5e-320" ] || fail "query --csv: $out"
out=$("$SGDSIM" query "$DB" "$SQL" --json) || fail "query --json: $out"
[ "$out" = '[
 {"a": 0.32, "b": 0.30000000000000004, "c": 1e-07, "d": 0.3333333333333333, "e": 4, "f": "inf", "g": "-inf", "h": 2.5e-320}
]' ] || fail "query --json: $out"
command -v python3 >/dev/null && { python3 -c 'import json, sys; json.loads(sys.argv[1])' "$out" ||
  fail "query --json is not JSON: $out"; }

# export: the value set above as 0.32, and every metric reads back as the database's double.
"$SGDSIM" export "$DB" --csv out >/dev/null || fail "export"
grep -q ',0\.32,' out/metrics.csv || fail "export: 0.32 is not written as 0.32: $(grep -m1 val_error out/metrics.csv)"
# Each row's value as written reads back as the database's double (Python reads both exactly;
# the sqlite3 CLI's printf keeps only 16 digits).
if command -v python3 >/dev/null; then
  python3 - "$DB" out/metrics.csv <<'PY' || fail "export: values that do not read back as the database's"
import csv, sqlite3, sys
db = {(r, u, n): v for r, u, n, v in sqlite3.connect(sys.argv[1]).execute(
    "SELECT run_id, update_idx, name, value FROM metrics WHERE value IS NOT NULL")}
rows = list(csv.DictReader(open(sys.argv[2])))
bad = [r for r in rows if r["value"] and
       float(r["value"]) != db[(int(r["run_id"]), int(r["update_idx"]), r["name"])]]
print(*bad[:5], sep="\n", file=sys.stderr)
sys.exit(1 if bad or len(db) < 10 or len(rows) < len(db) else 0)
PY
fi

# plot --data, when gnuplot is there.
if command -v gnuplot >/dev/null; then
  "$SGDSIM" plot "$DB" --y val_error -o p.svg --data p.csv >/dev/null || fail "plot --data"
  grep -q ',0\.32$' p.csv || fail "plot --data: 0.32 is not written as 0.32: $(sed -n 2p p.csv)"
fi
finish
