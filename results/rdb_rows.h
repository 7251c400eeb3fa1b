/* Typed rows of a results database: a struct per kind of row the reading commands use, and
 * iterators that fill them, so no caller reads SQL columns by position or calls SQLite.
 *
 * Each struct's fields are bound to its query's columns by name (rdb_rows.c: one table per
 * kind lists field, column name and SQL expression; the SELECT list is built from it and
 * every column's name is checked against it when the statement is prepared).  A NULL in
 * the database reads as NULL for text, NaN for reals and has_<field> = false for integers
 * that may be NULL.  Every reader works on the schema versions rdb_open_readonly accepts: a
 * column that an older file lacks reads as NULL.
 *
 * Ownership: an iterator (rdb_rows_it_t, rdb_run_facts_t) is allocated by its _open and
 * freed by rdb_rows_close / rdb_run_facts_close.  The text a row points to belongs to the
 * iterator and stays valid until the next call on it; copy what you keep.
 * Errors: -1 with a message in err that starts with the database path. */
#ifndef SGDSIM_RESULTS_RDB_ROWS_H
#define SGDSIM_RESULTS_RDB_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "results/rdb.h"
#include "results/rdb_meta.h"

/* A run's summary: the runs columns a report or an analysis reads. */
typedef struct rdb_run_row {
    int64_t id;
    const char *run_key, *config_hash; /* run_key: the configuration hash for runs of sgdsim */
    const char *scenario, *algorithm, *status, *backend, *blas_core;
    int64_t workers, seed, updates, vtime_ns;
    bool has_workers, has_updates, has_vtime_ns; /* false: NULL (a running run's updates) */
    double wall_s;           /* NaN when NULL */
    const char *config_json; /* the resolved configuration */
    const char *git_rev;     /* the build that ran it (runs.git_rev) */
    const char *sweep_axes;  /* JSON array of the keys its sweep varied; NULL for a plain run
                                and before schema 3 */
} rdb_run_row_t;

/* One row of a metric. */
typedef struct rdb_metric_row {
    int64_t run_id, update, vtime_ns;
    const char *name;
    double value;          /* NaN when not finite */
    const char *nonfinite; /* NULL for a finite value, else "nan", "inf" or "-inf" */
} rdb_metric_row_t;

/* A run's staleness histogram, summed. */
typedef struct rdb_staleness_row {
    double mean_tau;   /* NaN without a bin of count > 0 */
    int64_t max_tau;   /* of the bins with count > 0 */
    bool has_max_tau;
    double gradients;  /* the histogram's total count (gradients applied); NaN without rows */
} rdb_staleness_row_t;

/* A run's traffic summed over its kinds; NaN / has_sent_msgs false without rows. */
typedef struct rdb_traffic_row {
    double sent_mb, skipped_mb; /* bytes / 1e6 */
    int64_t sent_msgs;
    bool has_sent_msgs;
} rdb_traffic_row_t;

/* One bin of a run's staleness histogram. */
typedef struct rdb_staleness_bin {
    int64_t run_id, tau, count;
} rdb_staleness_bin_t;

/* One kind of a run's traffic (fetch, push, allreduce, ...). */
typedef struct rdb_traffic_kind_row {
    int64_t run_id;
    const char *kind;
    int64_t sent_msgs, sent_bytes, skipped_msgs, skipped_bytes;
} rdb_traffic_kind_row_t;

typedef struct rdb_rows_it rdb_rows_it_t;

/* Which runs rdb_runs_open yields, and in which order. */
typedef struct rdb_runs_query {
    bool finished_only; /* only finished runs (RDB_FINISHED_RULE) */
    bool by_scenario;   /* ordered by scenario, then id; else by id */
} rdb_runs_query_t;

int rdb_runs_open(rdb_t *db, const rdb_runs_query_t *q, rdb_rows_it_t **it, sgd_err_t *err);

/* The next run into *row: 1, or 0 after the last, or -1 on error. */
int rdb_runs_next(rdb_rows_it_t *it, rdb_run_row_t *row, sgd_err_t *err);

/* The final row (largest update) of every metric of every finished run, by run id, then
 * metric name. */
int rdb_finals_open(rdb_t *db, rdb_rows_it_t **it, sgd_err_t *err);

/* The next metric row into *row: 1, or 0 after the last, or -1 on error.  A row whose value
 * is not a number (TEXT or a BLOB another program wrote into metrics.value) is left out,
 * and rdb_close warns about it; a REAL infinity reads as a non-finite value. */
