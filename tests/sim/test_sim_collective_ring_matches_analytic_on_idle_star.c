/* On an otherwise idle star, with every rank entering at the same time, the message-level
 * ring allreduce finishes on every rank exactly at the analytic time, for several p and
 * vector sizes (including sizes not divisible by p), and again for a second iteration that
 * each rank enters as soon as its first one is done. */
#include "sim/network.h"
#include "tests/check.h"

#define MAXP 16
#define ITERS 2

typedef struct run {
    sim_ring_t *ring;
    int64_t done_at[ITERS][MAXP];
    int ndone[MAXP];
} run_t;

static void on_done(void *ctx, int rank, int64_t t_ns)
{
    run_t *r = ctx;
    r->done_at[r->ndone[rank]][rank] = t_ns;
    if (++r->ndone[rank] < ITERS) sim_ring_enter(r->ring, rank, t_ns);
}

static void one_case(int p, uint64_t nelems)
{
    const double bw = 1.25e10; /* 100 Gbit/s */
    const int64_t lat = 1500, t0 = 12345;
    sim_engine_t *e = sim_engine_create();
    sim_net_t *n = sim_net_create();
    sim_star_t s;
    sim_star_init(&s, n, p, bw, lat);
    run_t r = {0};
    r.ring = sim_ring_create(e, n, &s, p, nelems, 4, on_done, &r);
    for (int i = 0; i < p; i++) sim_ring_enter(r.ring, i, t0);
    CHECK_INT_EQ(sim_engine_run(e, NULL), SIM_STOP_EMPTY);

    int64_t analytic = sim_allreduce_ring_analytic_ns(p, nelems, 4, 2 * lat, bw);
    uint64_t chunk = (nelems + (uint64_t)p - 1) / (uint64_t)p * 4;
    int wrong = 0;
    for (int i = 0; i < p; i++) {
        CHECK_INT_EQ(r.ndone[i], ITERS);
        for (int k = 0; k < ITERS; k++) {
            if (r.done_at[k][i] != t0 + (k + 1) * analytic) {
                if (wrong++ < 3)
                    fprintf(stderr, "p=%d nelems=%llu rank %d iteration %d: done at %lld, "
                            "analytic %lld\n", p, (unsigned long long)nelems, i, k,
                            (long long)r.done_at[k][i], (long long)(t0 + (k + 1) * analytic));
            }
        }
    }
    CHECK_INT_EQ(wrong, 0);
    uint64_t msgs = (uint64_t)ITERS * (uint64_t)p * 2 * (uint64_t)(p - 1);
    CHECK_INT_EQ(sim_ring_chunk_bytes(r.ring), chunk);
    CHECK_INT_EQ(sim_ring_messages(r.ring), msgs);
    CHECK_INT_EQ(sim_ring_bytes(r.ring), msgs * chunk);
    if (p > 1) {
        CHECK_INT_EQ(sim_net_link(n, s.uplink0)->messages, ITERS * 2 * (p - 1));
        CHECK_INT_EQ(sim_net_link(n, s.downlink0 + p - 1)->bytes,
                     (uint64_t)ITERS * 2 * (uint64_t)(p - 1) * chunk);
    }
    printf("p=%2d nelems=%8llu: ring %lld ns per iteration, analytic %lld ns\n", p,
           (unsigned long long)nelems, (long long)(r.done_at[0][0] - t0), (long long)analytic);
    sim_ring_destroy(r.ring);
    sim_net_destroy(n);
    sim_engine_destroy(e);
}

int main(void)
{
    const int ps[] = {1, 2, 3, 4, 8, 16};
    const uint64_t sizes[] = {1, 1000, 1001, 12345, 1u << 20, 25557032};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) one_case(ps[i], sizes[j]);

    /* Hand check of the closed form: p = 4, 1001 floats -> chunks of 251 floats = 1004 B at
     * 1 B/ns -> 6 steps of (1004 + 300) ns. */
    CHECK_INT_EQ(sim_allreduce_ring_analytic_ns(4, 1001, 4, 300, 1e9), 6 * 1304);
    CHECK_INT_EQ(sim_allreduce_ring_analytic_ns(1, 1001, 4, 300, 1e9), 0);
    return check_exit();
}
