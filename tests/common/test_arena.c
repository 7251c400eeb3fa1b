/* The per-run arena (common/arena.h): every array is 64-byte aligned, zeroed, disjoint from
 * every other, and keeps its contents while later (small and large) arrays are taken. */
#include <stdint.h>
#include <stdlib.h>

#include "common/arena.h"
#include "tests/check.h"

typedef struct {
    unsigned char *p;
    size_t n;
} span_t;

int main(void)
{
    sgd_arena_t a;
    sgd_arena_init(&a);
    /* Small, large (own block) and empty requests, interleaved. */
    const size_t sizes[] = {1, 7, 64, 65, 1000, 40000, 200000, 3, 0, 5000000, 17, 16384, 8};
    enum { N = sizeof sizes / sizeof sizes[0] };
    span_t s[N];
    for (int i = 0; i < N; i++) {
        s[i].n = sizes[i];
        s[i].p = sgd_arena_alloc(&a, sizes[i], 1);
        CHECK(s[i].p != NULL);
        CHECK_INT_EQ((uintptr_t)s[i].p % 64, 0);
        size_t nonzero = 0;
        for (size_t k = 0; k < s[i].n; k++) nonzero += s[i].p[k] != 0;
        CHECK_INT_EQ(nonzero, 0);
        for (size_t k = 0; k < s[i].n; k++) s[i].p[k] = (unsigned char)(i + 1);
    }
    /* Nothing overlaps, and every array still holds what was written into it. */
    for (int i = 0; i < N; i++) {
        size_t wrong = 0;
        for (size_t k = 0; k < s[i].n; k++) wrong += s[i].p[k] != (unsigned char)(i + 1);
        CHECK_INT_EQ(wrong, 0);
        for (int j = 0; j < i; j++)
            CHECK(s[i].n == 0 || s[j].n == 0 || s[i].p + s[i].n <= s[j].p ||
                  s[j].p + s[j].n <= s[i].p);
    }
    CHECK(a.bytes >= 5000000 + 200000 + 40000);
    double *d = SGD_ARENA_NEW(&a, 3, double);
    d[0] = 1.5;
    d[2] = -2.0;
    CHECK(d[0] + d[2] == -0.5 && d[1] == 0.0);
    sgd_arena_free(&a);
    CHECK(a.head == NULL && a.bytes == 0);
    sgd_arena_free(&a); /* freeing an empty arena is harmless */
    return check_exit();
}
