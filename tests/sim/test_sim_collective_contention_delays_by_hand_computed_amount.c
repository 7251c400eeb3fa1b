/* Contention, computed by hand.  Recursive-doubling allreduce of 1000 floats (4000 bytes)
 * over 4 workers on 2 nodes x 2 GPUs: intra links 8e9 B/s and 1 us, NIC links 1e9 B/s and
 * 2 us.
 *   step 0 (partners on the same node): transfer 4000 B / 8e9 = 500 ns, latency up + down
 *     = 2 us: every rank holds its partner's vector at 2500 ns.
 *   step 1 (partners across nodes): each route is up, NIC tx, NIC rx, down: bottleneck
 *     1e9 -> 4000 ns, latency 1 + 2 + 2 + 1 = 6 us.  Both workers of a node send at 2500 over
 *     the node's one NIC: the first message leaves at 2500 and arrives at 2500 + 4000 + 6000
 *     = 12500; the second waits for the NIC until 6500 and arrives at 16500.
 * So the allreduce ends at 16500 ns, 4000 ns (one NIC transfer) later than the 12500 it
 * would take if each worker had its own NIC (checked with 4 nodes x 1 GPU, where every hop
 * of step 0 crosses NICs too: 4000 + 6000 per step = 20000).  The closed form charges the
 * shared NIC's occupancy (8000) in step 1 and agrees: 2500 + 6000 + 8000. */
#include <stdbool.h>
#include <stdlib.h>

#include "sim/collective.h"
#include "tests/check.h"

static int64_t last, first = INT64_MAX;

static void on_done(void *ctx, int rank, int64_t t)
{
    (void)ctx, (void)rank;
    if (t > last) last = t;
    if (t < first) first = t;
}

static int64_t run(int nodes, int g, bool analytic)
{
    sim_topo_spec_t spec = {.kind = SIM_TOPO_CLUSTER, .nodes = nodes, .gpus_per_node = g,
                            .workers = nodes * g, .intra_Bps = 8e9, .intra_latency_ns = 1000,
                            .nic_Bps = 1e9, .nic_latency_ns = 2000, .oversubscription = 1.0};
    sim_engine_t *e = sim_engine_create();
    sim_net_t *n = sim_net_create();
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    sim_sched_t *s = sim_sched_allreduce(SIM_AR_RECURSIVE_DOUBLING, 4);
    int eps[4] = {0, 1, 2, 3};
    uint64_t elems = 1000;
    int64_t result;
    last = 0, first = INT64_MAX;
    if (analytic) {
        result = sim_sched_analytic_ns(s, &t, n, eps, elems, 4);
    } else {
        sim_coll_t *c = sim_coll_create(e, n, &t, s, eps, &elems, 1, 4, on_done, NULL, "rd");
        for (int r = 0; r < 4; r++) sim_coll_enter(c, r, 0);
        sim_engine_run(e, NULL);
        result = last;
        CHECK_INT_EQ(sim_coll_messages(c), 8);
        CHECK_INT_EQ(sim_coll_bytes(c), 8 * 4000);
        sim_coll_destroy(c);
    }
    sim_sched_destroy(s);
    sim_net_destroy(n);
    sim_engine_destroy(e);
    return result;
}

int main(void)
{
    CHECK_INT_EQ(run(2, 2, false), 16500);
    CHECK_INT_EQ(first, 12500); /* the pair whose messages went first */
    CHECK_INT_EQ(run(2, 2, true), 16500);
    CHECK_INT_EQ(run(4, 1, false), 20000);
    CHECK_INT_EQ(run(4, 1, true), 20000);

    /* Oversubscription 2 halves the node's share of the core: cross-node transfers of the
     * second step take 8000 ns each, serialised on the NIC: 2500 + 6000 + 16000. */
    sim_topo_spec_t spec = {.kind = SIM_TOPO_CLUSTER, .nodes = 2, .gpus_per_node = 2,
                            .workers = 4, .intra_Bps = 8e9, .intra_latency_ns = 1000,
                            .nic_Bps = 1e9, .nic_latency_ns = 2000, .oversubscription = 2.0};
    sim_net_t *n = sim_net_create();
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    sim_sched_t *s = sim_sched_allreduce(SIM_AR_RECURSIVE_DOUBLING, 4);
    int eps[4] = {0, 1, 2, 3};
    CHECK_INT_EQ(sim_sched_analytic_ns(s, &t, n, eps, 1000, 4), 2500 + 6000 + 16000);
    int route[SIM_ROUTE_MAX];
    CHECK_INT_EQ(sim_topo_route(&t, 0, 3, route), 5);       /* up, tx, core share, rx, down */
    CHECK_INT_EQ(sim_topo_route(&t, 0, 1, route), 2);       /* up, down through the host */
    CHECK_INT_EQ(sim_topo_route(&t, 0, sim_topo_host(&t, 0), route), 1);
    CHECK_INT_EQ(sim_topo_route(&t, sim_topo_host(&t, 0), sim_topo_host(&t, 1), route), 3);
    CHECK_INT_EQ(sim_topo_node_of(&t, sim_topo_host(&t, 1)), 1);
    sim_sched_destroy(s);
    sim_net_destroy(n);
    return check_exit();
}
