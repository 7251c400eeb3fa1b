# sgdsim touches no database that is not its own, and its readers change nothing:
#   - run and merge refuse an SQLite file of another program before changing anything: its
#     bytes are the same afterwards (sha256) and no -wal, -shm or -journal file appears;
#   - query, report, export, compare, plot and merge's inputs leave the database's bytes as
#     they were and no -wal or -shm beside a database that had none;
#   - the readers work on read-only media: a read-only tmpfs (needs mount privileges) and
#     a directory without write permission (chmod 555; as root, whom permissions do not
#     stop, the readers run as the user nobody through setpriv), and say so once.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
S="$TMP/s.json"; small_scenario "$S"

# no_side_files DB LABEL: nothing SQLite keeps beside a database is left there.
no_side_files() {
  local f
  for f in "$1-wal" "$1-shm" "$1-journal"; do
    [ ! -e "$f" ] || fail "$2: left $(basename "$f") behind"
  done
}
same_bytes() { # same_bytes DB SUM LABEL
  [ "$(sha256sum < "$1")" = "$2" ] || fail "$3: the bytes of $(basename "$1") changed"
}

# 1. Another program's SQLite database, in the default rollback-journal mode.
F="$TMP/foreign.db"
sqlite3 "$F" "CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES ('keep me')"
sum=$(sha256sum < "$F")
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" run "$S" --db "$F"
same_bytes "$F" "$sum" "run on a foreign database"; no_side_files "$F" "run on a foreign database"
[ "$(sqlite3 "$F" "PRAGMA journal_mode")" = delete ] || fail "run switched a foreign database's journal mode"
"$SGDSIM" run "$S" --db "$TMP/good.db" --quiet || fail "reference run"
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" merge "$F" "$TMP/good.db"
same_bytes "$F" "$sum" "merge into a foreign database"; no_side_files "$F" "merge into a foreign database"
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" merge "$TMP/out.db" "$F"
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" query "$F" "SELECT 1"
same_bytes "$F" "$sum" "foreign database as an input"; no_side_files "$F" "foreign database as an input"
# A foreign database in WAL mode is refused just the same, and keeps its bytes.
sqlite3 "$TMP/fw.db" "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)" >/dev/null
sum=$(sha256sum < "$TMP/fw.db")
expect_exit 2 "not an sgdsim results database" -- "$SGDSIM" run "$S" --db "$TMP/fw.db"
same_bytes "$TMP/fw.db" "$sum" "run on a foreign WAL database"; no_side_files "$TMP/fw.db" "run on a foreign WAL database"

# 2. The readers on a database with no -wal or -shm beside it (a finished writer removed
#    them): nothing is created and no byte changes.
DB="$TMP/good.db"
no_side_files "$DB" "the writer"
sum=$(sha256sum < "$DB")
"$SGDSIM" query "$DB" "SELECT count(*) FROM runs" >/dev/null || fail "query"
no_side_files "$DB" "query"
"$SGDSIM" report "$DB" >/dev/null || fail "report"
no_side_files "$DB" "report"
"$SGDSIM" export "$DB" --csv "$TMP/csv" >/dev/null || fail "export"
no_side_files "$DB" "export"
cp "$DB" "$TMP/copy.db"
"$SGDSIM" compare "$DB" "$TMP/copy.db" >/dev/null || fail "compare"
no_side_files "$DB" "compare"; no_side_files "$TMP/copy.db" "compare"
"$SGDSIM" merge "$TMP/merged.db" "$DB" >/dev/null || fail "merge"
no_side_files "$DB" "merge's input"
if command -v gnuplot >/dev/null; then
  "$SGDSIM" plot "$DB" --y val_error -o "$TMP/fig.png" >/dev/null 2>&1 || fail "plot"
  no_side_files "$DB" "plot"
fi
same_bytes "$DB" "$sum" "the readers"

# readers_work DB LABEL [prefix command...]: every reader succeeds on DB, says once that it
# reads the file as unchangeable, and creates nothing beside it.
readers_work() {
  local db="$1" label="$2" out n; shift 2
  out=$("$@" "$SGDSIM" query "$db" "SELECT count(*) AS n FROM runs" 2>&1) || fail "$label: query: $out"
  case "$out" in *"1"*) ;; *) fail "$label: query printed: $out" ;; esac
  n=$(printf '%s\n' "$out" | grep -c "read-only")
  [ "$n" = 1 ] || fail "$label: query said 'read-only' $n times: $out"
  out=$("$@" "$SGDSIM" report "$db" 2>&1) || fail "$label: report: $out"
  out=$("$@" "$SGDSIM" export "$db" --csv "$TMP/ro-$label" 2>&1) || fail "$label: export: $out"
  out=$("$@" "$SGDSIM" compare "$db" "$db" 2>&1) || fail "$label: compare: $out"
  out=$("$@" "$SGDSIM" merge "$TMP/ro-$label-merged.db" "$db" 2>&1) || fail "$label: merge: $out"
  no_side_files "$db" "$label"
}

# 3. A read-only filesystem.
MNT="$TMP/mnt"; mkdir -p "$MNT"
trap 'umount "$MNT" 2>/dev/null; chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
if mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null; then
  cp "$DB" "$MNT/r.db"
  mount -o remount,ro "$MNT"
  readers_work "$MNT/r.db" "read-only tmpfs"
  umount "$MNT"
else
  echo "no permission to mount a tmpfs: the read-only filesystem case is not run"
fi

# 4. A directory the reader may not write to.
RO="$TMP/ro"; mkdir -p "$RO"; cp "$DB" "$RO/r.db"; chmod 755 "$TMP"; chmod 644 "$RO/r.db"
chmod 555 "$RO"
if [ "$(id -u)" != 0 ]; then
  readers_work "$RO/r.db" "chmod 555"
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null &&
     setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$SGDSIM"; then
  chmod 777 "$TMP" # the merged outputs and exports are written here by nobody
  readers_work "$RO/r.db" "chmod 555 as nobody" setpriv --reuid=65534 --regid=65534 --clear-groups
else
  echo "running as root without setpriv (or nobody cannot run $SGDSIM): the chmod 555 case is not run"
fi
chmod 755 "$RO"
finish
