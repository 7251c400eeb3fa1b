/* SHA-256 (sha256.h).  It hashes configurations and run digests, where speed is
 * irrelevant, and whole checkpoints of gigabytes (common/ckpt_file.c, written and checked on
 * every resume), where it is not: whole blocks are compressed straight from the input, and on
 * x86-64 CPUs with the SHA extensions by those instructions (about ten times the portable
 * code's speed), chosen once per process from cpuid.  Both give the same bits: the tests
 * compare them (sgd_sha256_force_portable). */
#include "common/sha256.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t ror(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/* One 64-byte block into h: FIPS 180-4, section 6.2.2. */
static void compress(uint32_t h[8], const uint8_t b[64])
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
               (uint32_t)b[4 * i + 2] << 8 | (uint32_t)b[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
        hh = g; g = f; f = e; e = d + t1; d = c; c = bb; bb = a; a = t1 + t2;
    }
    h[0] += a; h[1] += bb; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

static void compress_portable(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++) compress(h, p + 64 * i);
}

#ifdef SHA256_X86
/* nblocks 64-byte blocks into h with the SHA extensions: four rounds per two
 * sha256rnds2, the message schedule by sha256msg1/msg2, the state kept as the instructions
 * want it (ABEF, CDGH) and put back in order at the end (Intel's "New Instructions Supporting
 * the Secure Hash Algorithm on Intel Architecture Processors", 2013). */
__attribute__((target("sha,sse4.1,ssse3"))) static void compress_shani(uint32_t h[8],
                                                                       const uint8_t *p,
                                                                       size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1); /* CDAB */
    __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);  /* EFGH */
    __m128i s0 = _mm_alignr_epi8(tmp, s1, 8);                                        /* ABEF */
    s1 = _mm_blend_epi16(s1, tmp, 0xF0);                                             /* CDGH */
    for (size_t b = 0; b < nblocks; b++, p += 64) {
        __m128i abef = s0, cdgh = s1, m[4];
        for (int g = 0; g < 16; g++) { /* rounds 4g .. 4g + 3 on words m[g & 3] */
            __m128i cur = g < 4 ? _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)),
                                                   bswap)
                                : m[g & 3];
            m[g & 3] = cur;
            __m128i msg = _mm_add_epi32(cur, _mm_loadu_si128((const __m128i *)&K[4 * g]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
            if (g >= 3 && g < 15) { /* the schedule's words of group g + 1 */
                __m128i *next = &m[(g + 1) & 3];
                __m128i w = _mm_add_epi32(*next, _mm_alignr_epi8(cur, m[(g + 3) & 3], 4));
                *next = _mm_sha256msg2_epu32(w, cur);
            }
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(msg, 0x0E));
            if (g >= 1 && g < 13) m[(g - 1) & 3] = _mm_sha256msg1_epu32(m[(g - 1) & 3], cur);
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    tmp = _mm_shuffle_epi32(s0, 0x1B);                                             /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);                                              /* DCHG */
    _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(tmp, s1, 0xF0));            /* DCBA */
    _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(s1, tmp, 8));               /* HGFE */
}

/* cpuid: the SHA extensions (leaf 7, EBX bit 29) with SSSE3 and SSE4.1 (leaf 1, ECX bits 9
 * and 19), which the code above also uses. */
static bool cpu_has_sha(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19))) return false;
    if (__get_cpuid_max(0, NULL) < 7) return false;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 29)) != 0;
}
#else
static bool cpu_has_sha(void) { return false; }
#endif

/* 0 not decided yet, 1 portable, 2 SHA extensions; decided once (atomically: the digest and
 * the checkpoints may be computed on different threads). */
static atomic_int impl;

bool sgd_sha256_hardware(void)
{
    int i = atomic_load_explicit(&impl, memory_order_relaxed);
    if (i == 0) {
        i = cpu_has_sha() ? 2 : 1;
        atomic_store_explicit(&impl, i, memory_order_relaxed);
    }
    return i == 2;
}

void sgd_sha256_force_portable(bool on)
{
    atomic_store_explicit(&impl, on ? 1 : 0, memory_order_relaxed);
}

static void compress_blocks(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
#ifdef SHA256_X86
    if (sgd_sha256_hardware()) {
        compress_shani(h, p, nblocks);
        return;
    }
#endif
    compress_portable(h, p, nblocks);
}

void sgd_sha256_init(sgd_sha256_t *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->nbytes = 0;
    s->nblock = 0;
}

void sgd_sha256_update(sgd_sha256_t *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    if (n == 0) return;
    s->nbytes += n;
    if (s->nblock > 0) { /* complete the pending block first */
        size_t take = 64 - s->nblock < n ? 64 - s->nblock : n;
        memcpy(s->block + s->nblock, p, take);
        s->nblock += take;
        p += take;
        n -= take;
        if (s->nblock < 64) return;
        compress_blocks(s->h, s->block, 1);
        s->nblock = 0;
    }
    compress_blocks(s->h, p, n / 64); /* whole blocks straight from the input */
    memcpy(s->block, p + n / 64 * 64, n % 64);
    s->nblock = n % 64;
}

void sgd_sha256_final_hex(sgd_sha256_t *s, char hex[SGD_SHA256_HEX_LEN + 1])
{
    uint64_t bits = s->nbytes * 8;
    uint8_t pad = 0x80;
    sgd_sha256_update(s, &pad, 1);
    uint8_t zero = 0;
    while (s->nblock != 56) sgd_sha256_update(s, &zero, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sgd_sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++) snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
}

void sgd_sha256_hex(const void *data, size_t n, char hex[SGD_SHA256_HEX_LEN + 1])
{
    sgd_sha256_t s;
    sgd_sha256_init(&s);
    sgd_sha256_update(&s, data, n);
    sgd_sha256_final_hex(&s, hex);
}

int sgd_sha256_file(const char *path, char hex[SGD_SHA256_HEX_LEN + 1], uint64_t *bytes,
                    sgd_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return sgd_errf(err, "%s: cannot read: %s", path, strerror(errno));
    sgd_sha256_t s;
    sgd_sha256_init(&s);
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sgd_sha256_update(&s, buf, n);
    int failed = ferror(f);
    fclose(f);
    if (failed) return sgd_errf(err, "%s: cannot read: read error", path);
    *bytes = s.nbytes;
    sgd_sha256_final_hex(&s, hex);
    return 0;
}
