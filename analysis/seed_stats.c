/* Statistics over seeds (seed_stats.h): mean, sample sd, Student's t interval and Welch's
 * test.  Student's t distribution comes from GSL (gsl_cdf_tdist_Pinv, gsl_cdf_tdist_Q), so
 * no series of our own has to be trusted. */
#include "analysis/seed_stats.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

double ana_mean(const double *x, int n)
{
    if (n <= 0) return NAN;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    return sum / n;
}

double ana_sample_var(const double *x, int n)
{
    if (n < 2) return 0.0;
    double m = ana_mean(x, n), sq = 0;
    for (int i = 0; i < n; i++) sq += (x[i] - m) * (x[i] - m);
    return sq / (n - 1);
}

ana_summary_t ana_summarize(const double *x, int n)
{
    ana_summary_t s = {.n = n < 0 ? 0 : n, .mean = NAN, .sd = NAN, .min = NAN, .max = NAN,
                       .ci_low = NAN, .ci_high = NAN};
    if (s.n == 0) return s;
    s.mean = ana_mean(x, n);
    s.min = s.max = x[0];
    for (int i = 1; i < n; i++) s.min = fmin(s.min, x[i]), s.max = fmax(s.max, x[i]);
    s.sd = sqrt(ana_sample_var(x, n));
    if (n < 2) return s;
    /* Half-width t(0.975, n-1) sd / sqrt(n); 0 when the values agree. */
    double half = s.sd > 0 ? gsl_cdf_tdist_Pinv(0.975, n - 1) * s.sd / sqrt(n) : 0.0;
    s.ci_low = s.mean - half;
    s.ci_high = s.mean + half;
    return s;
}

double ana_t_two_sided_p(double t, double df)
{
    if (isinf(t)) return 0.0;
    if (t == 0.0) return 1.0;
    return 2.0 * gsl_cdf_tdist_Q(fabs(t), df);
}

int ana_welch(const double *a, int na, const double *b, int nb, ana_welch_t *w)
{
    if (na < 2 || nb < 2) return -1;
    double va = ana_sample_var(a, na) / na, vb = ana_sample_var(b, nb) / nb;
    double se2 = va + vb;
    w->diff = ana_mean(a, na) - ana_mean(b, nb);
    if (se2 == 0.0) {
        w->t = w->diff == 0.0 ? 0.0 : copysign(INFINITY, w->diff);
        w->df = (double)(na + nb - 2);
        w->p = w->diff == 0.0 ? 1.0 : 0.0;
        return 0;
    }
    w->t = w->diff / sqrt(se2);
    w->df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
    w->p = ana_t_two_sided_p(w->t, w->df);
    return 0;
}
