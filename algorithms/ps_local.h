/* Local training, a client capability of the parameter-server family (algorithm.local,
 * docs/scenario.md): a client that fetched theta_stale runs S local SGD steps on its own data
 * and pushes the model delta Delta = theta_stale - theta_local instead of one gradient.
 *
 * A task is evaluated lazily, like a gradient (ps_ledger.h): a request names (snapshot,
 * client, task index) and its evaluation runs the local steps.  The evaluation is a pure
 * function of the snapshot's parameters and the task -- its minibatches come from a stream
 * derived from (seed, client, task index) when it runs, never from a stream that other tasks
 * advance -- so any thread may run it, in any order, with the same bits (the CPU backend's
 * background threads run independent tasks in parallel: ps_ledger.c).
 *
 * Minibatches of a task: batch.per_worker rows each.  With a partition (data.partition) drawn
 * uniformly with replacement from the client's own samples; without one, by the family's
 * minibatch rule: "random" rows uniformly from the whole training set, "cyclic" the task's
 * S consecutive blocks of the run's cyclic order (its first block t is fixed when the task's
 * push is made, as a gradient's is).  Each step is optim_sgd_step with the local learning
 * rate and momentum (the velocity starts at 0 in every task).
 *
 * What the rule receives: FL rules (ps_rule_t.federated) the delta itself; the other rules
 * the pseudo-gradient Delta / lr_local, so that their learning rate keeps its meaning (with
 * S = 1 that is the plain algorithm's gradient within rounding: theta - (theta - lr g) is
 * lr g rounded twice).
 *
 * Ownership: the options live in ps_opts_t; ps_local_data_t borrows the dataset and the
 * partition; a ps_local_work_t is scratch its owner allocates (ps_local_work_floats). */
#ifndef SGDSIM_ALGORITHMS_PS_LOCAL_H
#define SGDSIM_ALGORITHMS_PS_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "common/error.h"
#include "common/json.h"
#include "config/scenario.h"
#include "models/backend.h"
#include "models/dataset.h"
#include "models/optim.h"
#include "models/partition.h"

/* The most steps or epochs one task may take (a bound that keeps a task's time finite). */
#define PS_LOCAL_MAX_STEPS 1000000
#define PS_LOCAL_MAX_EPOCHS 10000

typedef struct ps_local_opts {
    bool on;            /* algorithm.local given (or an FL rule's default) */
    bool epochs;        /* count is in epochs over the client's samples, else in steps */
    int64_t count;      /* S steps, or E epochs */
    double lr;          /* the local learning rate, > 0 */
    double momentum;    /* in [0, 1) */
} ps_local_opts_t;

/* Reads algorithm.local of `a` into *o.  Absent: off, unless fl_default, which makes it
 * {"epochs": 1} (the FL rules).  Errors name algorithm.local.KEY. */
int ps_local_parse(const sgd_jobj_t *a, const scn_t *s, bool fl_default, ps_local_opts_t *o,
                   sgd_err_t *err);

/* Steps of one task of a client holding `samples` samples: S, or E * ceil(samples / mu)
 * (at least E when the client holds none). */
int64_t ps_local_steps(const ps_local_opts_t *o, int64_t samples, int64_t mu);

/* A stream of one task: generator r reseeded from (seed, kind, client, task), the same for
 * the same four whatever else happened (sim_rng_mix of sim_rng_mix(seed, kind, client)). */
void ps_task_stream(gsl_rng *r, uint64_t seed, uint32_t kind, int64_t client, int64_t task);

/* What every task of a run reads (borrowed). */
typedef struct ps_local_data {
    const sgd_dataset_t *train;
    const partition_t *part; /* NULL: no partition */
    uint64_t seed;
    int64_t mu;              /* rows per step */
    bool cyclic;             /* no partition and minibatch "cyclic" */
    float lr;                /* the local learning rate, as float */
    optim_sgd_t opt;         /* its momentum */
    bool delta;              /* out = Delta (FL rules), else Delta / lr */
    size_t nparams;
} ps_local_data_t;

/* One task of a client. */
typedef struct ps_task {
    int64_t client;          /* the registered client: its samples and streams */
    int64_t task;            /* its participation index: which of its tasks */
    int64_t t;               /* cyclic: the run's index of its first minibatch */
    int64_t steps;
} ps_task_t;

/* Scratch of one evaluation at a time: the local parameters, a gradient, the velocity, one
 * minibatch and the task's row stream. */
typedef struct ps_local_work {
    float *theta, *grad, *velocity, *x;
    int32_t *y;
    gsl_rng *rows;
} ps_local_work_t;

/* Floats the scratch needs (for the memory estimate and for ps_local_work_bind). */
size_t ps_local_work_floats(const ps_local_data_t *d);
/* Lays w out over `floats` (ps_local_work_floats of them, caller-owned) and creates its
 * stream; ps_local_work_free frees the stream. */
void ps_local_work_bind(ps_local_work_t *w, const ps_local_data_t *d, float *floats);
void ps_local_work_free(ps_local_work_t *w);

/* Runs task t from `start` (nparams) and writes Delta, or Delta / lr, into out; *loss = the
 * mean of its steps' minibatch losses.  Each step's gradient comes from grad(oracle, ...)
 * (models/backend.h: the backend's loss_grad, or a background worker's).  0, or -1 with err
 * when a gradient failed. */
int ps_local_run(const ps_local_data_t *d, const ps_task_t *t, const float *start, float *out,
                 double *loss, ps_local_work_t *w, sgd_grad_fn grad, void *oracle,
                 sgd_err_t *err);

#endif
