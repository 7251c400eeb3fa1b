/* Samples of every kind have the documented mean (within a few standard errors), are never
 * negative, and repeat exactly for the same stream. */
#include <math.h>

#include "sim/dist.h"
#include "sim/rng.h"
#include "tests/check.h"

#define NS 400000

static void check_kind(const char *label, sim_dist_t d, double expected_mean, double sd)
{
    gsl_rng *r = sim_rng_create(7, SIM_STREAM_COMPUTE, 0);
    double sum = 0;
    int negative = 0;
    for (int i = 0; i < NS; i++) {
        double x = sim_dist_sample(&d, r);
        if (x < 0) negative++;
        sum += x;
    }
    double mean = sum / NS;
    /* 5 standard errors: a false failure has probability ~6e-7 per kind, and the stream is
     * fixed anyway, so the test is deterministic. */
    double tol = 5 * sd / sqrt(NS) + 1e-12 * expected_mean * NS; /* + summation rounding */
    printf("%-12s mean %.6f, expected %.6f (tol %.2g)\n", label, mean, expected_mean, tol);
    CHECK_NEAR(sim_dist_mean(&d), expected_mean, 1e-12 * (1 + expected_mean));
    CHECK_NEAR(mean, expected_mean, tol);
    CHECK_INT_EQ(negative, 0);

    /* Same stream, same draws. */
    gsl_rng *r2 = sim_rng_create(7, SIM_STREAM_COMPUTE, 0);
    sim_rng_reseed(r, 7, SIM_STREAM_COMPUTE, 0);
    for (int i = 0; i < 100; i++) CHECK(sim_dist_sample(&d, r) == sim_dist_sample(&d, r2));
    gsl_rng_free(r2);
    gsl_rng_free(r);
}

int main(void)
{
    check_kind("constant", (sim_dist_t){SIM_DIST_CONSTANT, {0.3, 0}}, 0.3, 0);
    check_kind("uniform", (sim_dist_t){SIM_DIST_UNIFORM, {1, 3}}, 2.0, 2 / sqrt(12));
    /* Clamping moves even a mild normal's mean: 2*Phi(4) + 0.5*phi(4). */
    check_kind("normal", (sim_dist_t){SIM_DIST_NORMAL, {2, 0.5}}, 2.0000035726292162, 0.5);
    /* Heavily clamped normal: mean m*Phi(m/s) + s*phi(m/s) = 0.5*Phi(0.5) + phi(0.5). */
    check_kind("normal-clamp", (sim_dist_t){SIM_DIST_NORMAL, {0.5, 1}},
               0.5 * 0.69146246127401310 + 0.35206532676429952, 1);
    check_kind("lognormal", (sim_dist_t){SIM_DIST_LOGNORMAL, {0.1, 0.3}}, 0.1, 0.03);
    check_kind("gamma", (sim_dist_t){SIM_DIST_GAMMA, {4, 2}}, 4, 8);
    check_kind("gamma-lowcv", (sim_dist_t){SIM_DIST_GAMMA, {1, 0.1}}, 1, 0.1);
    check_kind("exponential", (sim_dist_t){SIM_DIST_EXPONENTIAL, {0.5, 0}}, 0.5, 0.5);

    /* A constant needs no generator. */
    sim_dist_t c = {SIM_DIST_CONSTANT, {1.25, 0}};
    CHECK_NEAR(sim_dist_sample(&c, NULL), 1.25, 0);

    CHECK_INT_EQ(sim_seconds_to_ns(1.5), 1500000000);
    CHECK_INT_EQ(sim_seconds_to_ns(1e-9), 1);
    CHECK_INT_EQ(sim_seconds_to_ns(0.4e-9), 0);
    CHECK_INT_EQ(sim_seconds_to_ns(-3), 0);
    CHECK_INT_EQ(sim_seconds_to_ns(1e300), SIM_TIME_BEYOND_NS);
    CHECK_INT_EQ(sim_seconds_to_ns(INFINITY), SIM_TIME_BEYOND_NS);
    CHECK_INT_EQ(sim_seconds_to_ns(2.3e9), 2300000000000000000ll); /* below 2^61 ns: exact */
    CHECK_INT_EQ(sim_seconds_to_ns(2.31e9), SIM_TIME_BEYOND_NS);    /* past the horizon */
    return check_exit();
}
