/* A whole study read in bulk: every metric row, histogram bin, traffic counter, tag and the
 * runs' provenance text of a results database, each kind in one pass, for the HTML results
 * browser (web/), which draws a page from all of them at once.  Asking run by run
 * (rdb_rows.h) would make one query per run and metric: for 1,000 runs x 1,000 rows the
 * page would take minutes instead of seconds.
 *
 * Every part reads in (run id, then its own key) order, and works on the schemas
 * rdb_open_readonly accepts: a table an older schema lacks (version_age, tags before
 * schema 3) yields no rows, a column it lacks (runs.command_line) reads as NULL.
 *
 * Ownership: the iterator is the caller's (rdb_study_close); the text of a row belongs to
 * the iterator and stays valid until the next call on it.
 * Errors: -1 with a message in err that starts with the database path. */
#ifndef SGDSIM_RESULTS_RDB_STUDY_H
#define SGDSIM_RESULTS_RDB_STUDY_H

#include <stdint.h>

#include "common/error.h"
#include "results/rdb.h"

/* Which rows an iterator yields, and what each field of rdb_study_row_t holds for them. */
typedef enum rdb_study_part {
    /* Every metric row by run, name, update: text[0] name, i[0] update, i[1] vtime_ns,
     * value (NaN when not finite), text[1] NULL or "nan" / "inf" / "-inf". */
    RDB_STUDY_METRICS,
    /* Staleness histogram bins by run, tau: i[0] tau, i[1] count. */
    RDB_STUDY_STALENESS,
    /* Parameter-age histogram bins by run, age: i[0] age, i[1] count. */
    RDB_STUDY_VERSION_AGE,
    /* Traffic by run, kind: text[0] kind, i[0] sent_msgs, i[1] sent_bytes, i[2]
     * skipped_msgs, i[3] skipped_bytes. */
    RDB_STUDY_TRAFFIC,
    /* Tags by run, key: text[0] key, text[1] value. */
    RDB_STUDY_TAGS,
    /* One row per run: text[0] command_line, text[1] status_detail, text[2] started_at,
     * text[3] git_rev, text[4] host, text[5] digest (each NULL when the database has none). */
    RDB_STUDY_RUN_TEXT,
} rdb_study_part_t;

#define RDB_STUDY_NTEXT 6

typedef struct rdb_study_row {
    int64_t run_id;
    int64_t i[4];
    double value;
    const char *text[RDB_STUDY_NTEXT];
} rdb_study_row_t;

typedef struct rdb_study_it rdb_study_it_t;

int rdb_study_open(rdb_t *db, rdb_study_part_t part, rdb_study_it_t **it, sgd_err_t *err);

/* The next row into *row: 1, or 0 after the last, or -1 on error. */
int rdb_study_next(rdb_study_it_t *it, rdb_study_row_t *row, sgd_err_t *err);

void rdb_study_close(rdb_study_it_t *it); /* NULL is allowed */

#endif
