/* Events held back until they are final (trace_internal.h).
 *
 * Algorithms record what they schedule, often before it happens: a compute span when the
 * computation starts, a message when it is booked on its links.  When the run stops, some
 * of it would never have happened, or not to its end.  So an event is written only once it
 * ends no later than the run can end (sim_trace_settle: the runner says so at every update)
 * or once the run has ended (sim_trace_run_end), which cuts what crosses the end and leaves
 * out what begins after it.
 *
 * Each track holds its events in a lane, in the order recorded, so that a track's events
 * keep their order in the file (an update's span comes before the flows that end in it);
 * a kind's counter samples have a lane of their own.  A heap orders the lanes that hold
 * events by the end of their first one, so settling releases exactly what became final, in
 * a deterministic order (by that end, then by lane), without visiting idle lanes.  A lane
 * holds only what its track has booked ahead, so a stalled track holds back only its own.
 * At the step level a link's consecutive messages of one kind and group are held as one
 * run, with what each needs to be cut, so that a collective's thousands of messages cost
 * 32 bytes each while they wait.  At most max(max_events, TR_HOLD_MIN) events (a run counts
 * once) are held at a time; more are dropped, so memory stays bounded. */
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "sim/trace_internal.h"

#define TR_HOLD_MIN 65536

static bool lane_before(const tr_lane_t *a, sim_track_kind_t kind, uint32_t id)
{
    return a->kind < kind || (a->kind == kind && a->id < id);
}

/* The lane of (kind, id), created on first use. */
static tr_lane_t *lane_of(sim_trace_t *t, sim_track_kind_t kind, uint32_t id)
{
    size_t lo = 0, hi = t->nlanes;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (lane_before(&t->lanes[t->lane_order[mid]], kind, id)) lo = mid + 1;
        else hi = mid;
    }
    if (lo < t->nlanes) {
        tr_lane_t *l = &t->lanes[t->lane_order[lo]];
        if (l->kind == kind && l->id == id) return l;
    }
    if (t->nlanes == t->lanes_cap) {
        t->lanes_cap = t->lanes_cap ? 2 * t->lanes_cap : 64;
        t->lanes = sgd_xrealloc(t->lanes, t->lanes_cap * sizeof *t->lanes);
        t->lane_order = sgd_xrealloc(t->lane_order, t->lanes_cap * sizeof *t->lane_order);
        t->heap = sgd_xrealloc(t->heap, t->lanes_cap * sizeof *t->heap);
    }
    memmove(&t->lane_order[lo + 1], &t->lane_order[lo], (t->nlanes - lo) * sizeof *t->lane_order);
    t->lane_order[lo] = (uint32_t)t->nlanes;
    t->lanes[t->nlanes] = (tr_lane_t){.kind = kind, .id = id};
    return &t->lanes[t->nlanes++];
}

/* ---- the heap of lanes holding events, keyed by (end of their first event, index) ------- */

static const trace_ev_t *first(const tr_lane_t *l) { return &l->q[l->head].e; }

static bool heap_less(const sim_trace_t *t, uint32_t a, uint32_t b)
{
    int64_t ta = first(&t->lanes[a])->t1, tb = first(&t->lanes[b])->t1;
    return ta < tb || (ta == tb && a < b);
}

static void heap_set(sim_trace_t *t, size_t pos, uint32_t lane)
{
    t->heap[pos] = lane;
    t->lanes[lane].heap_pos = pos;
}

static void sift_up(sim_trace_t *t, size_t pos)
{
    uint32_t x = t->heap[pos];
    while (pos > 0 && heap_less(t, x, t->heap[(pos - 1) / 2])) {
        heap_set(t, pos, t->heap[(pos - 1) / 2]);
        pos = (pos - 1) / 2;
    }
    heap_set(t, pos, x);
}

static void sift_down(sim_trace_t *t, size_t pos)
{
    uint32_t x = t->heap[pos];
    for (;;) {
        size_t c = 2 * pos + 1;
        if (c >= t->nheap) break;
        if (c + 1 < t->nheap && heap_less(t, t->heap[c + 1], t->heap[c])) c++;
        if (!heap_less(t, t->heap[c], x)) break;
        heap_set(t, pos, t->heap[c]);
        pos = c;
    }
    heap_set(t, pos, x);
}

/* ---- holding ------------------------------------------------------------------------- */

static char *dup_or_null(const char *s) { return s ? sgd_xstrdup(s) : NULL; }

static void free_held(tr_held_t *h)
{
    free(h->e.name);
    free(h->e.args);
    free(h->e.detail);
    free(h->parts);
}

static void enqueue(sim_trace_t *t, tr_lane_t *l, const trace_ev_t *e)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        tr_held_t *q = sgd_xmalloc(cap * sizeof *q);
        for (size_t i = 0; i < l->n; i++) q[i] = l->q[(l->head + i) % l->cap];
        free(l->q);
        l->q = q;
        l->cap = cap;
        l->head = 0;
    }
    tr_held_t *h = &l->q[(l->head + l->n) % l->cap];
    *h = (tr_held_t){.e = *e};
    h->e.name = dup_or_null(e->name);
    h->e.args = dup_or_null(e->args);
    h->e.detail = dup_or_null(e->detail);
    l->n++;
    t->nheld++;
    if (l->n == 1) {
        t->heap[t->nheap] = (uint32_t)(l - t->lanes);
        sift_up(t, t->nheap++);
    }
}

static void add_part(tr_held_t *h, const trace_ev_t *e)
{
    if (h->nparts == h->parts_cap) {
        h->parts_cap = h->parts_cap ? 2 * h->parts_cap : 8;
        h->parts = sgd_xrealloc(h->parts, h->parts_cap * sizeof *h->parts);
    }
    h->parts[h->nparts++] = (tr_part_t){e->t0, e->t1, e->waited_ns, e->bytes};
}

