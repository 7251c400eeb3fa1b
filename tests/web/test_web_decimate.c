/* web/decimate.h: short series are kept whole; long ones keep each column's smallest and
 * largest value (so a spike survives), in order, and a column without a finite value keeps
 * one point. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "tests/check.h"
#include "web/decimate.h"

int main(void)
{
    enum { N = 10000 };
    int64_t *x = calloc(N, sizeof *x);
    double *y = calloc(N, sizeof *y);
    char *nf = calloc(N, 1);
    int *keep = calloc(N, sizeof *keep);
    for (int i = 0; i < N; i++) x[i] = i, y[i] = sin(i * 0.01);
    CHECK_INT_EQ(web_decimate(x, y, nf, 40, 20, keep), 40);
    CHECK_INT_EQ(keep[39], 39);

    y[5003] = 100, y[7001] = -100; /* spikes */
    for (int i = 9000; i < 9100; i++) nf[i] = 'n', y[i] = NAN;
    int n = web_decimate(x, y, nf, N, 100, keep);
    CHECK(n <= 2 * 100 + 2 && n > 100);
    bool spike_hi = false, spike_lo = false, gap = false;
    for (int i = 0; i < n; i++) {
        if (i) CHECK(keep[i] > keep[i - 1]);
        spike_hi |= keep[i] == 5003;
        spike_lo |= keep[i] == 7001;
        gap |= keep[i] == 9000;
    }
    CHECK(spike_hi && spike_lo && gap);
    free(x), free(y), free(nf), free(keep);
    return check_exit();
}
