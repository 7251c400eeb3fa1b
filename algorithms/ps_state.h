/* The state of one parameter-server run, shared by the two files of the family's run time:
 * ps.c (clients, the two drivers, the alg_ops_t callbacks) and ps_step.c (the update step:
 * scheduling an update, draining the ledger, applying updates).  Private to algorithms/ps*.c.
 *
 * Ownership: ps.c's create allocates a ps_t and every fixed-size array of it from its arena;
 * destroy gives it all back. */
#ifndef SGDSIM_ALGORITHMS_PS_STATE_H
#define SGDSIM_ALGORITHMS_PS_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "algorithms/ps_ledger.h"
#include "algorithms/ps_opts.h"
#include "algorithms/ps_rule.h"
#include "algorithms/ps_rules.h"
#include "algorithms/ps_server.h"
#include "common/arena.h"
#include "common/fpenv.h"
#include "sim/network.h"

/* A push: the gradients a client sends and the versions their staleness counts from.  The
 * client holds it while it assembles and sends it; when the push reaches the server it moves
 * into the server's buffer (ps_t.sched), which holds it until the update that consumes it --
 * under fetch "after_push" its client computes, and may push, again meanwhile. */
typedef struct ps_sent {
    ps_req_t *reqs;          /* its gradients (up to k_push), each a snapshot reference */
    int nreq;
    bool reapply;            /* B-FASGD: re-applies the client's last gradient instead */
    int64_t version;         /* push_version: its staleness counts from this version */
    int64_t params_version;  /* the version its (oldest) gradient was computed on */
    uint64_t flow;           /* timeline only: the flow id from the push to its update */
} ps_sent_t;

/* A push the server holds, and whose it is. */
typedef struct ps_buffered {
    int32_t client;
    ps_sent_t push;
} ps_buffered_t;

typedef struct ps_client {
    ps_snap_t *snap;         /* the parameters it computes on */
    int64_t stamp;           /* the version its next gradient counts from (file comment) */
    int64_t steps;           /* gradients computed so far (Downpour's schedule) */
    ps_sent_t push;          /* the push it is assembling or sending, until the server takes
                                it in (nreq 0 and no reapply: none) */
    gsl_rng *sample_rng;     /* minibatch "random" */
    struct {                 /* B-FASGD */
        gsl_rng *rng;        /* coin flips */
        float *grad;         /* with c_push > 0: the last gradient it sent, else NULL */
        int64_t version;     /* its push_version */
        int64_t params_version; /* the version it was computed on */
        double loss;
        bool has;
    } last;
    uint32_t slot;           /* uniform: position in the unblocked array, or UINT32_MAX */
    struct {                 /* timed */
        ps_snap_t *incoming; /* fetched snapshot in flight */
        gsl_rng *compute_rng, *io_rng;
        double time_factor;  /* drawn once */
    } timed;
    struct {                 /* timeline only (sim/trace.h): never read by the schedule */
        int64_t t_arrive;    /* timed: when its push reached the server, ns */
        int64_t t_served;    /* timed: when the server finished taking it in, ns */
    } trace;
} ps_client_t;

