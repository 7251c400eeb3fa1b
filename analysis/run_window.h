/* What one run's curve of one metric says at its end: the final value, the mean of its last
 * k rows (the experiment tables' "last-10": a single evaluation is noisy), its extremes, and
 * its value at chosen updates.  These are the per-run numbers whose distribution over seeds
 * analysis/seed_stats.h summarises (report --json, report --welch).
 *
 * Rows are one run's rows of one metric in update order (the results database's order);
 * a value that is not finite is NaN.  Pure functions on caller-owned arrays. */
#ifndef SGDSIM_ANALYSIS_RUN_WINDOW_H
#define SGDSIM_ANALYSIS_RUN_WINDOW_H

#include <stdint.h>

typedef struct ana_window {
    double final;     /* the last row's value; NaN without rows or when it is not finite */
    double last_mean; /* mean of the last k rows (of all rows when there are fewer), summed
                         from the newest row back (in a range scaled by a power of two when
                         the plain sum of finite values overflows); NaN without rows or when
                         one of them is not finite: a window that contains a divergence has
                         no mean */
    int last_n;       /* the rows in that window: min(k, n) */
    double min, max;  /* over the finite values; NaN when there is none */
} ana_window_t;

/* The window of value[0..n) with k >= 1 rows at the end. */
ana_window_t ana_window_of(const double *value, int n, int k);

/* The value of the row at update u among update[0..n) (ascending), NaN when no row is at
 * exactly u (a metric evaluated every 4 updates has no value at update 10). */
double ana_value_at(const int64_t *update, const double *value, int n, int64_t u);

#endif
