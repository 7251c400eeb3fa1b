/* analysis/verdict.h without a database: bit-equal seeds are the same; a difference inside
 * the seed spread, inside --rtol or below the minimum effect is within noise; one seed is
 * inconclusive; Welch's test beyond alpha with a large enough effect goes the metric's way;
 * a non-finite window and a diverged run are worse; the window is the mean of the last k. */
#include <math.h>
#include <stdlib.h>

#include "analysis/verdict.h"
#include "tests/check.h"

static const ana_rule_t rule = {.rtol = 0, .alpha = 0.05, .min_effect = 0.01};

static ana_verdict_t judge(const double *b, int nb, const double *c, int nc, const char *m)
{
    ana_metric_in_t in = {.base = b, .cand = c, .nbase = nb, .ncand = nc};
    return ana_judge(&in, ana_metric_sense(m), &rule).verdict;
}

static void verdicts(void)
{
    double b[] = {0.30, 0.31, 0.29}, far[] = {0.20, 0.21, 0.19}, near[] = {0.305, 0.29, 0.31};
    ana_metric_in_t same = {.base = b, .cand = b, .nbase = 3, .ncand = 3, .bit_equal = true};
    CHECK_INT_EQ(ana_judge(&same, ANA_LOWER_IS_BETTER, &rule).verdict, ANA_SAME);
    CHECK_INT_EQ(judge(b, 3, far, 3, "val_error"), ANA_BETTER);
    CHECK_INT_EQ(judge(far, 3, b, 3, "val_error"), ANA_WORSE);
    CHECK_INT_EQ(judge(b, 3, far, 3, "images_per_s"), ANA_WORSE);
    CHECK_INT_EQ(judge(b, 3, far, 3, "lr"), ANA_DIFFERS);
    CHECK_INT_EQ(judge(b, 3, near, 3, "val_error"), ANA_NOISE); /* inside the spread */
    CHECK_INT_EQ(judge(b, 1, far, 1, "val_error"), ANA_INCONCLUSIVE);
    CHECK_INT_EQ(judge(b, 3, far, 1, "val_error"), ANA_INCONCLUSIVE);
    /* Inside --rtol, also with one seed; kernels named when they differ. */
    ana_rule_t loose = rule;
    loose.rtol = 0.5;
    ana_metric_in_t one = {.base = b, .cand = far, .nbase = 1, .ncand = 1};
    CHECK_INT_EQ(ana_judge(&one, ANA_LOWER_IS_BETTER, &loose).verdict, ANA_NOISE);
    loose.kernels_differ = true;
    CHECK_INT_EQ(ana_judge(&one, ANA_LOWER_IS_BETTER, &loose).verdict, ANA_KERNEL);
    /* Significant but below the minimum effect: noise. */
    double tb[] = {1.0, 1.0001, 0.9999}, tc[] = {1.001, 1.0011, 1.0009};
    CHECK_INT_EQ(judge(tb, 3, tc, 3, "val_loss"), ANA_NOISE);
    ana_rule_t tiny = rule;
    tiny.min_effect = 0;
    ana_metric_in_t t = {.base = tb, .cand = tc, .nbase = 3, .ncand = 3};
    ana_judgement_t j = ana_judge(&t, ANA_LOWER_IS_BETTER, &tiny);
    CHECK_INT_EQ(j.verdict, ANA_WORSE);
    CHECK(j.p < 0.05);
    CHECK_NEAR(j.rel_diff, 0.001, 1e-9);
    CHECK_NEAR(j.base.mean, 1.0, 1e-12);
    CHECK_INT_EQ(j.cand.n, 3);
}

static void nonfinite_and_status(void)
{
    double b[] = {0.3, 0.31};
    ana_metric_in_t in = {.base = b, .cand = b, .nbase = 2, .ncand = 1, .nonfinite_cand = 1};
    CHECK_INT_EQ(ana_judge(&in, ANA_LOWER_IS_BETTER, &rule).verdict, ANA_WORSE);
    in.nonfinite_cand = 0, in.nonfinite_base = 1;
    CHECK_INT_EQ(ana_judge(&in, ANA_LOWER_IS_BETTER, &rule).verdict, ANA_BETTER);
    CHECK_INT_EQ(ana_judge(&in, ANA_NEUTRAL, &rule).verdict, ANA_DIFFERS);
    CHECK_INT_EQ(ana_status_verdict(0, 3, 1, 3, false), ANA_WORSE);
    CHECK_INT_EQ(ana_status_verdict(1, 3, 0, 3, false), ANA_BETTER);
    CHECK_INT_EQ(ana_status_verdict(0, 3, 0, 2, false), ANA_SAME);
    CHECK_INT_EQ(ana_status_verdict(1, 2, 1, 2, true), ANA_SAME);
    CHECK_INT_EQ(ana_status_verdict(1, 2, 1, 2, false), ANA_DIFFERS);
    CHECK(ana_verdict_fails(ANA_WORSE) && ana_verdict_fails(ANA_MISSING) &&
          ana_verdict_fails(ANA_AMBIGUOUS) && !ana_verdict_fails(ANA_INCONCLUSIVE) &&
          !ana_verdict_fails(ANA_NOISE) && !ana_verdict_fails(ANA_NO_CLOCK));
}

static void windows(void)
{
    int64_t upd[] = {10, 20, 30, 40}, vt[] = {1, 2, 3, 4};
    double v[] = {4, 3, 2, 1};
    char kind[] = {0, 0, 0, 0};
    rdb_series_t s = {.n = 4, .update = upd, .vtime = vt, .value = v, .kind = kind};
    double w;
    CHECK(ana_window(&s, 3, &w));
    CHECK_NEAR(w, 2.0, 1e-15);
    CHECK(ana_window(&s, 10, &w));
    CHECK_NEAR(w, 2.5, 1e-15);
    CHECK(ana_window(&s, 1, &w) && w == 1.0);
    CHECK(ana_series_identical(&s, &s));
    double v2[] = {4, 3, 2, 1.0000001};
    rdb_series_t s2 = s;
    s2.value = v2;
    CHECK(!ana_series_identical(&s, &s2));
    kind[2] = 'n';
    CHECK(!ana_window(&s, 2, &w));
    CHECK(ana_window(&s, 1, &w));
    rdb_series_t empty = {0};
    CHECK(!ana_window(&empty, 3, &w));
}

int main(void)
{
    verdicts();
    nonfinite_and_status();
    windows();
    return check_exit();
}
