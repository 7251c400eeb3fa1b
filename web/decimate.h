/* Decimation for drawing: a series longer than a chart is wide is drawn from the smallest
 * and largest value of each pixel column (and the first point of a column without a finite
 * value, so gaps stay gaps), which keeps every peak and trough a full drawing would show.
 * The page says when a series was decimated and holds its exact values one click away. */
#ifndef SGDSIM_WEB_DECIMATE_H
#define SGDSIM_WEB_DECIMATE_H

#include <stdint.h>

/* Pixel columns the page assumes a chart has: series of up to 2 x this many points are
 * drawn whole. */
#define WEB_COLUMNS 1000

/* The indices of x[0..n) (ascending) and y to draw in `columns` columns, ascending, into
 * keep (room for n); returns their number (n, all of them, when n <= 2 x columns). */
int web_decimate(const int64_t *x, const double *y, const char *nonfinite, int n, int columns,
                 int *keep);

#endif
