/* Message-level execution of a collective schedule (collective.h): every message through
 * the network's links as engine events (tagged for the timeline when asked), and the
 * execution's checkpoints. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "sim/collective_internal.h"

/* ---- message-level execution -------------------------------------------------------- */

/* Rendezvous: sends one slot may hold waiting for their receive.  The schedules above hold at
 * most one per slot; a few more leave room. */
#define COLL_PENDING_MAX 4

typedef struct coll_rank {
    int call;            /* call of the current round */
    int op;              /* next operation of the current call */
    int posted_upto;     /* rendezvous: receive ops before this index of the call are posted */
    int pending_sends;   /* rendezvous: sends of this call waiting for their receiver */
    bool active;         /* entered and not yet done */
    bool waking;         /* a wake-up event for the end-of-call wait is pending */
    int64_t sends_until; /* when this call's sends so far have left this rank, ns */
    int64_t round;       /* times it entered: its current round (timeline) */
} coll_rank_t;

struct sim_coll {
    sim_engine_t *engine;
    sim_net_t *net;
    const sim_topo_t *topo;
    const sim_sched_t *sched;
    int *endpoints;
    uint64_t *elems;
    int ncalls;
    uint32_t elem_bytes;
    sim_coll_rank_done_fn done;
    void *ctx;
    uint32_t ev_enter, ev_arrive, ev_wake;
    uint64_t *arrived, *consumed; /* per slot, over the whole run */
    bool rendezvous;
    uint64_t *posted, *started;   /* rendezvous, per slot: receives posted, sends started */
    /* rendezvous, per slot: sizes of sends waiting for their receive */
    uint64_t (*pending)[COLL_PENDING_MAX];
    uint8_t *npending;
    coll_rank_t *ranks;
    uint64_t messages, bytes;
    /* a restore's checks (sim_coll_verify): per slot its receiver; per rank the enter and
     * wake events found pending */
    int32_t *slot_dst;
    uint32_t *ck_enter, *ck_wake;
    uint64_t ck_arrivals; /* messages found on their way */
    char *tr_kind, *tr_round_key; /* sim_coll_set_trace, or NULL */
    char **tr_names;              /* per rank */
};

/* Where in the collective a message is: for its tag. */
typedef struct msg_place {
    int call, step;
    int64_t round;
} msg_place_t;

/* Books the message on the network, tagged when the timeline wants it. */
static int64_t reserve(sim_coll_t *c, int src, int dst, const int *route, int len,
                       uint64_t bytes, int64_t now, msg_place_t at)
{
    if (!c->tr_kind || !sim_net_traced(c->net))
        return sim_net_reserve(c->net, route, len, bytes, now);
    const sim_trace_arg_t group[] = {SIM_TRACE_I(c->tr_round_key, at.round)};
    const sim_trace_arg_t detail[] = {SIM_TRACE_I("call", at.call), SIM_TRACE_I("step", at.step),
                                      SIM_TRACE_S("from", c->tr_names[src]),
                                      SIM_TRACE_S("to", c->tr_names[dst])};
    const sim_trace_msg_t tag = {c->tr_kind, group, 1, detail, 4};
    return sim_net_reserve_tagged(c->net, route, len, bytes, now, &tag);
}

/* Puts a message of `bytes` on the wire from the sender of `slot` to its receiver now, and
 * returns when the sender's copy is locally complete (the last byte has left: arrival minus
 * the route's propagation latency). */
static int64_t transmit(sim_coll_t *c, int src, int dst, int32_t slot, uint64_t bytes,
                        int64_t now, msg_place_t at)
{
    int route[SIM_ROUTE_MAX];
    int len = sim_topo_route(c->topo, c->endpoints[src], c->endpoints[dst], route);
    int64_t arrive = reserve(c, src, dst, route, len, bytes, now, at);
    sim_engine_schedule(c->engine, arrive, c->ev_arrive, (uint32_t)dst, (uint64_t)slot, NULL);
    double bw;
    int64_t lat;
    sched_route_params(c->net, route, len, &bw, &lat);
    c->messages++;
    c->bytes += bytes;
    return arrive - lat;
}

