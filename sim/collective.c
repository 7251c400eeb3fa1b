/* Collective schedules, their closed-form cost and their message-level execution, as
 * declared in collective.h. */
#include "sim/collective.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

const char *const sim_allreduce_names[] = {"ring", "recursive_doubling", "rsag", NULL};
const char *const sim_rooted_names[] = {"star", "binomial", NULL};

/* One operation of a rank's program: post a send, or wait for a receive.  `slot` indexes
 * the receiver's per-sender counters (for a send: the destination's slot for this rank). */
typedef struct sched_op {
    int32_t peer;
    int32_t slot;
    uint32_t mul, den;
    uint8_t is_send;
} sched_op_t;

struct sim_sched {
    int nranks, nsteps, steps_cap;
    int *step_off; /* messages of step s: msgs[step_off[s] .. step_off[s+1]) */
    sim_sched_msg_t *msgs;
    int nmsgs, msgs_cap;
    /* per-rank programs, derived once the steps are complete */
    int *op_off; /* ops of rank r: ops[op_off[r] .. op_off[r+1]) */
    sched_op_t *ops;
    int nslots;  /* (receiver, sender) pairs that ever carry a message */
    int32_t *slot_src; /* nslots: the sender of each slot */
};

static sim_sched_t *sched_new(int nranks)
{
    SGD_ASSERT(nranks >= 1);
    sim_sched_t *s = sgd_xcalloc(1, sizeof *s);
    s->nranks = nranks;
    s->steps_cap = 8;
    s->step_off = sgd_xcalloc((size_t)s->steps_cap + 1, sizeof *s->step_off);
    return s;
}

static void sched_begin_step(sim_sched_t *s)
{
    if (s->nsteps == s->steps_cap) {
        s->steps_cap *= 2;
        s->step_off = sgd_xrealloc(s->step_off, ((size_t)s->steps_cap + 1) * sizeof *s->step_off);
    }
    s->nsteps++;
    s->step_off[s->nsteps] = s->nmsgs;
}

static void sched_msg(sim_sched_t *s, int src, int dst, uint32_t mul, uint32_t den)
{
    SGD_ASSERT(s->nsteps > 0 && src != dst && src >= 0 && dst >= 0 && src < s->nranks &&
               dst < s->nranks && mul >= 1 && den >= 1);
    if (s->nmsgs == s->msgs_cap) {
        s->msgs_cap = s->msgs_cap ? 2 * s->msgs_cap : 64;
        s->msgs = sgd_xrealloc(s->msgs, (size_t)s->msgs_cap * sizeof *s->msgs);
    }
    s->msgs[s->nmsgs++] = (sim_sched_msg_t){src, dst, mul, den};
    s->step_off[s->nsteps] = s->nmsgs;
}

