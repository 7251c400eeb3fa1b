/* Reading a results database (rdb_read.h): the named queries of the subcommands, and the
 * questions with one answer.  The finished-run rule is RDB_FINISHED_RULE (rdb_reader.h), the
 * text the finished_runs view is made of, spelled into each query rather than read through
 * the view, because a reader of a schema 2 file has no view to read. */
#include "results/rdb_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/rdb_internal.h"
#include "results/rdb_reader.h"

/* The final value of metric NAME (an SQL string literal) of the run aliased r. */
#define FINAL_VALUE_SQL(NAME)                                                                  \
    "(SELECT m.value FROM metrics m WHERE m.run_id = r.id AND m.name = " NAME                  \
    "   ORDER BY m.update_idx DESC LIMIT 1)"

/* The sweep runs' query; sweep_axes is a column from schema 3 on. */
#define SWEEP_RUNS_SQL(AXES)                                                                   \
    "SELECT r.scenario, r.config_json, r.vtime_ns / 1e9, r.updates, r.workers, "             \
    FINAL_VALUE_SQL("'val_error'") ","                                                       \
    " json_extract(r.config_json, '$.batch.per_worker'), " AXES ","                           \
    " (SELECT sum(s.count) FROM staleness s WHERE s.run_id = r.id)"                          \
    " FROM runs r WHERE r." RDB_FINISHED_RULE " ORDER BY r.scenario, r.id"

/* The queries of rdb_query_t, in its order (their columns are documented there). */
static const char *const query_sql[] = {
    [RDB_Q_METRIC_NAMES] = "SELECT DISTINCT name FROM metrics ORDER BY name",
    [RDB_Q_RUN_METRIC_NAMES] =
        "SELECT DISTINCT name FROM metrics WHERE run_id = ?1 ORDER BY name",
    [RDB_Q_RUNS] = "SELECT id, substr(run_key, 1, 12), scenario, algorithm, workers,"
                   " status, updates, vtime_ns / 1e9 FROM runs ORDER BY id",
    [RDB_Q_FINAL_VALUE] = "SELECT value, nonfinite FROM metrics WHERE run_id = ?1 AND"
                          " name = ?2 ORDER BY update_idx DESC LIMIT 1",
    [RDB_Q_STALENESS] = "SELECT sum(tau * count) * 1.0 / sum(count), max(tau)"
                        " FROM staleness WHERE run_id = ?1 AND count > 0",
    [RDB_Q_TRAFFIC] = "SELECT sum(sent_bytes) / 1e6, sum(sent_msgs),"
                      " sum(skipped_bytes) / 1e6 FROM traffic WHERE run_id = ?1",
    [RDB_Q_LATEST_FINISHED] =
        "SELECT id, run_key, scenario, algorithm, workers, seed, status, vtime_ns, digest,"
        " blas_core FROM runs WHERE id IN (SELECT max(id) FROM runs WHERE " RDB_FINISHED_RULE
        " GROUP BY run_key) ORDER BY scenario, algorithm, workers, seed, run_key",
    [RDB_Q_FINISHED_OF_KEY] = "SELECT id, status, vtime_ns, digest, blas_core FROM runs WHERE"
                              " run_key = ?1 AND " RDB_FINISHED_RULE " ORDER BY id DESC LIMIT 1",
    [RDB_Q_SWEEP_RUNS] = SWEEP_RUNS_SQL("r.sweep_axes"),
    [RDB_Q_TABLES] = "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view')"
                     " AND name NOT LIKE 'sqlite_%' ORDER BY name",
};

/* RDB_Q_SWEEP_RUNS on a file older than schema 3, which has no sweep_axes. */
static const char sweep_runs_v2_sql[] = SWEEP_RUNS_SQL("NULL");