static void note_sent(sim_coll_t *c, int r, int64_t done_at, int64_t now)
{
    coll_rank_t *rk = &c->ranks[r];
    if (done_at > rk->sends_until) rk->sends_until = done_at;
    /* A sender already waiting at the end of its call is woken once its sends are done. */
    int nops = c->sched->op_off[r + 1] - c->sched->op_off[r];
    if (rk->active && rk->op == nops && rk->pending_sends == 0 && !rk->waking) {
        rk->waking = true;
        sim_engine_schedule(c->engine, rk->sends_until > now ? rk->sends_until : now, c->ev_wake,
                            (uint32_t)r, 0, NULL);
    }
}

/* Runs rank r's program from where it stands until it blocks or is done.  Everything happens
 * at the engine's current time, so sends are reserved on the network in time order. */
static void advance(sim_coll_t *c, int r)
{
    coll_rank_t *rk = &c->ranks[r];
    const sim_sched_t *s = c->sched;
    int64_t now = sim_engine_now(c->engine);
    int nops = s->op_off[r + 1] - s->op_off[r];
    while (rk->active) {
        if (rk->op == nops) {
            if (rk->pending_sends > 0) return; /* woken by note_sent */
            if (rk->sends_until > now) {
                /* MPI_Waitall: the call ends when this rank's own sends have arrived. */
                if (!rk->waking) {
                    rk->waking = true;
                    sim_engine_schedule(c->engine, rk->sends_until, c->ev_wake, (uint32_t)r, 0,
                                        NULL);
                }
                return;
            }
            rk->op = 0;
            rk->posted_upto = 0;
            rk->sends_until = 0;
            if (++rk->call == c->ncalls) {
                rk->active = false;
                c->done(c->ctx, r, now);
                return;
            }
            continue;
        }
        const sched_op_t *op = &s->ops[s->op_off[r] + rk->op];
        if (op->is_send) {
            uint64_t bytes = sched_msg_elems(op->mul, op->den, c->elems[rk->call]) * c->elem_bytes;
            if (!c->rendezvous || c->posted[op->slot] > c->started[op->slot]) {
                if (c->rendezvous) c->started[op->slot]++;
                const msg_place_t at = {rk->call, op->step, rk->round};
                int64_t done_at = transmit(c, r, op->peer, op->slot, bytes, now, at);
                if (done_at > rk->sends_until) rk->sends_until = done_at;
            } else {
                /* The receiver has not posted its receive: the data waits with the sender. */
                SGD_ASSERT(c->npending[op->slot] < COLL_PENDING_MAX);
                c->pending[op->slot][c->npending[op->slot]++] = bytes;
                rk->pending_sends++;
            }
        } else {
            if (c->rendezvous && rk->op >= rk->posted_upto) {
                /* Post every receive of this step at once (MPI_Irecv each, then wait), in
                 * order; a sender waiting for one of them moves its data now. */
                int j = rk->op;
                for (; j < nops && !s->ops[s->op_off[r] + j].is_send; j++) {
                    const sched_op_t *recv = &s->ops[s->op_off[r] + j];
                    int32_t slot = recv->slot;
                    c->posted[slot]++;
                    if (c->npending[slot] > 0) {
                        uint64_t bytes = c->pending[slot][0];
                        memmove(c->pending[slot], c->pending[slot] + 1,
                                (size_t)(--c->npending[slot]) * sizeof(uint64_t));
                        c->started[slot]++;
                        int src = s->slot_src[slot];
                        /* The send matching this receive: same call, step and round. */
                        const msg_place_t at = {rk->call, recv->step, rk->round};
                        int64_t done_at = transmit(c, src, r, slot, bytes, now, at);
                        c->ranks[src].pending_sends--;
                        note_sent(c, src, done_at, now);
                    }
                }
                rk->posted_upto = j;
            }
            if (c->arrived[op->slot] == c->consumed[op->slot]) return; /* wait for it */
            c->consumed[op->slot]++;
        }
        rk->op++;
    }
}

static void on_enter(sim_engine_t *e, const sim_event_t *ev, void *ctx)
{
    (void)e;
    sim_coll_t *c = ctx;
    coll_rank_t *rk = &c->ranks[ev->entity];
    rk->active = true;
    rk->round++;
    rk->call = 0;
    rk->op = 0;
    rk->sends_until = 0;
    rk->posted_upto = 0;
    advance(c, (int)ev->entity);
}

