/* Reading a results database: every question the subcommands ask of one (which runs it
 * holds, a run's final values and series, which configurations are finished, the curves of a
 * metric), so that only results/ knows the schema's tables, columns and SQL.
 *
 * Two kinds of reader:
 *   - questions with one answer are functions (rdb_has_metric, rdb_key_finished, ...);
 *   - row sets are prepared statements of a named query (rdb_read_prepare): the header of
 *     each query below says its parameters and columns, the caller binds, steps and
 *     finalizes it.  A column keeps its SQLite type (integer, real, text or NULL), so
 *     tables print what the database holds.
 * A finished run is one that completed or diverged (RDB_FINISHED_RULE, the finished_runs
 * view).  Every reader works on the schema versions rdb_open_readonly accepts: a column
 * that an older file lacks reads as NULL.
 *
 * Errors: -1 with a message in err that starts with the database path. */
#ifndef SGDSIM_RESULTS_RDB_READ_H
#define SGDSIM_RESULTS_RDB_READ_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "common/error.h"
#include "results/rdb.h"

/* A query to print as an example of what a user may ask a results database. */
#define RDB_EXAMPLE_QUERY "SELECT * FROM run_summary"

typedef enum {
    /* Every metric name of the database, sorted.  Columns: name. */
    RDB_Q_METRIC_NAMES,
    /* The metric names of run ?1 (id), sorted.  Columns: name. */
    RDB_Q_RUN_METRIC_NAMES,
    /* Every run in id order.  Columns: id, key (the run key's first 12 characters),
     * scenario, algorithm, workers, status, updates, vtime_s. */
    RDB_Q_RUNS,
    /* The last row (largest update) of metric ?2 (name) of run ?1 (id); no row when the
     * run has none.  Columns: value (NULL when not finite), nonfinite. */
    RDB_Q_FINAL_VALUE,
    /* Run ?1's staleness: one row; NULLs when it has no histogram.  Columns: mean_tau,
     * max_tau. */
    RDB_Q_STALENESS,
    /* Run ?1's traffic summed over its kinds: one row; NULLs when it has none.  Columns:
     * sent_MB, sent_msgs, skipped_MB. */
    RDB_Q_TRAFFIC,
    /* The latest finished run of each run key, by scenario, algorithm, workers, seed and key.
     * Columns: id, run_key, scenario, algorithm, workers, seed, status, vtime_ns, digest,
     * blas_core. */
    RDB_Q_LATEST_FINISHED,
    /* The latest finished run with run key ?1 (no row when there is none).  Columns: id,
     * status, vtime_ns, digest, blas_core. */
    RDB_Q_FINISHED_OF_KEY,
    /* Every finished run by scenario, then id.  Columns: scenario, config_json, vtime_s,
     * updates, workers, final val_error (NULL when absent or not finite), batch.per_worker
     * of the configuration, sweep_axes (NULL for a plain run and before schema 3),
     * gradients applied (the staleness histogram's total; NULL when the run has none). */
    RDB_Q_SWEEP_RUNS,
    /* Every table and view of the database (not SQLite's own), by name.  Columns: name. */
    RDB_Q_TABLES,
} rdb_query_t;

/* Prepares query q on db into *st (the caller finalizes it). */
int rdb_read_prepare(rdb_t *db, rdb_query_t q, sqlite3_stmt **st, sgd_err_t *err);

/* Every row of table or view `name` (one of RDB_Q_TABLES' names), all its columns. */
int rdb_read_prepare_all(rdb_t *db, const char *name, sqlite3_stmt **st, sgd_err_t *err);

/* Whether some run has a row of metric `name` (false also when the database cannot say). */
bool rdb_has_metric(rdb_t *db, const char *name);

/* *done = whether a finished run with this run key exists. */
int rdb_key_finished(rdb_t *db, const char *run_key, bool *done, sgd_err_t *err);

/* A running run whose owner may still be alive (its lease, results/rdb_lease.h). */
typedef struct rdb_live_run {
    int64_t id;      /* 0: none */
    int64_t pid;     /* the owner's process id */
    char host[256];  /* the owner's host name */
    bool this_host;  /* the owner is on this host (its pid and start time were checked) */
    int64_t heartbeat_age_s; /* seconds since its last commit */
} rdb_live_run_t;

