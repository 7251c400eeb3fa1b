/* analysis/staleness_hist.h: the mean and largest tau over counted bins, the quantile as the
 * smallest tau with at least q of the gradients at or below it (on a bin's edge and
 * between), empty bins ignored, and the histogram without gradients. */
#include <math.h>

#include "analysis/staleness_hist.h"
#include "tests/check.h"

static void quantiles(void)
{
    /* 10 gradients: tau 0 x5, 1 x0, 2 x4, 7 x1 */
    static const int64_t tau[] = {0, 1, 2, 7, 9}, count[] = {5, 0, 4, 1, 0};
    ana_hist_t h = ana_hist_of(tau, count, 5);
    CHECK_NEAR(h.gradients, 10, 0);
    CHECK_NEAR(h.mean, (0 * 5 + 2 * 4 + 7 * 1) / 10.0, 1e-15);
    CHECK(h.max == 7);                  /* not 9: that bin counted nothing */
    CHECK(h.p50 == 0);                  /* exactly half at tau 0 */
    CHECK(h.p90 == 2);                  /* 9 of 10 at or below 2 */
    CHECK(h.p99 == 7);
    CHECK(ana_hist_quantile(tau, count, 5, 0.51) == 2);
    CHECK(ana_hist_quantile(tau, count, 5, 1.0) == 7);
}

static void empty(void)
{
    static const int64_t tau[] = {3}, zero[] = {0};
    ana_hist_t h = ana_hist_of(tau, zero, 1);
    CHECK(isnan(h.mean) && isnan(h.max) && isnan(h.p50) && h.gradients == 0);
    h = ana_hist_of(NULL, NULL, 0);
    CHECK(isnan(h.mean) && isnan(h.p99));
}

int main(void)
{
    quantiles();
    empty();
    return check_exit();
}