/* Step level: a tagged message joins the run last held on its link when it has the same
 * kind and group.  Returns whether it did. */
static bool join_run(sim_trace_t *t, tr_lane_t *l, const trace_ev_t *e)
{
    if (t->opts.level != SIM_TRACE_LEVEL_STEP || e->type != TR_MESSAGE || !e->name || l->n == 0)
        return false;
    tr_held_t *h = &l->q[(l->head + l->n - 1) % l->cap];
    if (h->e.type != TR_MESSAGE || !h->e.name || strcmp(h->e.name, e->name) != 0 ||
        strcmp(h->e.args ? h->e.args : "", e->args ? e->args : "") != 0)
        return false;
    if (!h->parts) add_part(h, &h->e);
    add_part(h, e);
    h->e.t1 = e->t1;
    h->e.bytes += e->bytes;
    h->e.waited_ns += e->waited_ns;
    h->e.messages += e->messages;
    h->e.busy_ns += e->busy_ns;
    if (l->n == 1) sift_down(t, l->heap_pos); /* its end, the lane's key, moved later */
    return true;
}

/* ---- releasing ---------------------------------------------------------------------- */

static bool in_window(const sim_trace_t *t, int64_t t0, int64_t t1)
{
    return t1 >= t->opts.t0_ns && t0 <= t->opts.t1_ns;
}

/* A run of messages as the window and the run's end leave it, with each message judged as
 * if alone: the messages that began by the end (the last one cut there when it crosses it:
 * *cut) and overlap the window.  Those after the end are counted; e.messages may be 0. */
static trace_ev_t collapse_run(sim_trace_t *t, const tr_held_t *h, bool *cut)
{
    const int64_t end = t->ended ? t->end_ns : INT64_MAX;
    trace_ev_t e = h->e;
    e.bytes = 0, e.waited_ns = 0, e.messages = 0, e.busy_ns = 0;
    *cut = false;
    for (uint32_t i = 0; i < h->nparts; i++) {
        const tr_part_t *p = &h->parts[i];
        if (p->t0 > end) {
            t->after++;
            continue;
        }
        const int64_t t1 = p->t1 > end ? end : p->t1;
        if (!in_window(t, p->t0, t1)) continue;
        if (e.messages == 0) e.t0 = p->t0;
        e.t1 = t1;
        *cut = p->t1 > end;
        e.bytes += p->bytes;
        e.waited_ns += p->waited_ns;
        e.messages++;
        e.busy_ns += t1 - p->t0;
    }
    return e;
}

/* Writes e as the run's end leaves it: whole, cut (a span or message crossing the end), or
 * not at all (anything beginning after it, a flow or sample after it). */
static void release(sim_trace_t *t, tr_lane_t *l, const tr_held_t *h)
{
    const trace_ev_t *e = &h->e;
    if (h->parts) {
        bool cut;
        const trace_ev_t c = collapse_run(t, h, &cut);
        if (c.messages) trace_emit(t, l, &c, cut);
        return;
    }
    if (!t->ended || e->t1 <= t->end_ns) {
        trace_emit(t, l, e, false);
        return;
    }
    if ((e->type == TR_SPAN || e->type == TR_MESSAGE) && e->t0 <= t->end_ns) {
        trace_ev_t c = *e;
        c.t1 = t->end_ns;
        c.busy_ns = c.t1 - c.t0;
        trace_emit(t, l, &c, true);
        return;
    }
    t->after++;
}

/* Releases the first event of the lane on top of the heap. */
static void release_top(sim_trace_t *t)
{
    tr_lane_t *l = &t->lanes[t->heap[0]];
    tr_held_t *h = &l->q[l->head];
    release(t, l, h);
    free_held(h);
    l->head = (l->head + 1) % l->cap;
    l->n--;
    t->nheld--;
    if (l->n > 0) {
        sift_down(t, 0);
        return;
    }
    if (--t->nheap > 0) {
        heap_set(t, 0, t->heap[t->nheap]);
        sift_down(t, 0);
    }
}

void trace_hold_settle(sim_trace_t *t, int64_t t_ns)
{
    if (t_ns > t->settled) t->settled = t_ns;
    while (t->nheap > 0 && first(&t->lanes[t->heap[0]])->t1 <= t->settled) release_top(t);
}

void trace_hold_put(sim_trace_t *t, const trace_ev_t *e)
{
    if (t->ended) { /* nothing happens after the run's end */
        t->after++;
        return;
    }
    tr_lane_t *l = lane_of(t, e->kind, e->id);
    if (l->n == 0 && e->t1 <= t->settled) {
        const tr_held_t now = {.e = *e};
        release(t, l, &now);
        return;
    }
    if (join_run(t, l, e)) return;
    uint64_t most = t->opts.max_events > TR_HOLD_MIN ? t->opts.max_events : TR_HOLD_MIN;
    if (t->opts.max_events && t->nheld >= most) {
        t->dropped++;
        return;
    }
    enqueue(t, l, e);
}

void trace_hold_flush(sim_trace_t *t)
{
    while (t->nheap > 0) release_top(t);
    for (size_t i = 0; i < t->nlanes; i++) trace_agg_close(t, &t->lanes[t->lane_order[i]]);
}

void trace_hold_free(sim_trace_t *t)
{
    for (size_t i = 0; i < t->nlanes; i++) {
        tr_lane_t *l = &t->lanes[i];
        for (size_t k = 0; k < l->n; k++) free_held(&l->q[(l->head + k) % l->cap]);
        free(l->q);
        free(l->agg.kind);
        free(l->agg.group);
    }
    free(t->lanes);
    free(t->lane_order);
    free(t->heap);
}
