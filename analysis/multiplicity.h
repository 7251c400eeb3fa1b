/* Error control over one call's family of tests, and over repeated looks at growing data.
 *
 * A family is every test one `compare` makes (every metric with a sense x every paired
 * configuration that was tested).  Given their raw p-values:
 *
 *   holm   Holm's step-down: p_(1) <= ... <= p_(m) sorted, adjusted p_(i) = max over j <= i
 *          of min(1, (m - j + 1) p_(j)).  Controls the family-wise error rate (the chance of
 *          any false rejection) at alpha under any dependence between the tests.
 *   bh     Benjamini-Hochberg: adjusted p_(i) = min over j >= i of min(1, m p_(j) / j).
 *          Controls the expected share of false rejections among the rejections (the false
 *          discovery rate) for independent or positively dependent tests.
 *   none   adjusted p = p.
 *
 * A test is rejected when its adjusted p < alpha.  Each test also gets the level its own
 * interval is taken at, chosen so that the interval excludes 0 exactly when the test is
 * rejected (duality of the t-test and its interval):
 *   holm   alpha / (m - i + 1) for the i-th smallest p of the R rejected, alpha / (m - R)
 *          for the rest (the level at which Holm's procedure stopped);
 *   bh     alpha max(R, 1) / m for every test (Benjamini-Yekutieli's false-coverage-rate
 *          adjusted intervals);
 *   none   alpha.
 * Entries whose p is NaN are no test: not in the family, adjusted p and level NaN.
 *
 * Repeated looks (compare --run) spend alpha over information time t = seeds so far /
 * most seeds, by the Lan-DeMets O'Brien-Fleming-type function
 *   alpha(t) = 2 - 2 Phi(z(1 - alpha/2) / sqrt(t)),   alpha(1) = alpha;
 * look k is tested at the increment alpha(t_k) - alpha(t_{k-1}).  The looks' levels add up
 * to at most alpha, so by the union bound the chance of any false decision at any look is at
 * most alpha (conservative: it ignores how strongly successive looks are correlated).
 * Pure functions on caller-owned arrays. */
#ifndef SGDSIM_ANALYSIS_MULTIPLICITY_H
#define SGDSIM_ANALYSIS_MULTIPLICITY_H

#include <stdbool.h>

typedef enum { ANA_CORR_HOLM, ANA_CORR_BH, ANA_CORR_NONE, ANA_NCORRECTIONS } ana_correction_t;

/* "holm", "bh", "none". */
extern const char *const ana_correction_name[ANA_NCORRECTIONS];

/* The correction named s into *c; false when s names none. */
bool ana_correction_parse(const char *s, ana_correction_t *c);

/* Adjusted p-values and interval levels of p[0..n) into adj[] and level[] (both n long);
 * returns the family's size (the non-NaN p's). */
int ana_adjust(const double *p, int n, ana_correction_t c, double alpha, double *adj,
               double *level);

/* The alpha spent by information time t (clamped to [0, 1]): O'Brien-Fleming-type. */
double ana_obf_spent(double alpha, double t);

#endif
