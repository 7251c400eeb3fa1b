/* Per-entity random number streams.
 *
 * Every random quantity in a run comes from a GSL generator owned by one entity (worker i's
 * minibatch sampler, worker i's compute-time draws, link j's jitter, ...) and seeded from
 * (master seed, stream kind, entity id) by sim_rng_mix.  Because no two entities share a
 * generator, adding a worker or a link never changes the draws of the others, and the order
 * in which entities happen to draw does not matter.
 *
 * Determinism contract: sim_rng_mix, the generator (xoshiro256**, seeded by splitmix64) and
 * the numbers in sim_stream_kind are part of every stored result.  Changing any of them
 * changes every result, so they must never change silently.  Nothing here reads the GSL_RNG_*
 * environment variables, rand() or the time.
 *
 * Ownership: sim_rng_create returns a generator owned by the caller, freed with gsl_rng_free. */
#ifndef SGDSIM_SIM_RNG_H
#define SGDSIM_SIM_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "common/ckbuf.h"

/* Stream kinds.  The numbers are stored in results (through the seeds they produce): never
 * renumber or reuse one; add new kinds at the end. */
enum sim_stream_kind {
    SIM_STREAM_INIT = 1,        /* parameter initialisation */
    SIM_STREAM_DATA_ORDER = 2,  /* minibatch sampling / data order */
    SIM_STREAM_SYNTH_DATA = 3,  /* synthetic dataset generation */
    SIM_STREAM_COMPUTE = 4,     /* compute-time draws */
    SIM_STREAM_IO = 5,          /* storage I/O time draws */
    SIM_STREAM_SPEED = 6,       /* per-worker speed factor */
    SIM_STREAM_LINK = 7,        /* link jitter */
    SIM_STREAM_CLIENT_PICK = 8, /* which client pushes next (uniform driver) */
    SIM_STREAM_GATING = 9,      /* B-FASGD's send/skip coin flips */
    SIM_STREAM_AVAILABILITY = 10, /* a client's online/offline periods (client_behaviour.h) */
    SIM_STREAM_DROPOUT = 11,      /* a client's per-task dropouts (client_behaviour.h) */
    SIM_STREAM_DEVICE = 12,       /* a client's compute factor, bandwidth (client_behaviour.h) */
    SIM_STREAM_PARTITION = 13,    /* the data over clients (models/partition.h), entity 0 */
};

/* The fixed mixing function (part of the determinism contract):
 *
 *     f(z)  = splitmix64 finaliser of z + 0x9E3779B97F4A7C15
 *             (z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
 *              z ^= z >> 31)
 *     mix   = f(f(f(seed) ^ kind) ^ entity)
 *
 * f is a bijection of 64-bit words, so for a fixed (seed, kind) distinct entities always get
 * distinct 64-bit seeds; across kinds and master seeds collisions are 2^-64 events. */
uint64_t sim_rng_mix(uint64_t seed, uint32_t kind, uint64_t entity);

/* xoshiro256** (Blackman & Vigna) as a GSL generator type: 32 bytes of state, period
 * 2^256 - 1.  gsl_rng_get returns the top 32 bits of each output (max 2^32 - 1, so code
 * written for 32-bit GSL generators works unchanged); gsl_rng_uniform returns the top 53
 * bits scaled into [0, 1).  gsl_rng_set(r, s) fills the state with four splitmix64 outputs
 * from s (every 64-bit s is a valid seed, 0 included). */
extern const gsl_rng_type *sim_rng_xoshiro256ss;

/* A new generator of type sim_rng_xoshiro256ss seeded from sim_rng_mix(seed, kind, entity).
 * Caller frees it with gsl_rng_free. */
gsl_rng *sim_rng_create(uint64_t seed, uint32_t kind, uint64_t entity);

/* Reseeds an existing sim_rng_xoshiro256ss generator as sim_rng_create would. */
void sim_rng_reseed(gsl_rng *r, uint64_t seed, uint32_t kind, uint64_t entity);

/* Checkpoints: a sim_rng_xoshiro256ss generator's 32 bytes of state, and their restore into
 * one (a stored size other than 32 bytes fails the reader, common/ckbuf.h).  The restored
 * generator draws what the saved one would have drawn next. */
void sim_rng_save(const gsl_rng *g, sgd_ckw_t *w);
void sim_rng_restore(gsl_rng *g, sgd_ckr_t *r);

#endif
