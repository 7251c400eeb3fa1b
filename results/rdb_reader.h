/* How a read-only connection reaches a results database file, for rdb_open_readonly and
 * rdb_merge's inputs (implemented in rdb_reader.c and rdb.c; used by results/ and its tests
 * only).
 *
 * A database in WAL mode is read through two files beside it, PATH-wal and PATH-shm, which
 * SQLite creates when they are missing.  On read-only media it cannot create them, and a
 * read-only connection never removes them (nor folds the log into the file: only a
 * connection that may write does, when it closes last).  So a reader looks first:
 *   - it opens normally (read-only) where it may create them, and afterwards, where the
 *     directory and the file are writable, leaves the file as a finished writer does: the log
 *     folded in and both side files gone, unless another process still uses them (see
 *     rdb_reader_tidy);
 *   - where it may not (directory not writable, or the file itself read-only) and no log
 *     exists, it opens the file as immutable (SQLite's "immutable=1"): no side file is
 *     created or needed, and nothing can be written;
 *   - a log with content that the reader can neither use (no PATH-shm) nor complete (no
 *     right to create PATH-shm) is refused with a message saying what to do, because the
 *     immutable mode would silently ignore the transactions in it.
 * Paths reach SQLite as URIs with every byte outside [A-Za-z0-9-._~/] percent-encoded, so
 * a name holding '?', '#', '%' or starting with "file:" opens exactly that file. */
#ifndef SGDSIM_RESULTS_RDB_READER_H
#define SGDSIM_RESULTS_RDB_READER_H

#include <stdbool.h>

#include <sqlite3.h>

#include "common/error.h"
#include "results/rdb.h"
#include "results/rdb_meta.h"
#include "results/rdb_rows.h"

/* What the file system says about a database before a reader opens it. */
typedef struct rdb_reader_facts {
    bool dir_writable;  /* the directory holding it allows creating files (access W_OK|X_OK) */
    bool file_writable; /* the file itself is writable by this process (access W_OK) */
    bool wal_exists;    /* PATH-wal exists */
    bool wal_empty;     /* PATH-wal exists and holds 0 bytes (no transactions) */
    bool shm_exists;    /* PATH-shm exists */
} rdb_reader_facts_t;

typedef enum {
    RDB_READ_NORMAL,    /* SQLite's read-only mode ("mode=ro") */
    RDB_READ_IMMUTABLE, /* "immutable=1": the file is taken to be unchangeable */
    RDB_READ_REFUSE,    /* a log with content that cannot be read here */
} rdb_read_mode_t;

/* The decision above, as a pure function of the facts. */
rdb_read_mode_t rdb_read_mode(const rdb_reader_facts_t *f);

/* Gathers the facts for `path` (stat and access; a missing side file is simply absent). */
void rdb_reader_facts(const char *path, rdb_reader_facts_t *f);

/* "file:" + path percent-encoded (+ "?" + query when query is not NULL), e.g.
 * rdb_uri("/data/a b?.db", "immutable=1") = "file:///data/a%20b%3F.db?immutable=1".
 * A new string the caller frees. */
char *rdb_uri(const char *path, const char *query);

/* What a reader may do about PATH-wal and PATH-shm once its connection is closed. */
typedef enum {
    RDB_TIDY_NONE,    /* nothing: read as immutable, or the directory or file is not writable */
    RDB_TIDY_CREATED, /* neither existed before: whatever is left, the reader created */
    RDB_TIDY_FOUND,   /* they existed: another connection's, or left by a killed process */
} rdb_tidy_t;

/* Plans a read-only open of `path`: *uri (new string, caller frees) for sqlite3_open_v2
 * with SQLITE_OPEN_READONLY | SQLITE_OPEN_URI or for ATTACH; *tidy says what rdb_reader_tidy
 * may do after the connection is closed.  Immutable mode is announced once per path on
 * stderr.  Returns -1, naming the path, for RDB_READ_REFUSE. */
int rdb_reader_plan(const char *path, char **uri, rdb_tidy_t *tidy, sgd_err_t *err);

/* Called after a reader's connection to `path` is closed: folds the log into the file and
 * removes PATH-wal and PATH-shm the way SQLite does it: a short read-write connection reads
 * once and closes, and SQLite checkpoints and deletes both files if it is the last connection
 * (another process still using the database keeps them, and its last close does it).  Files
 * the reader found (RDB_TIDY_FOUND) are touched only when `accepted` (the file was read as an
 * sgdsim results database: another program's log is never folded); nothing is done beside a
 * PATH-journal (a read-write connection would roll a hot journal back).  Best effort: does
 * nothing when neither file exists, and reports nothing. */
void rdb_reader_tidy(const char *path, rdb_tidy_t tidy, bool accepted);

/* ---- schema 2: run keys of the canonical configuration -------------------------------- */

/* The SQL function every connection of this module has: sgdsim_config_hash(config_json) is
 * the configuration hash (sgd_config_hash_text: SHA-256 of the canonical form) of a stored
 * config_json, or NULL when the text is not a JSON object. */
int rdb_register_functions(sqlite3 *db);

/* rdb_open_readonly accepting any older sgdsim schema (its rows are read, never migrated in
 * place); *version receives the file's schema version. */
int rdb_open_older(const char *path, int64_t *version, rdb_t **out, sgd_err_t *err);

/* rdb_open_older for a source of rdb_merge, which reads this schema and the ones before
 * it back to RDB_MERGE_MIN_VERSION (rdb.h). */
