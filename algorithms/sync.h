/* What the synchronous data-parallel algorithms (CSGD, LSGD) share, so that they cannot
 * drift apart:
 *   - numerics: one global-batch sampler (a permutation per epoch, worker i owning rows
 *     [i*b, (i+1)*b) of each global batch) and the update computed once over the stacked
 *     global batch in worker order -- the canonical summation order -- then the optimizer
 *     step.  Two algorithms calling alg_sync_update in the same sequence produce the same
 *     parameters bit for bit, whatever their collectives cost in time;
 *   - per-worker timing: each worker's compute-, I/O- and speed-factor streams and its
 *     compute, load and optimizer-step durations;
 *   - the communication plan: the network and topology a scenario describes, and the
 *     sequence of collective calls one gradient exchange makes (one per parameter tensor, or
 *     buckets of tensors), with their closed-form costs.
 * In a cost-only run (ctx->numerics false) the numerics are skipped and only the learning
 * rate is computed.
 *
 * Ownership: alg_sync_init fills a caller-allocated alg_sync_t; alg_sync_free releases what
 * it allocated. */
#ifndef SGDSIM_ALGORITHMS_SYNC_H
#define SGDSIM_ALGORITHMS_SYNC_H

#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "sim/collective.h"
#include "sim/network.h"
#include "sim/topology.h"

typedef struct alg_sync_worker {
    gsl_rng *compute_rng; /* compute- and update-time draws */
    gsl_rng *io_rng;      /* storage-load draws */
    double time_factor;   /* drawn once: this worker's compute-time multiplier */
} alg_sync_worker_t;

typedef struct alg_sync {
    alg_ctx_t *ctx;
    const scn_t *s;
    int p, b;                   /* workers, rows per worker */
    alg_sync_worker_t *workers; /* p */

    /* the network */
    sim_net_t *net;
    sim_topo_t topo;
    uint64_t *call_elems;       /* elements of each collective call of one exchange */
    int ncalls;

    /* results of the latest alg_sync_update */
    double loss, lr;

    /* numerics (NULL in a cost-only run).  Gradient, velocity and the gathered batch live in
     * the backend (ctx->backend's sync_begin/sync_step, models/backend.h): resident on the
     * device for "cuda"; here only the row indices of the stacked global batch. */
    int64_t *rows;              /* P*b training rows, worker i's at [i*b, (i+1)*b) */
    bool begun;                 /* the backend's sync_begin was called (first update) */
    uint32_t *order;            /* sampler: permutation of training rows */
    int64_t order_pos;
    gsl_rng *order_rng;
} alg_sync_t;

void alg_sync_init(alg_sync_t *y, alg_ctx_t *ctx);
void alg_sync_free(alg_sync_t *y);

/* The numerics of update number update_index (0-based; the caller passes ctx->updates, the
 * updates applied so far, since every gradient of this update exists only once the previous
 * update was applied everywhere): draws the global batch, has the backend compute the mean
 * gradient once over it and apply the optimizer step (ctx->params then holds the new
 * parameters), and leaves the batch's mean loss and
 * the learning rate in y->loss, y->lr.  Cost-only runs: only y->lr (y->loss = 0).
 * The first update starts the backend's resident training (sync_begin).  Returns 0, or -1
 * when the backend failed: the run is then `failed` (alg_backend_failed) and the caller
 * schedules nothing more. */
int alg_sync_update(alg_sync_t *y, int64_t update_index);

/* Checkpoints (alg.h, alg_ckpt_ops_t): every worker's streams, the network's links, the
 * sampler (permutation, position, stream), the latest loss and rate, and the backend's
 * optimizer state.  Restore reads them into a y that alg_sync_init has just built. */
int alg_sync_save(const alg_sync_t *y, sgd_ckw_t *w, sgd_err_t *err);
int alg_sync_restore(alg_sync_t *y, sgd_ckr_t *r, sgd_err_t *err);
/* Bytes alg_sync_save writes (about). */
size_t alg_sync_state_size(const alg_sync_t *y);

/* Durations, ns, drawn from worker i's streams. */
int64_t alg_sync_io_ns(alg_sync_t *y, int i);
int64_t alg_sync_compute_ns(alg_sync_t *y, int i);
int64_t alg_sync_step_ns(alg_sync_t *y, int i);

/* Refuses (-1, err naming network.allreduce) an allreduce schedule over nranks ranks too
 * large to build (more than 2^24 messages, about 1 GB), before anything is allocated.  The
 * message advises only what works: the other algorithms that fit, or, when none does, the
 * most ranks the smallest fits and the key that sets the ranks (ranks_key, e.g.
 * "cluster.workers"). */
int alg_sync_check_allreduce(const scn_t *s, int nranks, const char *ranks_key, sgd_err_t *err);

/* Closed-form time of one exchange (every call of the plan) of schedule s over endpoints. */
int64_t alg_sync_analytic_ns(const alg_sync_t *y, const sim_sched_t *s, const int *endpoints);

/* Timeline: when the run is traced, tags the messages of collective c (sim_coll_set_trace)
 * as `kind` of an update, between its nranks ranks named after what they are: ranks below
 * ncomm are the communicators of nodes comm0, comm0 + 1, ..., the others workers worker0,
 * worker0 + 1, ... */
void alg_sync_trace_coll(const alg_sync_t *y, sim_coll_t *c, const char *kind, int nranks,
                         int comm0, int ncomm, int worker0);

/* Messages and bytes of one exchange of schedule s. */
void alg_sync_traffic(const alg_sync_t *y, const sim_sched_t *s, uint64_t *messages,
                      uint64_t *bytes);

#endif
