/* A run's staleness histogram (how many gradients were applied at each staleness tau)
 * summarised: the mean and largest tau, and quantiles — Experiment 2's table of
 * docs/reproductions.md shows the median and the 99th percentile.
 *
 * Bins are (tau[i], count[i]) in ascending tau, as the results database orders them; bins
 * with count 0 count for nothing.  Pure functions on caller-owned arrays. */
#ifndef SGDSIM_ANALYSIS_STALENESS_HIST_H
#define SGDSIM_ANALYSIS_STALENESS_HIST_H

#include <stdint.h>

/* NaN for what a histogram without a counted gradient leaves undefined. */
typedef struct ana_hist {
    double gradients;      /* the total count */
    double mean, max;      /* mean tau over the gradients, the largest tau counted */
    double p50, p90, p99;  /* ana_hist_quantile at 0.5, 0.9, 0.99 */
} ana_hist_t;

ana_hist_t ana_hist_of(const int64_t *tau, const int64_t *count, int n);

/* The q-quantile (0 < q <= 1): the smallest tau with at least q of the gradients at or
 * below it; NaN without a counted gradient. */
double ana_hist_quantile(const int64_t *tau, const int64_t *count, int n, double q);

#endif
