/* `sgdsim sweep`'s checkpoints (--checkpoint-dir DIR, --checkpoint-every DURATION,
 * --checkpoint-every-updates N; README, "Sweeps"): each point runs as `sgdsim run
 * --checkpoint DIR/RUN_KEY.ckpt` with the sweep's checkpoint options, so a point's file is
 * named by its run key and found again by every later sweep of the same points; a point
 * whose file is there continues with `run --resume` (the same bits as a point never
 * interrupted), and a point that ends complete or diverged loses its file.
 *
 * Without --checkpoint-dir nothing here is used and a sweep behaves as it always has.  The
 * MPI driver refuses the option: a point's checkpoint names its run in one rank's database,
 * which rank 0 merges and deletes before the next attempt deals the points out again. */
#ifndef SGDSIM_SWEEP_CKPT_H
#define SGDSIM_SWEEP_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ckpt_file.h"
#include "common/error.h"

typedef struct sweep_ckpt {
    const char *dir;        /* --checkpoint-dir, or NULL: no checkpoints */
    const char *every;      /* --checkpoint-every as given (checked, passed on), or NULL */
    uint64_t every_updates; /* --checkpoint-every-updates; 0 = none */
} sweep_ckpt_t;

/* Whether the sweep writes checkpoints (c may be NULL). */
bool sweep_ckpt_on(const sweep_ckpt_t *c);

/* Before anything runs: the directory is created if missing (its parent must exist) and
 * must be a directory this process can create files in (tried, not guessed from its mode).
 * 0, or exit code 2 after a message naming --checkpoint-dir and the directory. */
int sweep_ckpt_ready(const sweep_ckpt_t *c);

/* A point's checkpoint, as the sweep finds it before starting the point. */
typedef struct sweep_point_ckpt {
    char *path;           /* DIR/RUN_KEY.ckpt (owned) */
    bool resume;          /* the file is there: the point continues from it */
    sgd_ckpt_meta_t meta; /* its header (which run of which database, after which update) */
} sweep_point_ckpt_t;

/* Looks for the checkpoint of the point with run_key.  0 (pc filled; free it with
 * sweep_point_ckpt_free), or -1 with a message naming the file when something is there
 * that is not a checkpoint of this point. */
int sweep_ckpt_find(const sweep_ckpt_t *c, const char *run_key,
                    sweep_point_ckpt_t *pc, sgd_err_t *err);
void sweep_point_ckpt_free(sweep_point_ckpt_t *pc);

/* The options of the point's `sgdsim run`: appended to argv from index a (at most
 * SWEEP_CKPT_MAX_ARGS, pointing into pc, c and num[32]); returns the new index. */
#define SWEEP_CKPT_MAX_ARGS 8
int sweep_ckpt_argv(const sweep_ckpt_t *c, const sweep_point_ckpt_t *pc,
                    const char **argv, int a, char num[32]);

/* A point that ended complete or diverged, or was found finished: its checkpoint and any
 * temporary file a writer killed mid-write left beside it are deleted (a failure is a
 * warning on stderr: the results are in the database). */
void sweep_ckpt_remove(const sweep_ckpt_t *c, const char *run_key);

#endif
