/* analysis/seed_stats.h against values worked by hand and by scripts/seed_stats.py: the
 * hand-worked Welch test of tests/cli/test_cli_reproduce_quick.sh (t = -sqrt 3, df = 75/17
 * for (1,2,3,4) against (2,4,6,8)), the closed forms of Student's t at 1 and 2 degrees of
 * freedom and the normal limit, the sample variance 32/7 of (2,4,4,4,5,5,7,9), the
 * p-values seed_stats.py prints, textbook t quantiles for the interval, and every edge case
 * the header states (n = 0, n = 1, zero variance, too few values for Welch). */
#include <math.h>

#include "analysis/seed_stats.h"
#include "tests/check.h"

static void hand_worked_welch(void)
{
    static const double a[] = {1, 2, 3, 4}, b[] = {2, 4, 6, 8};
    ana_welch_t w;
    CHECK_INT_EQ(ana_welch(a, 4, b, 4, &w), 0);
    CHECK_NEAR(w.diff, -2.5, 1e-15);
    CHECK_NEAR(w.t, -sqrt(3.0), 1e-12);
    CHECK_NEAR(w.df, 75.0 / 17.0, 1e-12);
    CHECK(w.p > 0.14 && w.p < 0.16); /* between df 4 (0.1583) and df 5 (0.1438) */
    /* seed_stats.py welch prints p with %.3g: 0.152; its value to 12 digits: */
    CHECK_NEAR(w.p, 0.151580504845, 1e-10);
}

static void python_welch(void)
{
    /* seed_stats.welch([0.12, 0.13, 0.125], [0.10, 0.11, 0.105, 0.108]) */
    static const double a[] = {0.12, 0.13, 0.125}, b[] = {0.10, 0.11, 0.105, 0.108};
    ana_welch_t w;
    CHECK_INT_EQ(ana_welch(a, 3, b, 4, &w), 0);
    CHECK_NEAR(w.t, 5.32620137177, 1e-9);
    CHECK_NEAR(w.df, 4.04552205784, 1e-9);
    CHECK_NEAR(w.p, 0.00579279286115, 1e-12);
}

static void closed_forms(void)
{
    static const double xs[] = {0.3, 1.0, 2.5, 12.0};
    for (int i = 0; i < 4; i++) {
        double x = xs[i];
        CHECK_NEAR(ana_t_two_sided_p(x, 1), 1 - 2 * atan(x) / M_PI, 1e-12);
        CHECK_NEAR(ana_t_two_sided_p(-x, 2), 1 - x / sqrt(2 + x * x), 1e-12);
        CHECK_NEAR(ana_t_two_sided_p(x, 1e7), erfc(x / sqrt(2.0)), 1e-6);
    }
    CHECK(ana_t_two_sided_p(0.0, 3) == 1.0);
    CHECK(ana_t_two_sided_p(INFINITY, 3) == 0.0);
}

static void summaries(void)
{
    static const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    CHECK_NEAR(ana_sample_var(x, 8), 32.0 / 7.0, 1e-12);
    ana_summary_t s = ana_summarize(x, 8);
    CHECK_INT_EQ(s.n, 8);
    CHECK_NEAR(s.mean, 5.0, 0);
    CHECK_NEAR(s.sd, sqrt(32.0 / 7.0), 1e-12);
    CHECK(s.min == 2.0 && s.max == 9.0);
    /* t(0.975, 7) = 2.364624 (tables give 2.365) */
    double half = 2.364624 * sqrt(32.0 / 7.0) / sqrt(8.0);
    CHECK_NEAR(s.ci_low, 5.0 - half, 1e-5);
    CHECK_NEAR(s.ci_high, 5.0 + half, 1e-5);
    /* two values: t(0.975, 1) = 12.7062; (1, 3): mean 2, sd sqrt 2, half 12.7062 */
    static const double two[] = {1, 3};
    s = ana_summarize(two, 2);
    CHECK_NEAR(s.ci_high - s.mean, 12.7062047, 1e-6);
    /* n = 5, t(0.975, 4) = 2.776445 */
    static const double five[] = {1, 2, 3, 4, 5};
    s = ana_summarize(five, 5);
    CHECK_NEAR(s.mean - s.ci_low, 2.776445 * sqrt(2.5) / sqrt(5.0), 1e-5);
}

static void edge_cases(void)
{
    ana_summary_t s = ana_summarize(NULL, 0);
    CHECK(s.n == 0 && isnan(s.mean) && isnan(s.sd) && isnan(s.ci_low) && isnan(s.ci_high));
    CHECK(isnan(s.min) && isnan(s.max));
    static const double one[] = {0.25};
    s = ana_summarize(one, 1);
    CHECK(s.n == 1 && s.mean == 0.25 && s.sd == 0.0 && isnan(s.ci_low) && isnan(s.ci_high));
    CHECK(s.min == 0.25 && s.max == 0.25);
    static const double same[] = {0.5, 0.5, 0.5};
    s = ana_summarize(same, 3);
    CHECK(s.sd == 0.0 && s.ci_low == 0.5 && s.ci_high == 0.5);
    ana_welch_t w = {0};
    static const double ones[] = {1, 1}, twos[] = {2, 2}, threes[] = {3, 3};
    CHECK(ana_welch(ones, 2, twos, 2, &w) == 0 && w.p == 0.0 && isinf(w.t) && w.t < 0);
    CHECK_NEAR(w.df, 2, 0);
    CHECK(ana_welch(threes, 2, threes, 2, &w) == 0 && w.p == 1.0 && w.t == 0.0);
    static const double b[] = {2, 3};
    CHECK_INT_EQ(ana_welch(one, 1, b, 2, &w), -1);
}

int main(void)
{
    hand_worked_welch();
    python_welch();
    closed_forms();
    summaries();
    edge_cases();
    return check_exit();
}
