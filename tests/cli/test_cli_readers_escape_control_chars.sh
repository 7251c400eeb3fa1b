# The reading commands never send a database's control characters to the terminal: report
# and query's text tables show an ESC sequence, a newline, a tab, DEL and the C1 control
# U+009B in a scenario name, a configuration value and a metric name as \x1b, \n, \t, \x7f
# and \u009b; query --csv keeps the bytes as they are (quoted, since one is a newline) and
# --json escapes them as RFC 8259 says; plot's list of the metrics a database has is escaped
# too.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
DB="$TMP/r.db"
"$SGDSIM" sweep "$S" --set seed=1,2 --db "$DB" --quiet || fail "sweep"
name="'x' || char(27) || '[31mred' || char(10) || 'y' || char(9) || 'z' || char(127) || char(155) || '2J'"
shown='x\x1b[31mred\ny\tz\x7f\u009b2J'
sqlite3 "$DB" "UPDATE runs SET scenario = $name, sweep_axes = '[\"data.tag\"]',
                 config_json = json_set(config_json, '\$.data.tag', 'a' || char(27) || '[2J' || id);
               INSERT INTO metrics (run_id, update_idx, vtime_ns, name, value, nonfinite)
                 SELECT run_id, update_idx, vtime_ns, 'm' || char(27) || '[1m', value, nonfinite
                 FROM metrics WHERE name = 'val_error'" || fail "sqlite3"

# no_raw_controls WHAT FILE: no C0 control but newline, no DEL and no C1 control in FILE.
no_raw_controls() {
  local n
  n=$(LC_ALL=C tr -cd '\001-\011\013-\037\177' < "$2" | wc -c)
  [ "$n" = 0 ] || fail "$1: $n raw control byte(s) reach the terminal: $(LC_ALL=C grep -a $'[\x01-\x09\x0b-\x1f\x7f]' "$2" | od -c | head -5)"
  ! LC_ALL=C grep -aq $'\xc2[\x80-\x9f]' "$2" || fail "$1: a raw C1 control reaches the terminal"
}

# has WHAT FILE TEXT: FILE holds TEXT literally.
has() { grep -aqF -- "$3" "$2" || fail "$1: no '$3' in: $(cat -v "$2" | head -c 400)"; }

"$SGDSIM" report "$DB" --wide > "$TMP/report.txt" || fail "report exits $?"
no_raw_controls report "$TMP/report.txt"
has "report: runs table" "$TMP/report.txt" "  $shown  "
has "report: sweep line" "$TMP/report.txt" "Sweep: scenario \"$shown\""
has "report: axis values" "$TMP/report.txt" 'a\x1b[2J1'
has "report: metric column" "$TMP/report.txt" 'final_m\x1b[1m'
"$SGDSIM" report "$DB" > "$TMP/report-narrow.txt" || fail "report exits $?"
no_raw_controls "report (default columns)" "$TMP/report-narrow.txt"
# The default table cuts the long name (an ellipsis ends it) but still shows it escaped.
has "report (default columns): runs table" "$TMP/report-narrow.txt" "  ${shown:0:6}"

"$SGDSIM" query "$DB" "SELECT scenario, 'h' || char(27) || '[0m' AS \"c$(printf '\033')\" FROM runs LIMIT 1" \
  > "$TMP/query.txt" || fail "query exits $?"
no_raw_controls query "$TMP/query.txt"
has "query: cell" "$TMP/query.txt" "$shown"
has "query: cell" "$TMP/query.txt" 'h\x1b[0m'
has "query: header" "$TMP/query.txt" 'c\x1b'

"$SGDSIM" query "$DB" "SELECT scenario FROM runs LIMIT 1" --csv > "$TMP/q.csv" || fail "query --csv"
printf 'scenario\n"x\033[31mred\ny\tz\177\302\2332J"\n' > "$TMP/want.csv"
cmp -s "$TMP/q.csv" "$TMP/want.csv" || fail "query --csv is not the bytes as they are: $(od -c "$TMP/q.csv")"

"$SGDSIM" query "$DB" "SELECT scenario FROM runs LIMIT 1" --json > "$TMP/q.json" || fail "query --json"
no_raw_controls "query --json" "$TMP/q.json"
[ "$(tr -d ' \n' < "$TMP/q.json")" = '[{"scenario":"x\u001b[31mred\ny\tz\u007f\u009b2J"}]' ] ||
  fail "query --json: $(cat -v "$TMP/q.json")"

# plot's message listing the metrics a database has
"$SGDSIM" plot "$DB" --y nope -o "$TMP/f.svg" 2> "$TMP/plot.txt" && fail "plot --y nope exits 0"
no_raw_controls "plot's metric list" "$TMP/plot.txt"
has "plot's metric list" "$TMP/plot.txt" 'm\x1b[1m'

finish
