# plot never runs a command, whatever a results database or the command line holds: hostile
# strings (gnuplot's backquote substitution, system(), `!` and `system` commands after an
# embedded newline, quotes that try to close gnuplot's string, a `|` that would make the
# figure a pipe, enhanced-text and macro characters) in the scenario name, the runs columns
# and configuration values that --by shows, the metric name, --title, --legend-title,
# --label's text, the scenario name as the default title, the database's name and the
# figure's name.  Each plot must exit 0, write the figure, show
# the text as it is (SVG), and no command may have made the marker file.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
command -v gnuplot >/dev/null || { echo "gnuplot not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"
"$SGDSIM" run "$S" --db "$TMP/base.db" --quiet >/dev/null || fail "run"
# The hostile commands touch ./mark: plot runs here, so any file named mark* is a command
# that ran.  Relative, so that a figure's name can hold them too.
cd "$TMP" || exit 1

hostile=(
  '`touch mark`'
  'system("touch mark")'
  '$(touch mark)'
  '!touch mark'
  $'x\nsystem "touch mark"'
  $'x\n! touch mark'
  $'x\r!touch mark\x1b[31m'
  $'it\'s "q"\'; system(\'touch mark\'); \''
  'a" . system("touch mark") . "b'
  $'a\\\n!touch mark'
  'end\'
  '@x `touch mark` x^{2}_b &{c} <i>'
  'x # y ; ! touch mark'
  $'\'\'; set output "|touch mark"; print \'\''
  $'\'a\'\'\'b\''
)

no_mark() { # no_mark WHAT: fails when a command ran
  if compgen -G "$TMP/mark*" >/dev/null; then
    fail "$1: a command ran (made $(cd "$TMP" && echo mark*))"
    rm -f "$TMP"/mark*
  fi
}

# plot_ok WHAT FIG ARGS...: plot exits 0, writes a non-empty FIG and runs no command.
plot_ok() {
  local what="$1" fig="$2" out rc; shift 2
  out=$("$SGDSIM" plot "$@" -o "$fig" 2>&1); rc=$?
  no_mark "$what"
  [ "$rc" = 0 ] || fail "$what: plot exits $rc: $out"
  [ -s "$fig" ] || fail "$what: no figure '$fig'"
  [ ! -e "$fig.tmp" ] || fail "$what: left '$fig.tmp'"
}

# shows WHAT FIG TEXT: the SVG has TEXT as a text element, control characters shown as
# spaces and XML's & and < escaped.
shows() {
  local t="$3"
  t=${t//[$'\n\r\t\x1b']/ }; t=${t//&/\&amp;}; t=${t//</\&lt;}
  grep -qF -- "<text>$t</text>" "$2" || fail "$1: '$2' does not show '$t'"
}

for i in "${!hostile[@]}"; do
  h=${hostile[$i]}
  q=${h//\'/\'\'}
  db="$TMP/db$i-$h.db"
  cp "$TMP/base.db" "$db"
  sqlite3 "$db" "UPDATE runs SET scenario = '$q', algorithm = '$q',
                   config_json = json_set(config_json, '\$.algorithm.name', '$q');
                 INSERT INTO metrics (run_id, update_idx, vtime_ns, name, value, nonfinite)
                   SELECT run_id, update_idx, vtime_ns, '$q', value, nonfinite
                   FROM metrics WHERE name = 'val_error'" || fail "sqlite3 on string $i"
  plot_ok "scenario name $i" "s$i.svg" "$db" --y val_error --by scenario
  shows "scenario name $i" "s$i.svg" "scenario=$h"
  plot_ok "algorithm column $i" "a$i.svg" "$db" --y val_error --by algorithm
  shows "algorithm column $i" "a$i.svg" "algorithm=$h"
  plot_ok "configuration value $i" "c$i.svg" "$db" --y val_error --by algorithm.name,seed
  # Two keys: the legend shows the values under a title naming the keys, unless a value's
  # space makes the entries more than KEY=VALUE words (then they are shown whole).
  if [[ $h == *' '* ]]; then shows "configuration value $i" "c$i.svg" "algorithm.name=$h seed=5"
  else shows "configuration value $i" "c$i.svg" "$h, 5"; fi
  plot_ok "metric name $i" "m$i.svg" "$db" --y "$h"
  shows "metric name $i" "m$i.svg" "$h"
  plot_ok "--title $i" "t$i.svg" "$db" --y val_error --title "$h"
  shows "--title $i" "t$i.svg" "$h"
  plot_ok "database name $i" "d$i.svg" "$db" --y val_error
  shows "default title (the scenario name) $i" "d$i.svg" "$h"
  plot_ok "--legend-title $i" "k$i.svg" "$db" --y val_error --by seed --legend-title "$h"
  shows "--legend-title $i" "k$i.svg" "$h"
  plot_ok "--label $i" "l$i.svg" "$db" --y val_error --by seed --label "seed=$h"
  shows "--label $i" "l$i.svg" "$h=5"
  plot_ok "figure name $i" "$TMP/f$i-$h.png" "$db" --y val_error --logy
done

# A figure name starting with | would make gnuplot pipe the figure into a shell command.
plot_ok "figure name starting with |" "|touch mark.svg" base.db --y val_error
plot_ok "figure name starting with ' |'" " |touch mark.pdf" base.db --y val_error
finish
