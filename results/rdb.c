/* Results database: the schema, opening and closing (see rdb.h for the contract,
 * docs/results.md for the schema); runs and their rows are rdb_write.c, how readers reach the
 * file rdb_reader.c.
 *
 * The schema lives here as a list of migrations: rdb_migrations[v] takes a database from
 * schema version v to v + 1, and rdb_open applies the missing ones in one transaction.
 * Version 0 is the empty file, so creating a database is just migrating from 0.  A new
 * schema version appends one entry and bumps RDB_SCHEMA_VERSION; existing entries never
 * change, because databases in users' hands were created by them. */
#include "results/rdb.h"
#include "results/rdb_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/json.h"
#include "common/number.h"
#include "results/rdb_lease.h"
#include "results/rdb_meta.h"
#include "results/rdb_reader.h"

/* The runs columns of schema 1 between the id and the digest, in order: schema 1 creates
 * the table with them and schema 4 rebuilds it with them, so the two cannot drift apart. */
#define RDB_RUNS_V1_COLUMNS \
    "  run_key        TEXT," \
    "  scenario       TEXT," \
    "  scenario_path  TEXT," \
    "  algorithm      TEXT," \
    "  workers        INTEGER," \
    "  seed           INTEGER," \
    "  backend        TEXT," \
    "  config_json    TEXT," \
    "  config_hash    TEXT," \
    "  sgdsim_version TEXT," \
    "  git_rev        TEXT," \
    "  build_options  TEXT," \
    "  blas_core      TEXT," \
    "  host           TEXT," \
    "  status         TEXT NOT NULL" \
    "                 CHECK (status IN ('running','complete','failed','diverged'))," \
    "  status_detail  TEXT," \
    "  started_at     TEXT," \
    "  finished_at    TEXT," \
    "  wall_s         REAL," \
    "  vtime_ns       INTEGER," \
    "  updates        INTEGER," \
    "  events         INTEGER," \
    "  events_per_s   REAL,"

/* Version 1.  WITHOUT ROWID tables are clustered on their primary key, which is how every
 * reader looks rows up (a run's metric by name in update order; a run's traffic by kind). */
static const char rdb_schema_v1[] =
    "CREATE TABLE runs ("
    "  id             INTEGER PRIMARY KEY,"
    RDB_RUNS_V1_COLUMNS
    "  digest         TEXT"
    ");"
    "CREATE INDEX runs_by_key ON runs(run_key);"
    "CREATE TABLE metrics ("
    "  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  update_idx INTEGER NOT NULL,"
    "  vtime_ns   INTEGER NOT NULL,"
    "  name       TEXT NOT NULL,"
    "  value      REAL,"
    "  nonfinite  TEXT CHECK (nonfinite IN ('nan','inf','-inf')),"
    "  CHECK ((value IS NULL) <> (nonfinite IS NULL)),"
    "  PRIMARY KEY (run_id, name, update_idx)"
    ") WITHOUT ROWID;"
    "CREATE INDEX metrics_by_update ON metrics(run_id, update_idx);"
    "CREATE TABLE traffic ("
    "  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  kind          TEXT NOT NULL,"
    "  sent_msgs     INTEGER NOT NULL DEFAULT 0,"
    "  sent_bytes    INTEGER NOT NULL DEFAULT 0,"
    "  skipped_msgs  INTEGER NOT NULL DEFAULT 0,"
    "  skipped_bytes INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (run_id, kind)"
    ") WITHOUT ROWID;"
    "CREATE TABLE staleness ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  tau    INTEGER NOT NULL CHECK (tau >= 0),"
    "  count  INTEGER NOT NULL CHECK (count >= 0),"
    "  PRIMARY KEY (run_id, tau)"
    ") WITHOUT ROWID;"
    /* The final value of a metric is its row with the largest update_idx; the primary key
     * (run_id, name, update_idx) answers that with one descending index probe per run. */
    "CREATE VIEW run_summary AS"
    "  SELECT r.id, r.run_key, r.scenario, r.algorithm, r.workers, r.seed, r.backend,"
    "         r.status, r.vtime_ns / 1e9 AS vtime_s, r.updates, r.wall_s,"
    "         (SELECT m.value FROM metrics m WHERE m.run_id = r.id AND m.name = 'val_error'"
    "           ORDER BY m.update_idx DESC LIMIT 1) AS final_val_error,"
    "         (SELECT m.value FROM metrics m WHERE m.run_id = r.id AND m.name = 'train_loss'"
    "           ORDER BY m.update_idx DESC LIMIT 1) AS final_train_loss"
    "  FROM runs r;";

