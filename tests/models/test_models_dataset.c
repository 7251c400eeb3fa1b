/* Synthetic datasets: determinism for a given generator seed, label range, the effect of
 * `separation`, and views sharing memory with their source. */
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "models/dataset.h"
#include "tests/check.h"

static void make(unsigned long seed, double sep, sgd_dataset_t *d)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    dataset_synthetic(3000, 8, 5, sep, r, d);
    gsl_rng_free(r);
}

static void test_determinism(void)
{
    sgd_dataset_t a, b, c;
    make(42, 2.0, &a);
    make(42, 2.0, &b);
    make(43, 2.0, &c);
    CHECK_INT_EQ(a.n, 3000);
    CHECK_INT_EQ(a.dim, 8);
    CHECK_INT_EQ(a.classes, 5);
    CHECK(a.owns);
    CHECK(memcmp(a.x, b.x, 3000 * 8 * sizeof(float)) == 0);
    CHECK(memcmp(a.y, b.y, 3000 * sizeof(int32_t)) == 0);
    CHECK(memcmp(a.x, c.x, 3000 * 8 * sizeof(float)) != 0);

    int count[5] = {0};
    for (int64_t i = 0; i < a.n; i++) {
        CHECK(a.y[i] >= 0 && a.y[i] < 5);
        if (a.y[i] >= 0 && a.y[i] < 5) count[a.y[i]]++;
    }
    /* Uniform labels: 600 expected per class, s.d. ~22. */
    for (int k = 0; k < 5; k++) CHECK_NEAR(count[k], 600, 120);
    dataset_free(&a);
    dataset_free(&b);
    dataset_free(&c);
}

/* Within-class spread is N(0,1) whatever the separation; separation 0 puts every class mean at
 * the origin, separation s spreads the means with s.d. s. */
static void test_separation(void)
{
    for (int t = 0; t < 2; t++) {
        double sep = t == 0 ? 0.0 : 3.0;
        sgd_dataset_t d;
        make(7, sep, &d);
        double mean[5][8] = {{0}}, var = 0;
        int cnt[5] = {0};
        for (int64_t i = 0; i < d.n; i++) {
            cnt[d.y[i]]++;
            for (int j = 0; j < 8; j++) mean[d.y[i]][j] += d.x[i * 8 + j];
        }
        double spread = 0;
        for (int k = 0; k < 5; k++)
            for (int j = 0; j < 8; j++) {
                mean[k][j] /= cnt[k];
                spread += mean[k][j] * mean[k][j];
            }
        spread /= 40;
        for (int64_t i = 0; i < d.n; i++)
            for (int j = 0; j < 8; j++) {
                double e = d.x[i * 8 + j] - mean[d.y[i]][j];
                var += e * e;
            }
        var /= (double)(d.n * 8);
        printf("separation %.1f: within-class variance %.3f, mean-square class mean %.3f\n", sep,
               var, spread);
        CHECK_NEAR(var, 1.0, 0.05);
        if (sep == 0.0)
            CHECK(spread < 0.02);
        else
            CHECK(spread > 3.0 && spread < 20.0); /* 40 draws of N(0, 9) */
        dataset_free(&d);
    }
}

static void test_view(void)
{
    sgd_dataset_t d, v;
    make(1, 1.0, &d);
    dataset_view(&d, 100, 50, &v);
    CHECK_INT_EQ(v.n, 50);
    CHECK_INT_EQ(v.dim, 8);
    CHECK_INT_EQ(v.classes, 5);
    CHECK(!v.owns);
    CHECK(v.x == d.x + 800);
    CHECK(v.y == d.y + 100);
    dataset_free(&v);
    CHECK(v.x == NULL);
    CHECK(d.x != NULL && d.owns);
    dataset_view(&d, 0, d.n, &v);
    CHECK_INT_EQ(v.n, 3000);
    dataset_free(&d);
}

int main(void)
{
    test_determinism();
    test_separation();
    test_view();
    return check_exit();
}