/* Derives every rank's program: per step, its sends in message order, then its receives. */
static sim_sched_t *sched_finish(sim_sched_t *s)
{
    int n = s->nranks;
    s->op_off = sgd_xcalloc((size_t)n + 1, sizeof *s->op_off);
    for (int m = 0; m < s->nmsgs; m++) {
        s->op_off[s->msgs[m].src + 1]++;
        s->op_off[s->msgs[m].dst + 1]++;
    }
    for (int r = 0; r < n; r++) s->op_off[r + 1] += s->op_off[r];
    s->ops = sgd_xmalloc(((size_t)s->op_off[n] + 1) * sizeof *s->ops);
    int *cursor = sgd_xmalloc((size_t)n * sizeof *cursor);
    memcpy(cursor, s->op_off, (size_t)n * sizeof *cursor);

    /* Slots: per receiver, the distinct senders in order of first message. */
    int *nslot = sgd_xcalloc((size_t)n, sizeof *nslot), *slot_cap = sgd_xcalloc((size_t)n, sizeof *slot_cap);
    int32_t **peers = sgd_xcalloc((size_t)n, sizeof *peers);
    int *msg_slot = sgd_xmalloc(((size_t)s->nmsgs + 1) * sizeof *msg_slot); /* receiver-local */
    for (int m = 0; m < s->nmsgs; m++) {
        int d = s->msgs[m].dst, k = 0;
        while (k < nslot[d] && peers[d][k] != s->msgs[m].src) k++;
        if (k == nslot[d]) {
            if (nslot[d] == slot_cap[d]) {
                slot_cap[d] = slot_cap[d] ? 2 * slot_cap[d] : 4;
                peers[d] = sgd_xrealloc(peers[d], (size_t)slot_cap[d] * sizeof **peers);
            }
            peers[d][nslot[d]++] = s->msgs[m].src;
        }
        msg_slot[m] = k;
    }
    int *slot_base = sgd_xmalloc(((size_t)n + 1) * sizeof *slot_base);
    slot_base[0] = 0;
    for (int r = 0; r < n; r++) slot_base[r + 1] = slot_base[r] + nslot[r];
    s->nslots = slot_base[n];
    s->slot_src = sgd_xmalloc(((size_t)s->nslots + 1) * sizeof *s->slot_src);
    for (int m = 0; m < s->nmsgs; m++)
        s->slot_src[slot_base[s->msgs[m].dst] + msg_slot[m]] = s->msgs[m].src;

    for (int st = 0; st < s->nsteps; st++) {
        for (int m = s->step_off[st]; m < s->step_off[st + 1]; m++) {
            const sim_sched_msg_t *g = &s->msgs[m];
            s->ops[cursor[g->src]++] = (sched_op_t){g->dst, slot_base[g->dst] + msg_slot[m],
                                                    g->mul, g->den, 1};
        }
        for (int m = s->step_off[st]; m < s->step_off[st + 1]; m++) {
            const sim_sched_msg_t *g = &s->msgs[m];
            s->ops[cursor[g->dst]++] = (sched_op_t){g->src, slot_base[g->dst] + msg_slot[m],
                                                    g->mul, g->den, 0};
        }
    }
    for (int r = 0; r < n; r++) free(peers[r]);
    free(peers);
    free(nslot);
    free(slot_cap);
    free(msg_slot);
    free(slot_base);
    free(cursor);
    return s;
}

static int floor_pow2(int n)
{
    int p = 1;
    while (p <= n / 2) p *= 2;
    return p;
}

static int log2_exact(int p)
{
    int k = 0;
    while ((1 << k) < p) k++;
    return k;
}

uint64_t sim_sched_allreduce_size(sim_allreduce_alg_t alg, int n)
{
    SGD_ASSERT(n >= 1);
    if (n == 1) return 0;
    uint64_t un = (uint64_t)n;
    if (alg == SIM_AR_RING) return 2 * (un - 1) * un;
    uint64_t pof2 = (uint64_t)floor_pow2(n), r = un - pof2, lg = (uint64_t)log2_exact((int)pof2);
    return 2 * r + pof2 * lg * (alg == SIM_AR_RSAG ? 2 : 1);
}

sim_sched_t *sim_sched_allreduce(sim_allreduce_alg_t alg, int n)
{
    sim_sched_t *s = sched_new(n);
    if (n == 1) return sched_finish(s);
    if (alg == SIM_AR_RING) {
        for (int st = 0; st < 2 * (n - 1); st++) {
            sched_begin_step(s);
            for (int i = 0; i < n; i++) sched_msg(s, i, (i + 1) % n, 1, (uint32_t)n);
        }
        return sched_finish(s);
    }
    /* Recursive doubling / halving over the largest power of two; the r extra ranks fold in
     * first: rank 2i (i < r) gives its vector to 2i+1 and gets the result back at the end. */
    int pof2 = floor_pow2(n), r = n - pof2, lg = log2_exact(pof2);
    int *real = sgd_xmalloc((size_t)pof2 * sizeof *real); /* new rank -> rank */
    for (int nr = 0; nr < pof2; nr++) real[nr] = nr < r ? 2 * nr + 1 : nr + r;
    if (r > 0) {
        sched_begin_step(s);
        for (int i = 0; i < r; i++) sched_msg(s, 2 * i, 2 * i + 1, 1, 1);
    }
    if (alg == SIM_AR_RECURSIVE_DOUBLING) {
        for (int k = 0; k < lg; k++) {
            sched_begin_step(s);
            for (int nr = 0; nr < pof2; nr++) sched_msg(s, real[nr], real[nr ^ (1 << k)], 1, 1);
        }
    } else {
        SGD_ASSERT(alg == SIM_AR_RSAG);
        /* Reduce-scatter: distance 1, 2, 4, ...; the exchanged part halves each step. */
        for (int k = 0; k < lg; k++) {
            sched_begin_step(s);
            for (int nr = 0; nr < pof2; nr++)
                sched_msg(s, real[nr], real[nr ^ (1 << k)], (uint32_t)(pof2 >> (k + 1)),
                          (uint32_t)pof2);
        }
        /* Allgather: the same exchanges in reverse, the parts doubling. */
        for (int k = lg - 1; k >= 0; k--) {
            sched_begin_step(s);
            for (int nr = 0; nr < pof2; nr++)
                sched_msg(s, real[nr], real[nr ^ (1 << k)], (uint32_t)(pof2 >> (k + 1)),
                          (uint32_t)pof2);
        }
    }
    if (r > 0) {
        sched_begin_step(s);
        for (int i = 0; i < r; i++) sched_msg(s, 2 * i + 1, 2 * i, 1, 1);
    }
    free(real);
    return sched_finish(s);
}

