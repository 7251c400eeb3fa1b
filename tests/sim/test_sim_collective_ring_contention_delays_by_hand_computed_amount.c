/* An extra message occupying rank 0's uplink when a ring allreduce (SIM_AR_RING, message
 * level, flat star) starts delays the ring by exactly the hand-computed amounts, rank by
 * rank.  Bandwidth is 1 B/ns so bytes read as nanoseconds.  A rank is done when its last
 * message arrives: in every case below its own last send has left its uplink by then
 * (for rank 1 at p = 2 exactly then), so the collective's end-of-call wait for local
 * completion adds nothing.  (The contention test of
 * test_sim_collective_contention_delays_by_hand_computed_amount is a different case:
 * recursive doubling whose own messages share a NIC.) */
#include "common/error.h"
#include "sim/collective.h"
#include "tests/check.h"

#define MAXP 4

typedef struct run {
    int64_t done_at[MAXP];
} run_t;

static void on_done(void *ctx, int rank, int64_t t_ns) { ((run_t *)ctx)->done_at[rank] = t_ns; }

/* Runs a p-rank ring of nelems floats, all entering at 0, after an extra message of
 * extra_bytes was reserved at 0 on rank 0's uplink alone (none if 0). */
static run_t ring_with_extra(int p, uint64_t nelems, int64_t lat, uint64_t extra_bytes)
{
    sim_engine_t *e = sim_engine_create();
    sim_net_t *n = sim_net_create();
    sim_topo_spec_t spec = {.kind = SIM_TOPO_FLAT, .workers = p, .link_Bps = 1e9,
                            .link_latency_ns = lat};
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    sim_sched_t *s = sim_sched_allreduce(SIM_AR_RING, p);
    SGD_ASSERT(p <= MAXP);
    int eps[MAXP];
    for (int i = 0; i < p; i++) eps[i] = i;
    run_t r = {{0}};
    sim_coll_t *ring = sim_coll_create(e, n, &t, s, eps, &nelems, 1, 4, on_done, &r, "ring");
    if (extra_bytes) {
        int up0 = t.star.uplink0;
        CHECK_INT_EQ(sim_net_reserve(n, &up0, 1, extra_bytes, 0), (int64_t)extra_bytes + lat);
    }
    for (int i = 0; i < p; i++) sim_coll_enter(ring, i, 0);
    CHECK_INT_EQ(sim_engine_run(e, NULL), SIM_STOP_EMPTY);
    sim_coll_destroy(ring);
    sim_sched_destroy(s);
    sim_net_destroy(n);
    sim_engine_destroy(e);
    return r;
}

int main(void)
{
    /* p = 4, 4000 floats: chunk 1000 floats = 4000 B, tr = 4000 ns; L = 1000 ns per link so a
     * step takes T = tr + 2L = 6000 ns and the idle ring 6T = 36000 ns.  The extra message
     * holds uplink 0 for D = 1500 ns <= 2L, so only rank 0's step-0 send moves (to D); its
     * later sends are triggered after the uplink is free again (T >= D + tr).  Rank i's
     * last message descends through the chain of step-0 sends of rank (i + 2) mod 4, so
     * only rank 2 finishes later, by exactly D. */
    run_t idle = ring_with_extra(4, 4000, 1000, 0);
    run_t busy = ring_with_extra(4, 4000, 1000, 1500);
    for (int i = 0; i < 4; i++) CHECK_INT_EQ(idle.done_at[i], 36000);
    CHECK_INT_EQ(busy.done_at[0], 36000);
    CHECK_INT_EQ(busy.done_at[1], 36000);
    CHECK_INT_EQ(busy.done_at[2], 36000 + 1500);
    CHECK_INT_EQ(busy.done_at[3], 36000);

    /* p = 2, 4000 floats: chunk 8000 B, tr = 8000, L = 1000, T = 10000; idle ring 2T.
     * Extra message D = 50000 ns on uplink 0:
     *   rank 0 step 0 leaves at D, reaches rank 1 at D + T;
     *   rank 1 step 0 leaves at 0, reaches rank 0 at T;
     *   rank 0 step 1 waits for its uplink (busy with step 0 until D + tr), reaches rank 1
     *   at D + tr + T = 68000: rank 1 done, later by D - 2L;
     *   rank 1 step 1 leaves on receiving step 0 at D + T, reaches rank 0 at D + 2T = 70000:
     *   rank 0 done, later by D. */
    idle = ring_with_extra(2, 4000, 1000, 0);
    busy = ring_with_extra(2, 4000, 1000, 50000);
    CHECK_INT_EQ(idle.done_at[0], 20000);
    CHECK_INT_EQ(idle.done_at[1], 20000);
    CHECK_INT_EQ(busy.done_at[0], 20000 + 50000);
    CHECK_INT_EQ(busy.done_at[1], 20000 + 50000 - 2000);
    return check_exit();
}
