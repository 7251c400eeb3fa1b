/* sgd_xxh64 against the reference implementation: values computed with xxHash 0.8.1's
 * XXH64() (libxxhash) for every length class of the algorithm -- empty, the 1-, 4- and 8-byte
 * tails, one and several 32-byte stripes with and without a tail -- and a non-zero seed. */
#include <stdint.h>

#include "models/xxh64.h"
#include "tests/check.h"

int main(void)
{
    /* Input: bytes (i * 7 + 3) mod 256, i = 0, 1, ...; hashed prefixes of these lengths. */
    static const struct {
        size_t n;
        uint64_t want;
    } cases[] = {
        {0, UINT64_C(0xef46db3751d8e999)},   {1, UINT64_C(0x1f25c8d0bc1f4bb6)},
        {3, UINT64_C(0x31d2363f52e564c9)},   {4, UINT64_C(0x9bb64b7d66ee9fda)},
        {7, UINT64_C(0x9a7b149959ce60d8)},   {8, UINT64_C(0xdab99d95c6f90092)},
        {9, UINT64_C(0x170bb6bf975b4c02)},   {31, UINT64_C(0xa2aa5f33cc4a6119)},
        {32, UINT64_C(0x23c3c17ef790fd97)},  {33, UINT64_C(0x50a7cfc7ba588784)},
        {63, UINT64_C(0x5e3e54b431c7493c)},  {64, UINT64_C(0x0eb64b3ef6eeb01f)},
        {65, UINT64_C(0xa383b724b2bd12f1)},  {100, UINT64_C(0xa61f8d4c170fe531)},
        {1000, UINT64_C(0x5f235fa033f1a3fb)},
    };
    uint8_t buf[1000];
    for (int i = 0; i < 1000; i++) buf[i] = (uint8_t)((i * 7 + 3) % 256);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint64_t got = sgd_xxh64(buf, cases[k].n, 0);
        if (got != cases[k].want)
            fprintf(stderr, "length %zu: got %016llx, want %016llx\n", cases[k].n,
                    (unsigned long long)got, (unsigned long long)cases[k].want);
        CHECK(got == cases[k].want);
    }
    /* The specification's own examples, and a seed. */
    CHECK(sgd_xxh64("a", 1, 0) == UINT64_C(0xd24ec4f1a98c6e5b));
    CHECK(sgd_xxh64("abc", 3, 0) == UINT64_C(0x44bc2cf5ad770999));
    CHECK(sgd_xxh64("abc", 3, UINT64_C(0x9e3779b185ebca87)) == UINT64_C(0xa7cb2aac405e36c7));
    /* Unaligned input gives the same value as aligned input. */
    uint8_t shifted[1001];
    memcpy(shifted + 1, buf, 1000);
    CHECK(sgd_xxh64(shifted + 1, 1000, 0) == UINT64_C(0x5f235fa033f1a3fb));
    return check_exit();
}
