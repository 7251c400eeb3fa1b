/* Per-entity streams: the same (seed, kind, entity) always gives the same sequence, other
 * entities, kinds and seeds give other sequences, creating more entities changes nothing for
 * the existing ones, and GSL's generic functions work through the custom generator. */
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "sim/rng.h"
#include "tests/check.h"

#define NDRAW 64

static void draw(gsl_rng *r, unsigned long *out)
{
    for (int i = 0; i < NDRAW; i++) out[i] = gsl_rng_get(r);
}

static int same(const unsigned long *a, const unsigned long *b)
{
    return memcmp(a, b, NDRAW * sizeof *a) == 0;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

int main(void)
{
    unsigned long a[NDRAW], b[NDRAW];

    /* Pinned values (the mix and the generator are part of the determinism contract),
     * cross-checked against an independent Python transcription of splitmix64 and of
     * Vigna's xoshiro256** reference code. */
    CHECK(sim_rng_mix(0, 0, 0) == 0x238275bc38fcbe91ull);
    CHECK(sim_rng_mix(42, 4, 7) == 0x5b5fab66e1032dc8ull);
    gsl_rng *pinned = sim_rng_create(42, SIM_STREAM_DATA_ORDER, 3);
    CHECK(gsl_rng_get(pinned) == 0xb36dc770ul);
    CHECK(gsl_rng_get(pinned) == 0x3e5d89d0ul);
    CHECK(gsl_rng_uniform(pinned) == 0x1.4d61babb0bc7bp-1);
    gsl_rng_free(pinned);

    CHECK(sim_rng_mix(42, SIM_STREAM_COMPUTE, 7) == sim_rng_mix(42, SIM_STREAM_COMPUTE, 7));
    CHECK(sim_rng_mix(42, SIM_STREAM_COMPUTE, 7) != sim_rng_mix(42, SIM_STREAM_COMPUTE, 8));
    CHECK(sim_rng_mix(42, SIM_STREAM_COMPUTE, 7) != sim_rng_mix(42, SIM_STREAM_IO, 7));
    CHECK(sim_rng_mix(42, SIM_STREAM_COMPUTE, 7) != sim_rng_mix(43, SIM_STREAM_COMPUTE, 7));

    /* Same triple, same sequence. */
    gsl_rng *r1 = sim_rng_create(42, SIM_STREAM_DATA_ORDER, 3);
    gsl_rng *r2 = sim_rng_create(42, SIM_STREAM_DATA_ORDER, 3);
    CHECK(strcmp(gsl_rng_name(r1), "xoshiro256**") == 0);
    CHECK(r1->type == sim_rng_xoshiro256ss);
    draw(r1, a);
    draw(r2, b);
    CHECK(same(a, b));
    gsl_rng_free(r2);

    /* Different entity, kind or seed: different sequence. */
    r2 = sim_rng_create(42, SIM_STREAM_DATA_ORDER, 4);
    draw(r2, b);
    CHECK(!same(a, b));
    gsl_rng_free(r2);
    r2 = sim_rng_create(42, SIM_STREAM_COMPUTE, 3);
    draw(r2, b);
    CHECK(!same(a, b));
    gsl_rng_free(r2);
    r2 = sim_rng_create(43, SIM_STREAM_DATA_ORDER, 3);
    draw(r2, b);
    CHECK(!same(a, b));
    gsl_rng_free(r2);

    /* Creating 10^5 other entities (and drawing from them, interleaved) leaves entity 3's
     * stream unchanged; their seeds are all distinct. */
    enum { NENT = 100000 };
    gsl_rng *fresh = sim_rng_create(42, SIM_STREAM_DATA_ORDER, 3);
    uint64_t *mixes = malloc(NENT * sizeof *mixes);
    for (int i = 0; i < NENT; i++) {
        gsl_rng *o = sim_rng_create(42, SIM_STREAM_DATA_ORDER, (uint64_t)i + 1000);
        (void)gsl_rng_get(o);
        if (i % 1000 == 0) (void)gsl_rng_get(fresh), (void)gsl_rng_get(fresh);
        gsl_rng_free(o);
        mixes[i] = sim_rng_mix(42, SIM_STREAM_SPEED, (uint64_t)i);
    }
    gsl_rng_free(fresh);
    fresh = sim_rng_create(42, SIM_STREAM_DATA_ORDER, 3);
    draw(fresh, b);
    CHECK(same(a, b));
    qsort(mixes, NENT, sizeof *mixes, by_value);
    int dups = 0;
    for (int i = 1; i < NENT; i++) dups += mixes[i] == mixes[i - 1];
    CHECK_INT_EQ(dups, 0);
    free(mixes);

    /* Reseeding reproduces creation. */
    sim_rng_reseed(fresh, 42, SIM_STREAM_DATA_ORDER, 3);
    draw(fresh, b);
    CHECK(same(a, b));

    /* gsl_rng_uniform in [0, 1) with the right mean; gsl_rng_get within [min, max];
     * a GSL distribution and gsl_rng_uniform_int work through the custom type. */
    double sum = 0;
    int out_of_range = 0;
    enum { NU = 200000 };
    for (int i = 0; i < NU; i++) {
        double u = gsl_rng_uniform(fresh);
        if (!(u >= 0.0 && u < 1.0)) out_of_range++;
        sum += u;
        if (gsl_rng_get(fresh) > gsl_rng_max(fresh)) out_of_range++;
        if (gsl_rng_uniform_int(fresh, 10) >= 10) out_of_range++;
    }
    CHECK_INT_EQ(out_of_range, 0);
    CHECK_NEAR(sum / NU, 0.5, 0.005); /* sd of the mean ~ 0.29/sqrt(2e5) = 0.00065 */
    CHECK_INT_EQ(gsl_rng_min(fresh), 0);
    CHECK(gsl_rng_max(fresh) == 0xFFFFFFFFul);
    double gsum = 0;
    for (int i = 0; i < NU; i++) gsum += gsl_ran_gaussian(fresh, 1.0);
    CHECK_NEAR(gsum / NU, 0.0, 0.015);

    gsl_rng_free(fresh);
    gsl_rng_free(r1);
    return check_exit();
}
