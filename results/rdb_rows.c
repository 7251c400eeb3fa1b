/* Typed rows (rdb_rows.h).  Each kind of row has one table of columns: the field it fills,
 * the column's name and the SQL expression that computes it.  The SELECT list is built from
 * the table ("expr AS name"), the names SQLite reports are checked against it once the
 * statement is prepared, and a step copies column i into the field the table names, so the
 * position of a column is never written by hand anywhere. */
#include "results/rdb_rows.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/rdb_internal.h"
#include "results/rdb_reader.h"

/* How a column reaches its field: text (NULL stays NULL), real (NULL is NaN), integer, or
 * integer that may be NULL (with a bool has_<field> beside it). */
typedef enum { COL_TEXT, COL_REAL, COL_INT, COL_INT_OR_NULL } col_kind_t;

typedef struct col {
    const char *name, *expr;
    col_kind_t kind;
    size_t off, has_off; /* the field, and for COL_INT_OR_NULL its has_ flag */
} col_t;

#define RUN_COL(NAME, KIND) {#NAME, "r." #NAME, KIND, offsetof(rdb_run_row_t, NAME), 0}
#define RUN_INT_OR_NULL(NAME)                                                                 \
    {#NAME, "r." #NAME, COL_INT_OR_NULL, offsetof(rdb_run_row_t, NAME),                       \
     offsetof(rdb_run_row_t, has_##NAME)}

/* The runs columns of rdb_run_row_t; sweep_axes last, replaced by NULL before schema 3. */
static const col_t run_cols[] = {
    RUN_COL(id, COL_INT),           RUN_COL(run_key, COL_TEXT),
    RUN_COL(config_hash, COL_TEXT), RUN_COL(scenario, COL_TEXT),
    RUN_COL(algorithm, COL_TEXT),   RUN_COL(status, COL_TEXT),
    RUN_COL(backend, COL_TEXT),     RUN_COL(blas_core, COL_TEXT),
    RUN_INT_OR_NULL(workers),       RUN_COL(seed, COL_INT),
    RUN_INT_OR_NULL(updates),       RUN_INT_OR_NULL(vtime_ns),
    RUN_COL(wall_s, COL_REAL),      RUN_COL(config_json, COL_TEXT),
    RUN_COL(git_rev, COL_TEXT),     RUN_COL(sweep_axes, COL_TEXT),
};
#define NRUN_COLS ((int)(sizeof run_cols / sizeof run_cols[0]))

#define METRIC_COL(NAME, EXPR, KIND) {#NAME, EXPR, KIND, offsetof(rdb_metric_row_t, NAME), 0}
static const col_t metric_cols[] = {
    METRIC_COL(run_id, "m.run_id", COL_INT),     METRIC_COL(update, "m.update_idx", COL_INT),
    METRIC_COL(vtime_ns, "m.vtime_ns", COL_INT), METRIC_COL(name, "m.name", COL_TEXT),
    METRIC_COL(value, "m.value", COL_REAL),      METRIC_COL(nonfinite, "m.nonfinite", COL_TEXT),
};
#define NMETRIC_COLS ((int)(sizeof metric_cols / sizeof metric_cols[0]))

/* Of run ?1; the mean and max over bins that counted something, as report always showed. */
static const col_t staleness_cols[] = {
    {"mean_tau", "(SELECT sum(tau * count) * 1.0 / sum(count) FROM staleness"
                 " WHERE run_id = ?1 AND count > 0)",
     COL_REAL, offsetof(rdb_staleness_row_t, mean_tau), 0},
    {"max_tau", "(SELECT max(tau) FROM staleness WHERE run_id = ?1 AND count > 0)",
     COL_INT_OR_NULL, offsetof(rdb_staleness_row_t, max_tau),
     offsetof(rdb_staleness_row_t, has_max_tau)},
    {"gradients", "(SELECT sum(count) FROM staleness WHERE run_id = ?1)", COL_REAL,
     offsetof(rdb_staleness_row_t, gradients), 0},
};

static const col_t traffic_cols[] = {
    {"sent_mb", "sum(sent_bytes) / 1e6", COL_REAL, offsetof(rdb_traffic_row_t, sent_mb), 0},
    {"sent_msgs", "sum(sent_msgs)", COL_INT_OR_NULL, offsetof(rdb_traffic_row_t, sent_msgs),
     offsetof(rdb_traffic_row_t, has_sent_msgs)},
    {"skipped_mb", "sum(skipped_bytes) / 1e6", COL_REAL,
     offsetof(rdb_traffic_row_t, skipped_mb), 0},
};

#define BIN_COL(NAME) {#NAME, "s." #NAME, COL_INT, offsetof(rdb_staleness_bin_t, NAME), 0}
static const col_t bin_cols[] = {BIN_COL(run_id), BIN_COL(tau), BIN_COL(count)};

#define KIND_COL(NAME, KIND)                                                                  \
    {#NAME, "t." #NAME, KIND, offsetof(rdb_traffic_kind_row_t, NAME), 0}
static const col_t kind_cols[] = {
    KIND_COL(run_id, COL_INT),       KIND_COL(kind, COL_TEXT),
    KIND_COL(sent_msgs, COL_INT),    KIND_COL(sent_bytes, COL_INT),
    KIND_COL(skipped_msgs, COL_INT), KIND_COL(skipped_bytes, COL_INT),
};

#define NCOLS(T) ((int)(sizeof T / sizeof T[0]))

/* A prepared statement with the column table its rows fill. */
typedef struct bound {
    sqlite3_stmt *st;
    const col_t *cols;
    int ncols;
} bound_t;

struct rdb_rows_it {
    rdb_t *db;
    bound_t b;
};

struct rdb_run_facts {
    rdb_t *db;
    bound_t final, staleness, traffic;
};

/* "SELECT <expr> AS <name>, ... <tail>"; expr "NULL" for the columns from nnull on. */
static char *select_sql(const col_t *cols, int n, int nnull, const char *tail)
{
    size_t len = strlen(tail) + 16;
    for (int i = 0; i < n; i++) len += strlen(cols[i].expr) + strlen(cols[i].name) + 8;
    char *sql = sgd_xmalloc(len);
    size_t at = (size_t)snprintf(sql, len, "SELECT ");
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf(sql + at, len - at, "%s%s AS \"%s\"", i ? ", " : "",
                               i < nnull ? cols[i].expr : "NULL", cols[i].name);
    snprintf(sql + at, len - at, " %s", tail);
    return sql;
}

/* Prepares the SELECT of cols with tail into *b, and checks each column's name. */
static int bind_prepare(rdb_t *db, const col_t *cols, int n, int nnull, const char *tail,
                        bound_t *b, sgd_err_t *err)
{
    char *sql = select_sql(cols, n, nnull, tail);
    *b = (bound_t){.cols = cols, .ncols = n};
    int rc = sqlite3_prepare_v2(db->db, sql, -1, &b->st, NULL);
    free(sql);
    if (rc != SQLITE_OK) return rdb_sqlerr(db, "cannot read", err);
    SGD_ASSERT(sqlite3_column_count(b->st) == n);
    for (int i = 0; i < n; i++)
        SGD_ASSERT(strcmp(sqlite3_column_name(b->st, i), cols[i].name) == 0);
    return 0;
}

/* Copies the current row of b->st into the struct at base, field by field. */
static void bind_fill(const bound_t *b, void *base)
{
    char *p = base;
    for (int i = 0; i < b->ncols; i++) {
        const col_t *c = &b->cols[i];
        bool null = sqlite3_column_type(b->st, i) == SQLITE_NULL;
        switch (c->kind) {
        case COL_TEXT:
            *(const char **)(p + c->off) = (const char *)sqlite3_column_text(b->st, i);
            break;
        case COL_REAL:
            *(double *)(p + c->off) = null ? NAN : sqlite3_column_double(b->st, i);
            break;
        case COL_INT: *(int64_t *)(p + c->off) = sqlite3_column_int64(b->st, i); break;
        case COL_INT_OR_NULL:
            *(int64_t *)(p + c->off) = null ? 0 : sqlite3_column_int64(b->st, i);
            *(bool *)(p + c->has_off) = !null;
            break;
        }
    }
}

/* Steps b into the struct at base: 1 row, 0 done, -1 error. */
static int bind_step(rdb_t *db, const bound_t *b, void *base, sgd_err_t *err)
{
    int rc = sqlite3_step(b->st);
    if (rc == SQLITE_ROW) {
        bind_fill(b, base);
        return 1;
    }
    return rc == SQLITE_DONE ? 0 : rdb_sqlerr(db, "cannot read", err);
}

static rdb_rows_it_t *it_new(rdb_t *db)
{
    rdb_rows_it_t *it = sgd_xcalloc(1, sizeof *it);
    it->db = db;
    return it;
}

int rdb_runs_open(rdb_t *db, const rdb_runs_query_t *q, rdb_rows_it_t **out, sgd_err_t *err)
{
    char tail[256];
    snprintf(tail, sizeof tail, "FROM runs r%s ORDER BY %s",
             q->finished_only ? " WHERE r." RDB_FINISHED_RULE : "",
             q->by_scenario ? "r.scenario, r.id" : "r.id");
    rdb_rows_it_t *it = it_new(db);
    /* Before schema 3 runs has no sweep_axes: it reads as NULL. */
    int nreal = db->version < 3 ? NRUN_COLS - 1 : NRUN_COLS;
    if (bind_prepare(db, run_cols, NRUN_COLS, nreal, tail, &it->b, err)) {
        rdb_rows_close(it);
        return -1;
    }
    *out = it;
    return 0;
}

int rdb_runs_next(rdb_rows_it_t *it, rdb_run_row_t *row, sgd_err_t *err)
{
    SGD_ASSERT(it->b.cols == run_cols);
    return bind_step(it->db, &it->b, row, err);
}

int rdb_finals_open(rdb_t *db, rdb_rows_it_t **out, sgd_err_t *err)
{
    static const char tail[] =
        "FROM metrics m JOIN (SELECT run_id, name, max(update_idx) AS last FROM metrics"
        " WHERE run_id IN (SELECT id FROM runs WHERE " RDB_FINISHED_RULE ")"
        " GROUP BY run_id, name) f ON f.run_id = m.run_id AND f.name = m.name"
        " AND f.last = m.update_idx ORDER BY m.run_id, m.name";
    rdb_rows_it_t *it = it_new(db);
    if (bind_prepare(db, metric_cols, NMETRIC_COLS, NMETRIC_COLS, tail, &it->b, err)) {
        rdb_rows_close(it);
        return -1;
    }
    *out = it;
    return 0;
}

/* Steps b to its next metric row whose value is a number (rdb_metric_cell: the others are
 * left out, and counted), with value NaN and nonfinite set for a non-finite one. */
static int metric_step(rdb_t *db, const bound_t *b, rdb_metric_row_t *row, sgd_err_t *err)
{
    static const char *const kinds[] = {"nan", "inf", "-inf"};
    for (;;) {
        int rc = bind_step(db, b, row, err);
        if (rc <= 0) return rc;
        char kind;
        if (!rdb_metric_cell(db, b->st, 4, 5, row->run_id, row->name, row->update, &row->value,
                             &kind))
            continue;
        if (kind) row->nonfinite = kinds[kind == 'n' ? 0 : kind == 'i' ? 1 : 2];
        return 1;
    }
}

int rdb_metrics_next(rdb_rows_it_t *it, rdb_metric_row_t *row, sgd_err_t *err)
{
    SGD_ASSERT(it->b.cols == metric_cols);
    return metric_step(it->db, &it->b, row, err);
}

/* An iterator over the SELECT of cols (every column real) with tail. */
static int rows_open(rdb_t *db, const col_t *cols, int n, const char *tail,
                     rdb_rows_it_t **out, sgd_err_t *err)
{
    rdb_rows_it_t *it = it_new(db);
    if (bind_prepare(db, cols, n, n, tail, &it->b, err)) {
        rdb_rows_close(it);
        return -1;
    }
    *out = it;
    return 0;
}

/* The rows of finished runs only, by run id first (the prefix of an ORDER BY). */
#define OF_FINISHED(ALIAS) " WHERE " ALIAS ".run_id IN (SELECT id FROM runs WHERE " \
    RDB_FINISHED_RULE ") ORDER BY " ALIAS ".run_id"

int rdb_curves_of_finished_open(rdb_t *db, rdb_rows_it_t **it, sgd_err_t *err)
{
    return rows_open(db, metric_cols, NMETRIC_COLS,
                     "FROM metrics m" OF_FINISHED("m") ", m.name, m.update_idx", it, err);
}

int rdb_staleness_bins_open(rdb_t *db, rdb_rows_it_t **it, sgd_err_t *err)
{
    return rows_open(db, bin_cols, NCOLS(bin_cols), "FROM staleness s" OF_FINISHED("s")
                     ", s.tau", it, err);
}

int rdb_staleness_bins_next(rdb_rows_it_t *it, rdb_staleness_bin_t *row, sgd_err_t *err)
{
    SGD_ASSERT(it->b.cols == bin_cols);
    return bind_step(it->db, &it->b, row, err);
}

int rdb_traffic_kinds_open(rdb_t *db, rdb_rows_it_t **it, sgd_err_t *err)
{
    return rows_open(db, kind_cols, NCOLS(kind_cols), "FROM traffic t" OF_FINISHED("t")
                     ", t.kind", it, err);
}

int rdb_traffic_kinds_next(rdb_rows_it_t *it, rdb_traffic_kind_row_t *row, sgd_err_t *err)
{
    SGD_ASSERT(it->b.cols == kind_cols);
    return bind_step(it->db, &it->b, row, err);
}

void rdb_rows_close(rdb_rows_it_t *it)
{
    if (!it) return;
    sqlite3_finalize(it->b.st);
    free(it);
}

/* ---- one run's facts ------------------------------------------------------------------ */

int rdb_run_facts_open(rdb_t *db, rdb_run_facts_t **out, sgd_err_t *err)
{
    rdb_run_facts_t *f = sgd_xcalloc(1, sizeof *f);
    f->db = db;
    int rc = bind_prepare(db, metric_cols, NMETRIC_COLS, NMETRIC_COLS,
                          "FROM metrics m WHERE m.run_id = ?1 AND m.name = ?2"
                          " ORDER BY m.update_idx DESC", &f->final, err);
    if (!rc)
        rc = bind_prepare(db, staleness_cols, NCOLS(staleness_cols), NCOLS(staleness_cols), "",
                          &f->staleness, err);
    if (!rc)
        rc = bind_prepare(db, traffic_cols, NCOLS(traffic_cols), NCOLS(traffic_cols),
                          "FROM traffic WHERE run_id = ?1", &f->traffic, err);
    if (rc) {
        rdb_run_facts_close(f);
        return -1;
    }
    *out = f;
    return 0;
}

void rdb_run_facts_close(rdb_run_facts_t *f)
{
    if (!f) return;
    sqlite3_finalize(f->final.st);
    sqlite3_finalize(f->staleness.st);
    sqlite3_finalize(f->traffic.st);
    free(f);
}

int rdb_run_final(rdb_run_facts_t *f, int64_t run, const char *name, rdb_metric_row_t *row,
                  sgd_err_t *err)
{
    sqlite3_reset(f->final.st);
    sqlite3_bind_int64(f->final.st, 1, run);
    sqlite3_bind_text(f->final.st, 2, name, -1, SQLITE_TRANSIENT);
    return metric_step(f->db, &f->final, row, err); /* the last row that is a number */
}

int rdb_run_staleness(rdb_run_facts_t *f, int64_t run, rdb_staleness_row_t *row,
                      sgd_err_t *err)
{
    sqlite3_reset(f->staleness.st);
    sqlite3_bind_int64(f->staleness.st, 1, run);
    return bind_step(f->db, &f->staleness, row, err) < 0 ? -1 : 0;
}

int rdb_run_traffic(rdb_run_facts_t *f, int64_t run, rdb_traffic_row_t *row, sgd_err_t *err)
{
    sqlite3_reset(f->traffic.st);
    sqlite3_bind_int64(f->traffic.st, 1, run);
    return bind_step(f->db, &f->traffic, row, err) < 0 ? -1 : 0;
}

/* Steps st (prepared; finalized here) into *names / *n, one name a row.  On an error
 * nothing is left allocated: *names is NULL and *n 0, so a caller's free of (names, n)
 * is always right. */
int rdb_read_names(rdb_t *db, sqlite3_stmt *st, const char *what, char ***names, int *n,
                   sgd_err_t *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        *names = sgd_xrealloc(*names, (size_t)(*n + 1) * sizeof **names);
        (*names)[(*n)++] = sgd_xstrdup(s ? s : "");
    }
    if (rc != SQLITE_DONE) rdb_sqlerr(db, what, err);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return 0;
    rdb_names_free(*names, *n);
    *names = NULL;
    *n = 0;
    return -1;
}

int rdb_metric_names(rdb_t *db, char ***names, int *n, sgd_err_t *err)
{
    *names = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT DISTINCT name FROM metrics ORDER BY name", -1, &st,
                           NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read metric names", err);
    return rdb_read_names(db, st, "cannot read metric names", names, n, err);
}

void rdb_names_free(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

int rdb_run_metric_names(rdb_t *db, int64_t run, char ***names, int *n, sgd_err_t *err)
{
    *names = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT DISTINCT name FROM metrics WHERE run_id = ?1"
                           " ORDER BY name", -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read metric names", err);
    sqlite3_bind_int64(st, 1, run);
    return rdb_read_names(db, st, "cannot read metric names", names, n, err);
}

int rdb_run_config(rdb_t *db, int64_t run, char **json, sgd_err_t *err)
{
    *json = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT config_json FROM runs WHERE id = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read a run's configuration", err);
    sqlite3_bind_int64(st, 1, run);
    int rc = sqlite3_step(st);
    const char *s = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (s) *json = sgd_xstrdup(s);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc == SQLITE_DONE) return sgd_errf(err, "%s: no run %lld", rdb_path(db), (long long)run);
    return rdb_sqlerr(db, "cannot read a run's configuration", err);
}

/* ---- a section of show ---------------------------------------------------------------- */

rdb_cell_t rdb_cell_of(sqlite3_stmt *st, int i)
{
    rdb_cell_t c = {.kind = RDB_CELL_NULL};
    char buf[64];
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: break;
    case SQLITE_INTEGER: c.kind = RDB_CELL_INT, c.i = sqlite3_column_int64(st, i); break;
    case SQLITE_FLOAT: c.kind = RDB_CELL_REAL, c.r = sqlite3_column_double(st, i); break;
    case SQLITE_BLOB:
        snprintf(buf, sizeof buf, "<blob, %d byte%s>", sqlite3_column_bytes(st, i),
                 sqlite3_column_bytes(st, i) == 1 ? "" : "s");
        c.kind = RDB_CELL_TEXT, c.text = sgd_xstrdup(buf);
        break;
    default: {
        const char *s = (const char *)sqlite3_column_text(st, i);
        c.kind = RDB_CELL_TEXT, c.text = sgd_xstrdup(s ? s : "");
    }
    }
    return c;
}

/* Every row of st into t, whose head it sets. */
static int table_fill(rdb_t *db, sqlite3_stmt *st, rdb_table_t *t, sgd_err_t *err)
{
    t->ncols = sqlite3_column_count(st);
    t->head = sgd_xcalloc((size_t)t->ncols + 1, sizeof *t->head);
    for (int c = 0; c < t->ncols; c++) t->head[c] = sgd_xstrdup(sqlite3_column_name(st, c));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        t->cell = sgd_xrealloc(t->cell, (size_t)(t->nrows + 1) * (size_t)t->ncols *
                                            sizeof *t->cell + 1);
        for (int c = 0; c < t->ncols; c++)
            t->cell[(size_t)t->nrows * (size_t)t->ncols + (size_t)c] = rdb_cell_of(st, c);
        t->nrows++;
    }
    return rc == SQLITE_DONE ? 0 : rdb_sqlerr(db, "cannot read", err);
}

