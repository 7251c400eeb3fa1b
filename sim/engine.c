/* Event engine declared in engine.h: a 4-ary min-heap of events stored by value.
 *
 * The heap array doubles as the event pool: events are copied in and out, so scheduling
 * allocates only when the queue outgrows its largest size so far.  A 4-ary heap is used
 * rather than a binary one because it is shallower (fewer cache lines touched per pop) at
 * the queue sizes a 10^5-worker simulation reaches. */
#include "sim/engine.h"

#include <stdlib.h>
#include <time.h>

#include "common/error.h"

#define HEAP_ARITY 4

typedef struct handler {
    char *name;
    sim_handler_fn fn;
    void *ctx;
} handler_t;

struct sim_engine {
    sim_event_t *heap; /* heap[0] is the next event; capacity `cap` */
    size_t size, cap;
    handler_t *types; /* indexed by type id */
    uint32_t ntypes, types_cap;
    int64_t now_ns;
    uint64_t next_seq;
    int stop_requested;
    bool past_horizon;       /* an event past SIM_TIME_MAX_NS was asked for */
    uint64_t processed, scheduled, peak;
    double wall_s;
};

sim_engine_t *sim_engine_create(void) { return sgd_xcalloc(1, sizeof(sim_engine_t)); }

void sim_engine_destroy(sim_engine_t *e)
{
    if (!e) return;
    for (uint32_t i = 0; i < e->ntypes; i++) free(e->types[i].name);
    free(e->types);
    free(e->heap);
    free(e);
}

uint32_t sim_engine_register(sim_engine_t *e, const char *name, sim_handler_fn fn, void *ctx)
{
    SGD_ASSERT(fn != NULL && name != NULL);
    if (e->ntypes == e->types_cap) {
        e->types_cap = e->types_cap ? 2 * e->types_cap : 8;
        e->types = sgd_xrealloc(e->types, e->types_cap * sizeof *e->types);
    }
    e->types[e->ntypes] = (handler_t){sgd_xstrdup(name), fn, ctx};
    return e->ntypes++;
}

const char *sim_engine_type_name(const sim_engine_t *e, uint32_t type)
{
    SGD_ASSERT(type < e->ntypes);
    return e->types[type].name;
}

/* The total order of the queue.  seq is unique, so no two events ever compare equal and
 * the processing order does not depend on how the heap happens to be arranged. */
static int before(const sim_event_t *a, const sim_event_t *b)
{
    if (a->t_ns != b->t_ns) return a->t_ns < b->t_ns;
    return a->seq < b->seq;
}

static void sift_up(sim_event_t *h, size_t i)
{
    sim_event_t ev = h[i];
    while (i > 0) {
        size_t parent = (i - 1) / HEAP_ARITY;
        if (!before(&ev, &h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = ev;
}

static void sift_down(sim_event_t *h, size_t n, size_t i)
{
    sim_event_t ev = h[i];
    for (;;) {
        size_t first = i * HEAP_ARITY + 1;
        if (first >= n) break;
        size_t last = first + HEAP_ARITY < n ? first + HEAP_ARITY : n;
        size_t best = first;
        for (size_t c = first + 1; c < last; c++)
            if (before(&h[c], &h[best])) best = c;
        if (!before(&h[best], &ev)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = ev;
}

void sim_engine_schedule(sim_engine_t *e, int64_t t_ns, uint32_t type, uint32_t entity,
                         uint64_t arg, void *ptr)
{
    SGD_ASSERT(t_ns >= e->now_ns);
    SGD_ASSERT(type < e->ntypes);
    if (t_ns > SIM_TIME_MAX_NS) { /* a modelled time too long to simulate (engine.h) */
        e->past_horizon = true;
        e->stop_requested = 1;
        return;
    }
    if (e->size == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 1024;
        e->heap = sgd_xrealloc(e->heap, e->cap * sizeof *e->heap);
    }
    e->heap[e->size] = (sim_event_t){.t_ns = t_ns, .seq = e->next_seq++, .type = type,
                                     .entity = entity, .arg = arg, .ptr = ptr};
    sift_up(e->heap, e->size);
    e->size++;
    e->scheduled++;
    if (e->size > e->peak) e->peak = e->size;
}

int64_t sim_engine_now(const sim_engine_t *e) { return e->now_ns; }

size_t sim_engine_pending(const sim_engine_t *e) { return e->size; }

void sim_engine_stop(sim_engine_t *e) { e->stop_requested = 1; }

bool sim_engine_past_horizon(const sim_engine_t *e) { return e->past_horizon; }

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

sim_stop_reason_t sim_engine_run(sim_engine_t *e, const sim_run_limits_t *lim)
{
    int64_t until = lim ? lim->until_ns : INT64_MAX;
    uint64_t max_events = lim ? lim->max_events : 0;
    uint64_t done = 0;
    sim_stop_reason_t why;
    double t0 = mono_s();
    for (;;) {
        if (e->stop_requested) {
            e->stop_requested = 0;
            why = SIM_STOP_REQUESTED;
            break;
        }
        if (max_events && done == max_events) {
            why = SIM_STOP_EVENTS;
            break;
        }
        if (e->size == 0) {
            why = SIM_STOP_EMPTY;
            break;
        }
        if (e->heap[0].t_ns > until) {
            /* The clock moves to the limit so that a caller running in slices of virtual
             * time sees now == until and may schedule at it. */
            if (until > e->now_ns) e->now_ns = until;
            why = SIM_STOP_TIME;
            break;
        }
        /* Pop into a local copy before calling the handler: the handler may schedule, which
         * can move or reallocate the heap. */
        sim_event_t ev = e->heap[0];
        e->size--;
        if (e->size > 0) {
            e->heap[0] = e->heap[e->size];
            sift_down(e->heap, e->size, 0);
        }
        e->now_ns = ev.t_ns;
        const handler_t *h = &e->types[ev.type];
        h->fn(e, &ev, h->ctx);
        e->processed++;
        done++;
    }
    e->wall_s += mono_s() - t0;
    return why;
}

sim_counters_t sim_engine_counters(const sim_engine_t *e)
{
    sim_counters_t c = {
        .events_processed = e->processed,
        .events_scheduled = e->scheduled,
        .peak_queue = e->peak,
        .vtime_ns = e->now_ns,
        .wall_s = e->wall_s,
        .events_per_s = e->wall_s > 0 ? (double)e->processed / e->wall_s : 0.0,
    };
    return c;
}