static int prepare_sql(rdb_t *db, const char *sql, sqlite3_stmt **st, sgd_err_t *err)
{
    *st = NULL;
    if (sqlite3_prepare_v2(db->db, sql, -1, st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read", err);
    return 0;
}

int rdb_read_prepare(rdb_t *db, rdb_query_t q, sqlite3_stmt **st, sgd_err_t *err)
{
    SGD_ASSERT((size_t)q < sizeof query_sql / sizeof query_sql[0] && query_sql[q]);
    const char *sql = query_sql[q];
    if (q == RDB_Q_SWEEP_RUNS && db->version < 3) sql = sweep_runs_v2_sql;
    return prepare_sql(db, sql, st, err);
}

int rdb_read_prepare_all(rdb_t *db, const char *name, sqlite3_stmt **st, sgd_err_t *err)
{
    char *ident = rdb_quote_ident(name);
    size_t size = strlen(ident) + 16;
    char *sql = sgd_xmalloc(size);
    snprintf(sql, size, "SELECT * FROM %s", ident);
    *st = NULL;
    int rc = sqlite3_prepare_v2(db->db, sql, -1, st, NULL);
    free(sql);
    free(ident);
    return rc == SQLITE_OK ? 0 : rdb_sqlerr(db, name, err);
}

/* Steps a statement that answers with one row or none: 1 row, 0 none, -1 error. */
static int step_once(rdb_t *db, sqlite3_stmt *st, const char *what, sgd_err_t *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) return 1;
    if (rc == SQLITE_DONE) return 0;
    return rdb_sqlerr(db, what, err);
}

bool rdb_has_metric(rdb_t *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db->db, "SELECT 1 FROM metrics WHERE name = ?1 LIMIT 1", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

int rdb_key_finished(rdb_t *db, const char *run_key, bool *done, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    *done = false;
    if (sqlite3_prepare_v2(db->db, "SELECT 1 FROM runs WHERE run_key = ?1 AND "
                           RDB_FINISHED_RULE " LIMIT 1", -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read runs", err);
    sqlite3_bind_text(st, 1, run_key, -1, SQLITE_STATIC);
    int rc = step_once(db, st, "cannot read runs", err);
    sqlite3_finalize(st);
    *done = rc == 1;
    return rc < 0 ? -1 : 0;
}

/* The owner of the unfinished run at st's current row (columns 2..7: host, boot_id, pid,
 * start_ticks, heartbeat_ms), or false when it has none (a run of an older schema). */
static bool row_owner(sqlite3_stmt *st, rdb_owner_t *o, int64_t *heartbeat_ms)
{
    if (sqlite3_column_type(st, 2) == SQLITE_NULL) return false;
    const char *host = (const char *)sqlite3_column_text(st, 2);
    const char *boot = (const char *)sqlite3_column_text(st, 3);
    snprintf(o->host, sizeof o->host, "%s", host ? host : "");
    snprintf(o->boot_id, sizeof o->boot_id, "%s", boot ? boot : "");
    o->pid = sqlite3_column_int64(st, 4);
    o->start_ticks = sqlite3_column_int64(st, 5);
    *heartbeat_ms = sqlite3_column_int64(st, 6);
    return true;
}

/* Whether the unfinished run at st's current row (id, status, owner columns) may still be
 * written by a live process; fills *live for the first such run. */
static bool row_is_live(sqlite3_stmt *st, const rdb_owner_t *self, int64_t now_ms, int nlive,
                        rdb_live_run_t *live)
{
    const char *status = (const char *)sqlite3_column_text(st, 1);
    rdb_owner_t o;
    int64_t beat = 0;
    if (!status || strcmp(status, "running") != 0 || !row_owner(st, &o, &beat)) return false;
    if (!rdb_owner_alive(&o, beat, self, now_ms)) return false;
    if (nlive == 0) {
        *live = (rdb_live_run_t){.id = sqlite3_column_int64(st, 0), .pid = o.pid,
                                 .this_host = strcmp(o.host, self->host) == 0,
                                 .heartbeat_age_s = (now_ms - beat) / 1000};
        snprintf(live->host, sizeof live->host, "%s", o.host);
    }
    return true;
}

int rdb_delete_unfinished(rdb_t *db, const char *run_key, int *ndeleted, int *nlive,
                          rdb_live_run_t *live, sgd_err_t *err)
{
    static const char what[] = "cannot remove an unfinished earlier run of a point";
    sqlite3_stmt *st = NULL, *del = NULL;
    *ndeleted = *nlive = 0;
    *live = (rdb_live_run_t){0};
    rdb_owner_t self;
    rdb_owner_self(&self);
    /* Decided and deleted in one write transaction: no run of the key can begin or end
     * between the look at its owner and the delete. */
    if (rdb_exec(db, "BEGIN IMMEDIATE", what, err)) return -1;
    if (sqlite3_prepare_v2(db->db, "SELECT r.id, r.status, o.host, o.boot_id, o.pid,"
                           " o.start_ticks, o.heartbeat_ms FROM runs r LEFT JOIN run_owner o"
                           " ON o.run_id = r.id WHERE r.run_key = ?1 AND r.status IN"
                           " ('running', 'failed') ORDER BY r.id", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->db, "DELETE FROM runs WHERE id = ?1", -1, &del, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_text(st, 1, run_key, -1, SQLITE_STATIC);
    int64_t now_ms = rdb_wall_ms();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (row_is_live(st, &self, now_ms, *nlive, live)) {
            (*nlive)++;
            continue;
        }
        sqlite3_bind_int64(del, 1, sqlite3_column_int64(st, 0));
        if (sqlite3_step(del) != SQLITE_DONE) goto fail;
        sqlite3_reset(del);
        (*ndeleted)++;
    }
    if (rc != SQLITE_DONE) goto fail;
    sqlite3_finalize(st);
    sqlite3_finalize(del);
    st = del = NULL;
    if (sqlite3_exec(db->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) goto fail;
    return 0;
fail:
    rdb_sqlerr(db, what, err);
    sqlite3_finalize(st);
    sqlite3_finalize(del);
    rdb_rollback(db);
    *ndeleted = *nlive = 0;
    return -1;
}

int rdb_finished_keys_not_in(rdb_t *db, rdb_t *other, int *count, sgd_err_t *err)
{
    sqlite3_stmt *keys = NULL, *in_other = NULL;
    *count = 0;
    int rc = prepare_sql(db, "SELECT run_key FROM runs WHERE " RDB_FINISHED_RULE
                             " GROUP BY run_key", &keys, err);
    if (rc == 0)
        rc = prepare_sql(other, "SELECT 1 FROM runs WHERE run_key = ?1 AND "
                                RDB_FINISHED_RULE " LIMIT 1", &in_other, err);
    while (rc == 0 && sqlite3_step(keys) == SQLITE_ROW) {
        sqlite3_bind_value(in_other, 1, sqlite3_column_value(keys, 0));
        int found = step_once(other, in_other, "cannot read runs", err);
        if (found < 0) rc = -1;
        if (found == 0) (*count)++;
        sqlite3_reset(in_other);
    }
    sqlite3_finalize(in_other);
    sqlite3_finalize(keys);
    return rc;
}

/* Appends the statement's current row (update_idx, vtime_ns, value, nonfinite) to s. */
static void series_append(rdb_series_t *s, int *cap, sqlite3_stmt *st)
{
    if (s->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        s->update = sgd_xrealloc(s->update, (size_t)*cap * sizeof *s->update);
        s->vtime = sgd_xrealloc(s->vtime, (size_t)*cap * sizeof *s->vtime);
        s->value = sgd_xrealloc(s->value, (size_t)*cap * sizeof *s->value);
        s->kind = sgd_xrealloc(s->kind, (size_t)*cap);
    }
    s->update[s->n] = sqlite3_column_int64(st, 0);
    s->vtime[s->n] = sqlite3_column_int64(st, 1);
    const char *nf = (const char *)sqlite3_column_text(st, 3);
    s->kind[s->n] = nf ? nf[0] : 0;
    s->value[s->n] = nf ? NAN : sqlite3_column_double(st, 2);
    s->n++;
}

int rdb_read_series(rdb_t *db, int64_t run, const char *name, rdb_series_t *s, sgd_err_t *err)
{
    memset(s, 0, sizeof *s);
    sqlite3_stmt *st = NULL;
    if (prepare_sql(db, "SELECT update_idx, vtime_ns, value, nonfinite FROM metrics"
                        " WHERE run_id = ?1 AND name = ?2 ORDER BY update_idx", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) series_append(s, &cap, st);
    if (rc != SQLITE_DONE) rdb_sqlerr(db, "cannot read a series", err);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return 0;
    rdb_series_free(s); /* a failed read leaves nothing to free */
    return -1;
}

void rdb_series_free(rdb_series_t *s)
{
    free(s->update);
    free(s->vtime);
    free(s->value);
    free(s->kind);
    memset(s, 0, sizeof *s);
}

/* ---- curves --------------------------------------------------------------------------- */

static bool is_runs_column(rdb_t *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db->db, "SELECT 1 FROM pragma_table_info('runs') WHERE name = ?1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

/* The SQL expression for one group key: runs columns as they are, dotted keys from the
 * configuration (only if some run has them); false for anything else. */
static bool group_expr(rdb_t *db, const char *k, char *expr, size_t size)
{
    /* Only names made of these characters reach the SQL text. */
    static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_.";
    if (strspn(k, word) != strlen(k) || strlen(k) + 40 > size) return false;
    if (strcmp(k, "lambda") == 0) {
        /* The papers' name for the number of clients; runs.workers holds it. */
        snprintf(expr, size, "r.workers");
        return true;
    }
    if (is_runs_column(db, k)) {
        char *ident = rdb_quote_ident(k);
        snprintf(expr, size, "r.%s", ident);
        free(ident);
        return true;
    }
    if (!strchr(k, '.')) return false;
    snprintf(expr, size, "json_extract(r.config_json, '$.%s')", k);
    char probe[700];
    snprintf(probe, sizeof probe, "SELECT 1 FROM runs r WHERE %s IS NOT NULL LIMIT 1", expr);
    sqlite3_stmt *p = NULL;
    bool ok = sqlite3_prepare_v2(db->db, probe, -1, &p, NULL) == SQLITE_OK &&
              sqlite3_step(p) == SQLITE_ROW;
    sqlite3_finalize(p);
    return ok;
}

bool rdb_curve_key_known(rdb_t *db, const char *key)
{
    char expr[512];
    return group_expr(db, key, expr, sizeof expr);
}

/* ---- selections ----------------------------------------------------------------------- */

/* The SQL text of one condition's left side into expr: a runs column (checked), or
 * json_extract with its path as parameter ?param; false for an unknown key. */
static bool cond_expr(rdb_t *db, const char *key, int param, char *expr, size_t size)
{
    if (!rdb_curve_key_known(db, key)) return false;
    if (strcmp(key, "lambda") == 0 || is_runs_column(db, key))
        return group_expr(db, key, expr, size);
    snprintf(expr, size, "json_extract(r.config_json, ?%d)", param);
    return true;
}

/* " AND <status rule> AND <cond> AND ..." for sel, whose parameters start at ?first; each
 * condition takes two (its path, even when unused, and its literal). */
static int where_sql(rdb_t *db, const rdb_selection_t *sel, int first, char *sql, size_t size,
                     sgd_err_t *err)
{
    static const char *const op_sql[] = {
        [RDB_OP_EQ] = "=", [RDB_OP_NE] = "<>", [RDB_OP_LT] = "<",
        [RDB_OP_LE] = "<=", [RDB_OP_GT] = ">", [RDB_OP_GE] = ">=",
    };
    size_t len = (size_t)snprintf(sql, size, " AND (r." RDB_FINISHED_RULE "%s)",
                                  sel->running ? " OR r.status = 'running'" : "");
    for (int i = 0; i < sel->nconds; i++) {
        const rdb_cond_t *c = &sel->conds[i];
        char expr[512];
        SGD_ASSERT((size_t)c->op < sizeof op_sql / sizeof op_sql[0]);
        if (!cond_expr(db, c->key, first + 2 * i, expr, sizeof expr))
            return sgd_errf(err, "%s: \"%s\" is neither a column of runs nor a configuration "
                            "key of any run", db->path, c->key);
        int n = snprintf(sql + len, size - len, " AND %s %s ?%d", expr, op_sql[c->op],
                         first + 2 * i + 1);
        if (n < 0 || (size_t)n >= size - len)
            return sgd_errf(err, "%s: too many conditions", db->path);
        len += (size_t)n;
    }
    return 0;
}

/* Binds sel's parameters from ?first (see where_sql). */
static void bind_where(sqlite3_stmt *st, const rdb_selection_t *sel, int first)
{
    for (int i = 0; i < sel->nconds; i++) {
        const rdb_cond_t *c = &sel->conds[i];
        size_t n = strlen(c->key) + 3;
        char *path = sgd_xmalloc(n);
        snprintf(path, n, "$.%s", c->key);
        sqlite3_bind_text(st, first + 2 * i, path, -1, SQLITE_TRANSIENT);
        free(path);
        if (c->is_number) sqlite3_bind_double(st, first + 2 * i + 1, c->number);
        else sqlite3_bind_text(st, first + 2 * i + 1, c->text, -1, SQLITE_TRANSIENT);
    }
}

int rdb_read_prepare_selected_runs(rdb_t *db, const char *const *keys, int nkeys,
                                   const rdb_selection_t *sel, sqlite3_stmt **st,
                                   sgd_err_t *err)
{
    char columns[2048] = "", where[4096], sql[8192];
    size_t len = 0;
    *st = NULL;
    for (int i = 0; i < nkeys; i++) {
        char expr[512];
        if (!group_expr(db, keys[i], expr, sizeof expr))
            return sgd_errf(err, "%s: \"%s\" is neither a column of runs nor a configuration "
                            "key of any run", db->path, keys[i]);
        int n = snprintf(columns + len, sizeof columns - len, ", %s", expr);
        if (n < 0 || (size_t)n >= sizeof columns - len)
            return sgd_errf(err, "%s: too many group keys", db->path);
        len += (size_t)n;
    }
    if (where_sql(db, sel, 1, where, sizeof where, err)) return -1;
    snprintf(sql, sizeof sql,
             "SELECT r.id, r.seed, r.scenario, r.status,"
             " json_remove(r.config_json, '$.seed', '$.numerics.threads')%s"
             " FROM runs r WHERE 1%s ORDER BY r.id", columns, where);
    if (prepare_sql(db, sql, st, err)) return -1;
    bind_where(*st, sel, 1);
    return 0;
}

int rdb_read_prepare_selected_points(rdb_t *db, const char *metric,
                                     const rdb_selection_t *sel, sqlite3_stmt **st,
                                     sgd_err_t *err)
{
    char where[4096], sql[8192];
    *st = NULL;
    if (where_sql(db, sel, 2, where, sizeof where, err)) return -1;
    snprintf(sql, sizeof sql,
             "SELECT m.run_id, m.update_idx, m.vtime_ns / 1e9, m.value"
             " FROM metrics m JOIN runs r ON r.id = m.run_id"
             " WHERE m.name = ?1 AND m.value IS NOT NULL%s ORDER BY m.run_id, m.update_idx",
             where);
    if (prepare_sql(db, sql, st, err)) return -1;
    sqlite3_bind_text(*st, 1, metric, -1, SQLITE_TRANSIENT);
    bind_where(*st, sel, 2);
    return 0;
}

/* ---- compare: finished runs with their configurations ----------------------------------- */

int rdb_read_prepare_finished_configs(rdb_t *db, sqlite3_stmt **st, sgd_err_t *err)
{
    return prepare_sql(db, "SELECT id, run_key, scenario, algorithm, workers, seed, status,"
                           " vtime_ns, blas_core, config_json FROM runs WHERE id IN"
                           " (SELECT max(id) FROM runs WHERE " RDB_FINISHED_RULE
                           " GROUP BY run_key) ORDER BY scenario, algorithm, workers, seed,"
                           " run_key", st, err);
}