int rdb_meta_table(rdb_t *db, rdb_meta_section_t section, int64_t run, rdb_table_t *t,
                   sgd_err_t *err)
{
    *t = (rdb_table_t){0};
    sqlite3_stmt *st = NULL;
    if (rdb_meta_section(db, section, run, &st, err)) return -1;
    if (!st) {
        t->absent = true;
        return 0;
    }
    int rc = table_fill(db, st, t, err);
    sqlite3_finalize(st);
    if (rc) rdb_table_free(t);
    return rc;
}

void rdb_table_free(rdb_table_t *t)
{
    for (int c = 0; c < t->ncols; c++) free(t->head[c]);
    for (int i = 0; i < t->nrows * t->ncols; i++) free(t->cell[i].text);
    free(t->head);
    free(t->cell);
    *t = (rdb_table_t){0};
}

/* ---- the configuration diff ----------------------------------------------------------- */

/* A side of a diff row: its json_tree type in column type_col, its exact text after it. */
static rdb_cell_t diff_cell(sqlite3_stmt *st, int type_col)
{
    const char *type = (const char *)sqlite3_column_text(st, type_col);
    const char *text = (const char *)sqlite3_column_text(st, type_col + 1);
    if (!type || !text || strcmp(type, "null") == 0) return (rdb_cell_t){.kind = RDB_CELL_NULL};
    rdb_cell_kind_t kind = strcmp(type, "text") == 0 ? RDB_CELL_TEXT : RDB_CELL_JSON;
    return (rdb_cell_t){.kind = kind, .text = sgd_xstrdup(text)};
}

