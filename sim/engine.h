/* Discrete-event engine: a virtual clock in integer nanoseconds and one event queue.
 *
 * Everything that takes time in a simulated run (compute, I/O, messages, collectives) is an
 * event scheduled here.  Events are processed in (t_ns, seq) order, where seq is a global
 * insertion counter: events due at the same instant run in the order they were scheduled,
 * never in pointer or hash order.  That rule, plus integer time, is what makes a run
 * reproducible bit for bit (docs/design.md, "The determinism contract").
 *
 * Event types are registered at set-up: each gets a handler and a context pointer, and
 * sim_engine_register returns its id.  A handler may schedule new events (at t >= now) and
 * may ask the engine to stop after the current event.
 *
 * Wall-clock time is measured only to report throughput in sim_counters_t; it never enters
 * virtual time.
 *
 * Ownership: sim_engine_create returns an engine owned by the caller, freed with
 * sim_engine_destroy.  The engine copies events by value and never owns an event's `ptr`. */
#ifndef SGDSIM_SIM_ENGINE_H
#define SGDSIM_SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ckbuf.h"
#include "common/error.h"

typedef struct sim_engine sim_engine_t;

typedef struct sim_event {
    int64_t t_ns;    /* virtual time at which the event fires, ns */
    uint64_t seq;    /* insertion order (global counter), tie-break for equal t_ns */
    uint32_t type;   /* id returned by sim_engine_register */
    uint32_t entity; /* which worker / link / rank the event concerns; meaning is the type's */
    uint64_t arg;    /* free 64-bit payload; meaning is the type's */
    void *ptr;       /* free pointer payload, not owned by the engine */
} sim_event_t;

/* Called once per event; ev points to a copy that is valid only during the call. */
typedef void (*sim_handler_fn)(sim_engine_t *e, const sim_event_t *ev, void *ctx);

sim_engine_t *sim_engine_create(void);
void sim_engine_destroy(sim_engine_t *e);

/* Registers an event type; name is copied (used in traces), ctx is passed to fn unchanged.
 * Returns the new type id: 0 for the first registration, then 1, 2, ... */
uint32_t sim_engine_register(sim_engine_t *e, const char *name, sim_handler_fn fn, void *ctx);

/* Name given at registration; aborts on an unknown type. */
const char *sim_engine_type_name(const sim_engine_t *e, uint32_t type);

/* Queues an event.  t_ns < now or an unregistered type is a broken invariant (abort); t_ns
 * past the horizon (SIM_TIME_MAX_NS) is not queued but stops the run (sim_engine_past_horizon). */
void sim_engine_schedule(sim_engine_t *e, int64_t t_ns, uint32_t type, uint32_t entity,
                         uint64_t arg, void *ptr);

/* Current virtual time: the time of the event being (or last) processed, or until_ns after
 * a run that stopped at its time limit.  Starts at 0. */
int64_t sim_engine_now(const sim_engine_t *e);

/* Number of events waiting in the queue. */
size_t sim_engine_pending(const sim_engine_t *e);

/* The virtual-time horizon: no event may happen later than SIM_TIME_MAX_NS = 2^61 ns (about
 * 73 years).  Every modelled duration is converted to at most SIM_TIME_BEYOND_NS, one past
 * the horizon ("too long to model"), so a time before the horizon plus two durations stays
 * below 3 x 2^61 + 2 < 2^63: virtual-time arithmetic never overflows, and an event that a
 * too-long duration would put past the horizon ends the run instead (sim_engine_schedule,
 * sim_engine_past_horizon) with a clear reason, never an abort. */
#define SIM_TIME_MAX_NS ((int64_t)1 << 61)
#define SIM_TIME_BEYOND_NS (SIM_TIME_MAX_NS + 1)

/* a + b for times and durations in [0, SIM_TIME_BEYOND_NS], clamped to SIM_TIME_BEYOND_NS. */
static inline int64_t sim_time_add(int64_t a, int64_t b)
{
    int64_t s = a + b; /* <= 2 x (2^61 + 1): no overflow */
    return s < SIM_TIME_BEYOND_NS ? s : SIM_TIME_BEYOND_NS;
}

