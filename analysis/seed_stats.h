/* Statistics over seeds: what a set of repeated runs of one configuration says about it.
 * The one C definition behind `report`'s cells and `report --json`, written to agree with
 * scripts/seed_stats.py (the experiment scripts' helper), whose hand-worked values
 * tests/analysis/test_analysis_seed_stats.c reproduces.
 *
 *   mean        the arithmetic mean, summed in the values' order;
 *   sd          the sample standard deviation (n - 1 in the denominator), two passes;
 *   min, max    the smallest and largest value;
 *   ci95        the 95% confidence interval of the mean by Student's t with n - 1 degrees
 *               of freedom: mean -+ t(0.975, n - 1) sd / sqrt(n);
 *   Welch       Welch's unequal-variance t test of mean(a) - mean(b): t, the
 *               Welch-Satterthwaite degrees of freedom and the two-sided p-value.
 *
 * Edge cases, stated once (the Python helper behaves alike):
 *   n = 0       mean, sd, min, max and the interval are NaN;
 *   n = 1       sd is 0 (one value has no spread to show) and the interval is NaN (one seed
 *               says nothing about the next);
 *   sd = 0      with n >= 2 the interval is [mean, mean];
 *   Welch       needs n >= 2 on each side (ana_welch returns -1 otherwise); when both
 *               variances are 0, t is 0 (p = 1) for equal means and +-inf (p = 0) for
 *               different ones, and df = n_a + n_b - 2.
 * Values are taken as given: callers leave out non-finite ones (a diverged run's NaN).
 * Finite values near the largest double (1.5e308) are summed in a range scaled by a power
 * of two, so a mean or sd that exists is found; where a result does not exist in double
 * precision (a difference of means beyond 1.8e308) the statistic is NaN and the test says
 * so (p NaN) rather than failing.  GSL is never called with an argument outside its
 * domain (NaN, df <= 0), so its error handler is never reached from here.
 * Pure functions on caller-owned arrays; nothing is allocated. */
#ifndef SGDSIM_ANALYSIS_SEED_STATS_H
#define SGDSIM_ANALYSIS_SEED_STATS_H

/* What a set of values says: see the opening comment for each field and the edge cases. */
typedef struct ana_summary {
    int n;
    double mean, sd;
    double min, max;
    double ci_low, ci_high; /* 95% interval of the mean */
} ana_summary_t;

/* Welch's t test of mean(a) - mean(b). */
typedef struct ana_welch {
    double diff; /* mean(a) - mean(b) */
    double t, df, p;
} ana_welch_t;

double ana_mean(const double *x, int n);

/* The unbiased variance (n - 1 in the denominator); 0 for fewer than two values. */
double ana_sample_var(const double *x, int n);

/* sqrt(ana_sample_var), also where the variance itself overflows but the sd does not. */
double ana_sample_sd(const double *x, int n);

/* Student's t quantile: the t with P(T <= t) = p for df degrees of freedom (real); NaN
 * unless 0 < p < 1 and df > 0.  Beyond 1e7 degrees of freedom, the normal's. */
double ana_t_quantile(double p, double df);

/* P(T > t) for df > 0 degrees of freedom; NaN for a NaN t or df <= 0. */
double ana_t_upper(double t, double df);

/* mean, sd, min, max and the 95% interval of x[0..n). */
ana_summary_t ana_summarize(const double *x, int n);

/* P(|T| >= |t|) for Student's t with df > 0 (real) degrees of freedom; 0 for t = +-inf;
 * NaN for a NaN t or df <= 0 (no test). */
double ana_t_two_sided_p(double t, double df);

/* Welch's test into *w; -1 (w untouched) when either side has fewer than 2 values; t, df
 * and p NaN when the values are beyond double precision's range. */
int ana_welch(const double *a, int na, const double *b, int nb, ana_welch_t *w);

#endif
