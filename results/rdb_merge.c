/* Merging results databases (see rdb_merge.h).  IN is checked with rdb_open_readonly (which
 * knows every way a file can fail to be our database), then ATTACHed to OUT's connection so
 * rows move with INSERT ... SELECT inside one transaction.  IN is attached the way a reader
 * opens it (rdb_reader.h: read-only, or immutable on read-only media), so merging from it
 * never writes to it or leaves files beside it.  An IN of an older schema is read through a
 * temporary copy of its runs table taken to this schema (run keys recomputed as rdb_open's
 * migration does), so merging it gives the rows a migration of IN would. */
#include "results/rdb_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results/rdb_internal.h"
#include "results/rdb_reader.h"

static int merge_sqlerr(sqlite3 *db, const char *in_path, const char *what, sgd_err_t *err)
{
    return sgd_errf(err, "%s: %s: %s", in_path, what, sqlite3_errmsg(db));
}

/* Appends text to the growing string *buf (length *len, capacity *cap). */
static void append(char **buf, size_t *len, size_t *cap, const char *text)
{
    size_t n = strlen(text);
    if (*len + n + 1 > *cap) {
        while (*len + n + 1 > *cap) *cap = *cap ? 2 * *cap : 256;
        *buf = sgd_xrealloc(*buf, *cap);
    }
    memcpy(*buf + *len, text, n + 1);
    *len += n;
}

/* The columns to copy: those of OUT's runs (but id) that the source table (schema.table)
 * has too, each quoted (rdb_quote_ident: OUT is a file like any other, and its column names
 * are data), comma-separated, in *cols (a new string).  A column OUT has and IN lacks keeps
 * its default, as a migration would give it. */
static int runs_columns(sqlite3 *db, const char *schema, const char *table, char **cols,
                        const char *in_path, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    *cols = NULL;
    if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('runs', 'main') WHERE"
                           " name <> 'id' AND name IN (SELECT name FROM pragma_table_info(?1,"
                           " ?2)) ORDER BY cid", -1, &st, NULL) != SQLITE_OK)
        return merge_sqlerr(db, in_path, "cannot read the schema", err);
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
    size_t len = 0, cap = 0;
    char *buf = NULL;
    append(&buf, &len, &cap, "");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char *ident = rdb_quote_ident((const char *)sqlite3_column_text(st, 0));
        if (len) append(&buf, &len, &cap, ", ");
        append(&buf, &len, &cap, ident);
        free(ident);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE || len == 0) {
        free(buf);
        return merge_sqlerr(db, in_path, "cannot read the columns of runs", err);
    }
    *cols = buf;
    return 0;
}

/* The runs table to copy from: IN's own, or for an older schema a temporary copy migrated
 * to this one (in OUT's temp database, inside the merge's transaction). */
static int source_runs(sqlite3 *db, int64_t version, const char **schema, const char **table,
                       const char *in_path, sgd_err_t *err)
{
    *schema = "src";
    *table = "runs";
    /* runs' columns changed in schema 3 (4 changed only how ids are given; 5 added
     * `resumes`, which a source without it leaves at its default, 0, as runs_columns copies
     * only the columns both tables have; 6 added a table of its own, copied when there). */
    if (version >= 3) return 0;
    SGD_ASSERT(version >= 1 && RDB_SCHEMA_VERSION == 6); /* a new schema extends this */
    static const char copy[] = "CREATE TEMP TABLE src_runs AS SELECT * FROM src.runs;";
    static const char v2[] = RDB_KEYS_V2_SQL("temp.src_runs");
    static const char v3[] = RDB_RUNS_V3_SQL("temp.src_runs");
    int rc = sqlite3_exec(db, copy, NULL, NULL, NULL);
    if (rc == SQLITE_OK && version < 2) rc = sqlite3_exec(db, v2, NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, v3, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        char what[64];
        snprintf(what, sizeof what, "cannot read runs of schema %lld", (long long)version);
        return merge_sqlerr(db, in_path, what, err);
    }
    *schema = "temp";
    *table = "src_runs";
    return 0;
}

/* ATTACHes in_path as "src", read-only as rdb_reader_plan says; *tidy: what to do about its
 * side files after the DETACH. */
