/* Client behaviour (sim/client_behaviour.h): availability follows the documented draws of the
 * client's own stream, so no client depends on another or on how many there are; the
 * long-run fraction online is E[on] / (E[on] + E[off]); next-change agrees with online-at;
 * dropout agrees with availability and with its own probability; devices are drawn once per
 * client from its stream; a cursor survives a checkpoint; bad settings are refused naming
 * the field; and 10^6 clients cost no memory.  Statistical bounds are many standard
 * deviations wide at fixed seeds. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <gsl/gsl_rng.h>

#include "sim/client_behaviour.h"
#include "sim/rng.h"
#include "tests/check.h"

#define HOUR_NS (3600 * (int64_t)1000000000)

static sim_dist_t constant(double v) { return (sim_dist_t){.kind = SIM_DIST_CONSTANT, .p = {v}}; }
static sim_dist_t expo(double mean)
{
    return (sim_dist_t){.kind = SIM_DIST_EXPONENTIAL, .p = {mean}};
}

/* Online 2 h, offline 6 h on average (exponential): online a quarter of the time. */
static sim_client_model_t renewal(uint64_t seed)
{
    return (sim_client_model_t){.seed = seed, .avail = SIM_AVAIL_RENEWAL,
                                .online_s = expo(7200), .offline_s = expo(21600),
                                .compute_factor = constant(1), .bandwidth_Bps = constant(1e6)};
}

/* Client 7's first periods replayed by hand from sim_rng_create(seed, SIM_STREAM_AVAILABILITY,
 * 7): the first uniform decides the state, then the periods alternate. */
static void draws_follow_the_documented_order(void)
{
    sim_client_model_t m = renewal(42);
    gsl_rng *g = sim_rng_create(42, SIM_STREAM_AVAILABILITY, 7);
    int online = gsl_rng_uniform(g) < 0.25;
    int64_t t = 0;
    sim_client_avail_t c;
    sim_client_avail_start(&m, 7, &c);
    for (int k = 0; k < 50; k++) {
        int64_t len = sim_seconds_to_ns(sim_dist_sample(online ? &m.online_s : &m.offline_s, g));
        CHECK_INT_EQ(sim_client_online(&m, &c, t), online);
        CHECK_INT_EQ(sim_client_next_change(&m, &c, t), t + (len < 1 ? 1 : len));
        t += len < 1 ? 1 : len;
        online = !online;
    }
    gsl_rng_free(g);
}

/* Client 7's answers are the same alone, after 1000 other clients were walked far ahead with
 * their cursors interleaved with its own, and from a fresh cursor; another seed differs. */
static void clients_do_not_depend_on_each_other(void)
{
    sim_client_model_t m = renewal(42);
    int64_t alone[200];
    sim_client_avail_t c;
    sim_client_avail_start(&m, 7, &c);
    for (int k = 0; k < 200; k++) alone[k] = sim_client_next_change(&m, &c, k * HOUR_NS);
    sim_client_avail_t *others = malloc(1000 * sizeof *others);
    for (uint64_t i = 0; i < 1000; i++) sim_client_avail_start(&m, 1000 + i, &others[i]);
    sim_client_avail_start(&m, 7, &c);
    int differ = 0;
    for (int k = 0; k < 200; k++) {
        for (int i = 0; i < 1000; i++) sim_client_online(&m, &others[i], (k + 50) * HOUR_NS);
        differ += sim_client_next_change(&m, &c, k * HOUR_NS) != alone[k];
    }
    CHECK_INT_EQ(differ, 0);
    free(others);
    /* Backwards (restarts the walk) and with a fresh cursor per question. */
    differ = 0;
    for (int k = 199; k >= 0; k--)
        differ += sim_client_next_change(&m, &c, k * HOUR_NS) != alone[k];
    for (int k = 0; k < 200; k += 17) {
        sim_client_avail_t fresh;
        sim_client_avail_start(&m, 7, &fresh);
        differ += sim_client_next_change(&m, &fresh, k * HOUR_NS) != alone[k];
    }
    CHECK_INT_EQ(differ, 0);
    sim_client_model_t other = renewal(43);
    sim_client_avail_start(&other, 7, &c);
    int same = 0;
    for (int k = 0; k < 200; k++)
        same += sim_client_next_change(&other, &c, k * HOUR_NS) == alone[k];
    CHECK(same < 200);
}

