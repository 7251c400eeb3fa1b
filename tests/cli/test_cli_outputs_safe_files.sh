# How outputs are created (docs/results.md, "Files sgdsim writes"): a name from a database
# never becomes a path (export encodes every table name into a file inside DIR), and no
# output is written through a file or link planted where its temporary file or the target
# used to be: temporary files are new files (O_EXCL | O_NOFOLLOW) beside the target,
# renamed over it, and none is left behind.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/a.db"
"$SGDSIM" run "$S" --db "$DB" --quiet || fail "the reference run"

# 1. export: tables whose names are paths, hidden files or control characters (a view sgdsim
#    did not create is refused: test_cli_export_streams).
mkdir -p "$TMP/x/y/out"
sqlite3 "$DB" 'CREATE TABLE "../../escaped"(v); INSERT INTO "../../escaped" VALUES (1);
  CREATE TABLE "../up"(v); CREATE TABLE "a/b"(v); CREATE TABLE ".hidden"(v);
  CREATE TABLE ".."(v); CREATE TABLE "%2E"(v); CREATE TABLE "/abs"(v);
  CREATE TABLE "new
line"(v);'
"$SGDSIM" export "$DB" --csv "$TMP/x/y/out" >/dev/null || fail "export of odd names"
outside=$(find "$TMP" -name '*escaped*' -not -path "$TMP/x/y/out/*"; find / -maxdepth 1 -name 'abs*')
[ -z "$outside" ] || fail "export wrote outside DIR: $outside"
for f in '%2E%2E%2F%2E%2E%2Fescaped' '%2E%2E%2Fup' 'a%2Fb' '%2Ehidden' '%2E%2E' '%252E' \
         '%2Fabs' 'new%0Aline' runs metrics; do
  [ -f "$TMP/x/y/out/$f.csv" ] || fail "export: no $f.csv: $(ls -A "$TMP/x/y/out")"
done
[ "$(cat "$TMP/x/y/out/%2E%2E%2F%2E%2E%2Fescaped.csv")" = "$(printf 'v\n1')" ] ||
  fail "export: the escaped table's rows"
ntables=$(sqlite3 "$DB" "SELECT count(*) FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%'")
[ "$(ls -A "$TMP/x/y/out" | wc -l)" = "$ntables" ] || fail "export: $(ls -A "$TMP/x/y/out" | wc -l) files for $ntables tables"
python3 "$(dirname "$0")/../../scripts/db_to_csv.py" "$DB" "$TMP/py" >/dev/null || fail "db_to_csv.py"
[ "$(ls -A "$TMP/py")" = "$(ls -A "$TMP/x/y/out")" ] || fail "db_to_csv.py names its files otherwise"

# 2. Planted links: at the old temporary names (NAME.tmp) and at the target itself.
echo victim > "$TMP/victim"; cp "$TMP/victim" "$TMP/victim.orig"
D="$TMP/csv"; mkdir "$D"
ln -s "$TMP/victim" "$D/runs.csv.tmp"; ln -s "$TMP/victim" "$D/metrics.csv"
"$SGDSIM" export "$DB" --csv "$D" >/dev/null || fail "export beside planted links"
[ -f "$D/metrics.csv" ] && [ ! -L "$D/metrics.csv" ] || fail "export: metrics.csv is not a new file"
ln -s "$TMP/victim" "$TMP/t.json.tmp"; ln -s "$TMP/victim" "$TMP/u.json"
"$SGDSIM" run "$S" --db "$TMP/r.db" --quiet --trace "$TMP/t.json" || fail "trace beside a planted link"
"$SGDSIM" run "$S" --db "$TMP/r.db" --quiet --trace "$TMP/u.json" || fail "trace over a link"
[ -s "$TMP/t.json" ] && [ ! -L "$TMP/u.json" ] && [ -s "$TMP/u.json" ] || fail "the traces are not new files"
if command -v gnuplot >/dev/null; then
  ln -s "$TMP/victim" "$TMP/fig.svg.tmp"; ln -s "$TMP/victim" "$TMP/g.svg"
  "$SGDSIM" plot "$DB" --y val_error -o "$TMP/fig.svg" >/dev/null || fail "plot beside a planted link"
  "$SGDSIM" plot "$DB" --y val_error -o "$TMP/g.svg" >/dev/null || fail "plot over a link"
  [ -s "$TMP/fig.svg" ] && [ ! -L "$TMP/g.svg" ] || fail "the figures are not new files"
else
  echo "gnuplot not installed: the plot cases are not run"
fi
cmp -s "$TMP/victim" "$TMP/victim.orig" || fail "a planted link was written through: $(head -c 80 "$TMP/victim")"
left=$(find "$TMP" -name '*.tmp.*')
[ -z "$left" ] || fail "temporary files left behind: $left"

# 3. A device is written in place (it cannot be renamed over), and a directory is refused.
if [ -w /dev/null ]; then
  "$SGDSIM" run "$S" --db "$TMP/r.db" --quiet --trace /dev/null || fail "trace to /dev/null"
  [ -c /dev/null ] || fail "/dev/null is no longer a device"
fi
expect_exit 2 "cannot write the trace" -- "$SGDSIM" run "$S" --db "$TMP/r.db" --quiet --trace "$TMP/csv"
finish
