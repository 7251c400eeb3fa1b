/* The effect of a change and its tests (effect.h), on Student's t of seed_stats.h. */
#include "analysis/effect.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "analysis/seed_stats.h"
#include "common/error.h"

const char *const ana_test_name[3] = {"none", "paired t", "Welch"};

/* p, t from effect and se once se and df are known. */
static void finish_test(ana_effect_t *e)
{
    if (!isfinite(e->effect) || !isfinite(e->se) || isnan(e->df)) {
        e->t = e->p = NAN;
    } else if (e->se == 0.0) {
        e->t = e->effect == 0.0 ? 0.0 : copysign(INFINITY, e->effect);
        e->p = e->effect == 0.0 ? 1.0 : 0.0;
    } else {
        e->t = e->effect / e->se;
        e->p = ana_t_two_sided_p(e->t, e->df);
    }
}

int ana_effect_paired(const double *b, const double *c, int n, ana_effect_t *e)
{
    if (n < 2) return -1;
    double *d = sgd_xcalloc((size_t)n, sizeof *d);
    for (int i = 0; i < n; i++) d[i] = c[i] - b[i];
    *e = (ana_effect_t){.kind = ANA_TEST_PAIRED, .nb = n, .nc = n, .base_mean = ana_mean(b, n),
                        .cand_mean = ana_mean(c, n), .effect = ana_mean(d, n),
                        .sd_b = ana_sample_sd(b, n), .sd_c = ana_sample_sd(c, n),
                        .sd_d = ana_sample_sd(d, n), .df = n - 1};
    e->se = e->sd_d / sqrt(n);
    free(d);
    finish_test(e);
    return 0;
}

int ana_effect_welch(const double *b, int nb, const double *c, int nc, ana_effect_t *e)
{
    ana_welch_t w;
    if (ana_welch(c, nc, b, nb, &w)) return -1;
    *e = (ana_effect_t){.kind = ANA_TEST_WELCH, .nb = nb, .nc = nc, .base_mean = ana_mean(b, nb),
                        .cand_mean = ana_mean(c, nc), .effect = w.diff,
                        .sd_b = ana_sample_sd(b, nb), .sd_c = ana_sample_sd(c, nc), .sd_d = NAN,
                        .df = w.df, .t = w.t, .p = w.p};
    /* The standard error, from the side's standard errors so that it cannot overflow where
     * the difference does not. */
    e->se = hypot(e->sd_b / sqrt(nb), e->sd_c / sqrt(nc));
    return 0;
}

void ana_effect_interval(const ana_effect_t *e, double a, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (e->kind == ANA_TEST_NONE || isnan(e->p) || !(a > 0 && a < 1)) return;
    double half = e->se > 0 ? ana_t_quantile(1 - a / 2, e->df) * e->se : 0.0;
    *lo = e->effect - half;
    *hi = e->effect + half;
}

double ana_effect_tost_p(const ana_effect_t *e, double margin)
{
    if (e->kind == ANA_TEST_NONE || isnan(e->p) || !(margin >= 0)) return NAN;
    if (e->se == 0.0) return fabs(e->effect) < margin ? 0.0 : 1.0;
    double lower = ana_t_upper((e->effect + margin) / e->se, e->df);
    double upper = ana_t_upper((margin - e->effect) / e->se, e->df);
    return fmax(lower, upper);
}

/* The effect's standard error and degrees of freedom at n seeds a side, at the observed
 * spread. */
static void se_at(const ana_effect_t *e, int n, double *se, double *df)
{
    if (e->kind == ANA_TEST_PAIRED) {
        *se = e->sd_d / sqrt(n);
        *df = n - 1;
        return;
    }
    double big = fmax(e->sd_b, e->sd_c), u = e->sd_b / big, v = e->sd_c / big;
    *se = big * sqrt((u * u + v * v) / n);
    double f = u * u + v * v;
    *df = big > 0 ? f * f * (n - 1) / (u * u * u * u + v * v * v * v) : 2.0 * (n - 1);
}

int ana_effect_seeds_needed(const ana_effect_t *e, double margin, double a, double power,
                            int cap)
{
    if (e->kind == ANA_TEST_NONE || isnan(e->p) || !(a > 0 && a < 1) ||
        !(power > 0 && power < 1) || !(margin >= 0))
        return 0;
    double size = fabs(e->effect);
    bool equivalence = size < margin;
    double room = equivalence ? margin - size : size;
    if (!(room > 0) || !isfinite(room)) return 0; /* a zero effect with a zero margin */
    for (int n = 2; n <= cap; n++) {
        double se, df;
        se_at(e, n, &se, &df);
        if (!isfinite(se)) return 0;
        double z = ana_t_quantile(equivalence ? 1 - a : 1 - a / 2, df) +
                   ana_t_quantile(power, df);
        if (z * se <= room) return n;
    }
    return cap + 1;
}
