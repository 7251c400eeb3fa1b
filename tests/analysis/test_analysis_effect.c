/* analysis/effect.h against hand-worked values: the paired t test, its interval and TOST at
 * 2 degrees of freedom, where Student's t has closed forms (P(T > t) = (1 - t / sqrt(t^2 +
 * 2)) / 2, t(p) = (2p - 1) / sqrt(2 p (1 - p))); Welch's effect against seed_stats.h's test;
 * the degenerate spreads; the seeds-needed calculation at a textbook case (effect = sd: 10
 * pairs for 80% power at 5%); and values near the largest double, which give a defined
 * answer instead of reaching GSL's error handler (its default aborts this test). */
#include <math.h>

#include "analysis/effect.h"
#include "analysis/seed_stats.h"
#include "tests/check.h"

static void paired_by_hand(void)
{
    static const double b[] = {1, 2, 3}, c[] = {1.5, 2.7, 3.4}; /* d = 0.5, 0.7, 0.4 */
    ana_effect_t e;
    CHECK_INT_EQ(ana_effect_paired(b, c, 3, &e), 0);
    CHECK_INT_EQ(e.kind, ANA_TEST_PAIRED);
    CHECK_NEAR(e.effect, 0.5333333333333333, 1e-15);
    CHECK_NEAR(e.sd_d, 0.15275252316519464, 1e-15);
    CHECK_NEAR(e.se, 0.08819171036881968, 1e-15);
    CHECK_NEAR(e.df, 2, 0);
    CHECK_NEAR(e.t, 6.047431568147636, 1e-12);
    CHECK_NEAR(e.p, 0.026271008879704683, 1e-12);
    CHECK_NEAR(e.base_mean, 2.0, 1e-15);
    CHECK_NEAR(e.cand_mean, 2.5333333333333333, 1e-15);
    double lo, hi;
    ana_effect_interval(&e, 0.05, &lo, &hi);
    CHECK_NEAR(lo, 0.15387502997365743, 1e-9);
    CHECK_NEAR(hi, 0.9127916366930092, 1e-9);
    /* TOST: inside a margin of 1 at 5% (the 90% interval is inside +-1), not of 0.6. */
    CHECK_NEAR(ana_effect_tost_p(&e, 1.0), 0.016954108460352002, 1e-12);
    CHECK_NEAR(ana_effect_tost_p(&e, 0.6), 0.26429773960448416, 1e-12);
    CHECK_INT_EQ(ana_effect_paired(b, c, 1, &e), -1);
}

static void welch_agrees(void)
{
    static const double b[] = {10, 12, 11, 13}, c[] = {14, 15, 13, 16, 17};
    ana_effect_t e;
    ana_welch_t w;
    CHECK_INT_EQ(ana_effect_welch(b, 4, c, 5, &e), 0);
    CHECK_INT_EQ(ana_welch(c, 5, b, 4, &w), 0);
    CHECK_INT_EQ(e.kind, ANA_TEST_WELCH);
    CHECK_NEAR(e.effect, 15.0 - 11.5, 1e-12);
    CHECK_NEAR(e.p, w.p, 0);
    CHECK_NEAR(e.df, w.df, 0);
    CHECK_NEAR(e.se, e.effect / w.t, 1e-12);
    double lo, hi;
    ana_effect_interval(&e, 0.05, &lo, &hi);
    CHECK_NEAR(hi - e.effect, ana_t_quantile(0.975, w.df) * e.se, 1e-12);
    CHECK(lo > 0); /* p < 0.05: the 95% interval excludes 0 */
    CHECK(w.p < 0.05);
    CHECK_INT_EQ(ana_effect_welch(b, 1, c, 5, &e), -1);
}

static void degenerate(void)
{
    static const double b[] = {1, 2, 3}, same_shift[] = {1.5, 2.5, 3.5};
    ana_effect_t e;
    ana_effect_paired(b, same_shift, 3, &e);
    CHECK(e.se == 0 && e.p == 0 && isinf(e.t));
    double lo, hi;
    ana_effect_interval(&e, 0.05, &lo, &hi);
    CHECK(lo == 0.5 && hi == 0.5);
    CHECK(ana_effect_tost_p(&e, 0.6) == 0.0 && ana_effect_tost_p(&e, 0.5) == 1.0);
    ana_effect_paired(b, b, 3, &e);
    CHECK(e.effect == 0 && e.p == 1.0);
    CHECK_INT_EQ(ana_effect_seeds_needed(&e, 0.0, 0.05, 0.8, 100), 0); /* nothing to find */
}