/* Deletes the abandoned runs with this run key, with their rows, in one transaction:
 * every 'failed' one and every 'running' one whose owner is provably gone (rdb_lease.h);
 * *ndeleted = how many.  A running run whose owner may be alive is left alone: *nlive =
 * how many, and *live describes the first (id 0 when none).  For a resumed sweep, before it
 * redoes the point, which it must not redo while *nlive > 0. */
int rdb_delete_unfinished(rdb_t *db, const char *run_key, int *ndeleted, int *nlive,
                          rdb_live_run_t *live, sgd_err_t *err);

/* How many run keys with a finished run in db have none in other. */
int rdb_finished_keys_not_in(rdb_t *db, rdb_t *other, int *count, sgd_err_t *err);

/* One metric of one run, in update order. */
typedef struct rdb_series {
    int n;
    int64_t *update, *vtime; /* update index, virtual time in ns */
    double *value;           /* NaN for non-finite values, told apart by kind */
    char *kind;              /* 0 finite, 'n' nan, 'i' inf, '-' -inf */
} rdb_series_t;

/* Reads metric `name` of run `run` into *s (empty when the run has no such rows); the caller
 * frees it with rdb_series_free. */
int rdb_read_series(rdb_t *db, int64_t run, const char *name, rdb_series_t *s, sgd_err_t *err);
void rdb_series_free(rdb_series_t *s);

/* ---- curves: a metric of finished runs, grouped ------------------------------------------
 *
 * A group key is a column of runs (algorithm, workers, seed, ...), "lambda" (the papers'
 * name for the number of clients, runs.workers), or a dotted key of the configuration
 * (cluster.workers, optimizer.lr) that some run has.  Without keys every run is its own
 * group. */

/* Whether `key` can group curves (see above); the keys of rdb_read_prepare_selected_runs
 * below. */
bool rdb_curve_key_known(rdb_t *db, const char *key);

/* ---- selections: runs chosen by conditions on their keys (plot --where) ------------------
 *
 * A condition compares one key (anything rdb_curve_key_known accepts) with a literal.  Keys
 * reach the SQL text only as a runs column's name checked against the table (or "lambda"),
 * a configuration key's path only as a bound parameter ('$.' and the key), and the literal
 * only as a bound parameter, so no byte of a condition is ever SQL.  A run whose
 * configuration lacks the key does not match.  Numbers compare as numbers (JSON true and
 * false read as 1 and 0), text as text. */

typedef enum { RDB_OP_EQ, RDB_OP_NE, RDB_OP_LT, RDB_OP_LE, RDB_OP_GT, RDB_OP_GE } rdb_op_t;

typedef struct rdb_cond {
    const char *key;
    rdb_op_t op;
    bool is_number; /* compare with number, else with text */
    double number;
    const char *text;
} rdb_cond_t;

typedef struct rdb_selection {
    const rdb_cond_t *conds; /* nconds conditions, all of which must hold */
    int nconds;
    bool running; /* running runs too (a plot that follows them), not only finished ones */
} rdb_selection_t;

/* Prepares the selected runs, one row per run in id order.  Columns: id, seed, scenario,
 * status, the configuration without its seed and thread count (JSON text: runs that differ
 * only by seed have the same), then one column per key of keys[0..nkeys) (see
 * the curves block above for the keys).  An unknown key, in keys or a condition, is an
 * error naming it. */
int rdb_read_prepare_selected_runs(rdb_t *db, const char *const *keys, int nkeys,
                                   const rdb_selection_t *sel, sqlite3_stmt **st,
                                   sgd_err_t *err);

/* Prepares the finite values of metric `metric` in the selected runs.  Columns: run id,
 * update_idx, vtime_s, value; in run id, then update order. */
int rdb_read_prepare_selected_points(rdb_t *db, const char *metric,
                                     const rdb_selection_t *sel, sqlite3_stmt **st,
                                     sgd_err_t *err);

/* ---- compare: finished runs with their configurations ----------------------------------- */

/* Prepares the latest finished run of each run key, by scenario, algorithm, workers, seed and
 * key, with its configuration, for matching runs on configuration keys.  Columns: id,
 * run_key, scenario, algorithm, workers, seed, status, vtime_ns, blas_core, config_json. */
int rdb_read_prepare_finished_configs(rdb_t *db, sqlite3_stmt **st, sgd_err_t *err);

#endif
