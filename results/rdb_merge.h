/* Merging results databases: copies the finished runs of one database (a shard of a sweep,
 * an MPI rank's file, a colleague's results) into another, with all their rows.
 *
 * A run is identified by (run_key, host, started_at, digest): the same run record, wherever
 * it was copied.  A run of IN whose identity OUT already holds is skipped, so merging the
 * same file twice changes nothing (idempotent), and shards — disjoint by construction —
 * simply add up.  Runs still 'running' in IN (killed, or in progress) are not copied: their
 * rows are incomplete and a later sweep redoes them.  Run ids are OUT's own (new ids for
 * copied runs); only run_key identifies a configuration across databases.
 *
 * The whole merge of one input is one transaction on OUT: an error or a kill leaves OUT as
 * it was.  IN is only read. */
#ifndef SGDSIM_RESULTS_RDB_MERGE_H
#define SGDSIM_RESULTS_RDB_MERGE_H

#include <stdint.h>

#include "common/error.h"
#include "results/rdb.h"

typedef struct rdb_merge_stats {
    int64_t copied;     /* runs copied into OUT */
    int64_t present;    /* runs OUT already held (skipped) */
    int64_t unfinished; /* runs still 'running' in IN (skipped) */
    int64_t rows;       /* metric, traffic, staleness, version_age, tag, artifact and
                           client_labels rows copied */
} rdb_merge_stats_t;

/* Merges the database at in_path into `out` (opened for writing with rdb_open, no run
 * active on it).  IN must be an sgdsim results database of this build's schema version or
 * an older one (its runs are copied as a migration would leave them; IN is not changed) and
 * not the same file as OUT; errors name the path.  *st is filled on success. */
int rdb_merge(rdb_t *out, const char *in_path, rdb_merge_stats_t *st, sgd_err_t *err);

/* Whether in_path can be an input of rdb_merge (the same checks, without merging): 0, or -1
 * with the reason in err.  Lets a caller refuse a bad input before touching OUT. */
int rdb_merge_check_input(const char *in_path, sgd_err_t *err);

#endif
