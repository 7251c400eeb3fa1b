/* Links, message reservation and the star topology declared in network.h. */
#include "sim/network.h"

#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "sim/engine.h"
#include "sim/trace.h"

__extension__ typedef unsigned __int128 u128;

int64_t sim_transfer_ns(uint64_t bytes, double bandwidth_Bps)
{
    SGD_ASSERT(isfinite(bandwidth_Bps) && bandwidth_Bps > 0.0);
    if (bytes == 0) return 0;
    /* Write the bandwidth exactly as m * 2^e with m odd (m < 2^53), then take the ceiling
     * of N / (m 2^e) with N = bytes * 1e9 < 2^94 in 128-bit integers.  Doing it in doubles
     * would round N (beyond 2^53) and the quotient, so equal inputs could give results one
     * nanosecond apart depending on how they were written. */
    int e2;
    double f = frexp(bandwidth_Bps, &e2);
    uint64_t m = (uint64_t)ldexp(f, 53);
    int e = e2 - 53;
    while (!(m & 1)) {
        m >>= 1;
        e++;
    }
    const u128 limit = (u128)SIM_TIME_BEYOND_NS; /* the result saturates there (dist.h) */
    u128 n = (u128)bytes * 1000000000u;
    u128 q = n / m, r = n % m; /* n = q m + r, r < m < 2^53 */
    if (e >= 0) {
        /* ceil(n / (m 2^e)) = ceil(ceil(n / m) / 2^e) for integer divisors. */
        u128 c = q + (r != 0);
        if (e >= 96) return 1; /* c < 2^95 <= 2^e and c >= 1 */
        u128 res = (c >> e) + ((c & (((u128)1 << e) - 1)) != 0);
        return res > limit ? SIM_TIME_BEYOND_NS : (int64_t)res;
    }
    /* e < 0: ceil(n 2^k / m) with k = -e, by long division in chunks of at most 64 bits so
     * that neither q (checked <= 2^63 before shifting) nor r << s (< 2^117) overflows. */
    for (int k = -e; k > 0;) {
        if (q > limit) return SIM_TIME_BEYOND_NS;
        int s = k > 64 ? 64 : k;
        u128 rs = r << s;
        q = (q << s) + rs / m;
        r = rs % m;
        k -= s;
    }
    q += (r != 0);
    return q > limit ? SIM_TIME_BEYOND_NS : (int64_t)q;
}

struct sim_net {
    sim_link_t *links;
    int nlinks, cap;
    sim_trace_t *trace; /* borrowed; NULL = no timeline */
};

void sim_net_set_trace(sim_net_t *n, sim_trace_t *t) { n->trace = t; }

bool sim_net_traced(const sim_net_t *n) { return n->trace != NULL; }

sim_net_t *sim_net_create(void) { return sgd_xcalloc(1, sizeof(sim_net_t)); }

void sim_net_destroy(sim_net_t *n)
{
    if (!n) return;
    free(n->links);
    free(n);
}

int sim_net_add_link(sim_net_t *n, double bandwidth_Bps, int64_t latency_ns)
{
    SGD_ASSERT(isfinite(bandwidth_Bps) && bandwidth_Bps > 0.0);
    SGD_ASSERT(latency_ns >= 0);
    if (n->nlinks == n->cap) {
        n->cap = n->cap ? 2 * n->cap : 16;
        n->links = sgd_xrealloc(n->links, (size_t)n->cap * sizeof *n->links);
    }
    n->links[n->nlinks] = (sim_link_t){.bandwidth_Bps = bandwidth_Bps, .latency_ns = latency_ns};
    return n->nlinks++;
}

int sim_net_nlinks(const sim_net_t *n) { return n->nlinks; }

void sim_net_set_bandwidth(sim_net_t *n, int id, double bandwidth_Bps)
{
    SGD_ASSERT(id >= 0 && id < n->nlinks);
    SGD_ASSERT(isfinite(bandwidth_Bps) && bandwidth_Bps > 0.0);
    n->links[id].bandwidth_Bps = bandwidth_Bps;
}

const sim_link_t *sim_net_link(const sim_net_t *n, int id)
{
    SGD_ASSERT(id >= 0 && id < n->nlinks);
    return &n->links[id];
}

int64_t sim_net_reserve(sim_net_t *n, const int *route, int nroute, uint64_t bytes,
                        int64_t t_ns)
{
    return sim_net_reserve_tagged(n, route, nroute, bytes, t_ns, NULL);
}