static void on_arrive(sim_engine_t *e, const sim_event_t *ev, void *ctx)
{
    (void)e;
    sim_coll_t *c = ctx;
    int r = (int)ev->entity;
    c->arrived[ev->arg]++;
    coll_rank_t *rk = &c->ranks[r];
    const sim_sched_t *s = c->sched;
    /* Only a rank blocked on exactly this sender's message can move on. */
    if (rk->active && !rk->waking && rk->op < s->op_off[r + 1] - s->op_off[r]) {
        const sched_op_t *op = &s->ops[s->op_off[r] + rk->op];
        if (!op->is_send && (uint64_t)op->slot == ev->arg) advance(c, r);
    }
}

static void on_wake(sim_engine_t *e, const sim_event_t *ev, void *ctx)
{
    (void)e;
    sim_coll_t *c = ctx;
    c->ranks[ev->entity].waking = false;
    advance(c, (int)ev->entity);
}

/* ---- a restored collective's pending events (sim_engine_set_check) ------------------- */

static bool check_rank(const sim_coll_t *c, uint32_t rank, char *why, size_t size)
{
    if (rank < (uint32_t)c->sched->nranks) return true;
    snprintf(why, size, "rank %u of a collective of %d ranks", rank, c->sched->nranks);
    return false;
}

/* An event of rank ev->entity that carries nothing in its arg. */
static bool check_plain(const sim_coll_t *c, const sim_event_t *ev, char *why, size_t size)
{
    if (!check_rank(c, ev->entity, why, size)) return false;
    if (ev->arg == 0) return true;
    snprintf(why, size, "an argument %llu where none is carried", (unsigned long long)ev->arg);
    return false;
}

/* An entry: a rank not in the collective yet, entering once. */
static bool check_enter(void *ctx, const sim_event_t *ev, char *why, size_t size)
{
    sim_coll_t *c = ctx;
    if (!check_plain(c, ev, why, size)) return false;
    if (!c->ranks[ev->entity].active && c->ck_enter[ev->entity]++ == 0) return true;
    snprintf(why, size, "rank %u enters a collective it is already in", ev->entity);
    return false;
}

/* A message: to the receiver of its slot. */
static bool check_arrive(void *ctx, const sim_event_t *ev, char *why, size_t size)
{
    sim_coll_t *c = ctx;
    if (!check_rank(c, ev->entity, why, size)) return false;
    if (ev->arg < (uint64_t)c->sched->nslots && c->slot_dst[ev->arg] == (int32_t)ev->entity) {
        c->ck_arrivals++;
        return true;
    }
    snprintf(why, size, "a message of slot %llu to rank %u, which that slot does not reach",
             (unsigned long long)ev->arg, ev->entity);
    return false;
}

/* A wake-up: of a rank waiting for one, once. */
static bool check_wake(void *ctx, const sim_event_t *ev, char *why, size_t size)
{
    sim_coll_t *c = ctx;
    if (!check_plain(c, ev, why, size)) return false;
    if (c->ranks[ev->entity].waking && c->ck_wake[ev->entity]++ == 0) return true;
    snprintf(why, size, "a wake-up of rank %u, which waits for none", ev->entity);
    return false;
}

/* The checks of the collective's events and what they need: each slot's receiver. */
static void set_checks(sim_coll_t *c)
{
    const sim_sched_t *s = c->sched;
    c->slot_dst = sgd_xmalloc((size_t)(s->nslots + 1) * sizeof *c->slot_dst);
    for (int r = 0; r < s->nranks; r++)
        for (int j = s->op_off[r]; j < s->op_off[r + 1]; j++)
            if (!s->ops[j].is_send) c->slot_dst[s->ops[j].slot] = r;
    c->ck_enter = sgd_xcalloc((size_t)s->nranks, sizeof *c->ck_enter);
    c->ck_wake = sgd_xcalloc((size_t)s->nranks, sizeof *c->ck_wake);
    sim_engine_set_check(c->engine, c->ev_enter, check_enter);
    sim_engine_set_check(c->engine, c->ev_arrive, check_arrive);
    sim_engine_set_check(c->engine, c->ev_wake, check_wake);
}

