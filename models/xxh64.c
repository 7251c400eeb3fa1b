/* XXH64 (see xxh64.h): four accumulators over 32-byte stripes, then the tail, then the final
 * avalanche -- the steps and constants of the specification.  Words are read little-endian
 * whatever the host's byte order, so a hash means the same bytes everywhere. */
#include "models/xxh64.h"

#include <string.h>

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* memcpy compiles to one load; the swap only on big-endian hosts. */
static uint64_t read64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static uint32_t read32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static uint64_t round64(uint64_t acc, uint64_t input)
{
    acc += input * P2;
    return rotl(acc, 31) * P1;
}

static uint64_t merge(uint64_t h, uint64_t acc)
{
    h ^= round64(0, acc);
    return h * P1 + P4;
}

/* The stripes: n >= 32; *used is set to the bytes consumed (a multiple of 32). */
static uint64_t stripes(const uint8_t *p, size_t n, uint64_t seed, size_t *used)
{
    uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        v1 = round64(v1, read64(p + i));
        v2 = round64(v2, read64(p + i + 8));
        v3 = round64(v3, read64(p + i + 16));
        v4 = round64(v4, read64(p + i + 24));
    }
    *used = i;
    uint64_t h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    return merge(h, v4);
}

/* The last n < 32 bytes, then the avalanche. */
static uint64_t tail(uint64_t h, const uint8_t *p, size_t n)
{
    for (; n >= 8; p += 8, n -= 8) h = rotl(h ^ round64(0, read64(p)), 27) * P1 + P4;
    if (n >= 4) {
        h = rotl(h ^ (uint64_t)read32(p) * P1, 23) * P2 + P3;
        p += 4;
        n -= 4;
    }
    for (; n > 0; p++, n--) h = rotl(h ^ *p * P5, 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

uint64_t sgd_xxh64(const void *data, size_t n, uint64_t seed)
{
    const uint8_t *p = data;
    size_t used = 0;
    uint64_t h = n >= 32 ? stripes(p, n, seed, &used) : seed + P5;
    h += (uint64_t)n;
    return tail(h, p + used, n - used);
}