/* Version 2: run_key and config_hash are the hash of the canonical configuration (sorted
 * keys, exact numbers), no longer of the text in the loader's reading order with 15-digit
 * numbers; each old row's are recomputed from its config_json (rdb_reader.h). */
static const char rdb_schema_v2[] = RDB_KEYS_V2_SQL("runs");

/* Version 3: two provenance columns of runs (the swept keys of a sweep's point and the
 * command line of the run, rdb_reader.h) and the finished-run rule as a view (finished_runs,
 * written with RDB_FINISHED_RULE, the rule's one spelling); the histogram of the parameters'
 * true age beside the staleness one (B-FASGD's skipped_fetch_tau "fred" damps by a counted
 * tau smaller than that age; older runs have no rows in it); and the run metadata
 * (results/rdb_meta.h): the tags and artifacts tables and the params, final_metrics_long and
 * final_metrics views.  No existing row changes. */
static const char rdb_schema_v3[] =
    RDB_RUNS_V3_SQL("runs") RDB_FINISHED_VIEW_SQL
    "CREATE TABLE version_age ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  age    INTEGER NOT NULL CHECK (age >= 0),"
    "  count  INTEGER NOT NULL CHECK (count >= 0),"
    "  PRIMARY KEY (run_id, age)"
    ") WITHOUT ROWID;" RDB_META_V3_SQL;

/* Every column of runs from schema 3 on, in table order (the rebuild of version 4 copies
 * them by name). */
#define RDB_RUNS_V3_COLUMNS                                                                    \
    "id, run_key, scenario, scenario_path, algorithm, workers, seed, backend, config_json,"   \
    " config_hash, sgdsim_version, git_rev, build_options, blas_core, host, status,"           \
    " status_detail, started_at, finished_at, wall_s, vtime_ns, updates, events,"              \
    " events_per_s, digest, prev_run_key, prev_config_hash, key_note, sweep_axes,"            \
    " command_line"

/* Version 4: run ids are never reused (AUTOINCREMENT: a deleted run's id, even the largest,
 * is never given to a new run, so a writer that lost its row cannot write into another
 * run's), and the lease of every running run (run_owner, rdb_lease.h).  AUTOINCREMENT needs
 * the runs table rebuilt: same columns, types, constraints and index, every row and id kept.
 * It runs with foreign keys off (rdb_prepare_schema), so dropping the old table cascades to
 * nothing, and with the legacy rename, so the views on runs are kept as they are written. */
static const char rdb_schema_v4[] =
    "PRAGMA legacy_alter_table = ON;"
    "CREATE TABLE runs_v4 ("
    "  id             INTEGER PRIMARY KEY AUTOINCREMENT,"
    RDB_RUNS_V1_COLUMNS
    "  digest         TEXT,"
    "  prev_run_key   TEXT,"
    "  prev_config_hash TEXT,"
    "  key_note       TEXT,"
    "  sweep_axes     TEXT,"
    "  command_line   TEXT"
    ");"
    "INSERT INTO runs_v4(" RDB_RUNS_V3_COLUMNS ") SELECT " RDB_RUNS_V3_COLUMNS " FROM runs;"
    "DROP TABLE runs;"
    "ALTER TABLE runs_v4 RENAME TO runs;"
    "PRAGMA legacy_alter_table = OFF;"
    "CREATE INDEX runs_by_key ON runs(run_key);" RDB_LEASE_V4_SQL;

/* Version 5: how many times a run was resumed from a checkpoint (`run --resume`), and the
 * final-metrics views ordered by run (RDB_META_V5_SQL). */
static const char rdb_schema_v5[] =
    "ALTER TABLE runs ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;" RDB_META_V5_SQL;

static const char *const rdb_migrations[RDB_SCHEMA_VERSION] = {
    rdb_schema_v1, rdb_schema_v2, rdb_schema_v3, rdb_schema_v4, rdb_schema_v5};

#define RDB_WAL_RETRY_MS 10

/* ---- the busy timeout ----------------------------------------------------------------- */

/* How long a connection waits for another process's write transaction before its own fails
 * with "database is locked".  Two minutes by default: a sweep's writers queue for each other,
 * and for `sgdsim merge` into the same file, which copies each input file in one transaction
 * (tens of seconds for a large one); SQLite's waiting is not fair, so on a loaded machine a
 * writer can also lose the race to busy neighbours for many seconds.  A lock held longer than
 * this is a fault, reported as such. */