typedef struct ps {
    alg_ctx_t *ctx;
    const scn_t *s;
    const ps_opts_t *o;
    int64_t lambda, mu, c;
    size_t msg_bytes;             /* a parameter or gradient message */
    ps_server_t srv;
    ps_client_t *cl;
    void *rule_state;             /* the rule's state (ps_rule.h), from the arena */
    sgd_arena_t arena;            /* every fixed-size array of the run */

    struct {                      /* what the server holds between updates */
        int64_t t_next;           /* gradients requested so far */
        ps_buffered_t *buf;       /* the pushes the server holds (c - 1 at most between
                                     events), in arrival order */
        int64_t nbuf;
        int32_t *applied;         /* their clients while handling the clients of an update */
        ps_push_t *pushes;        /* buf as the ledger sees it */
    } sched;

    struct {                      /* driver "uniform" */
        uint32_t *unblocked;
        int64_t n;
        gsl_rng *pick_rng;
        uint32_t ev_iter;
    } uniform;

    struct {                      /* driver "timed" */
        sim_net_t *net;
        sim_star_t star;
        int32_t *queue;           /* FCFS arrivals, ring of lambda entries */
        int64_t qhead, qlen;
        bool busy;
        gsl_rng *server_rng;
        uint32_t ev_compute_done, ev_push_arrive, ev_server_done, ev_fetch_arrive;
    } timed;

    struct {                      /* timeline only (ctx->trace): never read by the schedule */
        uint64_t next_flow;       /* flow ids handed out so far */
        int64_t service_t0;       /* timed: when the server began its current service, ns */
        uint64_t push_bytes, fetch_bytes; /* timed: bytes sent and not yet arrived */
    } trace;

    ps_ledger_t ledger;           /* updates scheduled, not applied yet */
    struct {
        bool stopped;             /* the run stopped at a drained update ... */
        ps_update_t at;           /* ... this one */
    } stop;

    float *step;                  /* nparams: the summed step of a many-term update */
    float *term_step;             /* nparams: one term's step (per-gradient rules), or NULL */
    struct {                      /* a restore's check (ps_check.c): events found pending */
        int32_t *compute, *push, *fetch; /* timed: per client */
        int64_t served, iterations;
    } ck;

    int64_t last_vtime;
    int64_t counts_emitted_at;    /* update index of the last traffic-count metric rows */
    sgd_fpenv_t saved_csr;        /* MXCSR before the run, restored by destroy */
} ps_t;
/* A restored run's checks (ps_check.c): set_checks registers the checks of the driver's
 * event types (create), reset_checks zeroes their counts (restore), and ps_verify checks
 * the restored state against the events found pending (alg_ckpt_ops_t.verify). */
void ps_set_checks(ps_t *p);
void ps_reset_checks(ps_t *p);
int ps_verify(void *state, sgd_err_t *err);

/* The rule's normaliser mean into *mean, when the configured rule has one (ps_step.c). */
bool ps_rule_norm_mean(const ps_t *p, double *mean);

/* Schedules the c pushes the server holds as one update at virtual time `now` (ps_step.c):
 * their staleness, terms and minibatches are fixed now, the arithmetic when the ledger is
 * drained -- at once, or when it holds gradient_batch requests or the run ends.  Returns
 * false when the run must stop. */
bool ps_schedule_update(ps_t *p, int64_t now);

/* Applies every scheduled update in order.  Returns false when the run stopped at one of
 * them (complete, diverged, failed or interrupted): the rest are dropped, and the run reports
 * the counters the schedule had at that update and the events processed until then. */
bool ps_drain(ps_t *p);

/* The timeline (ps_trace.c; no-ops without --trace, but for ps_trace_reserve, which books
 * a message either way and tags it only for the timeline).  Nothing they record is read
 * back by the schedule. */
sim_trace_t *ps_trace_of(const ps_t *p);
void ps_trace_client(const ps_t *p, int k, const char *name, int64_t t0, int64_t t1,
                     const sim_trace_arg_t *args, int nargs);
void ps_trace_tracks(ps_t *p);
void ps_trace_in_flight(const ps_t *p, int64_t now);
void ps_trace_queue(const ps_t *p, int64_t now);
void ps_trace_compute(const ps_t *p, int k, int64_t now, int64_t comp, int64_t io);
int64_t ps_trace_reserve(const ps_t *p, const int route[2], uint64_t bytes, int64_t now,
                         const char *kind, int k, int64_t version);
int64_t ps_trace_moved_at(const ps_t *p, const int route[2], uint64_t bytes);
void ps_trace_push(ps_t *p, int k, int64_t t0, int64_t moved, int64_t t1, uint64_t bytes);
void ps_trace_fetch(ps_t *p, int k, int64_t t0, int64_t moved, int64_t t1,
                    const ps_snap_t *snap);
void ps_trace_receive(const ps_t *p, int k, int64_t now, bool made, int64_t n);

#endif