int rdb_open_source(const char *path, int64_t *version, rdb_t **out, sgd_err_t *err);

/* Takes a runs table of schema 1 (TABLE, e.g. "runs" or "temp.src_runs") to schema 2: the old
 * run_key and config_hash are kept in prev_run_key / prev_config_hash, config_hash becomes
 * the canonical hash of config_json, and run_key too where it was the configuration hash
 * (every run sgdsim wrote); key_note says what happened to each row.  A config_json that
 * cannot be re-hashed keeps both old values, and the note says so. */
#define RDB_KEYS_V2_SQL(TABLE)                                                                 \
    "ALTER TABLE " TABLE " ADD COLUMN prev_run_key TEXT;"                                      \
    "ALTER TABLE " TABLE " ADD COLUMN prev_config_hash TEXT;"                                  \
    "ALTER TABLE " TABLE " ADD COLUMN key_note TEXT;"                                          \
    "UPDATE " TABLE " SET prev_run_key = run_key, prev_config_hash = config_hash,"             \
    "  key_note = 'schema 2 migration: config_json cannot be re-hashed (not a JSON object);'" \
    "             || ' run_key and config_hash kept from schema 1';"                          \
    "UPDATE " TABLE " SET run_key = CASE WHEN run_key IS config_hash"                          \
    "    THEN sgdsim_config_hash(config_json) ELSE run_key END,"                               \
    "  key_note = CASE WHEN run_key IS config_hash"                                            \
    "    THEN 'schema 2 migration: run_key and config_hash recomputed from config_json'"       \
    "    ELSE 'schema 2 migration: config_hash recomputed from config_json; run_key kept'"     \
    "         || ' (it was not the configuration hash)' END,"                                 \
    "  config_hash = sgdsim_config_hash(config_json)"                                          \
    "  WHERE sgdsim_config_hash(config_json) IS NOT NULL;"

/* ---- schema 3: the finished-run rule, swept keys and command lines --------------------- */

/* A run is finished when its rows are whole and final: it completed or diverged ('failed'
 * and 'running' runs are redone by a resumed sweep).  The rule's one spelling in SQL: the
 * finished_runs view and every reader's query use it, so a reader of a schema 2 file (no
 * view there, and a read-only file cannot get one) applies the same rule. */
#define RDB_FINISHED_RULE "status IN ('complete', 'diverged')"

/* Whether a run of resolved configuration CONFIG (an SQL expression) has a clock, for runs
 * that did not record it (runs.has_clock NULL: written before schema 7, or merged from such
 * a file): 0 when algorithm.driver is "uniform", else 1 -- a configuration that is not JSON
 * included, as analysis/clock.h reads it. */
#define RDB_CLOCK_OF_CONFIG(CONFIG)                                                             \
    "(CASE WHEN json_valid(" CONFIG ") AND json_extract(" CONFIG ", '$.algorithm.driver') ="    \
    " 'uniform' THEN 0 ELSE 1 END)"

#define RDB_FINISHED_VIEW_SQL \
    "CREATE VIEW finished_runs AS SELECT * FROM runs WHERE " RDB_FINISHED_RULE ";"

/* Takes a runs table of schema 2 (TABLE) to schema 3: sweep_axes (the JSON array of the key
 * paths a sweep varied, NULL for a plain run) and command_line, both NULL for older runs. */
#define RDB_RUNS_V3_SQL(TABLE)                                                                 \
    "ALTER TABLE " TABLE " ADD COLUMN sweep_axes TEXT;"                                        \
    "ALTER TABLE " TABLE " ADD COLUMN command_line TEXT;"

/* ---- the statements of run metadata (rdb_meta.c), read typed by rdb_rows.c ------------- */

/* A statement yielding `section` of run run_id, parameters bound; *st is NULL when the
 * database's schema has no such table (no rows to show).  The caller finalizes it. */
int rdb_meta_section(rdb_t *db, rdb_meta_section_t section, int64_t run_id, sqlite3_stmt **st,
                     sgd_err_t *err);

/* A statement yielding (key, a_type, a, b_type, b) for every configuration leaf whose value
 * or type differs between runs a and b, or that only one of them has (that side's type and
 * value NULL), by key.  Types are json_tree's (integer, real, text, true, false, null);
 * values are text: numbers exact (sgd_json_format_number), strings as they are, true,
 * false, null.  The caller finalizes it; rdb_config_diff (rdb_rows.h) reads it typed. */
int rdb_meta_diff(rdb_t *db, int64_t a, int64_t b, sqlite3_stmt **st, sgd_err_t *err);

/* The SQL function sgdsim_number(x) of every connection: a REAL as the shortest text that
 * reads back as the same double (sgd_json_format_number), anything else unchanged. */
int rdb_meta_register_functions(sqlite3 *db);

/* Column i of st's current row as a cell with its SQLite type (rdb_rows.h); a blob reads as
 * the text "<blob, N bytes>".  The caller frees its text. */
rdb_cell_t rdb_cell_of(sqlite3_stmt *st, int i);

/* Every row of st's first column as text into *names (*n; empty text for NULL), st
 * finalized; -1 with rdb_sqlerr's message about `what`, nothing left allocated. */
int rdb_read_names(rdb_t *db, sqlite3_stmt *st, const char *what, char ***names, int *n,
                   sgd_err_t *err);

/* The directory holding path: "." for a bare name, "/" for a file in the root.  The caller
 * frees it. */
char *rdb_dir_of(const char *path);

#endif