#define RDB_BUSY_TIMEOUT_DEFAULT_MS 120000
#define RDB_BUSY_TIMEOUT_ENV "SGDSIM_DB_BUSY_TIMEOUT" /* seconds, replaces the default */
#define RDB_BUSY_TIMEOUT_MAX_S 86400.0

static int rdb_busy_timeout_ms(int *ms, sgd_err_t *err)
{
    *ms = RDB_BUSY_TIMEOUT_DEFAULT_MS;
    const char *v = getenv(RDB_BUSY_TIMEOUT_ENV);
    if (!v || !*v) return 0;
    double s = -1;
    if (!sgd_parse_decimal(v, &s) || !(s >= 0 && s <= RDB_BUSY_TIMEOUT_MAX_S))
        return sgd_errf(err, "environment %s: must be a number of seconds from 0 to %.0f, "
                        "got '%.40s'", RDB_BUSY_TIMEOUT_ENV, RDB_BUSY_TIMEOUT_MAX_S, v);
    *ms = (int)(s * 1000.0 + 0.5);
    return 0;
}

/* ---- error helpers ------------------------------------------------------------------ */

/* Formats "PATH: what: sqlite message (errno text)" for a failed SQLite call. */
int rdb_sqlerr(const rdb_t *db, const char *what, sgd_err_t *err)
{
    int rc = sqlite3_extended_errcode(db->db);
    if (rc == SQLITE_READONLY_ROLLBACK)
        /* Only a connection allowed to write may play a hot journal back, which changes the
         * file; sgdsim looks at files read-only first and never does (sgdsim's own files are
         * in WAL mode and have no rollback journal). */
        return sgd_errf(err, "%s: not usable as it stands: %s-journal holds an interrupted "
                        "transaction (a hot journal) that only a writer can roll back, and "
                        "sgdsim changes no file it has not recognised; open it with the "
                        "program that wrote it, or the sqlite3 shell, first", db->path,
                        db->path);
    if ((rc & 0xff) == SQLITE_NOTADB)
        return sgd_errf(err, "%s: not an sgdsim results database (file is not SQLite)",
                        db->path);
    int sys = sqlite3_system_errno(db->db);
    if (sys)
        return sgd_errf(err, "%s: %s: %s (%s)", db->path, what, sqlite3_errmsg(db->db),
                        strerror(sys));
    return sgd_errf(err, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
}

int rdb_exec(rdb_t *db, const char *sql, const char *what, sgd_err_t *err)
{
    if (sqlite3_exec(db->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, what, err);
    return 0;
}

/* Rolls back whatever transaction is open; used on error paths, where the original error
 * is the one worth reporting, so a failing rollback is not reported over it. */
void rdb_rollback(rdb_t *db)
{
    if (!sqlite3_get_autocommit(db->db)) sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Runs a statement returning one integer (a PRAGMA or a count). */
static int rdb_query_int(rdb_t *db, const char *sql, int64_t *out, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read the schema", err);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return rdb_sqlerr(db, "cannot read the schema", err);
    }
    *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

/* ---- opening ------------------------------------------------------------------------ */

/* Explains, before SQLite tries, why a path cannot hold a results database: SQLite's own
 * "unable to open database file" does not say whether the directory, the file or its
 * content is the problem. */
static int rdb_check_path(const char *path, int readonly, sgd_err_t *err)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return sgd_errf(err, "%s: is a directory, not a results database", path);
        if (!S_ISREG(st.st_mode))
            return sgd_errf(err, "%s: not a regular file, cannot hold a results database",
                            path);
        if (st.st_size == 0) return 0; /* SQLite treats an empty file as an empty database */
        FILE *f = fopen(path, "rb");
        if (!f) return sgd_errf(err, "%s: cannot read: %s", path, strerror(errno));
        char head[16];
        size_t n = fread(head, 1, sizeof head, f);
        fclose(f);
        if (n != sizeof head || memcmp(head, "SQLite format 3", sizeof head) != 0)
            return sgd_errf(err, "%s: not an sgdsim results database (file is not SQLite)",
                            path);
        return 0;
    }
    if (errno != ENOENT && errno != ENOTDIR)
        return sgd_errf(err, "%s: cannot access: %s", path, strerror(errno));
    if (readonly) return sgd_errf(err, "%s: no such results database", path);

    /* Creating: the directory must exist, be a directory and be writable (WAL mode also
     * creates PATH-wal and PATH-shm next to the database). */
    char *dir = rdb_dir_of(path);
    int rc = 0;
    if (stat(dir, &st) != 0) {
        int e = errno;
        if (e == ENOENT)
            rc = sgd_errf(err, "%s: cannot create results database: directory '%s' does not "
                          "exist", path, dir);
        else if (e == ENOTDIR)
            rc = sgd_errf(err, "%s: cannot create results database: '%s' is not a directory",
                          path, dir);
        else
            rc = sgd_errf(err, "%s: cannot create results database: directory '%s': %s",
                          path, dir, strerror(e));
    } else if (!S_ISDIR(st.st_mode))
        rc = sgd_errf(err, "%s: cannot create results database: '%s' is not a directory",
                      path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = sgd_errf(err, "%s: cannot create results database: directory '%s' is not "
                      "writable (%s)", path, dir, strerror(errno));
    free(dir);
    return rc;
}

/* What a file says about itself: application_id, user_version and how many schema
 * objects of its own it holds. */
typedef struct rdb_identity {
    int64_t app, ver, ntables;
} rdb_identity_t;

/* Reads the identity inside the transaction the caller has open. */
static int rdb_read_identity(rdb_t *db, rdb_identity_t *id, sgd_err_t *err)
{
    if (rdb_query_int(db, "PRAGMA application_id", &id->app, err) ||
        rdb_query_int(db, "PRAGMA user_version", &id->ver, err))
        return -1;
    return rdb_query_int(db, "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
                         &id->ntables, err);
}

/* Refuses a file that is not an sgdsim results database this build can use. */
static int rdb_check_identity(const rdb_t *db, const rdb_identity_t *id, sgd_err_t *err)
{
    if (id->app != 0 && id->app != RDB_APPLICATION_ID)
        return sgd_errf(err, "%s: not an sgdsim results database (SQLite application_id "
                        "0x%08llx)", db->path, (unsigned long long)id->app);
    if (id->app == 0 && (id->ver != 0 || id->ntables != 0))
        /* An SQLite file of some other program (or one a user built by hand): adding our
         * tables to it would make both the file and its user_version ambiguous. */
        return sgd_errf(err, "%s: not an sgdsim results database (an SQLite database that "
                        "already holds %lld tables, views or indexes not written by sgdsim)",
                        db->path, (long long)id->ntables);
    if (id->ver > RDB_SCHEMA_VERSION)
        return sgd_errf(err, "%s: was written by a newer sgdsim (schema %lld > %d); upgrade "
                        "sgdsim to use it", db->path, (long long)id->ver, RDB_SCHEMA_VERSION);
    if (id->ver < 0)
        return sgd_errf(err, "%s: not an sgdsim results database (user_version %lld)",
                        db->path, (long long)id->ver);
    if (db->readonly && id->app == 0)
        return sgd_errf(err, "%s: not an sgdsim results database (empty database)", db->path);
    if (db->readonly && !db->allow_older && id->ver < RDB_READ_MIN_VERSION)
        return sgd_errf(err, "%s: written by an older sgdsim (schema %lld < %d); migrate it "
                        "by opening it for writing once: use it as OUT of `sgdsim merge`, or as "
                        "--db of `sgdsim run` or `sgdsim sweep` (docs/results.md, "
                        "\"Schema versions\")", db->path, (long long)id->ver,
                        RDB_READ_MIN_VERSION);
    return 0;
}

/* Every schema object sgdsim creates, with the schema version that created it.  Anything
 * else in a file (a trigger above all: it would run on sgdsim's own writes) was planted. */
static const struct {
    const char *type, *name;
    int since;
} rdb_objects[] = {
    {"table", "runs", 1},           {"index", "runs_by_key", 1},
    {"table", "metrics", 1},        {"index", "metrics_by_update", 1},
    {"table", "traffic", 1},        {"table", "staleness", 1},
    {"view", "run_summary", 1},     {"view", "finished_runs", 3},
    {"table", "version_age", 3},    {"table", "tags", 3},
    {"table", "artifacts", 3},      {"view", "params", 3},
    {"view", "final_metrics_long", 3}, {"view", "final_metrics", 3},
    {"table", "run_owner", 4},
};

static bool rdb_known_object(const char *type, const char *name, int64_t version)
{
    for (size_t i = 0; i < sizeof rdb_objects / sizeof *rdb_objects; i++)
        if (strcmp(rdb_objects[i].type, type) == 0 && strcmp(rdb_objects[i].name, name) == 0)
            return rdb_objects[i].since <= version;
    return false;
}

/* Refuses a results database holding schema objects sgdsim did not create (inside the
 * caller's transaction), naming them: a writer would run a planted trigger on every insert,
 * and a planted index or view is no part of the contract.  SQLite's own objects
 * (sqlite_sequence, sqlite_stat1, automatic indexes) are fine. */
static int rdb_refuse_planted(rdb_t *db, int64_t version, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT type, name FROM sqlite_master WHERE type ="
                           " 'trigger' OR name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY"
                           " type, name", -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read the schema", err);
    char list[512] = "";
    size_t len = 0;
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (type && name && rdb_known_object(type, name, version)) continue;
        if (len < sizeof list - 1)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %s", n ? ", " : "",
                                    type ? type : "?", name ? name : "?");
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return rdb_sqlerr(db, "cannot read the schema", err);
    if (n == 0) return 0;
    if (len >= sizeof list - 1) snprintf(list + sizeof list - 5, 5, "...");
    return sgd_errf(err, "%s: holds %d schema object%s that sgdsim did not create (%s); sgdsim "
                    "does not write to it, since they would act on its writes: drop them, or "
                    "use another database", db->path, n, n == 1 ? "" : "s", list);
}

/* A writer's first look, in a read transaction that changes nothing: a file that is not
 * ours is refused before the WAL switch (persistent in the file) or anything else alters
 * it.  rdb_prepare_schema checks again under the write lock, since another process may
 * create the schema in between. */
static int rdb_refuse_foreign(rdb_t *db, sgd_err_t *err)
{
    rdb_identity_t id;
    if (rdb_exec(db, "BEGIN", "cannot start a transaction", err)) return -1;
    int rc = rdb_read_identity(db, &id, err);
    if (rc == 0) rc = rdb_check_identity(db, &id, err);
    if (rc == 0 && id.app != 0) rc = rdb_refuse_planted(db, id.ver, err);
    rdb_rollback(db);
    return rc;
}

/* Creates the schema from version `ver` up to RDB_SCHEMA_VERSION, inside the open
 * transaction. */
static int rdb_migrate(rdb_t *db, int64_t ver, sgd_err_t *err)
{
    for (int64_t v = ver; v < RDB_SCHEMA_VERSION; v++) {
        char what[96];
        snprintf(what, sizeof what, "cannot migrate schema %lld to %lld", (long long)v,
                 (long long)(v + 1));
        if (rdb_exec(db, rdb_migrations[v], what, err)) return -1;
    }
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
             RDB_APPLICATION_ID, RDB_SCHEMA_VERSION);
    return rdb_exec(db, sql, "cannot record the schema version", err);
}

