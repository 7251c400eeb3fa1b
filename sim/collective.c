/* Collective schedules, their closed-form cost and their message-level execution, as
 * declared in collective.h. */
#include "sim/collective.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "sim/collective_internal.h"

const char *const sim_allreduce_names[] = {"ring", "recursive_doubling", "rsag", NULL};
const char *const sim_rooted_names[] = {"star", "binomial", NULL};

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
                                                    g->mul, g->den, st, 1};
        }
        for (int m = s->step_off[st]; m < s->step_off[st + 1]; m++) {
            const sim_sched_msg_t *g = &s->msgs[m];
            s->ops[cursor[g->dst]++] = (sched_op_t){g->src, slot_base[g->dst] + msg_slot[m],
                                                    g->mul, g->den, st, 0};
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

uint64_t sched_msg_elems(uint32_t mul, uint32_t den, uint64_t nelems)
{
    return (nelems / den + (nelems % den != 0)) * mul;
}

uint64_t sim_sched_msg_elems(const sim_sched_msg_t *m, uint64_t nelems)
{
    return sched_msg_elems(m->mul, m->den, nelems);
}

void sim_sched_traffic(const sim_sched_t *s, uint64_t nelems, uint32_t elem_bytes,
                       uint64_t *messages, uint64_t *bytes)
{
    uint64_t b = 0;
    for (int m = 0; m < s->nmsgs; m++) b += sched_msg_elems(s->msgs[m].mul, s->msgs[m].den, nelems);
    *messages = (uint64_t)s->nmsgs;
    *bytes = b * elem_bytes;
}

/* Bottleneck bandwidth and total latency of a route. */
void sched_route_params(const sim_net_t *n, const int *route, int len, double *bw,
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
                sched_route_params(n, route, len, &bw, &lat);
                if (pass == 0) {
                    int64_t dur = sim_transfer_ns(sched_msg_elems(g->mul, g->den, nelems) * elem_bytes, bw);
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