sim_sched_t *sim_sched_reduce(sim_rooted_alg_t alg, int n)
{
    sim_sched_t *s = sched_new(n);
    if (n == 1) return sched_finish(s);
    if (alg == SIM_ROOTED_STAR) {
        sched_begin_step(s);
        for (int i = 1; i < n; i++) sched_msg(s, i, 0, 1, 1);
        return sched_finish(s);
    }
    /* Binomial tree: in step k, every rank whose lowest set bit is bit k sends its partial
     * sum to the rank without that bit. */
    for (int k = 0; (1 << k) < n; k++) {
        sched_begin_step(s);
        for (int r = 1 << k; r < n; r += 2 << k) sched_msg(s, r, r - (1 << k), 1, 1);
    }
    return sched_finish(s);
}

sim_sched_t *sim_sched_broadcast(sim_rooted_alg_t alg, int n)
{
    sim_sched_t *s = sched_new(n);
    if (n == 1) return sched_finish(s);
    if (alg == SIM_ROOTED_STAR) {
        sched_begin_step(s);
        for (int i = 1; i < n; i++) sched_msg(s, 0, i, 1, 1);
        return sched_finish(s);
    }
    /* The binomial reduce in reverse. */
    int top = 0;
    while ((1 << (top + 1)) < n) top++;
    for (int k = top; k >= 0; k--) {
        sched_begin_step(s);
        for (int r = 0; r + (1 << k) < n; r += 2 << k) sched_msg(s, r, r + (1 << k), 1, 1);
    }
    return sched_finish(s);
}

void sim_sched_destroy(sim_sched_t *s)
{
    if (!s) return;
    free(s->step_off);
    free(s->msgs);
    free(s->op_off);
    free(s->ops);
    free(s->slot_src);
    free(s);
}

int sim_sched_nranks(const sim_sched_t *s) { return s->nranks; }
int sim_sched_nsteps(const sim_sched_t *s) { return s->nsteps; }

const sim_sched_msg_t *sim_sched_step(const sim_sched_t *s, int step, int *count)
{
    SGD_ASSERT(step >= 0 && step < s->nsteps);
    *count = s->step_off[step + 1] - s->step_off[step];
    return s->msgs + s->step_off[step];
}

static uint64_t msg_elems(uint32_t mul, uint32_t den, uint64_t nelems)
{
    return (nelems / den + (nelems % den != 0)) * mul;
}

uint64_t sim_sched_msg_elems(const sim_sched_msg_t *m, uint64_t nelems)
{
    return msg_elems(m->mul, m->den, nelems);
}

void sim_sched_traffic(const sim_sched_t *s, uint64_t nelems, uint32_t elem_bytes,
                       uint64_t *messages, uint64_t *bytes)
{
    uint64_t b = 0;
    for (int m = 0; m < s->nmsgs; m++) b += msg_elems(s->msgs[m].mul, s->msgs[m].den, nelems);
    *messages = (uint64_t)s->nmsgs;
    *bytes = b * elem_bytes;
}

/* Bottleneck bandwidth and total latency of a route. */
static void route_params(const sim_net_t *n, const int *route, int len, double *bw,
                         int64_t *lat)
{
    *bw = sim_net_link(n, route[0])->bandwidth_Bps;
    *lat = 0;
    for (int i = 0; i < len; i++) {
        const sim_link_t *l = sim_net_link(n, route[i]);
        if (l->bandwidth_Bps < *bw) *bw = l->bandwidth_Bps;
        *lat += l->latency_ns;
    }
}

