/* The state of one LSGD run (lsgd.c), shared by lsgd.c (the algorithm) and lsgd_ckpt.c (its
 * checkpoints).  Private to algorithms/lsgd*.c. */
#ifndef SGDSIM_ALGORITHMS_LSGD_STATE_H
#define SGDSIM_ALGORITHMS_LSGD_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "algorithms/alg.h"
#include "algorithms/sync.h"

typedef struct lsgd_opts {
    int reduce;    /* sim_rooted_alg_t */
    int broadcast; /* sim_rooted_alg_t */
    bool overlap;
} lsgd_opts_t;

typedef struct lsgd_worker {
    bool loaded;     /* the batch of its current iteration is loaded */
    bool have_update; /* the broadcast of the previous update has arrived */
    bool stepping;   /* the optimizer step is under way */
    int64_t iter;    /* iteration t it is in */
    int64_t t_reduce_ns, t_bcast_ns; /* timeline: when it entered the reduce / the broadcast */
} lsgd_worker_t;

typedef struct lsgd {
    alg_ctx_t *ctx;
    alg_sync_t y;
    lsgd_opts_t o;
    int p, n, g;
    bool analytic;
    lsgd_worker_t *w;

    uint32_t ev_io_done, ev_compute_done, ev_step_done, ev_reduced, ev_allreduced,
        ev_update_arrived, ev_worker_reduced;

    sim_sched_t *reduce, *bcast, *allreduce;
    /* message fidelity */
    sim_coll_t **node_reduce, **node_bcast; /* n each */
    struct lsgd_node_ctx *node_ctx;          /* n: which node a collective's callback is for */
    sim_coll_t *inter;
    /* analytic fidelity */
    int64_t reduce_ns, allreduce_ns, bcast_ns;
    int *node_entered;       /* workers of node a that entered this iteration's reduce */
    int64_t *node_last_entry;
    int comms_entered;       /* communicators that entered this iteration's allreduce */
    bool *node_has_result;   /* node a's communicator holds the global mean, not yet sent */
    int *node_posted;        /* workers of node a ready to receive the broadcast */
    uint64_t exchanges;      /* analytic: completed iterations of the communicators */
    int64_t *comm_t0_ns;     /* timeline: when communicator a entered the allreduce */
    struct lsgd_node_times { /* timeline only, per node: the latest time so far that ... */
        int64_t comm_in;     /* its communicator entered the reduce (message level) */
        int64_t worker_in;   /* one of its workers entered the reduce */
        int64_t result;      /* its communicator got the global mean */
        int64_t posted;      /* one of its workers posted its receive of the broadcast */
    } *times;

    int ncomputed;           /* gradients of the current step computed */
    int nstepped;            /* workers that applied the current update */

    struct {                 /* a restore's check (lsgd_ckpt.c): the events found pending */
        int *io, *compute, *reduced; /* per worker: loads, computations, reduces done */
        int *node;           /* per node: analytic reduces done */
    } ck;
} lsgd_t;

/* Message fidelity: the node a collective's completion callback is for. */
typedef struct lsgd_node_ctx {
    lsgd_t *l;
    int node;
} lsgd_node_ctx_t;

/* LSGD's checkpoints (lsgd_ckpt.c), and the checks of a restored run's pending events,
 * registered by create once the event types are. */
extern const alg_ckpt_ops_t lsgd_ckpt_ops;
void lsgd_set_checks(lsgd_t *l);

#endif