int rdb_metrics_next(rdb_rows_it_t *it, rdb_metric_row_t *row, sgd_err_t *err);

/* Every metric row of every finished run, by run id, metric name, then update (read with
 * rdb_metrics_next). */
int rdb_curves_of_finished_open(rdb_t *db, rdb_rows_it_t **it, sgd_err_t *err);

/* Every staleness bin of every finished run, by run id then tau. */
int rdb_staleness_bins_open(rdb_t *db, rdb_rows_it_t **it, sgd_err_t *err);
int rdb_staleness_bins_next(rdb_rows_it_t *it, rdb_staleness_bin_t *row, sgd_err_t *err);

/* Every traffic row (one per kind) of every finished run, by run id then kind. */
int rdb_traffic_kinds_open(rdb_t *db, rdb_rows_it_t **it, sgd_err_t *err);
int rdb_traffic_kinds_next(rdb_rows_it_t *it, rdb_traffic_kind_row_t *row, sgd_err_t *err);

void rdb_rows_close(rdb_rows_it_t *it); /* NULL is allowed */

/* ---- one run's facts, asked run by run ---------------------------------------------------- */

typedef struct rdb_run_facts rdb_run_facts_t;

int rdb_run_facts_open(rdb_t *db, rdb_run_facts_t **f, sgd_err_t *err);
void rdb_run_facts_close(rdb_run_facts_t *f); /* NULL is allowed */

/* The final row of metric `name` of run `run`: 1 (in *row), 0 when the run has none, -1. */
int rdb_run_final(rdb_run_facts_t *f, int64_t run, const char *name, rdb_metric_row_t *row,
                  sgd_err_t *err);
int rdb_run_staleness(rdb_run_facts_t *f, int64_t run, rdb_staleness_row_t *row,
                      sgd_err_t *err);
int rdb_run_traffic(rdb_run_facts_t *f, int64_t run, rdb_traffic_row_t *row, sgd_err_t *err);

/* Every metric name of the database, sorted, into *names (*n of them; the caller frees
 * them with rdb_names_free). */
int rdb_metric_names(rdb_t *db, char ***names, int *n, sgd_err_t *err);
void rdb_names_free(char **names, int n);

/* Every metric name of run `run`, sorted, into *names (*n of them; rdb_names_free). */
int rdb_run_metric_names(rdb_t *db, int64_t run, char ***names, int *n, sgd_err_t *err);

/* Run `run`'s resolved configuration (runs.config_json) into *json (the caller frees it;
 * NULL when the column is NULL); -1 when there is no such run. */
int rdb_run_config(rdb_t *db, int64_t run, char **json, sgd_err_t *err);

/* ---- a section of `show`, read whole ------------------------------------------------------
 *
 * The rows of one rdb_meta_section (results/rdb_meta.h) with their column names, each cell
 * with the type SQLite gave it, so the caller prints them without stepping a statement.  A
 * blob reads as the text "<blob, N bytes>". */

/* RDB_CELL_JSON: a JSON literal other than a string, in text: a number written exactly
 * (the shortest text that reads back as the same double), true or false. */
typedef enum {
    RDB_CELL_NULL, RDB_CELL_INT, RDB_CELL_REAL, RDB_CELL_TEXT, RDB_CELL_JSON
} rdb_cell_kind_t;

typedef struct rdb_cell {
    rdb_cell_kind_t kind;
    int64_t i;  /* RDB_CELL_INT */
    double r;   /* RDB_CELL_REAL */
    char *text; /* RDB_CELL_TEXT and RDB_CELL_JSON (owned) */
} rdb_cell_t;

/* nrows x ncols cells, row-major; owned by the table (rdb_table_free). */
typedef struct rdb_table {
    int ncols, nrows;
    char **head;
    rdb_cell_t *cell;
    bool absent; /* the database's schema has no such table: no rows */
} rdb_table_t;

int rdb_meta_table(rdb_t *db, rdb_meta_section_t section, int64_t run, rdb_table_t *t,
                   sgd_err_t *err);
void rdb_table_free(rdb_table_t *t);

/* The configuration leaves that differ between runs a and b (rdb_meta_diff), typed: columns
 * "key", "run <a>" and "run <b>".  A string is RDB_CELL_TEXT, a number, true or false
 * RDB_CELL_JSON, and a key that run lacks (or a JSON null) RDB_CELL_NULL. */
int rdb_config_diff(rdb_t *db, int64_t a, int64_t b, rdb_table_t *t, sgd_err_t *err);

#endif
