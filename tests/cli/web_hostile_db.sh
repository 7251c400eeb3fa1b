# Sourced by the results-browser tests: hostile_db DB makes a results database whose run
# names, tags, status details, configuration values and metric names hold what must never
# reach a page as markup or code: "</script>", quotes, "<img onerror>", U+2028 and U+2029.
# The names go in through Python's sqlite3 module (a database is input like any file; the
# scenario loader would refuse some of them), with the strings bound as parameters.
HOSTILE_SCRIPT='</script><img src=x onerror=alert(1)>'
HOSTILE_QUOTES="\"q' & <b>bold</b>"
HOSTILE_SEP=$(printf 'line\xe2\x80\xa8sep\xe2\x80\xa9end')

hostile_db() {
  local db="$1" dir
  dir=$(dirname "$db")
  small_scenario "$dir/hostile.json"
  "$SGDSIM" run "$dir/hostile.json" --db "$db" --seed 1 -q --tag "note=$HOSTILE_SCRIPT" || return 1
  "$SGDSIM" run "$dir/hostile.json" --db "$db" --seed 2 -q --tag "note=$HOSTILE_QUOTES" || return 1
  python3 - "$db" "$HOSTILE_SCRIPT" "$HOSTILE_QUOTES" "$HOSTILE_SEP" <<'PY' || return 1
import sqlite3, sys
db, script, quotes, sep = sys.argv[1:]
c = sqlite3.connect(db)
c.execute('UPDATE runs SET scenario = ?, status_detail = ? WHERE id = 1', (script + sep, quotes))
c.execute('UPDATE runs SET scenario = ?, status_detail = ? WHERE id = 2', (script + sep, sep))
c.execute("UPDATE metrics SET name = ? WHERE name = 'lr'", (quotes + sep,))
c.execute('INSERT INTO tags(run_id, key, value) VALUES (1, ?, ?)', (script, sep))
c.commit()
PY
}