int64_t sim_net_reserve_tagged(sim_net_t *n, const int *route, int nroute, uint64_t bytes,
                               int64_t t_ns, const sim_trace_msg_t *tag)
{
    SGD_ASSERT(nroute >= 1);
    int64_t start = t_ns, latency = 0;
    double bw = INFINITY;
    for (int i = 0; i < nroute; i++) {
        SGD_ASSERT(route[i] >= 0 && route[i] < n->nlinks);
        for (int j = 0; j < i; j++) SGD_ASSERT(route[j] != route[i]);
        const sim_link_t *l = &n->links[route[i]];
        if (l->free_at_ns > start) start = l->free_at_ns;
        if (l->bandwidth_Bps < bw) bw = l->bandwidth_Bps;
        latency = sim_time_add(latency, l->latency_ns);
    }
    /* Times and durations here are <= SIM_TIME_BEYOND_NS (links can be booked past the
     * horizon when durations are absurd: the run then ends at the event, sim/dist.h). */
    int64_t end = sim_time_add(start, sim_transfer_ns(bytes, bw));
    for (int i = 0; i < nroute; i++) {
        sim_link_t *l = &n->links[route[i]];
        l->free_at_ns = end;
        l->messages++;
        l->bytes += bytes;
        sim_trace_message(n->trace, (uint32_t)route[i], start, end, bytes, start - t_ns, tag);
    }
    return sim_time_add(end, latency);
}

void sim_net_save(const sim_net_t *n, sgd_ckw_t *w)
{
    sgd_ckw_tag(w, "network");
    sgd_ckw_u64(w, (uint64_t)n->nlinks);
    for (int i = 0; i < n->nlinks; i++) {
        sgd_ckw_i64(w, n->links[i].free_at_ns);
        sgd_ckw_u64(w, n->links[i].messages);
        sgd_ckw_u64(w, n->links[i].bytes);
    }
}

int sim_net_restore(sim_net_t *n, sgd_ckr_t *r, sgd_err_t *err)
{
    sgd_ckr_tag(r, "network");
    uint64_t k = sgd_ckr_u64(r);
    if (!r->failed && k != (uint64_t)n->nlinks)
        sgd_ckr_fail(r, "%llu links saved, this run has %d", (unsigned long long)k, n->nlinks);
    for (int i = 0; i < n->nlinks && !r->failed; i++) {
        sim_link_t *l = &n->links[i];
        l->free_at_ns = sgd_ckr_i64(r);
        l->messages = sgd_ckr_u64(r);
        l->bytes = sgd_ckr_u64(r);
        if (!r->failed && (l->free_at_ns < 0 || l->free_at_ns > SIM_TIME_BEYOND_NS))
            sgd_ckr_fail(r, "link %d: free at %lld ns, out of range", i,
                         (long long)l->free_at_ns);
    }
    return sgd_ckr_check(r, "network", err);
}

int sim_net_check_times(const sim_net_t *n, int64_t latest, sgd_err_t *err)
{
    for (int i = 0; i < n->nlinks; i++)
        if (n->links[i].free_at_ns > latest)
            return sgd_errf(err, "network: link %d busy until %lld ns, after every pending "
                                 "event (the last at %lld ns)", i,
                            (long long)n->links[i].free_at_ns, (long long)latest);
    return 0;
}

void sim_star_init(sim_star_t *s, sim_net_t *n, int p, double bandwidth_Bps,
                   int64_t latency_ns)
{
    SGD_ASSERT(p >= 1);
    s->p = p;
    s->uplink0 = sim_net_nlinks(n);
    for (int i = 0; i < p; i++) sim_net_add_link(n, bandwidth_Bps, latency_ns);
    s->downlink0 = sim_net_nlinks(n);
    for (int i = 0; i < p; i++) sim_net_add_link(n, bandwidth_Bps, latency_ns);
}

void sim_star_set_endpoint_bandwidth(const sim_star_t *s, sim_net_t *n, int i,
                                     double bandwidth_Bps)
{
    SGD_ASSERT(i >= 0 && i < s->p);
    sim_net_set_bandwidth(n, s->uplink0 + i, bandwidth_Bps);
    sim_net_set_bandwidth(n, s->downlink0 + i, bandwidth_Bps);
}

int sim_star_route(const sim_star_t *s, int from, int to, int route[2])
{
    SGD_ASSERT(from >= 0 && from < s->p && to >= 0 && to < s->p && from != to);
    route[0] = s->uplink0 + from;
    route[1] = s->downlink0 + to;
    return 2;
}
