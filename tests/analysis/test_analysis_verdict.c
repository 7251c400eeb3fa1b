/* analysis/verdict.h without a database: each decision of a row and of a family.
 *   - bit-equal seeds are the same; a larger share of seeds without a finite value is worse
 *     (better on the other side, differs without a sense), outside the family;
 *   - the same seeds are paired: a shift every seed shares is decided where Welch's test on
 *     the same values could not (the seed spread cancels);
 *   - better/worse need the adjusted p < alpha and |effect| >= the margin; a significant
 *     effect below the margin is equivalent when its interval lies inside the margin, else
 *     inconclusive with the seeds needed;
 *   - Holm's correction over a family decides less than no correction on the same rows;
 *   - one seed a side is inconclusive; --rtol is equivalent; a kernel-only pair is
 *     equivalent, or differs (different kernel), never better or worse;
 *   - the window is the mean of the last k rows, not finite when one of them is not, and
 *     found for values near the largest double. */
#include <math.h>
#include <stdlib.h>

#include "analysis/verdict.h"
#include "tests/check.h"

static const int64_t seeds[] = {1, 2, 3, 4, 5, 6}, other[] = {11, 12, 13, 14, 15, 16};

static ana_metric_in_t row(const double *b, int nb, const double *c, int nc, bool same_seeds,
                           ana_sense_t sense)
{
    return (ana_metric_in_t){.base = {seeds, b, nb}, .cand = {same_seeds ? seeds : other, c, nc},
                             .sense = sense};
}

/* One row decided alone as a family of one. */
static ana_judgement_t decide1(const ana_metric_in_t *in, const ana_rule_t *r)
{
    ana_judgement_t j = ana_judge(in, r), *p = &j;
    ana_decide_family(&p, 1, r);
    return j;
}

static void before_any_test(void)
{
    ana_rule_t r = ana_rule_default();
    double b[] = {0.30, 0.31, 0.29};
    ana_metric_in_t same = row(b, 3, b, 3, true, ANA_LOWER_IS_BETTER);
    same.bit_equal = true;
    CHECK_INT_EQ(decide1(&same, &r).verdict, ANA_SAME);
    double diverged[] = {0.3, NAN, 0.29};
    ana_metric_in_t in = row(b, 3, diverged, 3, true, ANA_LOWER_IS_BETTER);
    ana_judgement_t j = decide1(&in, &r);
    CHECK_INT_EQ(j.verdict, ANA_WORSE);
    CHECK(!j.in_family && j.nonfinite_cand == 1);
    in = row(diverged, 3, b, 3, true, ANA_LOWER_IS_BETTER);
    CHECK_INT_EQ(decide1(&in, &r).verdict, ANA_BETTER);
    in.sense = ANA_NEUTRAL;
    CHECK_INT_EQ(decide1(&in, &r).verdict, ANA_DIFFERS);
    in.kernel_only = true;
    CHECK_INT_EQ(decide1(&in, &r).verdict, ANA_KERNEL);
    /* One seed a side: no spread. */
    in = row(b, 1, b + 1, 1, false, ANA_LOWER_IS_BETTER);
    j = decide1(&in, &r);
    CHECK_INT_EQ(j.verdict, ANA_INCONCLUSIVE);
    CHECK(j.why != NULL);
    /* Inside --rtol. */
    double near[] = {0.301, 0.311, 0.291};
    r.rtol = 0.01;
    in = row(b, 3, near, 3, false, ANA_LOWER_IS_BETTER);
    CHECK_INT_EQ(decide1(&in, &r).verdict, ANA_EQUIVALENT);
}

static void pairing(void)
{
    ana_rule_t r = ana_rule_default();
    /* Every seed 10% worse, the seeds spread far more than that: paired, worse; the same
     * values on different seeds (Welch): not decided. */
    double b[] = {1.0, 2.0, 3.0, 1.5, 2.5}, c[5];
    for (int i = 0; i < 5; i++) c[i] = b[i] * 1.1 + (i % 2 ? 1e-3 : -1e-3);
    ana_metric_in_t in = row(b, 5, c, 5, true, ANA_LOWER_IS_BETTER);
    ana_judgement_t j = decide1(&in, &r);
    CHECK_INT_EQ(j.effect.kind, ANA_TEST_PAIRED);
    CHECK_INT_EQ(j.verdict, ANA_WORSE);
    CHECK(j.ci_low > 0 && j.p_adj < 0.05);
    CHECK_NEAR(j.rel_effect, 0.1, 1e-3);
    in = row(b, 5, c, 5, false, ANA_LOWER_IS_BETTER);
    j = decide1(&in, &r);
    CHECK_INT_EQ(j.effect.kind, ANA_TEST_WELCH);
    CHECK_INT_EQ(j.verdict, ANA_INCONCLUSIVE);
    CHECK(j.seeds_needed > 5);
    /* The same values for higher-is-better: better. */
    in = row(b, 5, c, 5, true, ANA_HIGHER_IS_BETTER);
    CHECK_INT_EQ(decide1(&in, &r).verdict, ANA_BETTER);
    /* Partly shared seeds: paired over the shared ones, the rest left out. */
    int64_t cs[] = {1, 2, 3, 4, 9};
    in = row(b, 5, c, 5, true, ANA_LOWER_IS_BETTER);
    in.cand.seed = cs;
    j = decide1(&in, &r);
    CHECK_INT_EQ(j.effect.kind, ANA_TEST_PAIRED);
    CHECK_INT_EQ(j.effect.nb, 4);
    CHECK_INT_EQ(j.left_out, 2);
}

