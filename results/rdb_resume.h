/* Continuing a run from a checkpoint in the database it was begun in (`run --resume`,
 * docs/results.md "Checkpoints and resumed runs").
 *
 * A checkpoint names its run by id, run key and started_at: the three together tell this
 * database's run from a run of another database that happens to have the same id.  Resuming
 * happens in ONE write transaction: the run's metric rows after the checkpoint's update are
 * deleted, and its traffic, staleness, version_age and client_labels rows (algorithms
 * report those at the end, from counters the checkpoint holds), the status goes back to
 * 'running' without finished_at, digest or detail, runs.resumes grows by one, the tags asked
 * for are added and this process takes the run's lease.  Nothing is changed when the run is
 * refused: not in this database, another run, a run that ended complete or diverged, one
 * whose writer may still be alive, or a database older than the checkpoint -- holding other
 * metric rows up to its update than the ones the checkpoint was written after (a power loss
 * rolled back commits the checkpoint survived, or the file was restored from a copy): a
 * resume would go on without them. */
#ifndef SGDSIM_RESULTS_RDB_RESUME_H
#define SGDSIM_RESULTS_RDB_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "results/rdb.h"

/* runs.started_at of run_id into buf (what a checkpoint records); -1 when there is none. */
int rdb_run_started_at(rdb_t *db, int64_t run_id, char *buf, size_t size, sgd_err_t *err);

typedef struct rdb_resume {
    int64_t run_id;
    const char *run_key;    /* the checkpoint's run key */
    const char *started_at; /* the checkpoint's runs.started_at */
    int64_t after_update;   /* the checkpoint's update: metric rows after it are deleted */
    /* What the checkpoint expects the database to hold of the run up to that update: its
     * metric rows and the largest update index among them (-1: none). */
    int64_t expect_rows, expect_last_update;
    /* `run --resume --tag`: labels added to the run's tags; a key the run has with another
     * value refuses the resume (a tag is not changed behind its reader's back). */
    const rdb_tag_t *tags;
    size_t ntags;
} rdb_resume_t;

/* Resumes the run (above); it is then active on this handle as after rdb_run_begin.  0, or
 * -1 with a message naming the database and the run (the file is then untouched). */
int rdb_run_resume(rdb_t *db, const rdb_resume_t *req, sgd_err_t *err);

#endif