sim_coll_t *sim_coll_create(sim_engine_t *e, sim_net_t *n, const sim_topo_t *t,
                            const sim_sched_t *s, const int *endpoints,
                            const uint64_t *call_elems, int ncalls, uint32_t elem_bytes,
                            sim_coll_rank_done_fn done, void *ctx, const char *name)
{
    SGD_ASSERT(e && n && t && s && endpoints && call_elems && ncalls >= 1 && done);
    sim_coll_t *c = sgd_xcalloc(1, sizeof *c);
    c->engine = e;
    c->net = n;
    c->topo = t;
    c->sched = s;
    c->endpoints = sgd_xmalloc((size_t)s->nranks * sizeof *c->endpoints);
    memcpy(c->endpoints, endpoints, (size_t)s->nranks * sizeof *c->endpoints);
    c->elems = sgd_xmalloc((size_t)ncalls * sizeof *c->elems);
    memcpy(c->elems, call_elems, (size_t)ncalls * sizeof *c->elems);
    c->ncalls = ncalls;
    c->elem_bytes = elem_bytes;
    c->done = done;
    c->ctx = ctx;
    c->arrived = sgd_xcalloc((size_t)s->nslots + 1, sizeof *c->arrived);
    c->consumed = sgd_xcalloc((size_t)s->nslots + 1, sizeof *c->consumed);
    c->ranks = sgd_xcalloc((size_t)s->nranks, sizeof *c->ranks);
    c->posted = sgd_xcalloc((size_t)s->nslots + 1, sizeof *c->posted);
    c->started = sgd_xcalloc((size_t)s->nslots + 1, sizeof *c->started);
    c->pending = sgd_xcalloc((size_t)s->nslots + 1, sizeof *c->pending);
    c->npending = sgd_xcalloc((size_t)s->nslots + 1, sizeof *c->npending);
    char buf[128];
    snprintf(buf, sizeof buf, "%s.enter", name);
    c->ev_enter = sim_engine_register(e, buf, on_enter, c);
    snprintf(buf, sizeof buf, "%s.arrive", name);
    c->ev_arrive = sim_engine_register(e, buf, on_arrive, c);
    snprintf(buf, sizeof buf, "%s.wake", name);
    c->ev_wake = sim_engine_register(e, buf, on_wake, c);
    set_checks(c);
    return c;
}

void sim_coll_enter(sim_coll_t *c, int rank, int64_t t_ns)
{
    SGD_ASSERT(rank >= 0 && rank < c->sched->nranks);
    SGD_ASSERT(!c->ranks[rank].active);
    sim_engine_schedule(c->engine, t_ns, c->ev_enter, (uint32_t)rank, 0, NULL);
}

void sim_coll_set_trace(sim_coll_t *c, const char *kind, const char *round_key,
                        const char *const *rank_names)
{
    SGD_ASSERT(kind && round_key && rank_names && !c->tr_kind);
    c->tr_kind = sgd_xstrdup(kind);
    c->tr_round_key = sgd_xstrdup(round_key);
    c->tr_names = sgd_xmalloc((size_t)c->sched->nranks * sizeof *c->tr_names);
    for (int r = 0; r < c->sched->nranks; r++) c->tr_names[r] = sgd_xstrdup(rank_names[r]);
}

void sim_coll_set_rendezvous(sim_coll_t *c, bool on)
{
    SGD_ASSERT(c->messages == 0);
    c->rendezvous = on;
}

uint64_t sim_coll_messages(const sim_coll_t *c) { return c->messages; }
uint64_t sim_coll_bytes(const sim_coll_t *c) { return c->bytes; }

/* The per-slot counters, one array of nslots + 1 values. */
static void save_u64s(sgd_ckw_t *w, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) sgd_ckw_u64(w, v[i]);
}

static void restore_u64s(sgd_ckr_t *r, uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) v[i] = sgd_ckr_u64(r);
}