/* Checks that the open database is an sgdsim results database this build understands and,
 * for a writable handle, creates or migrates the schema.  Runs inside one transaction so
 * two processes creating the same database at once cannot both create it. */
static int rdb_prepare_schema(rdb_t *db, sgd_err_t *err)
{
    const char *begin = db->readonly ? "BEGIN" : "BEGIN IMMEDIATE";
    /* A migration may rebuild a table that others reference (version 4's runs): with
     * foreign keys on, dropping the old one would delete every row by cascade.  The pragma
     * is a no-op inside a transaction, so it is switched around it. */
    if (!db->readonly && rdb_exec(db, "PRAGMA foreign_keys = OFF", "cannot configure", err))
        return -1;
    if (rdb_exec(db, begin, "cannot start a transaction", err)) goto fail;
    rdb_identity_t id;
    if (rdb_read_identity(db, &id, err) || rdb_check_identity(db, &id, err)) goto fail;
    if (!db->readonly && id.app != 0 && rdb_refuse_planted(db, id.ver, err)) goto fail;
    if (!db->readonly && id.ver < RDB_SCHEMA_VERSION && rdb_migrate(db, id.ver, err))
        goto fail;
    db->version = db->readonly ? id.ver : RDB_SCHEMA_VERSION;
    if (rdb_exec(db, "COMMIT", "cannot commit the schema", err)) goto fail;
    return rdb_exec(db, "PRAGMA foreign_keys = ON", "cannot configure", err);
fail:
    rdb_rollback(db);
    if (!db->readonly) sqlite3_exec(db->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    return -1;
}

static int rdb_prepare_stmt(rdb_t *db, const char *sql, sqlite3_stmt **st, sgd_err_t *err)
{
    if (sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot prepare a statement", err);
    return 0;
}

/* Switches the database to WAL mode (persistent in the file, so a no-op after the first
 * open).  Changing the journal mode answers SQLITE_BUSY at once, without consulting the
 * busy handler, while another connection holds the file; that happens when several sweep
 * processes create the same database together, so the switch is retried here for as long
 * as the busy timeout would have waited. */
static int rdb_enable_wal(rdb_t *db, int memory, sgd_err_t *err)
{
    char mode[16] = "";
    for (int waited_ms = 0;; waited_ms += RDB_WAL_RETRY_MS) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            const unsigned char *m = sqlite3_column_text(st, 0);
            snprintf(mode, sizeof mode, "%s", m ? (const char *)m : "?");
        }
        sqlite3_finalize(st);
        if (rc == SQLITE_ROW) break;
        if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= db->busy_ms)
            return rdb_sqlerr(db, "cannot enable WAL journal", err);
        sqlite3_sleep(RDB_WAL_RETRY_MS);
    }
    if (strcmp(mode, "wal") != 0 && !memory)
        return sgd_errf(err, "%s: cannot enable WAL journal (SQLite kept mode '%s'); results "
                        "databases need a local filesystem", db->path, mode);
    return 0;
}

