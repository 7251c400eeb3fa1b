/* Curves (rdb_curves.h): group keys and selections turned into SQL whose only text from
 * outside is a checked column name, and the iterators over runs and points. */
#include "results/rdb_curves.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/rdb_internal.h"
#include "results/rdb_reader.h"

struct rdb_curve_it {
    rdb_t *db;
    sqlite3_stmt *st;
    int nkeys;
    const char **values; /* nkeys, into the current row */
};

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

/* An iterator on the prepared statement sql, parameters unbound; -1 naming the database. */
static int curve_open(rdb_t *db, const char *sql, int nkeys, rdb_curve_it_t **it,
                      sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    *it = NULL;
    if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read", err);
    *it = sgd_xcalloc(1, sizeof **it);
    **it = (rdb_curve_it_t){.db = db, .st = st, .nkeys = nkeys,
                            .values = sgd_xcalloc((size_t)nkeys + 1, sizeof *(*it)->values)};
    return 0;
}

/* Steps the iterator's statement: 1 a row, 0 the end, -1 an error (named in err). */
static int curve_step(rdb_curve_it_t *it, const char *what, sgd_err_t *err)
{
    int rc = sqlite3_step(it->st);
    if (rc == SQLITE_ROW) return 1;
    if (rc == SQLITE_DONE) return 0;
    return rdb_sqlerr(it->db, what, err);
}

int rdb_curve_runs_open(rdb_t *db, const char *const *keys, int nkeys,
                        const rdb_selection_t *sel, rdb_curve_it_t **it, sgd_err_t *err)
{
    char columns[2048] = "", where[4096], sql[8192];
    size_t len = 0;
    *it = NULL;
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
             " json_remove(r.config_json, '$.seed', '$.numerics.threads'), r.git_rev%s"
             " FROM runs r WHERE 1%s ORDER BY r.id", columns, where);
    if (curve_open(db, sql, nkeys, it, err)) return -1;
    bind_where((*it)->st, sel, 1);
    return 0;
}

int rdb_curve_runs_next(rdb_curve_it_t *it, rdb_curve_run_t *run, sgd_err_t *err)
{
    int rc = curve_step(it, "cannot read runs", err);
    if (rc <= 0) return rc;
    sqlite3_stmt *st = it->st;
    *run = (rdb_curve_run_t){
        .id = sqlite3_column_int64(st, 0), .seed = sqlite3_column_int64(st, 1),
        .scenario = (const char *)sqlite3_column_text(st, 2),
        .status = (const char *)sqlite3_column_text(st, 3),
        .config = (const char *)sqlite3_column_text(st, 4),
        .build = (const char *)sqlite3_column_text(st, 5), .values = it->values};
    for (int k = 0; k < it->nkeys; k++)
        it->values[k] = (const char *)sqlite3_column_text(st, 6 + k);
    return 1;
}

int rdb_curve_points_open(rdb_t *db, const char *metric, const rdb_selection_t *sel,
                          rdb_curve_it_t **it, sgd_err_t *err)
{
    char where[4096], sql[8192];
    *it = NULL;
    if (where_sql(db, sel, 2, where, sizeof where, err)) return -1;
    snprintf(sql, sizeof sql,
             "SELECT m.run_id, m.update_idx, m.vtime_ns, m.value, m.nonfinite, m.name"
             " FROM metrics m JOIN runs r ON r.id = m.run_id"
             " WHERE m.name = ?1 AND m.value IS NOT NULL%s ORDER BY m.run_id, m.update_idx",
             where);
    if (curve_open(db, sql, 0, it, err)) return -1;
    sqlite3_bind_text((*it)->st, 1, metric, -1, SQLITE_TRANSIENT);
    bind_where((*it)->st, sel, 2);
    return 0;
}

int rdb_curve_points_next(rdb_curve_it_t *it, rdb_curve_point_t *p, sgd_err_t *err)
{
    for (;;) {
        int rc = curve_step(it, "cannot read metric rows", err);
        if (rc <= 0) return rc;
        sqlite3_stmt *st = it->st;
        double v;
        char kind;
        if (!rdb_metric_cell(it->db, st, 3, 4, sqlite3_column_int64(st, 0),
                             (const char *)sqlite3_column_text(st, 5), sqlite3_column_int64(st, 1),
                             &v, &kind))
            continue; /* not a number: left out, and counted */
        if (kind) continue; /* a REAL infinity another program stored: not drawn either */
        int64_t ns = sqlite3_column_int64(st, 2);
        *p = (rdb_curve_point_t){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), ns,
                                 (double)ns / 1e9, v};
        return 1;
    }
}

void rdb_curve_close(rdb_curve_it_t *it)
{
    if (!it) return;
    sqlite3_finalize(it->st);
    free(it->values);
    free(it);
}
