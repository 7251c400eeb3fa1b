/* Every collective, simulated message by message on an idle network, completes exactly when
 * the closed form says, wherever the closed form's lockstep assumption holds: every
 * allreduce, reduce and broadcast on a flat star and on a cluster of one GPU per node (all
 * hops alike), rooted star collectives inside a node, for power-of-two rank counts (ring
 * for any count), one call and a sequence of calls.  Where steps are not in lockstep
 * (recursive doubling with folded-in extra ranks, binomial trees on a non-power-of-two,
 * rings mixing intra-node and NIC hops, rooted collectives whose leaves start the next call
 * while the root still receives) the two differ either way -- here by up to a factor of two --
 * and only a sanity bound (within a factor of three) is checked; bench/ reports the gaps. */
#include <stdbool.h>
#include <stdlib.h>

#include "sim/collective.h"
#include "tests/check.h"

typedef struct {
    int64_t last;
    int ndone;
} done_t;

static void on_done(void *ctx, int rank, int64_t t)
{
    (void)rank;
    done_t *d = ctx;
    d->ndone++;
    if (t > d->last) d->last = t;
}

/* Runs one round (all ranks enter at 0) and returns the time the last rank is done. */
static int64_t run_msg(const sim_topo_spec_t *spec, const sim_sched_t *s, const int *eps,
                       const uint64_t *elems, int ncalls)
{
    sim_engine_t *e = sim_engine_create();
    sim_net_t *n = sim_net_create();
    sim_topo_t t;
    sim_topo_init(&t, n, spec);
    done_t d = {0, 0};
    sim_coll_t *c = sim_coll_create(e, n, &t, s, eps, elems, ncalls, 4, on_done, &d, "c");
    for (int r = 0; r < sim_sched_nranks(s); r++) sim_coll_enter(c, r, 0);
    sim_engine_run(e, NULL);
    CHECK_INT_EQ(d.ndone, sim_sched_nranks(s));
    sim_coll_destroy(c);
    sim_net_destroy(n);
    sim_engine_destroy(e);
    return d.last;
}

static int64_t run_analytic(const sim_topo_spec_t *spec, const sim_sched_t *s, const int *eps,
                            const uint64_t *elems, int ncalls)
{
    sim_net_t *n = sim_net_create();
    sim_topo_t t;
    sim_topo_init(&t, n, spec);
    int64_t total = 0;
    for (int i = 0; i < ncalls; i++) total += sim_sched_analytic_ns(s, &t, n, eps, elems[i], 4);
    sim_net_destroy(n);
    return total;
}

static bool is_pow2(int n) { return (n & (n - 1)) == 0; }

static sim_topo_spec_t flat(int p)
{
    return (sim_topo_spec_t){.kind = SIM_TOPO_FLAT, .workers = p, .link_Bps = 1.25e9,
                             .link_latency_ns = 5000};
}

static sim_topo_spec_t cluster(int nodes, int g)
{
    return (sim_topo_spec_t){.kind = SIM_TOPO_CLUSTER, .nodes = nodes, .gpus_per_node = g,
                             .workers = nodes * g, .intra_Bps = 12e9, .intra_latency_ns = 1000,
                             .nic_Bps = 3.125e9, .nic_latency_ns = 2500,
                             .oversubscription = 1.0};
}

/* exact: 0 = never, 1 = for one call, 2 = for one call and for a sequence of calls */
static void compare(const char *what, const sim_topo_spec_t *spec, sim_sched_t *s,
                    const int *eps, int exact)
{
    const uint64_t one[] = {1000003};
    const uint64_t seq[] = {64, 1, 4096, 2359296, 256, 7};
    for (int k = 0; k < 2; k++) {
        const uint64_t *el = k ? seq : one;
        int nc = k ? 6 : 1;
        int64_t m = run_msg(spec, s, eps, el, nc), a = run_analytic(spec, s, eps, el, nc);
        if (sim_sched_nranks(s) > 1) CHECK(m > 0);
        bool eq = exact == 2 || (exact == 1 && nc == 1);
        if (eq ? m != a : (m > 3 * a || a > 3 * m)) {
            fprintf(stderr, "%s, %d ranks, %d calls: message %lld, analytic %lld\n", what,
                    sim_sched_nranks(s), nc, (long long)m, (long long)a);
            check_failures++;
        }
    }
    sim_sched_destroy(s);
}

