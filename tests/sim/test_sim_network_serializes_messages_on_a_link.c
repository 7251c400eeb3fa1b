/* Links serialise messages (hand-computed start and arrival times), a multi-link route runs
 * at its bottleneck bandwidth and adds every latency, the star routes through uplink then
 * downlink, an endpoint given its device's bandwidth slows only the messages reserved from
 * then on through its links, and sim_transfer_ns rounds up exactly and monotonically. */
#include "sim/engine.h"
#include "sim/network.h"
#include "tests/check.h"

static void transfer_rounding(void)
{
    CHECK_INT_EQ(sim_transfer_ns(0, 1e9), 0);
    CHECK_INT_EQ(sim_transfer_ns(1000, 1e9), 1000);
    CHECK_INT_EQ(sim_transfer_ns(1, 1e12), 1);      /* 0.001 ns rounds up to 1 */
    CHECK_INT_EQ(sim_transfer_ns(3, 3.0), 1000000000);
    CHECK_INT_EQ(sim_transfer_ns(1, 3.0), 333333334); /* ceil(333333333.33) */
    CHECK_INT_EQ(sim_transfer_ns(25, 1.25e10), 2);
    CHECK_INT_EQ(sim_transfer_ns(26, 1.25e10), 3);   /* 2.08 -> 3 */
    /* The double nearest 1e9/3 is slightly below it, so 1 byte takes a little more than
     * 3 ns: exactly 4 after rounding up (double arithmetic would say 3). */
    CHECK_INT_EQ(sim_transfer_ns(1, 1e9 / 3), 4);
    /* Beyond 2^53 bytes doubles would lose the last byte. */
    CHECK_INT_EQ(sim_transfer_ns((1ull << 60) + 1, 1e9), (1ll << 60) + 1);
    CHECK_INT_EQ(sim_transfer_ns(UINT64_MAX, 1.25e10), 1475739525896764130ll);
    /* Tiny bandwidths (large binary exponents) and saturation. */
    CHECK_INT_EQ(sim_transfer_ns(12345, 3e-3), 4115000000000000ll);
    CHECK_INT_EQ(sim_transfer_ns(1, 1e-10), SIM_TIME_BEYOND_NS);
    CHECK_INT_EQ(sim_transfer_ns(UINT64_MAX, 1.0), SIM_TIME_BEYOND_NS);
    CHECK_INT_EQ(sim_transfer_ns(1, 1e300), 1);

    /* Monotone in bytes and antitone in bandwidth, and never below the exact quotient. */
    const double bws[] = {1e9 / 3, 1.25e10, 7.1e8, 0.7, 12345.678};
    int bad = 0;
    for (int k = 0; k < 5; k++) {
        int64_t prev = 0;
        for (uint64_t b = 1; b < 200000; b += 7) {
            int64_t t = sim_transfer_ns(b, bws[k]);
            if (t < prev || t < (int64_t)((double)b * 1e9 / bws[k] - 1)) bad++;
            if (sim_transfer_ns(b, bws[k] * 1.0000001) > t) bad++;
            prev = t;
        }
    }
    CHECK_INT_EQ(bad, 0);
}

static void one_link(void)
{
    sim_net_t *n = sim_net_create();
    int l = sim_net_add_link(n, 1e9, 500); /* 1 byte per ns, 500 ns latency */
    CHECK_INT_EQ(l, 0);
    /* A: 1000 B ready at 0: transmits [0, 1000), arrives 1000 + 500. */
    CHECK_INT_EQ(sim_net_reserve(n, &l, 1, 1000, 0), 1500);
    /* B: 2000 B ready at 200 waits for A: transmits [1000, 3000), arrives 3500. */
    CHECK_INT_EQ(sim_net_reserve(n, &l, 1, 2000, 200), 3500);
    /* C: ready at 5000, link idle since 3000: no wait. */
    CHECK_INT_EQ(sim_net_reserve(n, &l, 1, 10, 5000), 5510);
    const sim_link_t *lk = sim_net_link(n, l);
    CHECK_INT_EQ(lk->free_at_ns, 5010);
    CHECK_INT_EQ(lk->messages, 3);
    CHECK_INT_EQ(lk->bytes, 3010);
    sim_net_destroy(n);
}

