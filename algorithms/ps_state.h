/* The state of one parameter-server run, shared by the files of the family's run time: ps.c
 * (the clients' life cycle, the two drivers), ps_run.c (the alg_ops_t callbacks), ps_step.c
 * (the update step: scheduling an update, draining the ledger, applying updates), ps_slots.c
 * (sampled slots, dropout, rounds), ps_trace.c, ps_ckpt.c and ps_check.c.  Private to
 * algorithms/ps*.c.
 *
 * Ownership: ps.c's create allocates a ps_t and every fixed-size array of it from its arena;
 * destroy gives it all back. */
#ifndef SGDSIM_ALGORITHMS_PS_STATE_H
#define SGDSIM_ALGORITHMS_PS_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "algorithms/ps_clients.h"
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
    int64_t owner;           /* the registered client that made it */
    uint64_t flow;           /* timeline only: the flow id from the push to its update */
} ps_sent_t;

/* A push the server holds, and whose it is. */
typedef struct ps_buffered {
    int32_t client;
    ps_sent_t push;
} ps_buffered_t;

/* A slot: where one registered client runs its tasks (ps_clients.h).  With C = lambda and no
 * FL rule, slot i always holds client i; with sampling its client changes between tasks. */
typedef struct ps_client {
    int64_t id;              /* the registered client in this slot; -1: none (sampling) */
    int64_t task;            /* the index of its task running now, where counted */
    int64_t task_steps;      /* local training: that task's steps */
    int64_t task_start;      /* a clients section: when that task started computing, ns */
    sim_client_avail_t avail; /* a clients section: the client's availability cursor */
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
    int64_t nslots;               /* C: the slots clients run in (ps_clients.h) */
    size_t msg_bytes;             /* a parameter or gradient message */
    ps_server_t srv;
    ps_client_t *cl;              /* nslots of them */
    ps_population_t pop;          /* the registered clients */
    ps_local_data_t local;        /* local training: what its tasks read */
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
        int32_t *queue;           /* FCFS arrivals, ring of nslots entries */
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

    struct {                      /* slots with sampling or a clients section (ps_slots.c) */
        uint32_t ev_dropout, ev_retry;
    } slots;

    struct {                      /* protocol "rounds" (FedAvg): the round under way */
        int64_t selected;         /* clients it sampled (slots 0 .. selected - 1 hold them) */
        int64_t done;             /* of them, pushes taken in plus tasks dropped */
    } round;

    ps_ledger_t ledger;           /* updates scheduled, not applied yet */
    struct {
        bool stopped;             /* the run stopped at a drained update ... */
        ps_update_t at;           /* ... this one */
    } stop;

    int64_t update_samples;       /* the update being applied: its terms' samples, summed */
    float *step;                  /* nparams: the summed step of a many-term update */
    float *term_step;             /* nparams: one term's step (per-gradient rules), or NULL */
    struct {                      /* a restore's check (ps_check.c): events found pending */
        int32_t *compute, *push, *fetch; /* timed: per slot */
        int32_t *dropout, *retry;  /* slots with sampling or a clients section: per slot */
        int64_t served, iterations, round_retry;
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

/* The driver's event types, network and streams (ps.c), and the first events: every client
 * starts its first gradient (uniform: the first iteration is scheduled). */
void ps_init_driver(ps_t *p);
void ps_start_clients(ps_t *p);

/* A client's life cycle (ps.c): slot k's client starts its next task, or fetches. */
void ps_compute_next(ps_t *p, int k, int64_t now);
void ps_fetch_opportunity(ps_t *p, int k, int64_t now);

/* Slots with sampling or a clients section, and FedAvg's rounds (ps_slots.c). */
void ps_slots_register(ps_t *p);
void ps_slots_start(ps_t *p);
/* Slot k's client is done with its task (its push taken in, or dropped): it leaves the slot,
 * which takes the next client (sampling), or waits until its client is online (fixed). */
void ps_slot_free(ps_t *p, int k, int64_t now);
/* A sampled client's per-task streams, derived from (seed, kind, client, task). */
void ps_slot_streams(ps_t *p, int k);
/* Slot k's task, started at now for `duration` ns: true when the client drops out of it
 * (an event then ends it without a push). */
bool ps_slot_drops(ps_t *p, int k, int64_t now, int64_t duration);
/* Sets slot k's device (compute factor and link bandwidth) from its client. */
void ps_slot_device(ps_t *p, int k);
/* Rounds: slot k's push was taken into the buffer. */
void ps_round_pushed(ps_t *p, int k, int64_t now);

/* The entity of a round's retry event (slots use their index). */
#define PS_ROUND_ENTITY UINT32_MAX

/* Checkpoints of the slots and rounds (ps_slots_ckpt.c): slot k's client and task (where
 * the run keeps them), the check that busy clients and slots agree, the round under way
 * (FedAvg), and each slot's device set again after a restore.  A restore's checks of the
 * events pending: set_checks registers them (create), reset_checks zeroes their counts,
 * pending is slot k's dropout and retry events, verify the rest (ps_verify). */
void ps_slot_save(const ps_t *p, const ps_client_t *c, sgd_ckw_t *w);
void ps_slot_restore(ps_t *p, int64_t k, ps_client_t *c, sgd_ckr_t *r);
void ps_slots_check_busy(const ps_t *p, sgd_ckr_t *r);
void ps_round_save(const ps_t *p, sgd_ckw_t *w);
void ps_round_restore(ps_t *p, sgd_ckr_t *r);
void ps_slots_restore_devices(ps_t *p);
void ps_slots_set_checks(ps_t *p);
void ps_slots_reset_checks(ps_t *p);
int64_t ps_slot_pending(const ps_t *p, int64_t k);
/* The places slot k's client must be in (ps_check.c): 1, or 0 for a slot without a client in
 * a round and for a client that is never online again. */
int64_t ps_slot_expected_places(const ps_t *p, int64_t k);
int ps_slots_verify(const ps_t *p, sgd_err_t *err);

/* Samples registered client i holds: its part of the partition, else an equal share of the
 * training set, floor(N / lambda) (what an epoch of local training passes over, and FedAvg's
 * weight). */
int64_t ps_client_samples(const ps_t *p, int64_t i);

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
void ps_trace_closed(const ps_t *p, int k, int64_t now, int64_t n);

#endif