static char *run_head(int64_t run)
{
    char buf[32];
    snprintf(buf, sizeof buf, "run %lld", (long long)run);
    return sgd_xstrdup(buf);
}

int rdb_config_diff(rdb_t *db, int64_t a, int64_t b, rdb_table_t *t, sgd_err_t *err)
{
    *t = (rdb_table_t){.ncols = 3};
    sqlite3_stmt *st = NULL;
    if (rdb_meta_diff(db, a, b, &st, err)) return -1;
    t->head = sgd_xcalloc(3, sizeof *t->head);
    t->head[0] = sgd_xstrdup("key");
    t->head[1] = run_head(a);
    t->head[2] = run_head(b);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        t->cell = sgd_xrealloc(t->cell, (size_t)(t->nrows + 1) * 3 * sizeof *t->cell);
        rdb_cell_t *row = &t->cell[(size_t)t->nrows * 3];
        const char *key = (const char *)sqlite3_column_text(st, 0);
        row[0] = (rdb_cell_t){.kind = RDB_CELL_TEXT, .text = sgd_xstrdup(key ? key : "")};
        row[1] = diff_cell(st, 1);
        row[2] = diff_cell(st, 3);
        t->nrows++;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return 0;
    rdb_table_free(t);
    return rdb_sqlerr(db, "cannot compare the runs' configurations", err);
}
