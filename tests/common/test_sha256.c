/* SHA-256 against the FIPS 180-4 test vectors, including a multi-block message fed in
 * uneven pieces (the digest of a run is built incrementally) -- with the portable code and,
 * on a CPU that has them, with the SHA instructions; and the two agree on every length from
 * 0 to 300 bytes and on 1 MB of pseudo-random bytes, whole and fed in pieces of every size
 * from 1 to 130 bytes, so that partial, whole and straddled blocks all meet both. */
#include <stdlib.h>

#include "common/sha256.h"
#include "tests/check.h"

static void vectors(void)
{
    char hex[SGD_SHA256_HEX_LEN + 1];
    sgd_sha256_hex("", 0, hex);
    CHECK_STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sgd_sha256_hex("abc", 3, hex);
    CHECK_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sgd_sha256_t s;
    sgd_sha256_init(&s);
    for (size_t i = 0; i < strlen(two); i += 7) {
        size_t n = strlen(two) - i < 7 ? strlen(two) - i : 7;
        sgd_sha256_update(&s, two + i, n);
    }
    sgd_sha256_final_hex(&s, hex);
    CHECK_STR_EQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* one million 'a' */
    sgd_sha256_init(&s);
    char block[1000];
    memset(block, 'a', sizeof block);
    for (int i = 0; i < 1000; i++) sgd_sha256_update(&s, block, sizeof block);
    sgd_sha256_final_hex(&s, hex);
    CHECK_STR_EQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

#define BIG (1u << 20)

/* The digest of b[0..n) fed in pieces of `piece` bytes (0: at once). */
static void digest(const uint8_t *b, size_t n, size_t piece, char hex[SGD_SHA256_HEX_LEN + 1])
{
    sgd_sha256_t s;
    sgd_sha256_init(&s);
    for (size_t i = 0; i < n; i += piece ? piece : n)
        sgd_sha256_update(&s, b + i, piece && n - i > piece ? piece : n - i);
    sgd_sha256_final_hex(&s, hex);
}

/* Digests of the lengths 0..300 and of BIG bytes in pieces 0..130, into out[]. */
static void digests(const uint8_t *b, char (*out)[SGD_SHA256_HEX_LEN + 1])
{
    for (size_t n = 0; n <= 300; n++) digest(b, n, 0, out[n]);
    for (size_t piece = 0; piece <= 130; piece++) digest(b, BIG, piece, out[301 + piece]);
}

int main(void)
{
    sgd_sha256_force_portable(true);
    CHECK(!sgd_sha256_hardware());
    vectors();
    uint8_t *b = malloc(BIG);
    char(*portable)[SGD_SHA256_HEX_LEN + 1] = calloc(432, sizeof *portable);
    char(*hw)[SGD_SHA256_HEX_LEN + 1] = calloc(432, sizeof *hw);
    SGD_ASSERT(b && portable && hw);
    uint64_t x = 88172645463325252ull; /* xorshift64 */
    for (size_t i = 0; i < BIG; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b[i] = (uint8_t)(x >> 32);
    }
    digests(b, portable);
    for (size_t piece = 1; piece <= 130; piece++)
        CHECK_STR_EQ(portable[301 + piece], portable[301]); /* pieces change nothing */
    sgd_sha256_force_portable(false);
    if (sgd_sha256_hardware()) {
        vectors();
        digests(b, hw);
        for (size_t i = 0; i < 432; i++) CHECK_STR_EQ(hw[i], portable[i]);
    } else {
        printf("this CPU has no SHA instructions: the portable code alone was tested\n");
    }
    free(b);
    free(portable);
    free(hw);
    return check_exit();
}