static void seeds_needed(void)
{
    /* d with mean 1 and sd 1 (paired): (t(.975, n-1) + t(.8, n-1)) / sqrt(n) <= 1 first at
     * n = 10 (3.145 / 3.162; at 9: 3.195 / 3 > 1). */
    static const double b[] = {0, 0, 0}, c[] = {0, 1, 2};
    ana_effect_t e;
    ana_effect_paired(b, c, 3, &e);
    CHECK_NEAR(e.effect, 1, 0);
    CHECK_NEAR(e.sd_d, 1, 1e-15);
    CHECK_INT_EQ(ana_effect_seeds_needed(&e, 0.0, 0.05, 0.8, 100), 10);
    CHECK_INT_EQ(ana_effect_seeds_needed(&e, 0.0, 0.05, 0.8, 5), 6); /* beyond the cap */
    /* Equivalence within 2 (room 1, one-sided 5%): (t(.95) + t(.8)) / sqrt(n) <= 1 first
     * at n = 8 (2.659 / 2.828 for t(.95, 7) = 1.895, t(.8, 7) = 0.896). */
    CHECK_INT_EQ(ana_effect_seeds_needed(&e, 2.0, 0.05, 0.8, 100), 8);
}

static void extremes(void)
{
    static const double b[] = {1.5e308, 1.4e308, 1.6e308}, c[] = {-1.5e308, 1.0, 2.0};
    ana_effect_t e;
    CHECK_INT_EQ(ana_effect_paired(b, c, 3, &e), 0); /* differences overflow: no test */
    CHECK(isnan(e.p));
    double lo, hi;
    ana_effect_interval(&e, 0.05, &lo, &hi);
    CHECK(isnan(lo) && isnan(hi));
    CHECK(isnan(ana_effect_tost_p(&e, 1.0)));
    CHECK_INT_EQ(ana_effect_seeds_needed(&e, 1.0, 0.05, 0.8, 100), 0);
    CHECK_INT_EQ(ana_effect_welch(b, 3, c, 3, &e), 0); /* the means' difference overflows */
    CHECK(isnan(e.p));
    static const double c2[] = {-0.1e308, 1.0, 2.0};
    CHECK_INT_EQ(ana_effect_welch(b, 3, c2, 3, &e), 0);
    CHECK(isfinite(e.effect) && e.effect < 0);
    CHECK(e.p >= 0 && e.p <= 1);
    /* Large but representable: the same answer as the values scaled down. */
    static const double big[] = {1.5e308, 1.5e308, 1.5e308}, big2[] = {1.0e308, 1.2e308, 1.1e308};
    static const double small[] = {1.5, 1.5, 1.5}, small2[] = {1.0, 1.2, 1.1};
    ana_effect_t eb, es;
    ana_effect_welch(big, 3, big2, 3, &eb);
    ana_effect_welch(small, 3, small2, 3, &es);
    CHECK_NEAR(eb.p, es.p, 1e-9);
    CHECK_NEAR(eb.effect / 1e308, es.effect, 1e-9);
    ana_summary_t s = ana_summarize(big, 3);
    CHECK(s.mean == 1.5e308 && s.sd == 0.0);
    s = ana_summarize(b, 3);
    CHECK_NEAR(s.mean / 1e308, 1.5, 1e-12);
    CHECK_NEAR(s.sd / 1e306, 10.0, 1e-9);
    CHECK(isnan(ana_t_two_sided_p(NAN, 2)) && isnan(ana_t_two_sided_p(1, NAN)));
    CHECK(isnan(ana_t_quantile(0.975, 0)) && isnan(ana_t_quantile(1.0, 3)));
    CHECK_NEAR(ana_t_quantile(0.975, 1e300), 1.959963984540054, 1e-12);
}

int main(void)
{
    paired_by_hand();
    welch_agrees();
    degenerate();
    seeds_needed();
    extremes();
    return check_exit();
}
