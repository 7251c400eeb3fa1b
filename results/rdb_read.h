/* Reading a results database: every question the subcommands ask of one (which runs it
 * holds, a run's final values and series, which configurations are finished, the curves of a
 * metric), so that only results/ knows the schema's tables, columns and SQL.
 *
 * Questions with one answer are functions (rdb_has_metric, rdb_key_finished, ...); row sets
 * are typed readers elsewhere: rdb_rows.h (runs and their facts), rdb_curves.h (a metric's
 * curves over selected runs), rdb_dump.h (whole tables, for export).
 * A finished run is one that completed or diverged (RDB_FINISHED_RULE, the finished_runs
 * view).  Every reader works on the schema versions rdb_open_readonly accepts: a column
 * that an older file lacks reads as NULL.
 *
 * Errors: -1 with a message in err that starts with the database path. */
#ifndef SGDSIM_RESULTS_RDB_READ_H
#define SGDSIM_RESULTS_RDB_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "results/rdb.h"

/* A query to print as an example of what a user may ask a results database. */
#define RDB_EXAMPLE_QUERY "SELECT * FROM run_summary"

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
    int64_t heartbeat_age_s; /* seconds since its last commit; negative when the owner's
                                clock is ahead of this host's (within RDB_LEASE_AHEAD_MS) */
} rdb_live_run_t;

/* The run a point's checkpoint continues (sweep --checkpoint-dir), which
 * rdb_delete_unfinished must keep: the checkpoint names it by id and runs.started_at. */
typedef struct rdb_keep_run {
    int64_t id;
    const char *started_at;
    bool found; /* out: an unfinished run of the key with this id and start is there */
} rdb_keep_run_t;

/* Deletes the abandoned runs with this run key, with their rows, in one transaction:
 * every 'failed' one and every 'running' one whose owner is provably gone (rdb_lease.h);
 * *ndeleted = how many.  A running run whose owner may be alive is left alone: *nlive =
 * how many, and *live describes the first (id 0 when none).  For a resumed sweep, before it
 * redoes the point, which it must not redo while *nlive > 0.
 * With keep (else NULL), that run is not deleted (it is counted in *nlive if its owner may
 * be alive); when it is not among the key's unfinished runs, keep->found is false and
 * nothing is deleted, so that a checkpoint of another database costs this one no rows. */
int rdb_delete_unfinished(rdb_t *db, const char *run_key, rdb_keep_run_t *keep, int *ndeleted,
                          int *nlive, rdb_live_run_t *live, sgd_err_t *err);

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

#endif
