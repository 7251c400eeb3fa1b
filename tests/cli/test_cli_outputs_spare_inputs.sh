# No command writes over one of its own inputs (docs/results.md, "Files sgdsim writes"):
# every option that names a file to write is refused, exit 2 and nothing written, when it
# is the scenario, a data file the scenario names, a results database the command reads, or
# one of that database's -wal/-shm/-journal files (existing or not), however it is spelled:
# as given, with ./, through a symbolic link or a hard link.  Each writing command is tried
# against each kind of input it has; after every refusal the inputs are byte for byte what
# they were and no file has appeared.
. "$(dirname "$0")/lib.sh"
SCRIPTS=$(cd "$(dirname "$0")/../../scripts" && pwd)
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI not installed: skipping"; exit 77; }
W="$TMP/w"; mkdir -p "$W"; cd "$W" || exit 1

# The inputs: a scenario reading two small IDX files, and a results database with a run.
{ printf '\x00\x00\x08\x03\x00\x00\x00\x28\x00\x00\x00\x02\x00\x00\x00\x02'; head -c 160 /dev/zero; } > img.idx
{ printf '\x00\x00\x08\x01\x00\x00\x00\x28'; head -c 40 /dev/zero; } > lab.idx
small_scenario s.json
python3 - <<'PY' || exit 1
import json
s = json.load(open("s.json"))
s["data"] = {"source": "idx", "train_images": "img.idx", "train_labels": "lab.idx",
             "validation": "train_tail", "validation_size": 10}
s["batch"] = {"per_worker": 4}
json.dump(s, open("s.json", "w"))
PY
"$SGDSIM" run s.json --db a.db --quiet --set stop.updates=4 || fail "the reference run"
INPUTS="s.json img.idx lab.idx a.db"
mkdir "$TMP/snap"; for f in $INPUTS; do cp "$f" "$TMP/snap/"; done

# refused WHAT -- command...: exit 2, a message naming WHAT and the refusal, the inputs
# untouched and the directory's listing unchanged.
refused() {
  local what="$1"; shift 2
  local before; before=$(ls -A "$W" | sort)
  expect_exit 2 "refusing to overwrite it" -- "$@"
  expect_exit 2 "$what" -- "$@"
  for f in $INPUTS; do cmp -s "$f" "$TMP/snap/$f" || fail "$f changed after: $*"; done
  [ "$(ls -A "$W" | sort)" = "$before" ] || fail "files appeared after: $* :: $(ls -A "$W")"
}

# Every spelling of one file: as given, with ./, a symbolic link, a hard link.
ln -s s.json s.link; ln s.json s.hard
ln -s img.idx img.link; ln img.idx img.hard
ln -s a.db a.link; ln a.db a.hard
ln -s a.db-wal wal.link # dangling: the -wal file does not exist between runs
forms() { echo "$1 ./$1 $2 $3"; }

# run --trace: the scenario, a data file, the database and each companion.
for t in $(forms s.json s.link s.hard); do
  refused "the scenario" -- "$SGDSIM" run s.json --db a.db --quiet --trace "$t"; done
for t in $(forms img.idx img.link img.hard) lab.idx; do
  refused "the data file data.train_" -- "$SGDSIM" run s.json --db a.db --quiet --trace "$t"; done
for t in $(forms a.db a.link a.hard); do
  refused "the results database given with --db (a.db)" -- "$SGDSIM" run s.json --db a.db --quiet --trace "$t"; done
for c in -wal -shm -journal; do
  [ ! -e "a.db$c" ] || fail "a.db$c exists between runs"
  refused "the $c file of the results database" -- "$SGDSIM" run s.json --db a.db --quiet --trace "a.db$c"
  refused "the $c file of the results database" -- "$SGDSIM" run s.json --db ./a.db --quiet --trace "$W/a.db$c"
done
refused "the -wal file of the results database" -- "$SGDSIM" run s.json --db a.db --quiet --trace wal.link
refused "the -wal file of the results database" -- "$SGDSIM" run s.json --db a.link --quiet --trace a.db-wal
# The database given through a link: its companions are the real file's.
refused "the results database" -- "$SGDSIM" run s.json --db a.link --quiet --trace a.db