void sim_coll_save(const sim_coll_t *c, sgd_ckw_t *w)
{
    size_t nslots = (size_t)c->sched->nslots + 1;
    sgd_ckw_tag(w, "collective");
    sgd_ckw_u64(w, (uint64_t)c->sched->nranks);
    sgd_ckw_u64(w, nslots);
    for (int i = 0; i < c->sched->nranks; i++) {
        const coll_rank_t *rk = &c->ranks[i];
        sgd_ckw_i64(w, rk->call);
        sgd_ckw_i64(w, rk->op);
        sgd_ckw_i64(w, rk->posted_upto);
        sgd_ckw_i64(w, rk->pending_sends);
        sgd_ckw_u64(w, (uint64_t)rk->active | (uint64_t)rk->waking << 1);
        sgd_ckw_i64(w, rk->sends_until);
        sgd_ckw_i64(w, rk->round);
    }
    save_u64s(w, c->arrived, nslots);
    save_u64s(w, c->consumed, nslots);
    save_u64s(w, c->posted, nslots);
    save_u64s(w, c->started, nslots);
    for (size_t k = 0; k < nslots; k++) {
        sgd_ckw_u64(w, c->npending[k]);
        save_u64s(w, c->pending[k], COLL_PENDING_MAX);
    }
    sgd_ckw_u64(w, c->messages);
    sgd_ckw_u64(w, c->bytes);
}

/* One rank's place, checked against its program so that a damaged file cannot index
 * outside it. */
static void restore_rank(sim_coll_t *c, int i, sgd_ckr_t *r)
{
    coll_rank_t *rk = &c->ranks[i];
    int64_t nops = c->sched->op_off[i + 1] - c->sched->op_off[i];
    int64_t call = sgd_ckr_i64(r), op = sgd_ckr_i64(r), posted = sgd_ckr_i64(r);
    int64_t pending = sgd_ckr_i64(r);
    uint64_t flags = sgd_ckr_u64(r);
    rk->sends_until = sgd_ckr_i64(r);
    int64_t round = sgd_ckr_i64(r);
    if (r->failed) return;
    const bool active = flags & 1, waking = (flags >> 1) & 1;
    if (call < 0 || call > c->ncalls || op < 0 || op > nops || posted < 0 || posted > nops ||
        pending < 0 || pending > nops || flags > 3 || rk->sends_until < 0 ||
        rk->sends_until > SIM_TIME_BEYOND_NS || round < 0 || (active && call == c->ncalls) ||
        /* a rank out of the collective is where on_enter and the end of a round leave it */
        (!active && (op || posted || pending || waking || rk->sends_until ||
                     (call != 0 && call != c->ncalls)))) {
        sgd_ckr_fail(r, "rank %d: state out of range", i);
        return;
    }
    *rk = (coll_rank_t){.call = (int)call, .op = (int)op, .posted_upto = (int)posted,
                        .pending_sends = (int)pending, .active = flags & 1,
                        .waking = (flags >> 1) & 1, .sends_until = rk->sends_until,
                        .round = round};
}

/* Sends of rank src's program on `slot` before its op `upto` (of the current call). */
static int64_t sends_before(const sim_coll_t *c, int src, int32_t slot, int upto)
{
    const sim_sched_t *s = c->sched;
    int64_t n = 0;
    for (int j = 0; j < upto; j++) {
        const sched_op_t *op = &s->ops[s->op_off[src] + j];
        n += op->is_send && op->slot == slot;
    }
    return n;
}

/* The largest message this collective sends, bytes. */
static uint64_t largest_message(const sim_coll_t *c)
{
    const sim_sched_t *s = c->sched;
    uint64_t most = 0;
    for (int k = 0; k < c->ncalls; k++)
        for (int j = 0; j < s->op_off[s->nranks]; j++) {
            uint64_t b = sched_msg_elems(s->ops[j].mul, s->ops[j].den, c->elems[k]) *
                         c->elem_bytes;
            if (b > most) most = b;
        }
    return most;
}

/* The per-slot counters against each other and the ranks: nothing consumed that has not
 * arrived, nothing started that was not posted, and each sender's waiting sends are its
 * current call's sends on their slot, of a size the collective sends. */
static void check_slots(const sim_coll_t *c, sgd_ckr_t *r)
{
    const sim_sched_t *s = c->sched;
    const uint64_t most = r->failed ? 0 : largest_message(c);
    int64_t *waiting = sgd_xcalloc((size_t)s->nranks, sizeof *waiting);
    for (int k = 0; k < s->nslots && !r->failed; k++) {
        const int src = s->slot_src[k];
        bool ok = c->consumed[k] <= c->arrived[k] && c->started[k] <= c->posted[k] &&
                  (c->rendezvous || (c->posted[k] == 0 && c->npending[k] == 0)) &&
                  c->npending[k] <= sends_before(c, src, k, c->ranks[src].op);
        for (int j = 0; j < c->npending[k]; j++) ok = ok && c->pending[k][j] <= most;
        waiting[src] += c->npending[k];
        if (!ok) sgd_ckr_fail(r, "slot %d: message counters out of range", k);
    }
    for (int i = 0; i < s->nranks && !r->failed; i++)
        if (waiting[i] != c->ranks[i].pending_sends)
            sgd_ckr_fail(r, "rank %d: %d sends waiting, its slots hold %lld", i,
                         c->ranks[i].pending_sends, (long long)waiting[i]);
    free(waiting);
}