/* Time online over [0, T] walked period by period through next_change, summed over clients. */
static double fraction_online(const sim_client_model_t *m, int clients, int64_t horizon_ns)
{
    double on = 0.0;
    for (int i = 0; i < clients; i++) {
        sim_client_avail_t c;
        sim_client_avail_start(m, (uint64_t)i, &c);
        for (int64_t t = 0; t < horizon_ns;) {
            bool up = sim_client_online(m, &c, t);
            int64_t next = sim_client_next_change(m, &c, t);
            int64_t end = next < horizon_ns ? next : horizon_ns;
            if (up) on += (double)(end - t);
            t = end;
        }
    }
    return on / ((double)clients * (double)horizon_ns);
}

/* 200 clients over 1000 mean cycles each: the fraction has an sd below 0.001 around p; the
 * bound is 0.01.  At t = 0 the share of 10^4 clients online has sd 0.0043 around p. */
static void long_run_fraction_online_is_the_mean_ratio(void)
{
    for (uint64_t seed = 1; seed <= 2; seed++) {
        sim_client_model_t m = renewal(seed);
        CHECK_NEAR(fraction_online(&m, 200, 8000 * HOUR_NS), 0.25, 0.01);
        /* Other laws, same means: only the means matter in the long run. */
        m.online_s = (sim_dist_t){.kind = SIM_DIST_GAMMA, .p = {7200, 0.5}};
        m.offline_s = (sim_dist_t){.kind = SIM_DIST_UNIFORM, .p = {0, 43200}};
        CHECK_NEAR(fraction_online(&m, 200, 8000 * HOUR_NS), 0.25, 0.01);
        m = renewal(seed);
        int up = 0;
        for (uint64_t i = 0; i < 10000; i++) up += sim_client_online_at(&m, i, 0);
        CHECK_NEAR(up / 10000.0, 0.25, 0.03);
    }
    sim_client_model_t always = renewal(1);
    always.avail = SIM_AVAIL_ALWAYS;
    CHECK_NEAR(fraction_online(&always, 10, 1000 * HOUR_NS), 1.0, 0.0);
}

/* At 2000 times t per client: the state holds on [t, next) and flips at next. */
static void next_change_agrees_with_online_at(void)
{
    sim_client_model_t m = renewal(5);
    int bad = 0;
    for (uint64_t i = 0; i < 20; i++) {
        sim_client_avail_t c;
        sim_client_avail_start(&m, i, &c);
        for (int k = 0; k < 2000; k++) {
            int64_t t = k * (HOUR_NS / 4) + (int64_t)(i * 7919);
            bool s = sim_client_online(&m, &c, t);
            int64_t next = sim_client_next_change(&m, &c, t);
            bad += next <= t;
            bad += sim_client_online_at(&m, i, next - 1) != s;
            bad += sim_client_online_at(&m, i, t + (next - t) / 2) != s;
            bad += sim_client_online_at(&m, i, next) == s;
        }
    }
    CHECK_INT_EQ(bad, 0);
    sim_client_avail_t c;
    m.avail = SIM_AVAIL_ALWAYS;
    sim_client_avail_start(&m, 3, &c);
    CHECK(sim_client_online(&m, &c, 5 * HOUR_NS));
    CHECK_INT_EQ(sim_client_next_change(&m, &c, 5 * HOUR_NS), SIM_TIME_BEYOND_NS);
}

/* Without the coin a task completes exactly when the client stays online to its end; with
 * it, 30% of the tasks that availability alone would complete fail, inside the task. */