int main(void)
{
    int eps[64];
    for (int i = 0; i < 64; i++) eps[i] = i;
    for (int n = 1; n <= 9; n++) {
        bool p2 = is_pow2(n);
        for (int k = 0; k < 3; k++) {
            const sim_allreduce_alg_t alg = (sim_allreduce_alg_t)k;
            sim_sched_t *sz = sim_sched_allreduce(alg, n);
            uint64_t msgs, bytes;
            sim_sched_traffic(sz, 100, 4, &msgs, &bytes);
            CHECK_INT_EQ(sim_sched_allreduce_size(alg, n), msgs);
            sim_sched_destroy(sz);
            int exact = alg == SIM_AR_RING || p2 ? 2 : 0;
            sim_topo_spec_t f = flat(n), c1 = cluster(n, 1);
            compare(sim_allreduce_names[alg], &f, sim_sched_allreduce(alg, n), eps, exact);
            compare(sim_allreduce_names[alg], &c1, sim_sched_allreduce(alg, n), eps, exact);
        }
        for (int k = 0; k < 2; k++) {
            const sim_rooted_alg_t alg = (sim_rooted_alg_t)k;
            int exact = alg == SIM_ROOTED_STAR || p2 ? 1 : 0;
            sim_topo_spec_t f = flat(n);
            compare("reduce", &f, sim_sched_reduce(alg, n), eps, exact);
            compare("broadcast", &f, sim_sched_broadcast(alg, n), eps, exact);
        }
        /* Inside a node: the host (rank 0) and its G = n - 1 workers, star through the host. */
        if (n >= 2) {
            sim_topo_spec_t c = cluster(2, n - 1);
            int node_eps[16];
            node_eps[0] = 2 * (n - 1) + 1; /* host of node 1 */
            for (int g = 0; g < n - 1; g++) node_eps[g + 1] = (n - 1) + g;
            compare("node reduce", &c, sim_sched_reduce(SIM_ROOTED_STAR, n), node_eps, 1);
            compare("node broadcast", &c, sim_sched_broadcast(SIM_ROOTED_STAR, n), node_eps,
                    1);
            compare("node binomial reduce", &c, sim_sched_reduce(SIM_ROOTED_BINOMIAL, n),
                    node_eps, 0);
        }
    }
    /* Across nodes, steps mix fast intra-node hops with NIC hops: not lockstep. */
    for (int k = 0; k < 3; k++) {
        sim_topo_spec_t c = cluster(4, 4);
        compare("cluster allreduce", &c, sim_sched_allreduce((sim_allreduce_alg_t)k, 16), eps, 0);
    }
    /* Schedules have the documented number of steps. */
    sim_sched_t *s = sim_sched_allreduce(SIM_AR_RING, 6);
    CHECK_INT_EQ(sim_sched_nsteps(s), 10);
    sim_sched_destroy(s);
    s = sim_sched_allreduce(SIM_AR_RSAG, 8);
    CHECK_INT_EQ(sim_sched_nsteps(s), 6);
    uint64_t msgs, bytes;
    sim_sched_traffic(s, 800, 4, &msgs, &bytes);
    CHECK_INT_EQ(msgs, 48);
    /* each rank sends 400+200+100 elements in each phase: 8 * 2 * 700 * 4 bytes */
    CHECK_INT_EQ(bytes, 8 * 2 * 700 * 4);
    sim_sched_destroy(s);
    s = sim_sched_allreduce(SIM_AR_RECURSIVE_DOUBLING, 6);
    CHECK_INT_EQ(sim_sched_nsteps(s), 4); /* fold in, 2 doubling steps, fold out */
    sim_sched_destroy(s);
    s = sim_sched_broadcast(SIM_ROOTED_BINOMIAL, 5);
    CHECK_INT_EQ(sim_sched_nsteps(s), 3);
    sim_sched_destroy(s);
    return check_exit();
}
