# Every sgdsim command shown in README.md and docs/*.md runs (on scenarios cut to a few
# updates) as the documentation says, and prints the shape of the output shown after it:
# see doc_commands.py, which lists what it does not run and why.  Skipped without python3
# or Fashion-MNIST, unless CI is set: then those fail.
# Arguments: SGDSIM; the sources are found from this file's place in the repository.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v python3 >/dev/null; then
  [ -n "${CI:-}" ] && { fail "python3 is missing (CI is set)"; finish; }
  echo "python3 is not installed: skipping"; exit 77
fi
python3 "$SRC/tests/cli/doc_commands.py" "$SGDSIM" "$SRC" "$TMP"
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || fail "the documentation's commands (doc_commands.py, exit $rc)"
finish
