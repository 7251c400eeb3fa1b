# Every option a subcommand's --help names is one its option table accepts: given alone, it
# is never an "unknown option" (it fails for another reason, such as a missing SCENARIO or
# value, so nothing runs), and an option no table has is.  Catches a table and a usage text
# that drift apart.  The commands are every one `sgdsim --help` lists (the command table).
. "$(dirname "$0")/lib.sh"
cd "$TMP"
cmds=$("$SGDSIM" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ "$(printf '%s\n' $cmds | wc -l)" -ge 10 ] || fail "sgdsim --help lists too few commands: $cmds"
for cmd in $cmds; do
  help=$("$SGDSIM" "$cmd" --help) || fail "$cmd --help failed"
  opts=$(printf '%s\n' "$help" | grep -oE -- '(^|[ [(,|])--?[a-z][a-z-]*' |
         sed -E 's/^[ [(,|]//' | sort -u)
  for o in $opts; do
    out=$("$SGDSIM" "$cmd" "$o" 2>&1 >/dev/null)
    case "$out" in *"unknown option $o"*) fail "$cmd --help names $o, which $cmd refuses" ;; esac
  done
  expect_exit 2 "$cmd: unknown option --no-such-option (see sgdsim $cmd --help)" -- \
    "$SGDSIM" "$cmd" --no-such-option
done
[ -z "$(ls -A "$TMP")" ] || fail "the checks left files behind: $(ls -A "$TMP")"
finish
