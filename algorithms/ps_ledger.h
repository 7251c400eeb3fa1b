/* The deferred-update ledger of the parameter-server family (ps_step.c writes and drains it).
 *
 * Nothing the schedule decides reads the parameters' values (B-FASGD's gates do, and drain
 * first), so the schedule runs ahead of the arithmetic: ps_step.c writes every update the server
 * makes into this ledger and applies the updates later, in order.  An entry holds what the
 * arithmetic needs and the schedule will have changed by then: the update's terms, the
 * minibatch of each gradient request (drawn when scheduled, in the order an immediate
 * evaluation would draw them), the staleness and parameter age of each push, and the
 * schedule's counters.
 * Gradients are evaluated here, on demand: a single-minibatch term together with the later
 * ones whose parameters are already known, in one loss_grad_batched call.
 *
 * Invariants.
 *  - Updates are applied in the order scheduled, each once; ps_ledger_clear then empties the
 *    ledger, dropping what follows the applied prefix (the run stopped there).
 *  - An update's terms are in order of first appearance among its pushes; a term's requests
 *    lie contiguously, in arrival order.  With `merge` (no normaliser) requests on the same
 *    (snapshot, staleness factor) form one stacked term.
 *  - Each term on a snapshot pins it from ps_ledger_schedule until ps_ledger_release (or
 *    clear/free), so its buffer outlives the clients that dropped it.
 *  - A gradient is evaluated ahead of its update only once its snapshot is filled (version
 *    <= server.applied); it waits in one of gradient_batch slots.  With a backend that has
 *    a background path (the CPU's host threads, models/backend.h async_*), each such
 *    gradient is handed over as soon as it is ready and a slot is free -- when its update is
 *    scheduled, or when an applied update fills its snapshot -- and computed while the
 *    server applies earlier updates; without one (a GPU), the ready gradients of the update
 *    being applied and those after it go in one loss_grad_batched call.
 *  - A gradient depends only on its snapshot and its minibatch, so every result is the same
 *    bits for any gradient_batch.
 *  - Local training (cfg.local): a request is a task of several steps (ps_local.h), a pure
 *    function of its snapshot and (client, task index); with a background path that takes
 *    jobs (models/backend.h, async_submit_job) each task whose snapshot is filled is handed
 *    over like a gradient, with a batch slot's scratch, and its steps run there in order;
 *    without one it runs when its update is applied.
 *
 * Ownership: ps_ledger_init/ps_ledger_free on a caller-allocated ps_ledger_t.  It borrows the
 * server, dataset and backend of its config, takes its fixed scratch from the caller's arena,
 * and owns its growing arrays. */
#ifndef SGDSIM_ALGORITHMS_PS_LEDGER_H
#define SGDSIM_ALGORITHMS_PS_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "algorithms/ps_clients.h"
#include "algorithms/ps_local.h"
#include "algorithms/ps_server.h"
#include "common/arena.h"
#include "models/backend.h"
#include "models/dataset.h"

typedef struct ps_req {      /* a gradient a client computed: its parameters and minibatch */
    ps_snap_t *snap;         /* a reference the client holds */
    int64_t t;               /* index of the gradient in the run (cyclic minibatches; a local
                                task's first) */
    int64_t task;            /* local training: the client's task index (ps_local.h) */
    int64_t steps;           /* local training: its steps; 0 for a gradient */
} ps_req_t;

typedef struct ps_push {     /* one push the server holds when it makes an update */
    int32_t client;          /* the slot it came from (ps_state.h) */
    int64_t owner;           /* the registered client that made it */
    int64_t samples;         /* that client's sample count (FedAvg's weight) */
    int64_t tau;             /* its staleness at this update (counted, what is damped) */
    int64_t age;             /* server version now - version of the parameters its
                                (oldest) gradient was computed on: tau, unless
                                skipped_fetch_tau "fred" under-counted it */
    double factor;           /* its staleness factor */
    const ps_req_t *reqs;    /* its gradients (Downpour: up to k_push); none with reapply */
    int nreq;
    bool reapply;            /* B-FASGD: a skipped push re-applies the client's last gradient */
    gsl_rng *sample_rng;     /* minibatch "random": the client's row stream; NULL: each
                                request's task stream (sampled clients, ps_clients.h) */
} ps_push_t;

typedef struct ps_term {     /* one gradient (or stacked group of them) of a scheduled update */
    ps_snap_t *snap;         /* its parameters, pinned; NULL re-applies the client's last one */
    int32_t client;          /* its (first) client: whose last gradient (B-FASGD) */
    int64_t samples;         /* its client's sample count */
    double factor;           /* staleness factor */
    int64_t tau;             /* staleness of its (first) push */
    int64_t count;           /* requests in it */
    int64_t first_req;       /* its requests: lreq[first_req, first_req + count) */
    const float *grad;       /* evaluated gradient (scratch or a batch slot), NULL until then */
    int slot;                /* batch slot holding grad, or -1 */
    bool queued;             /* handed to the backend's background path, not yet collected */
    double loss;             /* mean loss of its rows, once evaluated */
} ps_term_t;

typedef struct ps_lreq {     /* a scheduled gradient request's minibatch */
    int32_t client;
    int64_t t;               /* its index in the run (cyclic minibatches) */
    int64_t rows;            /* "random": offset of its mu row indices in rowpool, else -1 */
    int64_t owner, task, steps; /* local training: the task (ps_local.h) */
} ps_lreq_t;

