/* Minimal assertion macros for sgdsim's test executables: each failure prints file:line, the
 * test keeps going, and check_exit() returns non-zero if anything failed.  CHECK prints only
 * the condition's text; the comparing forms (CHECK_INT_EQ, CHECK_NEAR, CHECK_STR_EQ,
 * CHECK_STR_CONTAINS) also print both operands' values, so prefer them where there are two. */
#ifndef SGDSIM_TESTS_CHECK_H
#define SGDSIM_TESTS_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);     \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                               \
    do {                                                                                 \
        long long va_ = (long long)(a), vb_ = (long long)(b);                            \
        if (va_ != vb_) {                                                                \
            fprintf(stderr, "%s:%d: CHECK_INT_EQ failed: %s = %lld, %s = %lld\n",        \
                    __FILE__, __LINE__, #a, va_, #b, vb_);                               \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                            \
    do {                                                                                 \
        double va_ = (double)(a), vb_ = (double)(b), vt_ = (double)(tol);                \
        if (!(fabs(va_ - vb_) <= vt_)) {                                                 \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g (tol %.3g)\n", \
                    __FILE__, __LINE__, #a, va_, #b, vb_, vt_);                          \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)

/* Both strings non-NULL and equal; a NULL operand fails and prints as (null). */
#define CHECK_STR_EQ(a, b)                                                               \
    do {                                                                                 \
        const char *sa_ = (a), *sb_ = (b);                                               \
        if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                     \
            fprintf(stderr, "%s:%d: CHECK_STR_EQ failed: %s = \"%s\", %s = \"%s\"\n",    \
                    __FILE__, __LINE__, #a, sa_ ? sa_ : "(null)", #b, sb_ ? sb_ : "(null)"); \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                  \
    do {                                                                                 \
        const char *h_ = (hay), *n_ = (needle);                                          \
        if (!h_ || !strstr(h_, n_)) {                                                    \
            fprintf(stderr, "%s:%d: CHECK_STR_CONTAINS failed: \"%s\" does not contain \"%s\"\n", \
                    __FILE__, __LINE__, h_ ? h_ : "(null)", n_);                         \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)

/* The whole file at path (malloc'ed), with a NUL after it so that text reads as a string,
 * and its length in *len unless len is NULL; NULL, counted as a failure, when it cannot be
 * read. */
static inline void *check_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n + 1)) &&
        fread(b, 1, (size_t)n, f) == (size_t)n) {
        b[n] = '\0';
    } else {
        fprintf(stderr, "cannot read %s\n", path);
        check_failures++;
        free(b);
        b = NULL;
    }
    if (f) fclose(f);
    if (len) *len = b ? (size_t)n : 0;
    return b;
}

static inline int check_exit(void)
{
    if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}

#endif
