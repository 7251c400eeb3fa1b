/* The effect of a change on one metric of one configuration, from each seed's value on both
 * sides, and what those seeds can say about it: the tests behind `compare`'s verdicts.
 *
 *   effect        candidate - baseline: the mean of the per-seed differences when paired
 *                 (equal to the difference of the means), else mean(c) - mean(b);
 *   paired t      when both sides ran the same seeds: d_i = c_i - b_i, se = sd(d) / sqrt(n),
 *                 t = mean(d) / se with n - 1 degrees of freedom.  In sgdsim the same seed
 *                 means the same initial weights, client order and minibatches (common
 *                 random numbers), so the pairing removes the seed-to-seed spread that both
 *                 sides share;
 *   Welch         otherwise: se = sqrt(s_b^2 / n_b + s_c^2 / n_c), Welch-Satterthwaite
 *                 degrees of freedom (analysis/seed_stats.h);
 *   interval      effect -+ t(1 - a/2, df) se, the two-sided 1 - a interval;
 *   TOST          two one-sided tests of |effect| >= margin: p = max(P(T > (effect +
 *                 margin) / se), P(T > (margin - effect) / se)); p < a exactly when the
 *                 two-sided 1 - 2a interval lies inside (-margin, +margin);
 *   seeds needed  the smallest n seeds a side for which, at the observed spread and effect,
 *                 a test at level a would decide with probability `power` (a t-based power
 *                 calculation; see ana_effect_seeds_needed).
 *
 * Degenerate spread (every difference equal, or no spread on either side): se = 0, the
 * interval is [effect, effect], p = 1 for a zero effect and 0 otherwise, and TOST's p is 0
 * inside the margin and 1 outside.  Values beyond double precision (a difference of
 * 1.5e308 and -1.5e308) give a NaN p: no test.  Pure functions on caller-owned arrays. */
#ifndef SGDSIM_ANALYSIS_EFFECT_H
#define SGDSIM_ANALYSIS_EFFECT_H

typedef enum { ANA_TEST_NONE, ANA_TEST_PAIRED, ANA_TEST_WELCH } ana_test_kind_t;

/* "none", "paired t", "Welch". */
extern const char *const ana_test_name[3];

typedef struct ana_effect {
    ana_test_kind_t kind;
    int nb, nc;               /* values on each side (paired: nb = nc = pairs) */
    double base_mean, cand_mean;
    double effect;            /* cand - base */
    double sd_b, sd_c, sd_d;  /* sample sds of each side, and of the differences (paired) */
    double se, df;            /* the effect's standard error and degrees of freedom */
    double t, p;              /* two-sided test of effect = 0; p NaN: no test */
} ana_effect_t;

/* The paired test of c[i] - b[i], i < n (the same seed on both sides); -1 when n < 2. */
int ana_effect_paired(const double *b, const double *c, int n, ana_effect_t *e);

/* Welch's test of mean(c) - mean(b); -1 when a side has fewer than 2 values. */
int ana_effect_welch(const double *b, int nb, const double *c, int nc, ana_effect_t *e);

/* The two-sided 1 - a interval of the effect into [*lo, *hi] (NaN when there is no test). */
void ana_effect_interval(const ana_effect_t *e, double a, double *lo, double *hi);

/* TOST's p-value for |effect| < margin (margin >= 0); NaN when there is no test. */
double ana_effect_tost_p(const ana_effect_t *e, double margin);

/* Seeds per side at which a test at level a (two-sided for a difference, each one-sided
 * test of TOST for equivalence) would decide with probability `power`, taking the observed
 * effect and spread as true: the smallest n in [2, cap] with
 *   (t(1 - a/2, df_n) + t(power, df_n)) se_n <= |effect|            when |effect| >= margin,
 *   (t(1 - a, df_n) + t(power, df_n)) se_n <= margin - |effect|     when |effect| < margin,
 * where se_n and df_n are the paired (sd_d / sqrt(n), n - 1) or Welch (sqrt((sd_b^2 +
 * sd_c^2) / n), Welch-Satterthwaite) values at n seeds a side.  cap + 1 when more than cap
 * would be needed; 0 when no number can decide (a zero effect with a zero margin, or no
 * test). */
int ana_effect_seeds_needed(const ana_effect_t *e, double margin, double a, double power,
                            int cap);

#endif
