/* SHA-256 (FIPS 180-4), used for configuration hashes and run digests.  A cryptographic
 * hash is overkill for collision resistance here, but it makes a digest printed in a paper
 * or a CI log unambiguous and comparable with `sha256sum` of the same bytes. */
#ifndef SGDSIM_COMMON_SHA256_H
#define SGDSIM_COMMON_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

typedef struct sgd_sha256 {
    uint32_t h[8];
    uint64_t nbytes;    /* total bytes fed so far */
    uint8_t block[64];  /* pending partial block */
    size_t nblock;      /* bytes used in block */
} sgd_sha256_t;

/* Hex characters of a digest; a buffer for one as a string holds SGD_SHA256_HEX_LEN + 1
 * bytes (the NUL). */
#define SGD_SHA256_HEX_LEN 64

void sgd_sha256_init(sgd_sha256_t *s);
void sgd_sha256_update(sgd_sha256_t *s, const void *data, size_t n);
/* Writes the digest as SGD_SHA256_HEX_LEN lowercase hex characters plus NUL into hex. */
void sgd_sha256_final_hex(sgd_sha256_t *s, char hex[SGD_SHA256_HEX_LEN + 1]);
/* One-shot convenience. */
void sgd_sha256_hex(const void *data, size_t n, char hex[SGD_SHA256_HEX_LEN + 1]);
/* Whether the compression runs on this CPU's SHA instructions (x86 SHA extensions), else
 * the portable code; both give the same bits. */
bool sgd_sha256_hardware(void);
/* Tests: true makes every later call use the portable code; false decides again. */
void sgd_sha256_force_portable(bool on);
/* The digest of the file at path (what `sha256sum` prints) and its size in bytes; -1 with a
 * message naming the path when it cannot be read. */
int sgd_sha256_file(const char *path, char hex[SGD_SHA256_HEX_LEN + 1], uint64_t *bytes,
                    sgd_err_t *err);

#endif