int sim_coll_restore(sim_coll_t *c, sgd_ckr_t *r, sgd_err_t *err)
{
    size_t nslots = (size_t)c->sched->nslots + 1;
    sgd_ckr_tag(r, "collective");
    uint64_t nranks = sgd_ckr_u64(r), ns = sgd_ckr_u64(r);
    if (!r->failed && (nranks != (uint64_t)c->sched->nranks || ns != nslots))
        sgd_ckr_fail(r, "%llu ranks and %llu slots saved, this run has %d and %zu",
                     (unsigned long long)nranks, (unsigned long long)ns, c->sched->nranks,
                     nslots);
    for (int i = 0; i < c->sched->nranks && !r->failed; i++) restore_rank(c, i, r);
    if (r->failed) return sgd_ckr_check(r, "collective", err);
    restore_u64s(r, c->arrived, nslots);
    restore_u64s(r, c->consumed, nslots);
    restore_u64s(r, c->posted, nslots);
    restore_u64s(r, c->started, nslots);
    for (size_t k = 0; k < nslots && !r->failed; k++) {
        uint64_t np = sgd_ckr_count(r, COLL_PENDING_MAX, "pending sends");
        c->npending[k] = (uint8_t)np;
        restore_u64s(r, c->pending[k], COLL_PENDING_MAX);
    }
    c->messages = sgd_ckr_u64(r);
    c->bytes = sgd_ckr_u64(r);
    check_slots(c, r);
    memset(c->ck_enter, 0, (size_t)c->sched->nranks * sizeof *c->ck_enter);
    memset(c->ck_wake, 0, (size_t)c->sched->nranks * sizeof *c->ck_wake);
    c->ck_arrivals = 0;
    return sgd_ckr_check(r, "collective", err);
}

int sim_coll_verify(const sim_coll_t *c, sgd_err_t *err)
{
    /* Every message sent has arrived or is on its way (its traffic row counts them). */
    uint64_t arrived = c->ck_arrivals;
    for (int k = 0; k < c->sched->nslots; k++) arrived += c->arrived[k];
    if (arrived != c->messages || c->bytes > c->messages * largest_message(c))
        return sgd_errf(err, "collective: %llu messages (%llu bytes) sent, %llu arrived or on "
                             "their way", (unsigned long long)c->messages,
                        (unsigned long long)c->bytes, (unsigned long long)arrived);
    const int64_t latest = sim_engine_latest(c->engine);
    for (int i = 0; i < c->sched->nranks; i++) {
        if (c->ranks[i].waking && c->ck_wake[i] == 0)
            return sgd_errf(err, "collective: rank %d waits for a wake-up that is not pending",
                            i);
        if (c->ranks[i].sends_until > latest)
            return sgd_errf(err, "collective: rank %d's sends done at %lld ns, after every "
                                 "pending event", i, (long long)c->ranks[i].sends_until);
    }
    return 0;
}

bool sim_coll_holds(const sim_coll_t *c, int rank)
{
    SGD_ASSERT(rank >= 0 && rank < c->sched->nranks);
    return c->ranks[rank].active || c->ck_enter[rank] > 0;
}

void sim_coll_destroy(sim_coll_t *c)
{
    if (!c) return;
    free(c->endpoints);
    free(c->elems);
    free(c->arrived);
    free(c->consumed);
    free(c->ranks);
    free(c->posted);
    free(c->started);
    free(c->pending);
    free(c->npending);
    if (c->tr_names)
        for (int r = 0; r < c->sched->nranks; r++) free(c->tr_names[r]);
    free(c->tr_names);
    free(c->tr_kind);
    free(c->tr_round_key);
    free(c->slot_dst);
    free(c->ck_enter);
    free(c->ck_wake);
    free(c);
}