/* Opens db->db on db->path.  Paths go to SQLite as percent-encoded URIs (see rdb_reader.h),
 * so every name means that file; a reader's URI also says how it reads (rdb_reader_plan). */
static int rdb_connect(rdb_t *db, int memory, sgd_err_t *err)
{
    char *uri = NULL;
    int flags = db->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (db->readonly) {
        if (rdb_reader_plan(db->path, &uri, &db->tidy, err)) return -1;
    } else {
        /* Every connection takes URIs, so that rdb_merge can ATTACH one. */
        uri = memory ? sgd_xstrdup("file::memory:") : rdb_uri(db->path, NULL);
    }
    int rc = sqlite3_open_v2(uri, &db->db, flags | SQLITE_OPEN_URI, NULL);
    free(uri);
    /* The file's schema is data: nothing may corrupt the file through SQL (defensive: no
     * writable_schema, no writes to shadow tables or pages), and a writer's triggers and
     * views may not call functions with side effects (trusted_schema off).  Readers keep
     * the schema trusted: sgdsim's own params view calls json_valid and json_tree, which
     * SQLite before 3.45 does not mark innocuous, and a reader never writes. */
    if (rc == SQLITE_OK &&
        ((!db->readonly &&
          sqlite3_db_config(db->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL) != SQLITE_OK) ||
         sqlite3_db_config(db->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK))
        return rdb_sqlerr(db, "cannot configure", err);
    if (rc == SQLITE_OK) return 0;
    if (db->db) return rdb_sqlerr(db, "cannot open results database", err);
    return sgd_errf(err, "%s: cannot open results database: out of memory in SQLite", db->path);
}

/* A writer's set-up after connecting: refuse a foreign file before changing anything, then
 * WAL.  WAL lets readers work while a run writes and makes a killed writer harmless: the
 * uncommitted tail of the log is ignored at the next open.  synchronous=NORMAL keeps that
 * guarantee for process crashes; after a power loss the last commits may roll back, but
 * the file stays consistent. */
static int rdb_setup_writer(rdb_t *db, int memory, sgd_err_t *err)
{
    /* SQLite quietly falls back to read-only when the file is not writable; a writer must
     * find out now, not at its first batch. */
    if (sqlite3_db_readonly(db->db, "main") == 1)
        return sgd_errf(err, "%s: cannot open results database for writing: file is "
                        "read-only", db->path);
    if (rdb_refuse_foreign(db, err) || rdb_enable_wal(db, memory, err)) return -1;
    return rdb_exec(db, "PRAGMA synchronous = NORMAL", "cannot configure", err);
}

/* Sets up a connection the way every handle's is: busy timeout, extended result codes, and
 * the schema treated as data (rdb_connect). */
static void rdb_configure_look(sqlite3 *h, int busy_ms)
{
    sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_busy_timeout(h, busy_ms);
    sqlite3_extended_result_codes(h, 1);
}

/* A writer's look at an existing file before it opens it for writing: on a connection that
 * cannot write, the way readers open it, the file's identity is read and a foreign file is
 * refused.  A read-write connection would already change a file by merely reading it: it
 * plays back a hot rollback journal that another program left (the file and its -journal
 * change before anything could be refused).  Only done where a reader would read normally;
 * elsewhere (no right to create PATH-shm, a file that is not writable) the writer's own open
 * is refused before it reads anything. */
static int rdb_writer_look(rdb_t *db, sgd_err_t *err)
{
    rdb_reader_facts_t f;
    rdb_reader_facts(db->path, &f);
    if (rdb_read_mode(&f) != RDB_READ_NORMAL || !f.dir_writable || !f.file_writable) return 0;
    rdb_tidy_t tidy = !f.wal_exists && !f.shm_exists ? RDB_TIDY_CREATED : RDB_TIDY_FOUND;
    rdb_t look = {.path = db->path, .readonly = 0}; /* a writer's rules for the identity */
    char *uri = rdb_uri(db->path, "mode=ro");
    int rc = sqlite3_open_v2(uri, &look.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        rc = look.db ? rdb_sqlerr(&look, "cannot open results database", err)
                     : sgd_errf(err, "%s: cannot open results database: out of memory in "
                                "SQLite", db->path);
    } else {
        rdb_configure_look(look.db, db->busy_ms);
        rc = rdb_refuse_foreign(&look, err);
    }
    sqlite3_close_v2(look.db);
    rdb_reader_tidy(db->path, tidy, false); /* only what this look created */
    return rc;
}

/* The writer's four persistent insert statements. */
static int rdb_prepare_inserts(rdb_t *db, sgd_err_t *err)
{
    if (rdb_prepare_stmt(db,
            "INSERT INTO metrics(run_id, update_idx, vtime_ns, name, value, nonfinite)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            " ON CONFLICT (run_id, name, update_idx) DO UPDATE SET"
            " vtime_ns = excluded.vtime_ns, value = excluded.value,"
            " nonfinite = excluded.nonfinite",
            &db->ins_metric, err))
        return -1;
    if (rdb_prepare_stmt(db,
            "INSERT INTO traffic(run_id, kind, sent_msgs, sent_bytes, skipped_msgs,"
            " skipped_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            " ON CONFLICT (run_id, kind) DO UPDATE SET"
            " sent_msgs = sent_msgs + excluded.sent_msgs,"
            " sent_bytes = sent_bytes + excluded.sent_bytes,"
            " skipped_msgs = skipped_msgs + excluded.skipped_msgs,"
            " skipped_bytes = skipped_bytes + excluded.skipped_bytes",
            &db->ins_traffic, err))
        return -1;
    if (rdb_prepare_stmt(db,
            "INSERT INTO staleness(run_id, tau, count) VALUES (?1, ?2, ?3)"
            " ON CONFLICT (run_id, tau) DO UPDATE SET count = count + excluded.count",
            &db->ins_staleness, err))
        return -1;
    return rdb_prepare_stmt(db,
        "INSERT INTO version_age(run_id, age, count) VALUES (?1, ?2, ?3)"
        " ON CONFLICT (run_id, age) DO UPDATE SET count = count + excluded.count",
        &db->ins_version_age, err);
}

/* sgdsim_config_hash(config_json): see rdb_reader.h. */
static void rdb_config_hash_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *json = (const char *)sqlite3_value_text(argv[0]);
    char hex[SGD_SHA256_HEX_LEN + 1];
    if (json && sgd_config_hash_text(json, hex) == 0)
        sqlite3_result_text(ctx, hex, -1, SQLITE_TRANSIENT);
    else
        sqlite3_result_null(ctx);
}