int64_t sim_sched_analytic_ns(const sim_sched_t *s, const sim_topo_t *t, const sim_net_t *n,
                              const int *endpoints, uint64_t nelems, uint32_t elem_bytes)
{
    if (s->nmsgs == 0) return 0;
    int nlinks = sim_net_nlinks(n);
    int64_t *occ = sgd_xcalloc((size_t)nlinks, sizeof *occ);
    int64_t total = 0;
    for (int st = 0; st < s->nsteps; st++) {
        int route[SIM_ROUTE_MAX];
        for (int pass = 0; pass < 3; pass++) {
            /* pass 0: each link's occupancy in this step; 1: the step's cost; 2: reset. */
            int64_t step_cost = 0;
            for (int m = s->step_off[st]; m < s->step_off[st + 1]; m++) {
                const sim_sched_msg_t *g = &s->msgs[m];
                int len = sim_topo_route(t, endpoints[g->src], endpoints[g->dst], route);
                if (pass == 2) {
                    for (int i = 0; i < len; i++) occ[route[i]] = 0;
                    continue;
                }
                double bw;
                int64_t lat;
                route_params(n, route, len, &bw, &lat);
                if (pass == 0) {
                    int64_t dur = sim_transfer_ns(msg_elems(g->mul, g->den, nelems) * elem_bytes, bw);
                    for (int i = 0; i < len; i++) occ[route[i]] += dur;
                } else {
                    int64_t busiest = 0;
                    for (int i = 0; i < len; i++)
                        if (occ[route[i]] > busiest) busiest = occ[route[i]];
                    if (lat + busiest > step_cost) step_cost = lat + busiest;
                }
            }
            if (pass == 1) total += step_cost;
        }
    }
    free(occ);
    return total;
}

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
};

/* Puts a message of `bytes` on the wire from the sender of `slot` to its receiver now, and
 * returns when the sender's copy is locally complete (the last byte has left: arrival minus
 * the route's propagation latency). */
static int64_t transmit(sim_coll_t *c, int src, int dst, int32_t slot, uint64_t bytes,
                        int64_t now)
{
    int route[SIM_ROUTE_MAX];
    int len = sim_topo_route(c->topo, c->endpoints[src], c->endpoints[dst], route);
    int64_t arrive = sim_net_reserve(c->net, route, len, bytes, now);
    sim_engine_schedule(c->engine, arrive, c->ev_arrive, (uint32_t)dst, (uint64_t)slot, NULL);
    double bw;
    int64_t lat;
    route_params(c->net, route, len, &bw, &lat);
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
            uint64_t bytes = msg_elems(op->mul, op->den, c->elems[rk->call]) * c->elem_bytes;
            if (!c->rendezvous || c->posted[op->slot] > c->started[op->slot]) {
                if (c->rendezvous) c->started[op->slot]++;
                int64_t done_at = transmit(c, r, op->peer, op->slot, bytes, now);
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
                    int32_t slot = s->ops[s->op_off[r] + j].slot;
                    c->posted[slot]++;
                    if (c->npending[slot] > 0) {
                        uint64_t bytes = c->pending[slot][0];
                        memmove(c->pending[slot], c->pending[slot] + 1,
                                (size_t)(--c->npending[slot]) * sizeof(uint64_t));
                        c->started[slot]++;
                        int src = s->slot_src[slot];
                        int64_t done_at = transmit(c, src, r, slot, bytes, now);
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
    return c;
}

void sim_coll_enter(sim_coll_t *c, int rank, int64_t t_ns)
{
    SGD_ASSERT(rank >= 0 && rank < c->sched->nranks);
    SGD_ASSERT(!c->ranks[rank].active);
    sim_engine_schedule(c->engine, t_ns, c->ev_enter, (uint32_t)rank, 0, NULL);
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
    if (r->failed) return;
    if (call < 0 || call > c->ncalls || op < 0 || op > nops || posted < 0 || posted > nops ||
        pending < 0 || pending > nops || flags > 3 || rk->sends_until < 0) {
        sgd_ckr_fail(r, "rank %d: state out of range", i);
        return;
    }
    *rk = (coll_rank_t){.call = (int)call, .op = (int)op, .posted_upto = (int)posted,
                        .pending_sends = (int)pending, .active = flags & 1,
                        .waking = (flags >> 1) & 1, .sends_until = rk->sends_until};
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
    return sgd_ckr_check(r, "collective", err);
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
    free(c);
}
