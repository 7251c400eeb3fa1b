/* analysis/seed_band.h: two members merged by update (one has an update the other lacks),
 * the mean, sd, min, max and n of the finite values at each update, a non-finite row that
 * counts for the time but not the value, and the mean virtual time; a member without rows. */
#include <math.h>

#include "analysis/seed_band.h"
#include "tests/check.h"

int main(void)
{
    int64_t ua[] = {0, 10, 20}, ta[] = {0, 1000000000, 2000000000};
    double va[] = {1.0, 3.0, 5.0};
    char ka[] = {0, 0, 0};
    int64_t ub[] = {0, 10, 15, 20}, tb[] = {0, 3000000000, 3500000000, 4000000000};
    double vb[] = {3.0, 5.0, 7.0, NAN};
    char kb[] = {0, 0, 0, 'n'};
    rdb_series_t a = {.n = 3, .update = ua, .vtime = ta, .value = va, .kind = ka};
    rdb_series_t b = {.n = 4, .update = ub, .vtime = tb, .value = vb, .kind = kb};
    const rdb_series_t *m[] = {&a, NULL, &b};
    ana_band_t band;
    ana_band_of(m, 3, &band);
    CHECK_INT_EQ(band.n, 4);
    CHECK(band.update[0] == 0 && band.update[1] == 10 && band.update[2] == 15 &&
          band.update[3] == 20);
    CHECK_NEAR(band.sum[0].mean, 2.0, 1e-15);
    CHECK_NEAR(band.sum[1].mean, 4.0, 1e-15);
    CHECK_NEAR(band.sum[1].sd, sqrt(2.0), 1e-15);
    CHECK(band.sum[1].min == 3.0 && band.sum[1].max == 5.0 && band.sum[1].n == 2);
    CHECK(band.sum[2].n == 1 && band.sum[2].mean == 7.0); /* one member has update 15 */
    CHECK(band.sum[3].n == 1 && band.sum[3].mean == 5.0); /* the NaN row is no value ... */
    CHECK_NEAR(band.vtime_s[3], 3.0, 1e-15);              /* ... but its time counts */
    CHECK_NEAR(band.vtime_s[1], 2.0, 1e-15);
    ana_band_free(&band);
    const rdb_series_t *none[] = {NULL};
    ana_band_of(none, 1, &band);
    CHECK_INT_EQ(band.n, 0);
    ana_band_free(&band);
    return check_exit();
}