static void dropout_agrees_with_availability(void)
{
    sim_client_model_t m = renewal(9);
    int bad = 0, completes = 0, offline_at_start = 0;
    for (uint64_t i = 0; i < 500; i++) {
        sim_client_avail_t c;
        sim_client_avail_start(&m, i, &c);
        for (int k = 0; k < 20; k++) {
            int64_t start = k * 3 * HOUR_NS, dur = HOUR_NS;
            bool up = sim_client_online_at(&m, i, start);
            sim_client_avail_t probe;
            sim_client_avail_start(&m, i, &probe);
            int64_t next = sim_client_next_change(&m, &probe, start);
            sim_client_task_t r = sim_client_task(&m, &c, (uint64_t)start, start, dur);
            if (!up) {
                offline_at_start++;
                bad += r.completes || !r.went_offline || r.end_ns != start;
            } else if (next >= start + dur) {
                completes++;
                bad += !r.completes || r.end_ns != start + dur;
            } else {
                bad += r.completes || !r.went_offline || r.end_ns != next;
            }
        }
    }
    CHECK_INT_EQ(bad, 0);
    CHECK(completes > 500 && offline_at_start > 500);

    /* Always online, coin 0.3: about 3000 of 10^4 tasks fail (sd 46), each at a time inside
     * [start, end); the same key gives the same fate, another key its own. */
    m.avail = SIM_AVAIL_ALWAYS;
    m.dropout_p = 0.3;
    int failed = 0, same = 0, early_half = 0;
    bad = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        sim_client_avail_t c;
        sim_client_avail_start(&m, i, &c);
        for (uint64_t k = 0; k < 10; k++) {
            int64_t start = (int64_t)k * HOUR_NS;
            sim_client_task_t r = sim_client_task(&m, &c, k, start, HOUR_NS);
            sim_client_task_t again = sim_client_task(&m, &c, k, start, HOUR_NS);
            same += r.completes == again.completes && r.end_ns == again.end_ns;
            if (!r.completes) {
                failed++;
                bad += r.went_offline || r.end_ns < start || r.end_ns >= start + HOUR_NS;
                early_half += r.end_ns < start + HOUR_NS / 2;
            }
        }
    }
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(same, 10000);
    CHECK(abs(failed - 3000) < 300);
    CHECK(abs(2 * early_half - failed) < 250); /* drop times uniform over the task */
    /* Zero-length tasks are never cut; probability 1 cuts every other one. */
    sim_client_avail_t c;
    sim_client_avail_start(&m, 1, &c);
    CHECK(sim_client_task(&m, &c, 1, HOUR_NS, 0).completes);
    m.dropout_p = 1.0;
    CHECK(!sim_client_task(&m, &c, 2, HOUR_NS, 1).completes);
    CHECK_INT_EQ(sim_client_task(&m, &c, 2, HOUR_NS, 1).end_ns, HOUR_NS);
}

/* Devices: the documented draws (factor, then bandwidth, from the device stream); 10^5
 * clients' mean factor within 1% of the law's (sd 0.16%); a bandwidth of 0 becomes 1 B/s. */
static void devices_come_from_each_clients_stream(void)
{
    sim_client_model_t m = renewal(3);
    m.compute_factor = (sim_dist_t){.kind = SIM_DIST_LOGNORMAL, .p = {1.0, 0.5}};
    m.bandwidth_Bps = (sim_dist_t){.kind = SIM_DIST_UNIFORM, .p = {1e6, 1e7}};
    gsl_rng *g = sim_rng_create(3, SIM_STREAM_DEVICE, 12345);
    double f = sim_dist_sample(&m.compute_factor, g), b = sim_dist_sample(&m.bandwidth_Bps, g);
    gsl_rng_free(g);
    sim_client_device_t d = sim_client_device(&m, 12345);
    CHECK(d.compute_factor == f && d.bandwidth_Bps == b);
    double sum = 0.0;
    int out = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        d = sim_client_device(&m, i);
        sum += d.compute_factor;
        out += d.bandwidth_Bps < 1e6 || d.bandwidth_Bps > 1e7;
    }
    CHECK_NEAR(sum / 100000.0, 1.0, 0.01);
    CHECK_INT_EQ(out, 0);
    m.bandwidth_Bps = constant(0.0);
    CHECK(sim_client_device(&m, 1).bandwidth_Bps == 1.0);
}

