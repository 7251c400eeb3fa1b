/* Results database: opening and closing (see rdb.h for the contract, docs/results.md for the
 * schema); the schema and its migrations are rdb_schema.c, runs and their rows rdb_write.c,
 * how readers reach the file rdb_reader.c. */
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
#include "results/rdb_meta.h"
#include "results/rdb_reader.h"

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
    if (rdb_schema_refuse_foreign(db, err) || rdb_enable_wal(db, memory, err)) return -1;
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
        rc = rdb_schema_refuse_foreign(&look, err);
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
    if (rdb_prepare_stmt(db,
            "INSERT INTO version_age(run_id, age, count) VALUES (?1, ?2, ?3)"
            " ON CONFLICT (run_id, age) DO UPDATE SET count = count + excluded.count",
            &db->ins_version_age, err))
        return -1;
    return rdb_prepare_stmt(db,
        "INSERT INTO client_labels(run_id, client, label, count) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT (run_id, client, label) DO UPDATE SET count = excluded.count",
        &db->ins_client_label, err);
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
    if (rdb_schema_prepare(db, err)) goto fail;
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
    sqlite3_finalize(db->ins_client_label);
    rdb_checkpoint_at_close(db);
    if (db->not_numbers)
        fprintf(stderr, "sgdsim: warning: %s: %lld metric row%s whose value is not a number "
                "(first: %s) %s left out; a value is a REAL, or NULL with its kind in "
                "nonfinite (docs/results.md)\n", db->path, (long long)db->not_numbers,
                db->not_numbers == 1 ? "" : "s", db->not_number_first,
                db->not_numbers == 1 ? "was" : "were");
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
