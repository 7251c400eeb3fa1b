/* How registered clients behave as devices: when each is online, whether a task it starts is
 * cut short (dropout), and its compute speed and bandwidth (docs/federated.md, "Building
 * blocks").  Nothing here knows what a task computes.
 *
 * Every answer for client i is a pure function of (the model, seed, i, the question): client
 * i's draws come from its own streams, sim_rng_create(seed, kind, i) with kind
 * SIM_STREAM_AVAILABILITY, SIM_STREAM_DEVICE or SIM_STREAM_DROPOUT (sim/rng.h), so they do not
 * depend on how many clients there are or on what other clients did.  The model holds no
 * per-client state: 10^6 registered clients cost nothing until asked about.
 *
 * Availability.
 *   ALWAYS   online at every time.
 *   RENEWAL  alternating online and offline periods whose lengths are drawn, in seconds, from
 *            `online_s` and `offline_s` (sim/dist.h), each at least 1 ns.  At t = 0 the client
 *            is online with probability p = E[online] / (E[online] + E[offline]) (the long-run
 *            fraction of time online), so with exponential periods the process is stationary
 *            from the start; otherwise the first period is a full one, not a residual one.
 *            Draws, in order, from the client's availability stream: the uniform deciding
 *            the first state, then the periods' lengths one after another.
 *   TRACE    FedScale's availability trace (sim/fedscale.h): client i follows the trace's
 *            client i mod n (n clients in the trace, in file order), online while t mod its
 *            'finish_time' lies in one of its windows.  No draws; each question costs
 *            O(log windows) whatever the cursor.
 *   A client is online on [start, end) of each online period: online at a period's first
 *   instant, offline at its end.
 *
 * Because the periods are drawn one after another, answering "online at t?" walks the
 * client's periods from the last answer to t: a cursor (sim_client_avail_t, 64 bytes, plain
 * data) keeps the place.  Queries at increasing times cost O(1) per period passed; a query
 * before the cursor's period restarts the walk from t = 0 (same answer, O(periods up to t)).
 * The caller keeps cursors only for clients in flight and may drop one at any time: a fresh
 * cursor gives the same answers.
 *
 * Dropout (sim_client_task).  A task started at s for d ns on client i fails when the client
 * is offline at s (it fails at s), goes offline before s + d (it fails then; going offline
 * exactly at s + d still completes), or loses the task's own coin: with probability
 * `dropout_p` the task fails at s + floor(U d), U uniform in [0, 1), whichever comes first.
 * The coin and U come from a generator private to the task, seeded with
 * sim_rng_mix(sim_rng_mix(seed, SIM_STREAM_DROPOUT, i), SIM_STREAM_DROPOUT, task_key), so a
 * task's fate depends on its key and not on the client's other tasks; dropout_p = 0 draws
 * nothing.
 *
 * Device (sim_client_device).  From the client's device stream, in this order: the compute
 * factor (a multiplier on the scenario's compute time) from `compute_factor`, then the
 * bandwidth in bytes/s from `bandwidth_Bps` (a constant draws nothing).  A bandwidth below
 * 1 B/s is raised to 1 B/s, so that every transfer ends.  With a FedScale capacity file
 * (`device_trace`) instead, client i takes device i mod n of the file (no draws): its
 * factor is its 'computation' over the file's mean 'computation' (so the mean device runs
 * at the scenario's compute time) and its bandwidth 128 x 'communication' bytes/s.
 *
 * Ownership: sim_client_model_t is plain data filled by the caller; sim_client_model_check
 * validates it.  Cursors are plain data owned by the caller. */
#ifndef SGDSIM_SIM_CLIENT_BEHAVIOUR_H
#define SGDSIM_SIM_CLIENT_BEHAVIOUR_H

#include <stdbool.h>
#include <stdint.h>

#include "common/ckbuf.h"
#include "common/error.h"
#include "sim/dist.h"
#include "sim/fedscale.h"

/* The order matches sim_client_avail_names. */
typedef enum {
    SIM_AVAIL_ALWAYS,
    SIM_AVAIL_RENEWAL,
    SIM_AVAIL_TRACE,
} sim_avail_kind_t;

/* NULL-terminated names, indexed by sim_avail_kind_t: "always", "renewal", "trace". */
extern const char *const sim_client_avail_names[];