int rdb_register_functions(sqlite3 *db)
{
    int rc = sqlite3_create_function_v2(db, "sgdsim_config_hash", 1,
                                        SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                        rdb_config_hash_fn, NULL, NULL, NULL);
    return rc == SQLITE_OK ? rdb_meta_register_functions(db) : rc;
}

static int rdb_open_common(const char *path, int readonly, bool allow_older, rdb_t **out,
                           sgd_err_t *err)
{
    *out = NULL;
    if (!path || !*path) return sgd_errf(err, "results database path is empty");
    int memory = strcmp(path, ":memory:") == 0;
    if (!memory && rdb_check_path(path, readonly, err)) return -1;

    rdb_t *db = sgd_xcalloc(1, sizeof *db);
    db->path = sgd_xstrdup(path);
    db->readonly = readonly;
    db->allow_older = allow_older;
    rdb_set_clock(db, rdb_monotonic_ms);
    if (rdb_busy_timeout_ms(&db->busy_ms, err)) goto fail;
    if (!readonly && !memory && rdb_writer_look(db, err)) goto fail;
    if (rdb_connect(db, memory, err)) goto fail;
    if (rdb_register_functions(db->db) != SQLITE_OK) {
        rdb_sqlerr(db, "cannot register functions", err);
        goto fail;
    }
    /* Set before anything touches the file: concurrent writers in a sweep wait for each
     * other's transactions instead of failing with SQLITE_BUSY. */
    sqlite3_busy_timeout(db->db, db->busy_ms);
    sqlite3_extended_result_codes(db->db, 1);
    if (rdb_exec(db, "PRAGMA foreign_keys = ON", "cannot configure", err)) goto fail;
    if (!readonly && rdb_setup_writer(db, memory, err)) goto fail;
    if (rdb_prepare_schema(db, err)) goto fail;
    if (!readonly && rdb_prepare_inserts(db, err)) goto fail;
    db->ready = true;
    *out = db;
    return 0;
fail:
    rdb_close(db);
    return -1;
}

