/* SHA-256 against the FIPS 180-4 test vectors, including a multi-block message fed in
 * uneven pieces (the digest of a run is built incrementally). */
#include "common/sha256.h"
#include "tests/check.h"

int main(void)
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
    return check_exit();
}
