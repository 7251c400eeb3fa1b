/* A run's metric curve at its end (run_window.h). */
#include "analysis/run_window.h"

#include <math.h>

/* The mean of v[0..n), summed newest first, of finite values whose plain sum overflows
 * (1.5e308 and 1.5e308): the sum taken in a range scaled by a power of two, which changes
 * no digit; NaN when one of them is not finite. */
static double scaled_mean(const double *v, int n)
{
    double big = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return NAN;
        big = fmax(big, fabs(v[i]));
    }
    int e;
    frexp(big, &e);
    double scale = ldexp(1.0, e - 1), sum = 0;
    for (int i = n - 1; i >= 0; i--) sum += v[i] / scale;
    return sum / n * scale;
}

ana_window_t ana_window_of(const double *value, int n, int k)
{
    ana_window_t w = {.final = NAN, .last_mean = NAN, .min = NAN, .max = NAN};
    if (n <= 0 || k < 1) return w;
    w.final = value[n - 1];
    w.last_n = n < k ? n : k;
    /* Summed newest first, as the experiment tables always summed it (SQLite's avg over the
     * rows by update descending), so that a mean on a rounding edge prints as it did. */
    double sum = 0;
    for (int i = n - 1; i >= n - w.last_n; i--) sum += value[i];
    if (isfinite(sum)) w.last_mean = sum / w.last_n;
    else if (!isnan(sum)) w.last_mean = scaled_mean(value + n - w.last_n, w.last_n);
    for (int i = 0; i < n; i++) {
        if (!isfinite(value[i])) continue;
        w.min = isnan(w.min) ? value[i] : fmin(w.min, value[i]);
        w.max = isnan(w.max) ? value[i] : fmax(w.max, value[i]);
    }
    return w;
}

double ana_value_at(const int64_t *update, const double *value, int n, int64_t u)
{
    int lo = 0, hi = n; /* binary search: the first row at or after u */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (update[mid] < u) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && update[lo] == u ? value[lo] : NAN;
}
