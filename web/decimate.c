/* Min/max per pixel column (web/decimate.h). */
#include "web/decimate.h"

#include <math.h>
#include <stdbool.h>

/* The column of x in [x0, x1] split into `columns`. */
static int column_of(int64_t x, int64_t x0, int64_t x1, int columns)
{
    if (x1 <= x0) return 0;
    double f = (double)(x - x0) / (double)(x1 - x0);
    int c = (int)(f * columns);
    return c >= columns ? columns - 1 : c < 0 ? 0 : c;
}

static bool drawable(const double *y, const char *nonfinite, int i)
{
    return (!nonfinite || !nonfinite[i]) && isfinite(y[i]);
}

/* Keeps the first, smallest and largest drawable point of the column [from, to), in order. */
static int keep_column(const double *y, const char *nf, int from, int to, int *keep)
{
    int lo = -1, hi = -1;
    for (int i = from; i < to; i++) {
        if (!drawable(y, nf, i)) continue;
        if (lo < 0 || y[i] < y[lo]) lo = i;
        if (hi < 0 || y[i] > y[hi]) hi = i;
    }
    if (lo < 0) {
        keep[0] = from;
        return 1;
    }
    int a = lo < hi ? lo : hi, b = lo < hi ? hi : lo;
    keep[0] = a;
    if (b == a) return 1;
    keep[1] = b;
    return 2;
}

int web_decimate(const int64_t *x, const double *y, const char *nonfinite, int n, int columns,
                 int *keep)
{
    if (n <= 2 * columns) {
        for (int i = 0; i < n; i++) keep[i] = i;
        return n;
    }
    int nkeep = 0;
    for (int from = 0; from < n;) {
        int c = column_of(x[from], x[0], x[n - 1], columns), to = from + 1;
        while (to < n && column_of(x[to], x[0], x[n - 1], columns) == c) to++;
        nkeep += keep_column(y, nonfinite, from, to, keep + nkeep);
        from = to;
    }
    return nkeep;
}
