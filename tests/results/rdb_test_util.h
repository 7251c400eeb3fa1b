/* Helpers shared by the results-database tests: a private temporary directory per test
 * (never the source tree, which is the tests' working directory), removal of a database
 * with its WAL side files, and one-value queries through a plain SQLite connection. */
#ifndef SGDSIM_TESTS_RDB_TEST_UTIL_H
#define SGDSIM_TESTS_RDB_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "results/rdb.h"
#include "results/rdb_meta.h"

/* Creates $TMPDIR/sgdsim-rdb-XXXXXX (or under /tmp) into dir[256]; exits on failure. */
/* SQL that turns a fresh database back into schema 6: schema 7's runs.has_clock dropped and
 * final_metrics as schemas 5 and 6 wrote it (keep in step with results/rdb_schema.c's
 * rdb_schema_v7). */
#define RDBT_UNDO_SCHEMA_7_SQL                                                                 \
    "ALTER TABLE runs DROP COLUMN has_clock; DROP VIEW final_metrics_long;"                    \
    "DROP VIEW final_metrics;"                                                                 \
    RDB_META_FINAL_VIEWS_SQL(" ORDER BY run_id, name", " ORDER BY r.id")                       \
    "PRAGMA user_version = 6;"

/* SQL that turns a fresh database back into schema 5: schema 7's additions and schema 6's
 * client_labels dropped (keep in step with results/rdb_schema.c's rdb_schema_v6). */
#define RDBT_UNDO_SCHEMA_6_SQL                                                                 \
    RDBT_UNDO_SCHEMA_7_SQL "DROP TABLE client_labels; PRAGMA user_version = 5;"

/* SQL that turns a fresh database back into schema 3: schema 7's and 6's additions, schema
 * 5's runs.resumes and the lease table of schema 4 dropped (runs keeps AUTOINCREMENT, which
 * only changes how new ids are chosen; keep in step with results/rdb_schema.c's rdb_schema_v4
 * and rdb_schema_v5). */
#define RDBT_UNDO_SCHEMA_4_SQL                                                                 \
    RDBT_UNDO_SCHEMA_6_SQL                                                                     \
    "ALTER TABLE runs DROP COLUMN resumes; DROP TABLE run_owner; PRAGMA user_version = 3;"

/* SQL that turns a fresh database back into schema 2: what schemas 7, 6, 5, 4 and 3 added,
 * dropped (keep in step with results/rdb_schema.c's rdb_schema_v3). */
#define RDBT_UNDO_SCHEMA_3_SQL                                                                 \
    RDBT_UNDO_SCHEMA_4_SQL                                                                     \
    "DROP VIEW final_metrics; DROP VIEW final_metrics_long; DROP VIEW params;"                 \
    "DROP TABLE artifacts; DROP TABLE tags; DROP TABLE version_age; DROP VIEW finished_runs;"  \
    "ALTER TABLE runs DROP COLUMN command_line; ALTER TABLE runs DROP COLUMN sweep_axes;"      \
    "PRAGMA user_version = 2;"

static inline void rdbt_tmpdir(char dir[256])
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, 256, "%s/sgdsim-rdb-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
}

/* path = dir/name, in a buffer of 512 bytes. */
static inline void rdbt_path(char path[512], const char *dir, const char *name)
{
    snprintf(path, 512, "%s/%s", dir, name);
}

/* Removes PATH, PATH-wal, PATH-shm and PATH-journal if present. */
static inline void rdbt_remove_db(const char *path)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[600];
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

/* First column of the first row of sql as an integer; -999 if the query fails or is empty,
 * so a failing query shows up as a wrong value in the printed assertion. */
static inline int64_t rdbt_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -999;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(db));
        return v;
    }
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    else fprintf(stderr, "query returned no row: %s: %s\n", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return v;
}

/* First column of the first row as text, copied into out[256] ("(null)" for SQL NULL,
 * "(error)" when the query fails). */
static inline const char *rdbt_text(sqlite3 *db, const char *sql, char out[256])
{
    sqlite3_stmt *st = NULL;
    snprintf(out, 256, "(error)");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(db));
        return out;
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(out, 256, "%s", t ? (const char *)t : "(null)");
    }
    sqlite3_finalize(st);
    return out;
}

/* Runs sql on the file at path through a connection of its own; SQLite's result code. */
static inline int rdbt_exec_file(const char *path, const char *sql)
{
    sqlite3 *h = NULL;
    int rc = sqlite3_open(path, &h);
    if (rc == SQLITE_OK) rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
    sqlite3_close(h);
    return rc;
}

/* rdbt_text of the file at path, through a connection of its own. */
static inline const char *rdbt_text_file(const char *path, const char *sql, char out[256])
{
    sqlite3 *h = NULL;
    if (sqlite3_open(path, &h) == SQLITE_OK) rdbt_text(h, sql, out);
    else snprintf(out, 256, "(error)");
    sqlite3_close(h);
    return out;
}

/* Monotonic seconds, for polling timeouts. */
static inline double rdbt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void rdbt_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Opens path read-only through the results writer's API; on failure prints why and
 * returns NULL (the caller's test then fails). */
static inline rdb_t *rdbt_open_readonly(const char *path)
{
    sgd_err_t err = {{0}};
    rdb_t *ro = NULL;
    if (rdb_open_readonly(path, &ro, &err) != 0) {
        fprintf(stderr, "rdb_open_readonly: %s\n", err.msg);
        return NULL;
    }
    return ro;
}

#endif
