/* The curves of a metric: which runs a figure draws (selected by conditions on their keys)
 * and the values it draws, read through typed iterators, so that `plot` neither writes SQL
 * nor reads columns by position.
 *
 * Ownership: an iterator is allocated by its _open and freed by rdb_curve_close.
 * Errors: -1 with a message in err that starts with the database path. */
#ifndef SGDSIM_RESULTS_RDB_CURVES_H
#define SGDSIM_RESULTS_RDB_CURVES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "results/rdb.h"

/* ---- curves: a metric of finished runs, grouped ------------------------------------------
 *
 * A group key is a column of runs (algorithm, workers, seed, ...), "lambda" (the papers'
 * name for the number of clients, runs.workers), or a dotted key of the configuration
 * (cluster.workers, optimizer.lr) that some run has.  Without keys every run is its own
 * group. */

/* Whether `key` can group curves (see above); the keys of rdb_curve_runs_open
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

/* A selected run: what `plot` groups runs by. */
typedef struct rdb_curve_run {
    int64_t id, seed;
    const char *scenario, *status;
    const char *config;        /* the configuration without its seed and thread count (JSON
                                  text: runs that differ only by seed have the same) */
    const char *build;         /* runs.git_rev: the build that ran it */
    const char *const *values; /* the value of each group key as text, NULL for none */
} rdb_curve_run_t;

/* One finite value of the metric in a selected run (rows whose value is not a number are
 * left out, and rdb_close warns about them). */
typedef struct rdb_curve_point {
    int64_t run, update, vtime_ns;
    double vtime_s, value; /* vtime_s = vtime_ns / 1e9 */
} rdb_curve_point_t;

typedef struct rdb_curve_it rdb_curve_it_t;

/* The selected runs, in id order, with the value of each of keys[0..nkeys) (see the curves
 * block above for the keys).  An unknown key, in keys or a condition, is an error naming it. */
int rdb_curve_runs_open(rdb_t *db, const char *const *keys, int nkeys,
                        const rdb_selection_t *sel, rdb_curve_it_t **it, sgd_err_t *err);

/* The next run: 1, 0 after the last, -1 on error.  Its text stays valid until the next
 * call on it. */
int rdb_curve_runs_next(rdb_curve_it_t *it, rdb_curve_run_t *run, sgd_err_t *err);

/* The finite values of metric `metric` in the selected runs, in run id, then update order. */
int rdb_curve_points_open(rdb_t *db, const char *metric, const rdb_selection_t *sel,
                          rdb_curve_it_t **it, sgd_err_t *err);

/* The next point: 1, 0 after the last, -1 on error. */
int rdb_curve_points_next(rdb_curve_it_t *it, rdb_curve_point_t *p, sgd_err_t *err);

void rdb_curve_close(rdb_curve_it_t *it); /* NULL is allowed */

#endif
