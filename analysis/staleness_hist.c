/* A run's staleness histogram summarised (staleness_hist.h). */
#include "analysis/staleness_hist.h"

#include <math.h>

double ana_hist_quantile(const int64_t *tau, const int64_t *count, int n, double q)
{
    double total = 0, acc = 0;
    for (int i = 0; i < n; i++) total += (double)count[i];
    if (total <= 0) return NAN;
    for (int i = 0; i < n; i++) {
        acc += (double)count[i];
        if (count[i] > 0 && acc >= q * total) return (double)tau[i];
    }
    return NAN; /* q > 1 */
}

ana_hist_t ana_hist_of(const int64_t *tau, const int64_t *count, int n)
{
    ana_hist_t h = {.mean = NAN, .max = NAN};
    double weighted = 0;
    for (int i = 0; i < n; i++) {
        if (count[i] <= 0) continue;
        h.gradients += (double)count[i];
        weighted += (double)tau[i] * (double)count[i];
        h.max = (double)tau[i]; /* ascending: the last counted bin */
    }
    if (h.gradients > 0) h.mean = weighted / h.gradients;
    h.p50 = ana_hist_quantile(tau, count, n, 0.5);
    h.p90 = ana_hist_quantile(tau, count, n, 0.9);
    h.p99 = ana_hist_quantile(tau, count, n, 0.99);
    return h;
}
