/* The runner's private state, shared by runner.c (the run) and runner_ckpt.c (its
 * checkpoints); nothing outside these two files includes it. */
#ifndef SGDSIM_ALGORITHMS_RUNNER_INTERNAL_H
#define SGDSIM_ALGORITHMS_RUNNER_INTERNAL_H

#include "algorithms/alg.h"
#include "models/preset.h"

struct alg_runner {
    const alg_sink_t *sink;
    sgd_sha256_t digest;     /* over every metric row, then the final parameters */
    int64_t last_eval_update; /* -1 before the first evaluation */
    int64_t last_vtime_ns;    /* virtual time of the latest update */
    int64_t first_vtime_ns;   /* virtual time of update 1 */
    double last_train_loss;
    /* checkpoints (runner_ckpt.c) */
    bool checkpoints;          /* alg_set_checkpoints was called */
    alg_checkpoint_opts_t ckpt;
    double last_ckpt_wall_s;   /* monotonic seconds of the last checkpoint (or the start) */
    bool ckpt_due;             /* write one once the current event has returned */
    bool ckpt_exit;            /* ... and stop there */
    bool write_in_flight;      /* ckpt.write returned, ckpt.wait has not said how it ended */
    int64_t in_flight_update;  /* ... the update it is of */
    bool restored;             /* the run continues from a checkpoint: no start() */
};

/* What one run allocates; release() gives it all back, whatever stage setup reached. */
typedef struct run_res {
    sgd_dataset_t train_all, test_all, train, val;
    model_t *model;
    sgd_backend_t backend;
    sim_engine_t *engine;
    void *state;                /* the algorithm's */
    float *params;
    model_preset_t preset;
    uint64_t *real_tensors;
} run_res_t;

struct alg_prepared {
    const alg_ops_t *ops;
    struct alg_runner runner;
    alg_ctx_t ctx;   /* points into runner and res: the struct stays where it was allocated */
    run_res_t res;
    bool executed;
};

/* Called by alg_update_done after an update that lets the run go on: looks whether the
 * write in flight failed (then the run fails: false), decides whether a checkpoint is due (by
 * updates, wall time or a signal) and, when it is, stops the engine after the current event
 * so that it is written between events.  Returns whether the run may go on. */
bool alg_runner_checkpoint_check(alg_ctx_t *ctx);

/* Writes the checkpoint that is due (runner.c's loop, between events).  Returns false when
 * the run must stop: it failed to write one (ctx->status failed, detail says why) or it was
 * asked to stop after it (ALG_CHECKPOINTED). */
bool alg_runner_checkpoint_write(alg_prepared_t *run);

/* Before a restored run's first event: when a stop with a checkpoint was asked for since
 * (a signal while the run was loading and resuming), its state is still the checkpoint's,
 * between events; it is written again and the run stops there (true) instead of making
 * one more update first.  False: the run goes on. */
bool alg_runner_checkpoint_stop_at_start(alg_prepared_t *run);

/* Waits for the checkpoint write in flight, if any, when the run's engine has stopped for
 * good (runner.c): the run ends only once its last checkpoint is in place.  A failed write
 * fails a run that was running or complete (the first reason a run ends with wins). */
void alg_runner_checkpoint_drain(alg_prepared_t *run);

/* Whether alg_request_checkpoint_exit was called (and not yet served). */
bool alg_runner_checkpoint_exit_requested(void);

#endif
