/* analysis/run_window.h: a curve's final value, the mean of exactly its last k rows (not
 * k - 1, not k + 1, not the whole curve) summed newest first, fewer rows than k, a non-finite value inside and
 * outside the window, the extremes over finite values, and values at updates found only at
 * exact updates. */
#include <math.h>

#include "analysis/run_window.h"
#include "tests/check.h"

static void last_k(void)
{
    /* 12 rows 1..12: last 10 = 3..12, mean 7.5; last 9 would be 8, last 11 7 */
    double v[12];
    for (int i = 0; i < 12; i++) v[i] = i + 1;
    ana_window_t w = ana_window_of(v, 12, 10);
    CHECK_NEAR(w.last_mean, 7.5, 0);
    CHECK_INT_EQ(w.last_n, 10);
    CHECK(w.final == 12 && w.min == 1 && w.max == 12);
    w = ana_window_of(v, 12, 1);
    CHECK(w.last_mean == 12 && w.last_n == 1);
    /* summed newest first: 1e16 and -1e16 cancel before the 1 is added */
    static const double order[] = {1, 1e16, -1e16};
    CHECK_NEAR(ana_window_of(order, 3, 3).last_mean, 1.0 / 3.0, 1e-16);
    /* fewer rows than k: all of them */
    w = ana_window_of(v, 3, 10);
    CHECK(w.last_mean == 2 && w.last_n == 3 && w.final == 3);
}

static void non_finite(void)
{
    double v[] = {NAN, 0.5, 0.25, 0.75};
    ana_window_t w = ana_window_of(v, 4, 3); /* NaN outside the window */
    CHECK_NEAR(w.last_mean, 0.5, 1e-15);
    CHECK(w.min == 0.25 && w.max == 0.75);
    w = ana_window_of(v, 4, 4); /* inside: no mean */
    CHECK(isnan(w.last_mean) && w.final == 0.75);
    double d[] = {0.5, NAN};
    w = ana_window_of(d, 2, 10);
    CHECK(isnan(w.final) && isnan(w.last_mean) && w.min == 0.5 && w.max == 0.5);
    w = ana_window_of(NULL, 0, 10);
    CHECK(isnan(w.final) && isnan(w.last_mean) && isnan(w.min) && w.last_n == 0);
}

static void value_at(void)
{
    static const int64_t u[] = {4, 8, 12, 16};
    static const double v[] = {0.4, 0.8, 1.2, 1.6};
    CHECK(ana_value_at(u, v, 4, 4) == 0.4);
    CHECK(ana_value_at(u, v, 4, 12) == 1.2);
    CHECK(ana_value_at(u, v, 4, 16) == 1.6);
    CHECK(isnan(ana_value_at(u, v, 4, 10)));
    CHECK(isnan(ana_value_at(u, v, 4, 20)));
    CHECK(isnan(ana_value_at(u, v, 4, 0)));
    CHECK(isnan(ana_value_at(u, v, 0, 4)));
}

int main(void)
{
    last_k();
    non_finite();
    value_at();
    return check_exit();
}
