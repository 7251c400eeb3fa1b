/* Eager vs rendezvous, by hand.  Star broadcast of 1000 floats (4000 B) from rank 0 to ranks
 * 1 and 2 on a flat star (1e9 B/s, 1 us per link: a message takes 4000 ns + 2000 ns).  Ranks
 * 0 and 1 enter at 0, rank 2 only at X = 1 ms (busy elsewhere).
 *   eager:      both messages leave rank 0's uplink back to back (0..4000, 4000..8000); rank 1
 *               has its data at 6000, rank 2's waits in its buffer (arrived at 10000) and it
 *               is done the moment it enters, X; rank 0 is done when its sends have left, 8000.
 *   rendezvous: rank 2's data moves only once rank 2 posted its receive at X: it leaves at X,
 *               arrives at X + 6000; rank 0 is done when that send has left, X + 4000. */
#include <stdbool.h>
#include <stdlib.h>

#include "sim/collective.h"
#include "tests/check.h"

static int64_t done_at[3];

static void on_done(void *ctx, int rank, int64_t t)
{
    (void)ctx;
    done_at[rank] = t;
}

static void run(bool rendezvous)
{
    sim_topo_spec_t spec = {.kind = SIM_TOPO_FLAT, .workers = 3, .link_Bps = 1e9,
                            .link_latency_ns = 1000};
    sim_engine_t *e = sim_engine_create();
    sim_net_t *n = sim_net_create();
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    sim_sched_t *s = sim_sched_broadcast(SIM_ROOTED_STAR, 3);
    int eps[3] = {0, 1, 2};
    uint64_t elems = 1000;
    sim_coll_t *c = sim_coll_create(e, n, &t, s, eps, &elems, 1, 4, on_done, NULL, "bcast");
    sim_coll_set_rendezvous(c, rendezvous);
    sim_coll_enter(c, 0, 0);
    sim_coll_enter(c, 1, 0);
    sim_coll_enter(c, 2, 1000000);
    sim_engine_run(e, NULL);
    CHECK_INT_EQ(sim_coll_messages(c), 2);
    sim_coll_destroy(c);
    sim_sched_destroy(s);
    sim_net_destroy(n);
    sim_engine_destroy(e);
}

int main(void)
{
    run(false);
    CHECK_INT_EQ(done_at[0], 8000);
    CHECK_INT_EQ(done_at[1], 6000);
    CHECK_INT_EQ(done_at[2], 1000000);
    run(true);
    CHECK_INT_EQ(done_at[0], 1004000);
    CHECK_INT_EQ(done_at[1], 6000);
    CHECK_INT_EQ(done_at[2], 1006000);
    return check_exit();
}