/* The shortest mean period a RENEWAL process accepts, in seconds.  A cursor steps through
 * every period, so periods far shorter than a run make every query slow; real devices'
 * online and offline periods last minutes to hours. */
#define SIM_CLIENT_PERIOD_MEAN_MIN_S 1e-3

typedef struct sim_client_model {
    uint64_t seed;             /* the run's master seed */
    sim_avail_kind_t avail;    /* availability process */
    sim_dist_t online_s;       /* RENEWAL: online period lengths, s (mean >= 1 ms) */
    sim_dist_t offline_s;      /* RENEWAL: offline period lengths, s (mean >= 1 ms) */
    double dropout_p;          /* per-task dropout probability, in [0, 1] */
    sim_dist_t compute_factor; /* per-client multiplier on compute time */
    sim_dist_t bandwidth_Bps;  /* per-client bandwidth, bytes/s */
    const sim_fedscale_trace_t *avail_trace;     /* TRACE: the trace (borrowed) */
    const sim_fedscale_capacity_t *device_trace; /* NULL, or devices from this file instead
                                                  * of the two laws above (borrowed) */
} sim_client_model_t;

/* 0 if m is usable, else -1 with a message naming the field ("online_s", "offline_s",
 * "dropout_p", "avail", "avail_trace").  Distributions are taken as sim_dist_parse left them
 * (valid) and traces as their loaders did; only the constraints added here are checked. */
int sim_client_model_check(const sim_client_model_t *m, sgd_err_t *err);

/* Where a client's availability walk is: the period [since_ns, until_ns) in which it is
 * `online` or not, and the state of its availability stream after drawing that period.
 * until_ns = SIM_TIME_BEYOND_NS: the state never changes again. */
typedef struct sim_client_avail {
    uint64_t stream[4]; /* the generator's state (sim_rng_xoshiro256ss) */
    int64_t since_ns;
    int64_t until_ns;
    uint64_t client;
    uint32_t online; /* 1 or 0 */
    uint32_t reserved; /* 0 */
} sim_client_avail_t;

/* A cursor at client's first period (t = 0). */
void sim_client_avail_start(const sim_client_model_t *m, uint64_t client,
                            sim_client_avail_t *c);

/* Whether c's client is online at t_ns (0 <= t_ns <= SIM_TIME_BEYOND_NS); moves c to t. */
bool sim_client_online(const sim_client_model_t *m, sim_client_avail_t *c, int64_t t_ns);

/* The first time after t_ns at which c's client changes state (so it has the state of t_ns
 * on [t_ns, result)); SIM_TIME_BEYOND_NS if it never does.  Moves c to t. */
int64_t sim_client_next_change(const sim_client_model_t *m, sim_client_avail_t *c,
                               int64_t t_ns);

/* The same questions without a cursor the caller keeps (each walks from t = 0). */
bool sim_client_online_at(const sim_client_model_t *m, uint64_t client, int64_t t_ns);

typedef struct sim_client_task {
    bool completes;   /* the task runs to its end */
    bool went_offline; /* it failed because the client was or went offline (else: the coin) */
    int64_t end_ns;   /* completes: start + duration; fails: when it stops, in [start, start +
                       * duration) */
} sim_client_task_t;

/* The fate of a task of c's client that starts at start_ns and needs duration_ns (both >= 0,
 * their sum at most SIM_TIME_BEYOND_NS); task_key names the task among the client's tasks
 * (any value unique per task of that client, e.g. its start time: a client runs one task at a
 * time).  Moves c to start_ns. */
sim_client_task_t sim_client_task(const sim_client_model_t *m, sim_client_avail_t *c,
                                  uint64_t task_key, int64_t start_ns, int64_t duration_ns);

typedef struct sim_client_device {
    double compute_factor; /* >= 0: multiplies the scenario's compute time */
    double bandwidth_Bps;  /* >= 1: bytes per second */
} sim_client_device_t;

/* Client i's device, drawn afresh from its stream at every call (the same answer each time). */
sim_client_device_t sim_client_device(const sim_client_model_t *m, uint64_t client);

/* Checkpoints of a cursor (common/ckbuf.h).  Restore refuses (through the reader) a cursor
 * whose period is empty, whose flag is not 0 or 1, or whose stream is all zero while it
 * still has periods to draw. */
void sim_client_avail_save(const sim_client_avail_t *c, sgd_ckw_t *w);
void sim_client_avail_restore(sim_client_avail_t *c, sgd_ckr_t *r);

#endif