static int attach_source(sqlite3 *db, const char *in_path, rdb_tidy_t *tidy, sgd_err_t *err)
{
    char *uri = NULL;
    if (rdb_reader_plan(in_path, &uri, tidy, err)) return -1;
    sqlite3_stmt *att = NULL;
    int rc = sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS src", -1, &att, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(att, 1, uri, -1, SQLITE_STATIC);
        rc = sqlite3_step(att);
    }
    sqlite3_finalize(att);
    free(uri);
    if (rc == SQLITE_DONE) return 0;
    merge_sqlerr(db, in_path, "cannot attach", err);
    rdb_reader_tidy(in_path, *tidy, false);
    return -1;
}

/* The statements of one merge: IN's runs in id order, "does OUT hold this run", copying a
 * run and copying its metric, traffic and staleness rows, (from schema 3 on) its
 * version_age rows, tags and artifacts, and (from schema 6 on) its client_labels rows. */
#define MERGE_ROW_TABLES 7

typedef struct merge_stmts {
    sqlite3_stmt *list, *exists, *ins_run, *ins_rows[MERGE_ROW_TABLES];
    int nrows; /* how many of ins_rows IN's schema has */
} merge_stmts_t;

static int prepare_merge(sqlite3 *db, const char *cols, const char *runs, int64_t version,
                         merge_stmts_t *m, const char *in_path, sgd_err_t *err)
{
    /* runs is one of source_runs' two fixed names; cols is quoted (runs_columns). */
    size_t size = 2 * strlen(cols) + strlen(runs) + 80;
    char *sql = sgd_xmalloc(size), list_sql[160];
    snprintf(sql, size, "INSERT INTO main.runs(%s) SELECT %s FROM %s WHERE id = ?1", cols,
             cols, runs);
    snprintf(list_sql, sizeof list_sql, "SELECT id, run_key, host, started_at, digest, status"
             " FROM %s ORDER BY id", runs);
    /* One statement per element, each split over lines (parenthesised, so the compiler
     * sees the concatenation is meant). */
    static const char *const rows_sql[MERGE_ROW_TABLES] = {
        ("INSERT INTO main.metrics(run_id, update_idx, vtime_ns, name, value, nonfinite)"
         " SELECT ?1, update_idx, vtime_ns, name, value, nonfinite FROM src.metrics"
         " WHERE run_id = ?2"),
        ("INSERT INTO main.traffic(run_id, kind, sent_msgs, sent_bytes, skipped_msgs,"
         " skipped_bytes) SELECT ?1, kind, sent_msgs, sent_bytes, skipped_msgs, skipped_bytes"
         " FROM src.traffic WHERE run_id = ?2"),
        ("INSERT INTO main.staleness(run_id, tau, count) SELECT ?1, tau, count"
         " FROM src.staleness WHERE run_id = ?2"),
        ("INSERT INTO main.version_age(run_id, age, count) SELECT ?1, age, count"
         " FROM src.version_age WHERE run_id = ?2"),
        ("INSERT INTO main.tags(run_id, key, value) SELECT ?1, key, value FROM src.tags"
         " WHERE run_id = ?2"),
        ("INSERT INTO main.artifacts(run_id, kind, path, sha256, bytes)"
         " SELECT ?1, kind, path, sha256, bytes FROM src.artifacts WHERE run_id = ?2"),
        ("INSERT INTO main.client_labels(run_id, client, label, count)"
         " SELECT ?1, client, label, count FROM src.client_labels WHERE run_id = ?2"),
    };
    m->nrows = version >= 6 ? MERGE_ROW_TABLES : version >= 3 ? 6 : 3;
    int ok = sqlite3_prepare_v2(db, list_sql, -1, &m->list, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(db, "SELECT 1 FROM main.runs WHERE run_key IS ?1 AND host IS"
                                    " ?2 AND started_at IS ?3 AND digest IS ?4 LIMIT 1",
                                -1, &m->exists, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(db, sql, -1, &m->ins_run, NULL) == SQLITE_OK;
    free(sql);
    for (int i = 0; ok && i < m->nrows; i++)
        ok = sqlite3_prepare_v2(db, rows_sql[i], -1, &m->ins_rows[i], NULL) == SQLITE_OK;
    return ok ? 0 : merge_sqlerr(db, in_path, "cannot prepare the merge", err);
}

static void finalize_merge(merge_stmts_t *m)
{
    sqlite3_finalize(m->list);
    sqlite3_finalize(m->exists);
    sqlite3_finalize(m->ins_run);
    for (int i = 0; i < MERGE_ROW_TABLES; i++) sqlite3_finalize(m->ins_rows[i]);
}

/* The run at m->list's current row: skipped when unfinished or already in OUT, else copied
 * with its rows. */
static int merge_one(sqlite3 *db, merge_stmts_t *m, rdb_merge_stats_t *st,
                     const char *in_path, sgd_err_t *err)
{
    int64_t old_id = sqlite3_column_int64(m->list, 0);
    const char *status = (const char *)sqlite3_column_text(m->list, 5);
    if (status && strcmp(status, "running") == 0) {
        st->unfinished++;
        return 0;
    }
    for (int c = 1; c <= 4; c++) sqlite3_bind_value(m->exists, c, sqlite3_column_value(m->list, c));
    int e = sqlite3_step(m->exists);
    sqlite3_reset(m->exists);
    if (e == SQLITE_ROW) {
        st->present++;
        return 0;
    }
    if (e != SQLITE_DONE) return merge_sqlerr(db, in_path, "cannot read runs", err);
    sqlite3_bind_int64(m->ins_run, 1, old_id);
    if (sqlite3_step(m->ins_run) != SQLITE_DONE)
        return merge_sqlerr(db, in_path, "cannot copy a run", err);
    sqlite3_reset(m->ins_run);
    int64_t new_id = sqlite3_last_insert_rowid(db);
    for (int i = 0; i < m->nrows; i++) {
        sqlite3_bind_int64(m->ins_rows[i], 1, new_id);
        sqlite3_bind_int64(m->ins_rows[i], 2, old_id);
        if (sqlite3_step(m->ins_rows[i]) != SQLITE_DONE)
            return merge_sqlerr(db, in_path, "cannot copy rows", err);
        st->rows += sqlite3_changes(db);
        sqlite3_reset(m->ins_rows[i]);
    }
    st->copied++;
    return 0;
}

/* Copies IN's finished runs in one transaction on OUT (src attached). */
static int copy_runs(sqlite3 *db, int64_t version, rdb_merge_stats_t *st, const char *in_path,
                     sgd_err_t *err)
{
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return merge_sqlerr(db, in_path, "cannot begin the merge", err);
    merge_stmts_t m = {0};
    const char *schema = NULL, *table = NULL;
    char *cols = NULL, runs[32];
    int ret = -1, rc = SQLITE_ROW;
    if (source_runs(db, version, &schema, &table, in_path, err) == 0 &&
        runs_columns(db, schema, table, &cols, in_path, err) == 0 &&
        snprintf(runs, sizeof runs, "%s.%s", schema, table) > 0 &&
        prepare_merge(db, cols, runs, version, &m, in_path, err) == 0) {
        while ((rc = sqlite3_step(m.list)) == SQLITE_ROW)
            if (merge_one(db, &m, st, in_path, err)) break;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            merge_sqlerr(db, in_path, "cannot read runs", err);
        else if (rc == SQLITE_DONE)
            ret = 0;
    }
    finalize_merge(&m);
    free(cols);
    if (ret == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        ret = merge_sqlerr(db, in_path, "cannot commit the merge", err);
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return ret;
}

int rdb_merge(rdb_t *out, const char *in_path, rdb_merge_stats_t *st, sgd_err_t *err)
{
    memset(st, 0, sizeof *st);
    int64_t version = 0;
    rdb_t *in = NULL;
    if (rdb_open_source(in_path, &version, &in, err)) return -1;
    rdb_close(in);
    struct stat a, b;
    if (stat(in_path, &a) == 0 && stat(rdb_path(out), &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        return sgd_errf(err, "%s: is the output database itself; nothing to merge", in_path);

    sqlite3 *db = rdb_handle(out);
    rdb_tidy_t tidy = RDB_TIDY_NONE;
    if (attach_source(db, in_path, &tidy, err)) return -1;
    int ret = copy_runs(db, version, st, in_path, err);
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.src_runs", NULL, NULL, NULL);
    sqlite3_exec(db, "DETACH DATABASE src", NULL, NULL, NULL);
    /* The input was accepted by rdb_open_source above. */
    rdb_reader_tidy(in_path, tidy, true);
    if (ret) memset(st, 0, sizeof *st);
    return ret;
}

int rdb_merge_check_input(const char *in_path, sgd_err_t *err)
{
    int64_t version;
    rdb_t *in;
    if (rdb_open_source(in_path, &version, &in, err)) return -1;
    rdb_close(in);
    return 0;
}
