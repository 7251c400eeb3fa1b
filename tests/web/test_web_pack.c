/* web/pack.h: a series of extreme update indexes and virtual times (any int64 a database
 * may hold, INT64_MIN and INT64_MAX next to each other included) packs without an integer
 * overflow (the sanitizer build checks that) and reads back as the page reads it, adding
 * up the steps in doubles: exact while a point and its step are below 2^53 in magnitude,
 * else within a rounding of the larger of the point and the previous one.  With two paths,
 * it also writes the pack and the values the page must get (tests/web/test_web_pack_js.sh
 * gives them to web/pack.js itself). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "tests/web/pack_read.h"
#include "web/pack.h"

#define TWO53 9007199254740992.0

static int64_t updates[] = {0, 1, 7, (INT64_C(1) << 53) - 1, INT64_C(1) << 53,
                            (INT64_C(1) << 53) + 1, INT64_MAX, INT64_MIN, -1, 5, INT64_MAX, 3,
                            INT64_MIN + 1, 0, -((INT64_C(1) << 53) - 1), 12};
static int64_t vtimes[] = {INT64_MIN, INT64_MAX, 0, 1000000, 999, INT64_MAX - 1, INT64_MIN + 7,
                           -5, (INT64_C(1) << 62), -(INT64_C(1) << 62), 42, 43, 44, INT64_MAX,
                           INT64_MIN, 1};
#define N ((int)(sizeof updates / sizeof updates[0]))
_Static_assert(sizeof updates == sizeof vtimes, "one time per update");

/* The page's value for x (got) against x, given the previous point prev. */
static void check_point(const char *what, int i, double got, int64_t x, int64_t prev)
{
    double step = (double)x - (double)prev; /* only its size matters here */
    bool exact = fabs((double)x) < TWO53 && (i == 0 || (fabs((double)prev) < TWO53 &&
                                                        fabs(step) < TWO53));
    double scale = fmax(fabs((double)x), i ? fabs((double)prev) : 0);
    double tol = exact ? 0 : ldexp(scale, -51);
    if (!(fabs(got - (double)x) <= tol)) {
        fprintf(stderr, "%s[%d]: the page gets %.17g for %lld (tolerance %g)\n", what, i, got,
                (long long)x, tol);
        check_failures++;
    }
}

/* The pack p (inflated) holds one series of N points with a clock, in double precision;
 * its updates and times summed as web/pack.js sums them into u and t. */
static void read_back(const sgd_strbuf_t *p, double *u, double *t)
{
    const unsigned char *b = (const unsigned char *)p->p;
    CHECK(p->n == 16 + 5 * 8 + (size_t)N * 3 * 8 && memcmp(b, "sgdpack1", 8) == 0);
    if (p->n != 16 + 5 * 8 + (size_t)N * 3 * 8) return;
    CHECK(webt_element(b + 8, 1, 0, 8) == 1);
    CHECK(webt_element(b + 16, 5, 3, 8) == N && webt_element(b + 16, 5, 4, 8) == 1);
    const unsigned char *us = b + 16 + 40, *ts = us + 8 * N, *vs = ts + 8 * N;
    double su = 0, st = 0;
    for (int i = 0; i < N; i++) {
        u[i] = su += webt_element(us, N, (size_t)i, 8);
        t[i] = st += webt_element(ts, N, (size_t)i, 8);
        CHECK(webt_element(vs, N, (size_t)i, 8) == i + 0.5);
    }
}

/* Writes the pack (gzip) and, one line per point, the update and the time in seconds the
 * page must show. */
static void write_for_js(const sgd_strbuf_t *gz, const double *u, const double *t,
                         const char *pack_path, const char *want_path)
{
    FILE *f = fopen(pack_path, "wb"), *w = fopen(want_path, "w");
    CHECK(f && w);
    if (!f || !w) return;
    CHECK(fwrite(gz->p, 1, gz->n, f) == gz->n);
    for (int i = 0; i < N; i++) fprintf(w, "%.17g %.17g\n", u[i], t[i] * 1e-9);
    CHECK(fclose(f) == 0 && fclose(w) == 0);
}

int main(int argc, char **argv)
{
    double values[N];
    char kinds[N];
    int idx[N];
    for (int i = 0; i < N; i++) values[i] = i + 0.5, kinds[i] = 0, idx[i] = i;
    rdb_series_t s = {.n = N, .update = updates, .vtime = vtimes, .value = values,
                      .kind = kinds};
    web_pack_t *pk = web_pack_new();
    web_pack_add(pk, 0, 0, &s, true, idx, N, false);
    sgd_strbuf_t gz = {0}, p = {0};
    web_pack_finish(pk, &gz);
    CHECK(webt_gunzip(&gz, &p) == 0);
    double u[N], t[N];
    memset(u, 0, sizeof u), memset(t, 0, sizeof t);
    read_back(&p, u, t);
    for (int i = 0; i < N; i++) {
        check_point("update", i, u[i], updates[i], i ? updates[i - 1] : 0);
        check_point("vtime", i, t[i], vtimes[i], i ? vtimes[i - 1] : 0);
    }
    if (argc == 3) write_for_js(&gz, u, t, argv[1], argv[2]);
    sgd_strbuf_free(&gz), sgd_strbuf_free(&p);
    return check_exit();
}