int rdb_open(const char *path, rdb_t **out, sgd_err_t *err)
{
    return rdb_open_common(path, 0, false, out, err);
}

int rdb_open_readonly(const char *path, rdb_t **out, sgd_err_t *err)
{
    return rdb_open_common(path, 1, false, out, err);
}

int rdb_open_older(const char *path, int64_t *version, rdb_t **out, sgd_err_t *err)
{
    if (rdb_open_common(path, 1, true, out, err)) return -1;
    if (rdb_query_int(*out, "PRAGMA user_version", version, err) == 0) return 0;
    rdb_close(*out);
    *out = NULL;
    return -1;
}

int rdb_open_source(const char *path, int64_t *version, rdb_t **out, sgd_err_t *err)
{
    if (rdb_open_older(path, version, out, err)) return -1;
    /* rdb_merge reads this schema and the ones before it (migrated as it copies;
     * schemas before 3 have no version_age rows, tags or artifacts to copy). */
    if (*version >= RDB_MERGE_MIN_VERSION) return 0;
    sgd_errf(err, "%s: written by an sgdsim too old to merge (schema %lld < %d); open it for "
                  "writing once (as --db of `sgdsim run`) to migrate it",
             path, (long long)*version, RDB_MERGE_MIN_VERSION);
    rdb_close(*out);
    *out = NULL;
    return -1;
}

