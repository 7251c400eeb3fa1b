/* The results database's schema: the list of migrations that make it, and the checks that a
 * file is an sgdsim results database of a known version holding nothing planted.
 *
 * The schema lives here as a list of migrations: rdb_migrations[v] takes a database from
 * schema version v to v + 1, and rdb_open applies the missing ones in one transaction.
 * Version 0 is the empty file, so creating a database is just migrating from 0.  A new
 * schema version appends one entry and bumps RDB_SCHEMA_VERSION; existing entries never
 * change, because databases in users' hands were created by them. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/rdb.h"
#include "results/rdb_internal.h"
#include "results/rdb_lease.h"
#include "results/rdb_meta.h"
#include "results/rdb_reader.h"

/* Runs a statement returning one integer (a PRAGMA or a count). */
int rdb_query_int(rdb_t *db, const char *sql, int64_t *out, sgd_err_t *err)
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

/* Version 6: how a run's training data was split over its clients (data.partition): one row
 * per client and label it holds samples of (nonzero counts only, so at most one row per
 * training sample).  Older runs, and runs without a partition, have none. */
static const char rdb_schema_v6[] =
    "CREATE TABLE client_labels ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  client INTEGER NOT NULL CHECK (client >= 0),"
    "  label  INTEGER NOT NULL CHECK (label >= 0),"
    "  count  INTEGER NOT NULL CHECK (count >= 1),"
    "  PRIMARY KEY (run_id, client, label)"
    ") WITHOUT ROWID;";

static const char *const rdb_migrations[RDB_SCHEMA_VERSION] = {
    rdb_schema_v1, rdb_schema_v2, rdb_schema_v3, rdb_schema_v4, rdb_schema_v5, rdb_schema_v6};


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
    {"table", "run_owner", 4},      {"table", "client_labels", 6},
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

/* The objects of a database that sgdsim's migrations built to `version` in memory: type,
 * name and SQL of each, as SQLite keeps them. */
typedef struct rdb_ref {
    sqlite3 *mem;
    sqlite3_stmt *find; /* the SQL of (type, name) */
} rdb_ref_t;

static int rdb_ref_build(int64_t version, rdb_ref_t *ref, sgd_err_t *err)
{
    memset(ref, 0, sizeof *ref);
    if (sqlite3_open(":memory:", &ref->mem) != SQLITE_OK ||
        rdb_register_functions(ref->mem) != SQLITE_OK ||
        sqlite3_exec(ref->mem, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL) != SQLITE_OK)
        return sgd_errf(err, "cannot build the reference schema: %s", sqlite3_errmsg(ref->mem));
    for (int64_t v = 0; v < version && v < RDB_SCHEMA_VERSION; v++)
        if (sqlite3_exec(ref->mem, rdb_migrations[v], NULL, NULL, NULL) != SQLITE_OK)
            return sgd_errf(err, "cannot build the reference schema %lld: %s",
                            (long long)(v + 1), sqlite3_errmsg(ref->mem));
    if (sqlite3_prepare_v2(ref->mem, "SELECT sql FROM sqlite_master WHERE type = ?1 AND"
                           " name = ?2", -1, &ref->find, NULL) != SQLITE_OK)
        return sgd_errf(err, "cannot read the reference schema: %s", sqlite3_errmsg(ref->mem));
    return 0;
}

static void rdb_ref_free(rdb_ref_t *ref)
{
    sqlite3_finalize(ref->find);
    sqlite3_close(ref->mem);
}

/* Whether the reference has view `name` with the same SQL. */
static bool rdb_ref_has(rdb_ref_t *ref, const char *name, const char *sql)
{
    sqlite3_reset(ref->find);
    sqlite3_bind_text(ref->find, 1, "view", -1, SQLITE_STATIC);
    sqlite3_bind_text(ref->find, 2, name, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(ref->find) != SQLITE_ROW) return false;
    const char *want = (const char *)sqlite3_column_text(ref->find, 0);
    return want && sql && strcmp(want, sql) == 0;
}

int rdb_schema_refuse_unknown(rdb_t *db, sgd_err_t *err)
{
    rdb_ref_t ref;
    sqlite3_stmt *st = NULL;
    int rc = rdb_ref_build(db->version, &ref, err);
    if (rc == 0 && sqlite3_prepare_v2(db->db, "SELECT type, name, sql FROM sqlite_master WHERE"
                                      " type = 'view' ORDER BY name", -1, &st,
                                      NULL) != SQLITE_OK)
        rc = rdb_sqlerr(db, "cannot read the schema", err);
    char list[512] = "";
    size_t len = 0;
    int n = 0, step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *sql = (const char *)sqlite3_column_text(st, 2);
        if (name && rdb_ref_has(&ref, name, sql)) continue;
        bool changed = type && name && rdb_known_object(type, name, db->version);
        if (len < sizeof list - 1)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s%s", n ? ", " : "",
                                    name ? name : "?", changed ? ", not as sgdsim wrote it" : "");
        n++;
    }
    if (rc == 0 && step != SQLITE_DONE) rc = rdb_sqlerr(db, "cannot read the schema", err);
    sqlite3_finalize(st);
    rdb_ref_free(&ref);
    if (rc || n == 0) return rc;
    if (len >= sizeof list - 1) snprintf(list + sizeof list - 5, 5, "...");
    return sgd_errf(err, "%s: holds %d view%s that sgdsim did not create (%s), which may compute "
                    "without end: drop %s, or read %s with `sgdsim query`", db->path, n,
                    n == 1 ? "" : "s", list, n == 1 ? "it" : "them", n == 1 ? "it" : "them");
}

/* A writer's first look, in a read transaction that changes nothing: a file that is not
 * ours is refused before the WAL switch (persistent in the file) or anything else alters
 * it.  rdb_schema_prepare checks again under the write lock, since another process may
 * create the schema in between. */
int rdb_schema_refuse_foreign(rdb_t *db, sgd_err_t *err)
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
int rdb_schema_prepare(rdb_t *db, sgd_err_t *err)
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
