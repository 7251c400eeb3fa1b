/* The registered clients of the parameter-server family and the slots that run them
 * (docs/federated.md, "Clients, slots and rounds").
 *
 * lambda = cluster.workers clients are registered; at most C = algorithm.concurrency of them
 * run a task at a time, each in one of C slots (ps_client_t, ps_state.h: a slot holds the
 * snapshot, push, streams and timers of the client in it).  Two modes:
 *
 *   fixed     C = lambda and no FL rule (today's behaviour): client i always runs in slot i
 *             with the streams it always had, seeded once from (seed, kind, i).
 *   sampling  C < lambda, or an FL rule: a slot that frees (its push taken in, or its client
 *             dropped out) takes a client drawn uniformly among the registered clients that
 *             hold data, are online now and are in no slot, by rejection sampling from the
 *             server's pick stream (SIM_STREAM_CLIENT_PICK, entity PS_POP_PICK_ENTITY): at
 *             most PS_POP_TRIES draws, then the slot waits clients.retry_s (default 1 s) of
 *             virtual time and draws again.  The streams of a task -- compute and io times, minibatch rows
 *             -- are derived when it starts from (seed, kind, client, the client's task
 *             index) (ps_task_stream), so a client's draws depend on which of its tasks this
 *             is, never on the slot or on other clients.
 *
 * Per registered client the population keeps bytes, never a model or a generator: its task
 * count (its next task index, 4 bytes), its contribution count (pushes the server took in, 4
 * bytes) and whether it is in a slot now (1 byte, sampling); its samples come from the
 * partition (models/partition.h, 4 bytes per sample and 8 per client), its availability,
 * dropout and device from the behaviour model (sim/client_behaviour.h), pure functions of
 * (seed, client) that hold nothing per client.  A client in a slot has a 64-byte
 * availability cursor there.
 *
 * Ownership: ps_pop_init fills a caller-allocated ps_population_t (arrays from the run's
 * arena; the partition, the traces and the generators owned, freed by ps_pop_free). */
#ifndef SGDSIM_ALGORITHMS_PS_CLIENTS_H
#define SGDSIM_ALGORITHMS_PS_CLIENTS_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "algorithms/ps_opts.h"
#include "common/arena.h"
#include "common/ckbuf.h"
#include "common/error.h"
#include "models/dataset.h"
#include "models/partition.h"
#include "sim/client_behaviour.h"
#include "sim/fedscale.h"

/* Draws a free slot makes at most before it waits (the bound of the rejection sampling). */
#define PS_POP_TRIES 64
/* Entity of the server's pick stream: far above any client index, like the server's. */
#define PS_POP_PICK_ENTITY (1ull << 41)

/* What the population did so far, kept as it happens (each scheduled update keeps a copy,
 * so that a run that stops at an update reports these as they were then, whatever the
 * schedule ran ahead to: ps_ledger.h). */
typedef struct ps_pop_stats {
    int64_t participated;        /* clients that started a task */
    int64_t contributors;        /* clients with a push taken in */
    int64_t contributions;       /* pushes taken in */
    int64_t contributions_max;   /* the most of one client */
    int64_t dropped;             /* tasks that ended without a push (dropout) */
    int64_t lost_ns;             /* their compute time until they ended, ns */
    int64_t waits;               /* slots that found nobody and waited */
    int64_t rounds, rounds_empty; /* rounds (FedAvg) started; of them, ended without a push */
} ps_pop_stats_t;

typedef struct ps_population {
    int64_t registered;          /* lambda */
    int64_t slots;               /* C */
    bool sampling;               /* slots take sampled clients (else client i in slot i) */
    bool behaviour;              /* a clients section: availability, dropout, devices */
    uint32_t *tasks;             /* per registered client: tasks started (next task index) */
    uint32_t *contributed;       /* per registered client: pushes the server took in */
    uint8_t *busy;               /* sampling: per registered client, 1 while in a slot */
    int64_t equal_share;         /* samples of a client without a partition: floor(N/lambda) */
    partition_t *part;           /* data.partition, or NULL */
    const int32_t *labels;       /* the training labels the partition was made from */
    int64_t *holders;            /* sampling with a partition that leaves clients empty: the
                                    clients holding data, ascending; else NULL (all do) */
    int64_t nholders;
    gsl_rng *pick;               /* sampling: the server's pick stream */
    gsl_rng *scratch;            /* one-off draws (a client's speed factor) */
    sim_client_model_t model;    /* the behaviour model (always, no dropout, without one) */
    sim_fedscale_trace_t avail_trace;      /* clients.trace, loaded (n = 0: none) */
    sim_fedscale_capacity_t device_trace;  /* clients.device_trace, loaded (n = 0: none) */
    double retry_s;              /* clients.retry_s */
    ps_pop_stats_t stats;
} ps_population_t;

/* Builds the population of a run: the partition (data.partition, over the training labels,
 * generator (seed, SIM_STREAM_PARTITION, 0)), the traces (clients.trace, device_trace) and
 * the arrays.  0, or -1 with err naming the JSON path (a partition that cannot be made, a
 * trace file that cannot be read) -- input errors. */
int ps_pop_init(ps_population_t *pop, const scn_t *s, const ps_opts_t *o,
                const sgd_dataset_t *train, sgd_arena_t *arena, sgd_err_t *err);
void ps_pop_free(ps_population_t *pop);

/* Whether the run keeps per-client arrays and writes the population's metrics: sampling, a
 * behaviour model, local training or a partition.  Without any, today's runs are unchanged. */
bool ps_pop_extended(const ps_population_t *pop, const ps_opts_t *o);

/* Samples client i holds: its part of the partition, else the equal share. */
int64_t ps_pop_samples(const ps_population_t *pop, int64_t i);

/* Sampling: a registered client for a free slot at `now` (file comment), marked busy; -1
 * when PS_POP_TRIES draws found none. */
int64_t ps_pop_pick(ps_population_t *pop, int64_t now);

/* Client i starts a task: returns its index (the client's task count before). */
int64_t ps_pop_task(ps_population_t *pop, int64_t i);
/* The server took in a push of client i. */
void ps_pop_contributed(ps_population_t *pop, int64_t i);

/* The population's metrics at update u, virtual time v (docs/results.md): participation,
 * contributions, dropped work, and bytes per participating client of the traffic given. */
int ps_pop_metrics(const ps_pop_stats_t *st, alg_ctx_t *ctx, int64_t u, int64_t v,
                   uint64_t push_bytes, uint64_t fetch_bytes, bool rounds);
/* The partition's label counts, one call of sink->client_labels per client and label with
 * a count (none without a partition or a sink that takes them). */
int ps_pop_labels(const ps_population_t *pop, const alg_sink_t *sink, sgd_err_t *err);

/* Checkpoints: the per-client counts, the busy flags, the pick stream and the statistics,
 * into a population ps_pop_init has just built for the same scenario (the partition and
 * traces are rebuilt from it).  Restore refuses counts beyond what can have happened. */
void ps_pop_save(const ps_population_t *pop, sgd_ckw_t *w);
void ps_pop_restore(ps_population_t *pop, sgd_ckr_t *r);

#endif