/* A writer's last act: every committed transaction is copied from the log into the file and
 * the log emptied (TRUNCATE), so the file alone holds every row once the writer has exited,
 * even while a reader keeps the database open (SQLite's own checkpoint at close happens only
 * in the last connection, and a reader's read-only connection cannot make one).  It waits,
 * up to the busy timeout, for readers still reading older transactions; if they read longer,
 * the log stays and the next sgdsim command on the file folds it in.  Only for a file that
 * was accepted: a refused one is never written. */
static void rdb_checkpoint_at_close(rdb_t *db)
{
    if (db->readonly || !db->ready || !db->db) return;
    rdb_rollback(db);
    sqlite3_exec(db->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
}

void rdb_close(rdb_t *db)
{
    if (!db) return;
    sqlite3_finalize(db->ins_metric);
    sqlite3_finalize(db->ins_traffic);
    sqlite3_finalize(db->ins_staleness);
    sqlite3_finalize(db->ins_version_age);
    rdb_checkpoint_at_close(db);
    /* close_v2 so a statement a reader forgot to finalize cannot make close fail and leak. */
    sqlite3_close_v2(db->db);
    if (db->readonly) rdb_reader_tidy(db->path, db->tidy, db->ready);
    free(db->rows);
    free(db->text);
    free(db->active);
    free(db->path);
    free(db);
}

char *rdb_quote_ident(const char *name)
{
    size_t n = strlen(name), quotes = 0;
    for (size_t i = 0; i < n; i++) quotes += name[i] == '"';
    char *out = sgd_xmalloc(n + quotes + 3), *o = out;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        if (name[i] == '"') *o++ = '"';
        *o++ = name[i];
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

sqlite3 *rdb_handle(rdb_t *db)
{
    return db->db;
}

const char *rdb_path(const rdb_t *db)
{
    return db->path;
}
