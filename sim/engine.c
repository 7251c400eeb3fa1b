/* Event engine declared in engine.h: a 4-ary min-heap of events stored by value.
 *
 * The heap array doubles as the event pool: events are copied in and out, so scheduling
 * allocates only when the queue outgrows its largest size so far.  A 4-ary heap is used
 * rather than a binary one because it is shallower (fewer cache lines touched per pop) at
 * the queue sizes a 10^5-worker simulation reaches. */
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"

#define HEAP_ARITY 4

typedef struct handler {
    char *name;
    sim_handler_fn fn;
    void *ctx;
    sim_check_fn check; /* a restored event's check (sim_engine_set_check), or NULL */
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
    e->types[e->ntypes] = (handler_t){sgd_xstrdup(name), fn, ctx, NULL};
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

/* ---- checkpoints --------------------------------------------------------------------- */

int sim_engine_save(const sim_engine_t *e, sgd_ckw_t *w, sgd_err_t *err)
{
    for (size_t i = 0; i < e->size; i++)
        if (e->heap[i].ptr)
            return sgd_errf(err, "a pending event of type \"%s\" holds a pointer, which a "
                                 "checkpoint cannot save", e->types[e->heap[i].type].name);
    sgd_ckw_tag(w, "engine");
    sgd_ckw_u64(w, e->ntypes);
    for (uint32_t i = 0; i < e->ntypes; i++) sgd_ckw_str(w, e->types[i].name);
    sgd_ckw_i64(w, e->now_ns);
    sgd_ckw_u64(w, e->next_seq);
    sgd_ckw_u64(w, e->processed);
    sgd_ckw_u64(w, e->scheduled);
    sgd_ckw_u64(w, e->peak);
    sgd_ckw_u64(w, e->size);
    for (size_t i = 0; i < e->size; i++) {
        const sim_event_t *ev = &e->heap[i];
        sgd_ckw_i64(w, ev->t_ns);
        sgd_ckw_u64(w, ev->seq);
        sgd_ckw_u64(w, ev->type);
        sgd_ckw_u64(w, ev->entity);
        sgd_ckw_u64(w, ev->arg);
    }
    return 0;
}

/* The saved engine's event types must be this one's, in the same order. */
static void restore_types(const sim_engine_t *e, sgd_ckr_t *r)
{
    uint64_t n = sgd_ckr_count(r, e->ntypes, "event types");
    if (!r->failed && n != e->ntypes)
        sgd_ckr_fail(r, "%llu event types saved, this run registers %u", (unsigned long long)n,
                     e->ntypes);
    for (uint32_t i = 0; i < n && !r->failed; i++) {
        char name[128];
        sgd_ckr_str(r, name, sizeof name, "event type");
        if (!r->failed && strcmp(name, e->types[i].name) != 0)
            sgd_ckr_fail(r, "event type %u is \"%s\" in the checkpoint, \"%s\" in this run", i,
                         name, e->types[i].name);
    }
}

/* One saved event, checked against the restored clock and counter before it is queued. */
static void restore_event(sim_engine_t *e, sgd_ckr_t *r)
{
    sim_event_t ev = {.t_ns = sgd_ckr_i64(r), .seq = sgd_ckr_u64(r)};
    uint64_t type = sgd_ckr_u64(r), entity = sgd_ckr_u64(r);
    ev.arg = sgd_ckr_u64(r);
    if (r->failed) return;
    if (ev.t_ns < e->now_ns || ev.t_ns > SIM_TIME_MAX_NS || ev.seq >= e->next_seq ||
        type >= e->ntypes || entity > UINT32_MAX) {
        sgd_ckr_fail(r, "a pending event out of range (time %lld, seq %llu, type %llu)",
                     (long long)ev.t_ns, (unsigned long long)ev.seq, (unsigned long long)type);
        return;
    }
    ev.type = (uint32_t)type;
    ev.entity = (uint32_t)entity;
    if (e->size == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 1024;
        e->heap = sgd_xrealloc(e->heap, e->cap * sizeof *e->heap);
    }
    e->heap[e->size] = ev;
    sift_up(e->heap, e->size);
    e->size++;
}

static int by_seq(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The counters against each other and the queue: every event scheduled got the next seq and
 * is either processed or pending, and no two pending events share a seq (ties would then
 * depend on the heap's layout). */
static void check_counters(const sim_engine_t *e, sgd_ckr_t *r)
{
    if (r->failed) return;
    if (e->next_seq != e->scheduled || e->processed > e->scheduled ||
        e->scheduled - e->processed != e->size || e->peak < e->size) {
        sgd_ckr_fail(r, "counters disagree: %llu events scheduled, %llu processed, %zu "
                        "pending, next seq %llu, peak %llu",
                     (unsigned long long)e->scheduled, (unsigned long long)e->processed,
                     e->size, (unsigned long long)e->next_seq, (unsigned long long)e->peak);
        return;
    }
    uint64_t *seq = sgd_xmalloc((e->size ? e->size : 1) * sizeof *seq);
    for (size_t i = 0; i < e->size; i++) seq[i] = e->heap[i].seq;
    qsort(seq, e->size, sizeof *seq, by_seq);
    for (size_t i = 1; i < e->size && !r->failed; i++)
        if (seq[i] == seq[i - 1])
            sgd_ckr_fail(r, "two pending events share seq %llu", (unsigned long long)seq[i]);
    free(seq);
}

int sim_engine_restore(sim_engine_t *e, sgd_ckr_t *r, sgd_err_t *err)
{
    SGD_ASSERT(e->size == 0);
    sgd_ckr_tag(r, "engine");
    restore_types(e, r);
    e->now_ns = sgd_ckr_i64(r);
    e->next_seq = sgd_ckr_u64(r);
    e->processed = sgd_ckr_u64(r);
    e->scheduled = sgd_ckr_u64(r);
    e->peak = sgd_ckr_u64(r);
    /* Each event takes 40 bytes: a count beyond what is left is a damaged file. */
    uint64_t n = sgd_ckr_count(r, (r->len - r->pos) / 40, "pending events");
    if (!r->failed && (e->now_ns < 0 || e->now_ns > SIM_TIME_MAX_NS))
        sgd_ckr_fail(r, "virtual time %lld out of range", (long long)e->now_ns);
    for (uint64_t i = 0; i < n && !r->failed; i++) restore_event(e, r);
    check_counters(e, r);
    if (r->failed) e->size = 0;
    return sgd_ckr_check(r, "engine", err);
}

int64_t sim_engine_latest(const sim_engine_t *e)
{
    int64_t t = e->now_ns;
    for (size_t i = 0; i < e->size; i++)
        if (e->heap[i].t_ns > t) t = e->heap[i].t_ns;
    return t;
}

void sim_engine_set_check(sim_engine_t *e, uint32_t type, sim_check_fn check)
{
    SGD_ASSERT(type < e->ntypes && check);
    e->types[type].check = check;
}

int sim_engine_check_pending(const sim_engine_t *e, sgd_err_t *err)
{
    for (size_t i = 0; i < e->size; i++) {
        const sim_event_t *ev = &e->heap[i];
        const handler_t *h = &e->types[ev->type];
        char why[256] = "nothing checks events of this type";
        if (!h->check || !h->check(h->ctx, ev, why, sizeof why))
            return sgd_errf(err, "engine: pending event \"%s\" (entity %u, arg %llu, at %lld "
                                 "ns): %s",
                            h->name, ev->entity, (unsigned long long)ev->arg,
                            (long long)ev->t_ns, why);
    }
    return 0;
}