# run --db: the scenario or a data file (a database's companions are its own).
for t in $(forms s.json s.link s.hard); do
  refused "the scenario" -- "$SGDSIM" run s.json --quiet --db "$t"; done
for t in $(forms img.idx img.link img.hard); do
  refused "the data file data.train_images" -- "$SGDSIM" run s.json --quiet --db "$t"; done
# A database whose -wal would be an input.
cp s.json x.db-wal; INPUTS="$INPUTS x.db-wal"; cp x.db-wal "$TMP/snap/"
refused "its -wal file would be the scenario" -- "$SGDSIM" run x.db-wal --quiet --db x.db

# run --progress-fd: a descriptor open on an input.
refused "the scenario" -- bash -c '"$1" run s.json --db a.db --quiet --progress-fd 3 3>>s.hard' _ "$SGDSIM"
refused "the results database" -- bash -c '"$1" run s.json --db a.db --quiet --progress-fd 3 3>>a.link' _ "$SGDSIM"

# sweep --db: the scenario or a data file it names.
for t in $(forms s.json s.link s.hard); do
  refused "the scenario" -- "$SGDSIM" sweep s.json --quiet --set seed=1,2 --db "$t"; done
for t in $(forms lab.idx img.link img.hard); do
  refused "the data file" -- "$SGDSIM" sweep s.json --quiet --set seed=1,2 --db "$t"; done

# merge OUT: an IN database or one of its companions.
for t in $(forms a.db a.link a.hard) a.db-wal a.db-journal wal.link; do
  refused "an IN database" -- "$SGDSIM" merge "$t" a.db; done
refused "an IN database" -- "$SGDSIM" merge "$W/a.db" "$TMP/snap/a.db" ./a.db

# plot -o: the database read (a database may have any name).
cp a.db fig.svg; INPUTS="$INPUTS fig.svg"; cp fig.svg "$TMP/snap/"
ln -s fig.svg link.svg; ln fig.svg hard.svg
for t in fig.svg ./fig.svg link.svg hard.svg "$W/fig.svg"; do
  refused "the results database DB" -- "$SGDSIM" plot fig.svg --y val_error -o "$t"; done
refused "the results database DB" -- "$SGDSIM" plot hard.svg --y val_error -o fig.svg

# export --csv DIR: a file it would write is the database read.
mkdir exd; cp a.db exd/runs.csv; INPUTS="$INPUTS exd/runs.csv"
mkdir -p "$TMP/snap/exd"; cp exd/runs.csv "$TMP/snap/exd/runs.csv"
ln -s exd exd.link
for d in exd ./exd exd/ exd.link "$W/exd/../exd"; do
  refused "the results database DB" -- "$SGDSIM" export exd/runs.csv --csv "$d"; done
ln a.db exd/metrics.csv; cp a.db "$TMP/snap/exd/metrics.csv"; INPUTS="$INPUTS exd/metrics.csv"
refused "the results database DB" -- "$SGDSIM" export a.db --csv exd
[ "$(ls exd | sort | tr '\n' ' ')" = "metrics.csv runs.csv " ] || fail "export wrote into exd: $(ls exd)"
# scripts/db_to_csv.py, export's twin, refuses the same (SQLite's
# reader may leave -wal and -shm files beside a WAL database; no CSV is written).
refused "the results database DB" -- python3 "$SCRIPTS/db_to_csv.py" exd/runs.csv exd.link
[ -z "$(ls exd | grep -v -e '^metrics.csv$' -e '^runs.csv')" ] || fail "db_to_csv.py wrote into exd: $(ls exd)"

# The guard lets through what is not an input: a run with a trace beside its database.
"$SGDSIM" run s.json --db a.db --quiet --set stop.updates=4 --trace a.trace.json ||
  fail "a run with --trace beside its database"
[ -s a.trace.json ] || fail "no trace written"
finish