static void two_link_route_and_star(void)
{
    sim_net_t *n = sim_net_create();
    int route[2];
    route[0] = sim_net_add_link(n, 1e9, 100);
    route[1] = sim_net_add_link(n, 5e8, 200);
    /* Bottleneck 0.5 B/ns: 1000 B occupy both links [0, 2000); latency 100 + 200. */
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 1000, 0), 2300);
    CHECK_INT_EQ(sim_net_link(n, route[0])->free_at_ns, 2000);
    /* A message on the second link alone waits for the first message to leave it. */
    CHECK_INT_EQ(sim_net_reserve(n, &route[1], 1, 500, 100), 2000 + 1000 + 200);
    CHECK_INT_EQ(sim_net_link(n, route[1])->messages, 2);
    CHECK_INT_EQ(sim_net_link(n, route[0])->messages, 1);

    sim_star_t s;
    sim_star_init(&s, n, 4, 1e9, 50);
    CHECK_INT_EQ(sim_net_nlinks(n), 2 + 8);
    CHECK_INT_EQ(sim_star_route(&s, 1, 3, route), 2);
    CHECK_INT_EQ(route[0], 2 + 1);
    CHECK_INT_EQ(route[1], 2 + 4 + 3);
    /* 1 -> 3 and 2 -> 0 share no link: both start at once.  0 -> 3 shares 3's downlink with
     * 1 -> 3 and waits for it. */
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 1000, 0), 1100);
    sim_star_route(&s, 2, 0, route);
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 1000, 0), 1100);
    sim_star_route(&s, 0, 3, route);
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 1000, 0), 2100);
    sim_net_destroy(n);
}

/* A federated client's link (algorithms/ps_clients.c): endpoint 2 of a 1 B/ns star gets a
 * 0.1 B/ns device while a message to it is under way. */
static void an_endpoint_takes_its_devices_bandwidth(void)
{
    sim_net_t *n = sim_net_create();
    sim_star_t s;
    sim_star_init(&s, n, 3, 1e9, 100);
    int route[2];
    sim_star_route(&s, 1, 2, route); /* reserved before the change: [0, 1000), + 200 */
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 1000, 0), 1200);
    sim_star_set_endpoint_bandwidth(&s, n, 2, 1e8);
    CHECK(sim_net_link(n, s.uplink0 + 2)->bandwidth_Bps == 1e8);
    CHECK(sim_net_link(n, s.downlink0 + 2)->bandwidth_Bps == 1e8);
    CHECK(sim_net_link(n, s.uplink0 + 1)->bandwidth_Bps == 1e9);
    /* 0 -> 2 waits for 2's downlink until 1000, then 1000 B at 0.1 B/ns take 10000 ns. */
    sim_star_route(&s, 0, 2, route);
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 1000, 0), 1000 + 10000 + 200);
    /* 2 -> 1 leaves on 2's slow uplink; 0 -> 1 shares neither of 2's links. */
    sim_star_route(&s, 2, 1, route);
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 500, 20000), 20000 + 5000 + 200);
    sim_star_route(&s, 0, 1, route);
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 1000, 30000), 30000 + 1000 + 200);
    /* Another device in the slot: its bandwidth from then on. */
    sim_star_set_endpoint_bandwidth(&s, n, 2, 2e9);
    sim_star_route(&s, 2, 0, route); /* the bottleneck is now 0's downlink, 1 B/ns */
    CHECK_INT_EQ(sim_net_reserve(n, route, 2, 1000, 40000), 40000 + 1000 + 200);
    sim_net_destroy(n);
}

int main(void)
{
    transfer_rounding();
    one_link();
    two_link_route_and_star();
    an_endpoint_takes_its_devices_bandwidth();
    return check_exit();
}