static void margins(void)
{
    ana_rule_t r = ana_rule_default(); /* margin 5% */
    /* A tight, significant 1% shift: inside the margin, equivalent. */
    double b[] = {1.0, 2.0, 3.0, 1.5, 2.5}, c[5], far[5];
    for (int i = 0; i < 5; i++) c[i] = b[i] * 1.01 + (i % 2 ? 1e-4 : -1e-4);
    ana_metric_in_t in = row(b, 5, c, 5, true, ANA_LOWER_IS_BETTER);
    ana_judgement_t j = decide1(&in, &r);
    CHECK(j.p < 0.05);
    CHECK_INT_EQ(j.verdict, ANA_EQUIVALENT);
    CHECK(j.eq_low > -j.margin && j.eq_high < j.margin);
    /* With no margin it is worse. */
    ana_rule_t zero = r;
    zero.min_effect = 0;
    CHECK_INT_EQ(decide1(&in, &zero).verdict, ANA_WORSE);
    /* A noisy shift around the margin: inconclusive, with the seeds that would decide it. */
    for (int i = 0; i < 5; i++) far[i] = b[i] * 1.05 + (i % 2 ? 0.05 : -0.05);
    in = row(b, 5, far, 5, true, ANA_LOWER_IS_BETTER);
    j = decide1(&in, &r);
    CHECK_INT_EQ(j.verdict, ANA_INCONCLUSIVE);
    CHECK(j.seeds_needed >= 2);
    /* Kernel only: equivalent, whatever the margin says. */
    in.kernel_only = true;
    CHECK_INT_EQ(decide1(&in, &r).verdict, ANA_EQUIVALENT);
    double c2[5];
    for (int i = 0; i < 5; i++) c2[i] = b[i] * 1.5 + (i % 2 ? 1e-4 : -1e-4);
    in = row(b, 5, c2, 5, true, ANA_LOWER_IS_BETTER);
    in.kernel_only = true;
    CHECK_INT_EQ(decide1(&in, &r).verdict, ANA_KERNEL);
}

/* Ten rows of a moderate effect: each rejected alone (p < 0.05) but not all after Holm. */
static void family(void)
{
    ana_rule_t r = ana_rule_default();
    r.min_effect = 0;
    double b[] = {1.0, 1.1, 0.9, 1.05};
    double c[10][4];
    ana_judgement_t j[10], *pj[10];
    for (int k = 0; k < 10; k++) {
        static const double noise[] = {0.005, 0.01, 0.02}; /* p = 0.0004, 0.003, 0.02 */
        for (int i = 0; i < 4; i++) c[k][i] = b[i] + 0.05 + (i % 2 ? 1 : -1) * noise[k % 3];
        ana_metric_in_t in = row(b, 4, c[k], 4, true, ANA_LOWER_IS_BETTER);
        j[k] = ana_judge(&in, &r);
        pj[k] = &j[k];
    }
    ana_rule_t none = r;
    none.correction = ANA_CORR_NONE;
    ana_judgement_t raw[10], *pr[10];
    for (int k = 0; k < 10; k++) raw[k] = j[k], pr[k] = &raw[k];
    CHECK_INT_EQ(ana_decide_family(pj, 10, &r), 10);
    CHECK_INT_EQ(ana_decide_family(pr, 10, &none), 10);
    int worse_holm = 0, worse_raw = 0;
    for (int k = 0; k < 10; k++) {
        worse_holm += j[k].verdict == ANA_WORSE;
        worse_raw += raw[k].verdict == ANA_WORSE;
        CHECK(j[k].p_adj >= j[k].p);
        /* Each interval excludes 0 exactly when its row is decided. */
        CHECK((j[k].ci_low > 0) == (j[k].verdict == ANA_WORSE));
    }
    CHECK_INT_EQ(worse_raw, 10);
    CHECK(worse_holm < worse_raw);
    /* A metric without a sense is not in the family. */
    ana_metric_in_t in = row(b, 4, c[0], 4, true, ANA_NEUTRAL);
    ana_judgement_t n = ana_judge(&in, &r), *pn = &n;
    CHECK_INT_EQ(ana_decide_family(&pn, 1, &r), 0);
    CHECK_INT_EQ(n.verdict, ANA_DIFFERS);
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
    CHECK(ana_window(&s, 2, &w) && isnan(w));
    CHECK(ana_window(&s, 1, &w) && w == 1.0);
    double big[] = {1.5e308, 1.5e308, 1.5e308, 1.5e308}, inf[] = {1, 2, 3, INFINITY};
    char k0[] = {0, 0, 0, 0};
    rdb_series_t sb = {.n = 4, .update = upd, .vtime = vt, .value = big, .kind = k0};
    CHECK(ana_window(&sb, 3, &w) && w == 1.5e308);
    sb.value = inf; /* a REAL infinity with kind 0 is not finite either */
    CHECK(ana_window(&sb, 2, &w) && !isfinite(w));
    rdb_series_t empty = {0};
    CHECK(!ana_window(&empty, 3, &w));
    CHECK_INT_EQ(ana_status_verdict(0, 3, 1, 3, false), ANA_WORSE);
    CHECK_INT_EQ(ana_status_verdict(1, 3, 0, 3, false), ANA_BETTER);
    CHECK_INT_EQ(ana_status_verdict(1, 2, 1, 2, false), ANA_DIFFERS);
    CHECK(ana_verdict_fails(ANA_WORSE) && !ana_verdict_fails(ANA_INCONCLUSIVE) &&
          !ana_verdict_fails(ANA_EQUIVALENT));
}

int main(void)
{
    before_any_test();
    pairing();
    margins();
    family();
    windows();
    return check_exit();
}
