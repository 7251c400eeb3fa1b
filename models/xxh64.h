/* XXH64, the 64-bit hash of Yann Collet's xxHash (BSD-2-Clause algorithm, written here from its
 * specification, doc/xxhash_spec.md of the xxHash repository).
 *
 * The decoded-dataset cache (data_cache.h) uses it twice: to name and check a cache entry by
 * the content of its source file, and to detect a damaged payload.  It is not cryptographic:
 * SHA-256 (common/sha256.h) would be, but on this project's machines it hashes about 80 MB/s,
 * a third to a half of the time zlib needs to inflate the same file, while XXH64 runs at
 * several GB/s.  An accidental collision of two different inputs has probability 2^-64. */
#ifndef SGDSIM_MODELS_XXH64_H
#define SGDSIM_MODELS_XXH64_H

#include <stddef.h>
#include <stdint.h>

/* XXH64 of data[0..n), with `seed`; the same value as the reference implementation's
 * XXH64(data, n, seed) on every platform. */
uint64_t sgd_xxh64(const void *data, size_t n, uint64_t seed);

#endif