typedef struct ps_update {   /* a scheduled update */
    int64_t vtime;           /* when the server made it, ns */
    double lr;
    int64_t first_term, nterms; /* terms[first_term, first_term + nterms) */
    int64_t first_tau, ntau;    /* staleness of each push: taus[first_tau, + ntau), its
                                   parameters' age: ages[first_tau, + ntau) */
    ps_traffic_t fetch, push;   /* the schedule's traffic counters then */
    int64_t peak_live;          /* and its snapshot peak */
    ps_pop_stats_t pop;         /* and the population's statistics */
    uint64_t events;            /* engine events processed, the one that made it included */
} ps_update_t;

typedef struct ps_ledger_cfg {
    ps_server_t *srv;            /* whose snapshots the terms pin */
    const sgd_dataset_t *train;  /* the rows minibatches index */
    sgd_backend_t *backend;      /* where gradients are evaluated */
    size_t nparams;
    int64_t mu;                  /* rows per minibatch */
    bool cyclic;                 /* minibatch "cyclic" (else "random") */
    bool merge;                  /* stack requests sharing (snapshot, factor): no normaliser */
    int64_t max_reqs;            /* gradient requests of one update at most (c x k_push) */
    int64_t max_rows;            /* rows of the largest stacked evaluation */
    int64_t gradient_batch;      /* gradients evaluated at once at most; 1 = one at a time */
    const ps_local_data_t *local; /* local training: requests are tasks; NULL: gradients */
    const partition_t *part;     /* "random" rows come from the request's client's samples;
                                    NULL: from the whole training set */
    uint64_t seed;               /* the run's: a request without a row stream (its push's
                                    sample_rng NULL) draws from its task's (ps_task_stream) */
} ps_ledger_cfg_t;

typedef struct ps_ledger {
    ps_ledger_cfg_t cfg;
    int64_t ncyc;                /* floor(N / mu): cyclic minibatches in the training set */
    bool async;                  /* the backend evaluates in the background (its async path) */

    /* The scheduled updates and what they refer to; emptied by ps_ledger_clear. */
    ps_update_t *upd;
    ps_term_t *terms;
    ps_lreq_t *lreq;
    int64_t *taus, *ages, *rowpool;
    int64_t nupd, nterm, nlreq, ntau, nrowpool; /* nlreq: gradient requests held */
    int64_t cap_upd, cap_terms, cap_lreq, cap_taus, cap_ages, cap_rowpool;

    /* Scheduling scratch, max_reqs each: each request's term, each term's next request
     * slot, and the row stream of each request laid out (minibatch "random"). */
    int64_t *req_term, *term_fill;
    gsl_rng **req_rng;
    gsl_rng *task_rng;           /* a task's row stream, reseeded per request */

    /* One stacked evaluation at a time: its gradient and its gathered rows; a local task's
     * scratch when one is evaluated here. */
    struct {
        float *grad, *x;
        int32_t *y;
        ps_local_work_t work;
    } stacked;

    /* Batched evaluation: gradient_batch slots (none when it is 1). */
    struct {
        float **grad;            /* each slot's gradient */
        int *free;               /* free slots, a stack */
        int nfree;
        float *x;                /* "random" minibatches of one call */
        int32_t *y;
        ps_term_t **term;        /* one call's terms and arguments */
        const float **params, **x_of;
        const int32_t **y_of;
        float **out;
        double *loss;
        /* local training on the background path: each slot's task scratch and job */
        ps_local_work_t *work;
        struct ps_local_job *job;
    } batch;
} ps_ledger_t;

void ps_ledger_init(ps_ledger_t *l, const ps_ledger_cfg_t *cfg, sgd_arena_t *arena);
/* Releases every pin still held (updates never applied) and the growing arrays. */
void ps_ledger_free(ps_ledger_t *l);

/* Records an update made of npush pushes, with head's vtime, lr, counters and events: groups
 * the requests into terms, pins their snapshots, and draws "random" minibatches from each
 * push's sample_rng.  The pushes' own references stay theirs.  Returns the entry. */
const ps_update_t *ps_ledger_schedule(ps_ledger_t *l, const ps_update_t *head,
                                      const ps_push_t *pushes, int64_t npush);

/* Hands the ready gradients of the scheduled updates to the backend's background path while
 * batch slots are free (a no-op without one); call after an update was applied, which may
 * have filled snapshots. */
void ps_ledger_prefetch(ps_ledger_t *l);

/* Update u's terms, and the staleness and parameter age of each of its pushes. */
ps_term_t *ps_ledger_terms(ps_ledger_t *l, const ps_update_t *u);
const int64_t *ps_ledger_taus(const ps_ledger_t *l, const ps_update_t *u);
const int64_t *ps_ledger_ages(const ps_ledger_t *l, const ps_update_t *u);

/* The gradient of term tm (not a reapply term; its snapshot filled), evaluated now unless it
 * was already, and tm->loss.  Valid until tm is released, or until the next call when it
 * came from the stacked scratch (terms of the update being applied are used in order).
 * NULL with err (the backend's message, models/backend.h) when the backend failed: the run
 * ends there, and the ledger is only released, cleared or freed afterwards. */
const float *ps_ledger_gradient(ps_ledger_t *l, ps_term_t *tm, sgd_err_t *err);

/* Term tm is done with: its batch slot and its pin go back. */
void ps_ledger_release(ps_ledger_t *l, ps_term_t *tm);

/* Empties the ledger after its first `applied` updates were applied (and their terms
 * released): the terms of the rest are released unapplied. */
void ps_ledger_clear(ps_ledger_t *l, int64_t applied);

#endif