typedef struct sim_run_limits {
    int64_t until_ns;    /* process events with t_ns <= until_ns; INT64_MAX = no limit */
    uint64_t max_events; /* at most this many events in this call; 0 = no limit */
} sim_run_limits_t;

typedef enum {
    SIM_STOP_EMPTY,     /* the queue ran dry; now stays at the last event's time */
    SIM_STOP_TIME,      /* the next event is after until_ns; now was advanced to until_ns */
    SIM_STOP_EVENTS,    /* max_events events were processed in this call */
    SIM_STOP_REQUESTED, /* sim_engine_stop was called */
} sim_stop_reason_t;

/* Processes events in (t_ns, seq) order until a limit is hit.  lim may be NULL (no limits).
 * Events left in the queue stay there, so run can be called again to continue. */
sim_stop_reason_t sim_engine_run(sim_engine_t *e, const sim_run_limits_t *lim);

/* True once something asked for an event past the horizon (t_ns > SIM_TIME_MAX_NS): that
 * event was not queued and the run stopped as if sim_engine_stop had been called.  The
 * caller decides what that means (the runner fails the run, naming the horizon). */
bool sim_engine_past_horizon(const sim_engine_t *e);

/* Asks the current run to return SIM_STOP_REQUESTED after the event being processed.
 * Called outside a run, the next run returns SIM_STOP_REQUESTED before processing any event. */
void sim_engine_stop(sim_engine_t *e);

typedef struct sim_counters {
    uint64_t events_processed; /* handlers called, over all runs */
    uint64_t events_scheduled; /* sim_engine_schedule calls */
    uint64_t peak_queue;       /* largest number of events queued at once */
    int64_t vtime_ns;          /* virtual time now, ns */
    double wall_s;             /* wall-clock seconds spent inside sim_engine_run */
    double events_per_s;       /* events_processed / wall_s; 0 when wall_s is 0 */
} sim_counters_t;

sim_counters_t sim_engine_counters(const sim_engine_t *e);

/* Checkpoints (common/ckbuf.h).  An event is saved by its type id, never by pointer: save
 * writes the registered types' names, the clock, the sequence counter, the counters and
 * every pending event (time, seq, type, entity, arg).  It refuses (-1, err naming the type)
 * an event whose ptr is not NULL, which no file can carry.  Restore takes an engine set up
 * as the saved one was -- the same types registered in the same order (checked by name) --
 * with an empty queue, and leaves it as the saved engine was: the next event, every tie and
 * every later seq are the ones the uninterrupted run has. */
int sim_engine_save(const sim_engine_t *e, sgd_ckw_t *w, sgd_err_t *err);
int sim_engine_restore(sim_engine_t *e, sgd_ckr_t *r, sgd_err_t *err);

/* What a restored pending event may hold is its type's to say: the engine checks only the
 * time, the order and the type, never what entity and arg mean (a worker, a rank, a slot).
 * The owner of a type registers a check for it; it is given the type's context, returns
 * true when the event fits the restored state (an entity in range, a worker that is where
 * the event says it is), and else false with the reason in why.  sim_engine_check_pending
 * runs the checks over every pending event, and refuses one whose type has none: a type
 * nobody checks is not trusted.  0, or -1 with err naming the event. */
typedef bool (*sim_check_fn)(void *ctx, const sim_event_t *ev, char *why, size_t size);
/* The latest time anything is pending for: the clock, or the last pending event's time.
 * Whatever a restored state books ahead (a link busy until, a sender's sends done at) ends
 * by then: its event is pending. */
int64_t sim_engine_latest(const sim_engine_t *e);
void sim_engine_set_check(sim_engine_t *e, uint32_t type, sim_check_fn check);
int sim_engine_check_pending(const sim_engine_t *e, sgd_err_t *err);

#endif
