/* On an otherwise idle flat star, with every rank entering at the same time, the
 * message-level ring allreduce (SIM_AR_RING) finishes on every rank -- not just the last --
 * exactly at the closed-form time, for several rank counts and vector sizes (including
 * sizes not divisible by the rank count, and smaller than it), and again for a second round
 * that each rank enters from its done callback.  The closed form itself is checked against
 * the textbook ring formula, 2(p-1) steps of (2 link latencies + one padded chunk's transfer
 * time), and once by hand.  The traffic counters of the collective, the schedule and the
 * links agree with 2(p-1) chunks per rank per round.
 *
 * test_sim_collectives_match_analytic_on_idle_network compares only the last rank of one
 * round started at 0; this test keeps what the ring allreduce that preceded the collectives
 * was tested for. */
#include "common/error.h"
#include "sim/collective.h"
#include "tests/check.h"

#define MAXP 16
#define ROUNDS 2

typedef struct run {
    sim_coll_t *coll;
    int64_t done_at[ROUNDS][MAXP];
    int ndone[MAXP];
} run_t;

static void on_done(void *ctx, int rank, int64_t t_ns)
{
    run_t *r = ctx;
    r->done_at[r->ndone[rank]][rank] = t_ns;
    if (++r->ndone[rank] < ROUNDS) sim_coll_enter(r->coll, rank, t_ns);
}

static sim_topo_spec_t star(int p, double bw, int64_t lat)
{
    return (sim_topo_spec_t){.kind = SIM_TOPO_FLAT, .workers = p, .link_Bps = bw,
                             .link_latency_ns = lat};
}

static void one_case(int p, uint64_t nelems)
{
    const double bw = 1.25e10; /* 100 Gbit/s */
    const int64_t lat = 1500, t0 = 12345;
    sim_engine_t *e = sim_engine_create();
    sim_net_t *n = sim_net_create();
    sim_topo_spec_t spec = star(p, bw, lat);
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    sim_sched_t *s = sim_sched_allreduce(SIM_AR_RING, p);
    SGD_ASSERT(p <= MAXP);
    int eps[MAXP];
    for (int i = 0; i < p; i++) eps[i] = i;
    run_t r = {0};
    r.coll = sim_coll_create(e, n, &t, s, eps, &nelems, 1, 4, on_done, &r, "ring");
    for (int i = 0; i < p; i++) sim_coll_enter(r.coll, i, t0);
    CHECK_INT_EQ(sim_engine_run(e, NULL), SIM_STOP_EMPTY);

    uint64_t chunk = (nelems + (uint64_t)p - 1) / (uint64_t)p * 4;
    int64_t analytic = sim_sched_analytic_ns(s, &t, n, eps, nelems, 4);
    CHECK_INT_EQ(analytic, 2 * (int64_t)(p - 1) * (2 * lat + sim_transfer_ns(chunk, bw)));
    int wrong = 0;
    for (int i = 0; i < p; i++) {
        CHECK_INT_EQ(r.ndone[i], ROUNDS);
        for (int k = 0; k < ROUNDS; k++) {
            if (r.done_at[k][i] != t0 + (k + 1) * analytic) {
                if (wrong++ < 3)
                    fprintf(stderr, "p=%d nelems=%llu rank %d round %d: done at %lld, "
                            "analytic %lld\n", p, (unsigned long long)nelems, i, k,
                            (long long)r.done_at[k][i], (long long)(t0 + (k + 1) * analytic));
            }
        }
    }
    CHECK_INT_EQ(wrong, 0);

    uint64_t per_round = (uint64_t)p * 2 * (uint64_t)(p - 1), msgs, bytes;
    sim_sched_traffic(s, nelems, 4, &msgs, &bytes);
    CHECK_INT_EQ(msgs, per_round);
    CHECK_INT_EQ(bytes, per_round * chunk);
    CHECK_INT_EQ(sim_coll_messages(r.coll), ROUNDS * per_round);
    CHECK_INT_EQ(sim_coll_bytes(r.coll), ROUNDS * per_round * chunk);
    if (p > 1) {
        CHECK_INT_EQ(sim_net_link(n, t.star.uplink0)->messages, ROUNDS * 2 * (p - 1));
        CHECK_INT_EQ(sim_net_link(n, t.star.downlink0 + p - 1)->bytes,
                     (uint64_t)ROUNDS * 2 * (uint64_t)(p - 1) * chunk);
    }
    printf("p=%2d nelems=%8llu: ring %lld ns per round, analytic %lld ns\n", p,
           (unsigned long long)nelems, (long long)(r.done_at[0][0] - t0), (long long)analytic);
    sim_coll_destroy(r.coll);
    sim_sched_destroy(s);
    sim_net_destroy(n);
    sim_engine_destroy(e);
}

/* Closed-form time of a ring allreduce of nelems floats over a flat star of p ranks. */
static int64_t ring_analytic(int p, uint64_t nelems, int64_t lat, double bw)
{
    sim_net_t *n = sim_net_create();
    sim_topo_spec_t spec = star(p, bw, lat);
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    sim_sched_t *s = sim_sched_allreduce(SIM_AR_RING, p);
    SGD_ASSERT(p <= MAXP);
    int eps[MAXP];
    for (int i = 0; i < p; i++) eps[i] = i;
    int64_t ns = sim_sched_analytic_ns(s, &t, n, eps, nelems, 4);
    sim_sched_destroy(s);
    sim_net_destroy(n);
    return ns;
}

int main(void)
{
    const int ps[] = {1, 2, 3, 4, 8, 16};
    const uint64_t sizes[] = {1, 1000, 1001, 12345, 1u << 20, 25557032};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) one_case(ps[i], sizes[j]);

    /* By hand: p = 4, 1001 floats -> chunks of 251 floats = 1004 B at 1 B/ns, 150 ns per
     * link (300 ns up and down) -> 6 steps of (1004 + 300) ns. */
    CHECK_INT_EQ(ring_analytic(4, 1001, 150, 1e9), 6 * 1304);
    CHECK_INT_EQ(ring_analytic(1, 1001, 150, 1e9), 0);
    return check_exit();
}
