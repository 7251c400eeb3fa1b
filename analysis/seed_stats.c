/* Statistics over seeds (seed_stats.h): mean, sample sd, Student's t interval and Welch's
 * test.  Student's t distribution comes from GSL (gsl_cdf_tdist_Pinv, gsl_cdf_tdist_Q), so
 * no series of our own has to be trusted; every argument is checked before GSL sees it, so
 * its error handler (which aborts by default) is never reached from here. */
#include "analysis/seed_stats.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

/* Beyond this many degrees of freedom Student's t is the normal distribution to double
 * precision, and GSL's t routines are not asked about it. */
#define T_AS_NORMAL_DF 1e7

/* A power of two s with max|x| / s in [1, 2): dividing by it is exact (barring
 * subnormals), so sums of the scaled values cannot overflow. */
static double scale_of(const double *x, int n)
{
    double big = 0;
    for (int i = 0; i < n; i++) big = fmax(big, fabs(x[i]));
    int e;
    frexp(big, &e);
    return ldexp(1.0, e - 1);
}

static double plain_mean(const double *x, int n, double scale)
{
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[i] / scale;
    return sum / n * scale;
}

double ana_mean(const double *x, int n)
{
    if (n <= 0) return NAN;
    double m = plain_mean(x, n, 1.0);
    /* Finite values whose sum overflows (1e308 and 1e308): the same sum in a scaled range.
     * Scaling by a power of two changes no digit, so values that do not overflow give the
     * plain sum's bits. */
    if (!isfinite(m) && !isnan(m)) {
        double s = scale_of(x, n);
        if (isfinite(s)) m = plain_mean(x, n, s);
    }
    return m;
}

/* The sum of squared deviations from m, of x / scale. */
static double squares(const double *x, int n, double m, double scale)
{
    double sq = 0;
    for (int i = 0; i < n; i++) {
        double d = x[i] / scale - m / scale;
        sq += d * d;
    }
    return sq;
}

double ana_sample_var(const double *x, int n)
{
    if (n < 2) return 0.0;
    double m = ana_mean(x, n);
    return squares(x, n, m, 1.0) / (n - 1);
}

double ana_sample_sd(const double *x, int n)
{
    if (n < 2) return 0.0;
    double m = ana_mean(x, n), sd = sqrt(squares(x, n, m, 1.0) / (n - 1));
    if (isinf(sd) && isfinite(m)) { /* the squares overflow: take them in a scaled range */
        double s = scale_of(x, n);
        if (isfinite(s)) sd = sqrt(squares(x, n, m, s) / (n - 1)) * s;
    }
    return sd;
}

double ana_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0)) return NAN;
    if (df > T_AS_NORMAL_DF) return gsl_cdf_ugaussian_Pinv(p);
    return gsl_cdf_tdist_Pinv(p, df);
}

double ana_t_upper(double t, double df)
{
    if (isnan(t) || !(df > 0)) return NAN;
    if (isinf(t)) return t > 0 ? 0.0 : 1.0;
    if (df > T_AS_NORMAL_DF) return gsl_cdf_ugaussian_Q(t);
    return gsl_cdf_tdist_Q(t, df);
}

ana_summary_t ana_summarize(const double *x, int n)
{
    ana_summary_t s = {.n = n < 0 ? 0 : n, .mean = NAN, .sd = NAN, .min = NAN, .max = NAN,
                       .ci_low = NAN, .ci_high = NAN};
    if (s.n == 0) return s;
    s.mean = ana_mean(x, n);
    s.min = s.max = x[0];
    for (int i = 1; i < n; i++) s.min = fmin(s.min, x[i]), s.max = fmax(s.max, x[i]);
    s.sd = ana_sample_sd(x, n);
    if (n < 2) return s;
    /* Half-width t(0.975, n-1) sd / sqrt(n); 0 when the values agree. */
    double half = s.sd > 0 ? ana_t_quantile(0.975, n - 1) * (s.sd / sqrt(n)) : 0.0;
    s.ci_low = s.mean - half;
    s.ci_high = s.mean + half;
    return s;
}

double ana_t_two_sided_p(double t, double df)
{
    if (isnan(t) || !(df > 0)) return NAN;
    if (isinf(t)) return 0.0;
    if (t == 0.0) return 1.0;
    return 2.0 * ana_t_upper(fabs(t), df);
}

/* t and df of Welch's test from the two standard errors when their squares overflow:
 * everything relative to the larger one. */
static void welch_scaled(double sa, double sb, int na, int nb, ana_welch_t *w)
{
    double big = fmax(sa, sb), u = sa / big, v = sb / big, se = big * sqrt(u * u + v * v);
    double f = u * u + v * v;
    w->t = w->diff / se;
    w->df = f * f / (u * u * u * u / (na - 1) + v * v * v * v / (nb - 1));
}

int ana_welch(const double *a, int na, const double *b, int nb, ana_welch_t *w)
{
    if (na < 2 || nb < 2) return -1;
    double va = ana_sample_var(a, na) / na, vb = ana_sample_var(b, nb) / nb;
    double se2 = va + vb;
    w->diff = ana_mean(a, na) - ana_mean(b, nb);
    if (!isfinite(w->diff)) { /* means beyond double precision's range: no test */
        w->t = w->df = w->p = NAN;
        return 0;
    }
    if (se2 == 0.0) {
        w->t = w->diff == 0.0 ? 0.0 : copysign(INFINITY, w->diff);
        w->df = (double)(na + nb - 2);
        w->p = w->diff == 0.0 ? 1.0 : 0.0;
        return 0;
    }
    if (isfinite(se2)) {
        w->t = w->diff / sqrt(se2);
        w->df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
    }
    if (!isfinite(se2) || !(w->df > 0)) /* squares beyond the range of a double */
        welch_scaled(ana_sample_sd(a, na) / sqrt(na), ana_sample_sd(b, nb) / sqrt(nb), na, nb, w);
    w->p = ana_t_two_sided_p(w->t, w->df);
    return 0;
}
