/* Per-entity streams declared in rng.h: the seed mix and a xoshiro256** gsl_rng_type.
 *
 * Why a custom generator: GSL's own small generators (taus2, ...) take an unsigned long
 * seed but use only 32 bits of it, so ~10^5 entities seeded from a 64-bit mix would start
 * to collide (birthday bound ~ 2^16).  xoshiro256** takes the full 64-bit mix, keeps 32
 * bytes of state (10^5 entities cost ~3 MB including GSL's wrapper) and is fast. */
#include "sim/rng.h"

#include <stdbool.h>
#include <string.h>

#include "common/error.h"

static uint64_t splitmix64_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t mix1(uint64_t z) { return splitmix64_next(&z); }

uint64_t sim_rng_mix(uint64_t seed, uint32_t kind, uint64_t entity)
{
    return mix1(mix1(mix1(seed) ^ (uint64_t)kind) ^ entity);
}

typedef struct xoshiro_state {
    uint64_t s[4];
} xoshiro_state_t;

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xoshiro_next(xoshiro_state_t *st)
{
    uint64_t *s = st->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Four consecutive splitmix64 outputs are never all zero (splitmix64 is a bijection of its
 * counter), so the forbidden all-zero xoshiro state cannot arise from any seed. */
static void xoshiro_seed64(xoshiro_state_t *st, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) st->s[i] = splitmix64_next(&x);
}

static void xoshiro_set(void *state, unsigned long int seed)
{
    xoshiro_seed64(state, (uint64_t)seed);
}

static unsigned long int xoshiro_get(void *state)
{
    return (unsigned long int)(xoshiro_next(state) >> 32);
}

static double xoshiro_get_double(void *state)
{
    return (double)(xoshiro_next(state) >> 11) * 0x1.0p-53;
}

static const gsl_rng_type xoshiro_type = {
    .name = "xoshiro256**",
    .max = 0xFFFFFFFFul,
    .min = 0,
    .size = sizeof(xoshiro_state_t),
    .set = xoshiro_set,
    .get = xoshiro_get,
    .get_double = xoshiro_get_double,
};

const gsl_rng_type *sim_rng_xoshiro256ss = &xoshiro_type;

void sim_rng_reseed(gsl_rng *r, uint64_t seed, uint32_t kind, uint64_t entity)
{
    SGD_ASSERT(r->type == sim_rng_xoshiro256ss);
    /* Seed the state directly rather than through gsl_rng_set so that the full 64-bit mix
     * is used even where unsigned long is 32 bits. */
    xoshiro_seed64(r->state, sim_rng_mix(seed, kind, entity));
}

gsl_rng *sim_rng_create(uint64_t seed, uint32_t kind, uint64_t entity)
{
    /* gsl_rng_alloc seeds with gsl_rng_default_seed, which is only read from the environment
     * by gsl_rng_env_setup (never called here); the reseed overwrites it anyway. */
    gsl_rng *r = gsl_rng_alloc(sim_rng_xoshiro256ss);
    if (!r) sgd_die(__FILE__, __LINE__, "out of memory allocating a random number generator");
    sim_rng_reseed(r, seed, kind, entity);
    return r;
}

void sim_rng_save(const gsl_rng *g, sgd_ckw_t *w)
{
    SGD_ASSERT(g->type == sim_rng_xoshiro256ss);
    sgd_ckw_bytes(w, gsl_rng_state(g), gsl_rng_size(g));
}

void sim_rng_restore(gsl_rng *g, sgd_ckr_t *r)
{
    SGD_ASSERT(g->type == sim_rng_xoshiro256ss);
    xoshiro_state_t st;
    sgd_ckr_bytes(r, &st, sizeof st, "random stream");
    /* All zeros is xoshiro's fixed point: it would draw 0 forever (and a draw that retries
     * until it gets a non-zero number would never return). */
    bool zero = true;
    for (size_t i = 0; i < sizeof st.s / sizeof st.s[0]; i++) zero = zero && st.s[i] == 0;
    if (!r->failed && zero) sgd_ckr_fail(r, "random stream: all-zero state");
    if (!r->failed) memcpy(gsl_rng_state(g), &st, sizeof st);
}