static void cursors_survive_a_checkpoint(void)
{
    sim_client_model_t m = renewal(11);
    sim_client_avail_t c, back;
    sim_client_avail_start(&m, 77, &c);
    sim_client_online(&m, &c, 100 * HOUR_NS);
    sgd_ckw_t w;
    sgd_ckw_init(&w);
    sim_client_avail_save(&c, &w);
    sgd_ckr_t r;
    sgd_ckr_init(&r, w.buf, w.len);
    sim_client_avail_restore(&back, &r);
    CHECK(sgd_ckr_done(&r));
    CHECK(memcmp(&c, &back, sizeof c) == 0);
    int differ = 0;
    for (int k = 100; k < 300; k++)
        differ += sim_client_next_change(&m, &c, k * HOUR_NS) !=
                  sim_client_next_change(&m, &back, k * HOUR_NS);
    CHECK_INT_EQ(differ, 0);
    /* A flag of 2 and an empty period are refused through the reader. */
    for (int damage = 0; damage < 2; damage++) {
        uint8_t *copy = malloc(w.len);
        memcpy(copy, w.buf, w.len);
        if (damage == 0) copy[w.len - 8] = 2; /* the flag */
        else memcpy(copy + 40, copy + 32, 8); /* until = since */
        sgd_ckr_init(&r, copy, w.len);
        sim_client_avail_restore(&back, &r);
        CHECK(r.failed);
        CHECK_STR_CONTAINS(r.why, "client 77's availability");
        free(copy);
    }
    sgd_ckw_free(&w);
}

static void bad_settings_name_their_field(void)
{
    sgd_err_t err = {{0}};
    sim_client_model_t m = renewal(1);
    CHECK_INT_EQ(sim_client_model_check(&m, &err), 0);
    m.online_s = constant(0.0);
    CHECK_INT_EQ(sim_client_model_check(&m, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "online_s:");
    m = renewal(1);
    m.offline_s = expo(1e-4);
    CHECK_INT_EQ(sim_client_model_check(&m, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "offline_s:");
    m = renewal(1);
    m.dropout_p = 1.5;
    CHECK_INT_EQ(sim_client_model_check(&m, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "dropout_p:");
    m.dropout_p = NAN;
    CHECK_INT_EQ(sim_client_model_check(&m, &err), -1);
    m = renewal(1);
    m.avail = (sim_avail_kind_t)7;
    CHECK_INT_EQ(sim_client_model_check(&m, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "avail:");
    /* ALWAYS ignores the periods. */
    m = renewal(1);
    m.avail = SIM_AVAIL_ALWAYS;
    m.online_s = constant(0.0);
    CHECK_INT_EQ(sim_client_model_check(&m, &err), 0);
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* 10^6 registered clients asked where they are at 10 h, and their devices: no memory beyond
 * one cursor on the stack (the peak grows by less than 1 MB, a byte per client). */
static void a_million_clients_cost_nothing_until_asked(void)
{
    sim_client_model_t m = renewal(21);
    long before = peak_rss_kb();
    int64_t up = 0;
    double factor = 0.0;
    for (uint64_t i = 0; i < 1000000; i++) {
        up += sim_client_online_at(&m, i, 10 * HOUR_NS);
        factor += sim_client_device(&m, i).compute_factor;
    }
    CHECK(up > 200000 && up < 300000);
    CHECK(factor == 1e6);
    CHECK((peak_rss_kb() - before) < 1024);
}

int main(void)
{
    draws_follow_the_documented_order();
    clients_do_not_depend_on_each_other();
    long_run_fraction_online_is_the_mean_ratio();
    next_change_agrees_with_online_at();
    dropout_agrees_with_availability();
    devices_come_from_each_clients_stream();
    cursors_survive_a_checkpoint();
    bad_settings_name_their_field();
    a_million_clients_cost_nothing_until_asked();
    return check_exit();
}
