/* A configuration's curve over its seeds (seed_band.h): the members' series merged by
 * update index. */
#include "analysis/seed_band.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

/* The smallest update not yet merged; false when every series is done. */
static bool next_update(const rdb_series_t *const *s, const int *at, int n, int64_t *u)
{
    bool any = false;
    for (int k = 0; k < n; k++) {
        if (!s[k] || at[k] >= s[k]->n) continue;
        int64_t v = s[k]->update[at[k]];
        if (!any || v < *u) *u = v;
        any = true;
    }
    return any;
}

void ana_band_of(const rdb_series_t *const *s, int n, ana_band_t *b)
{
    int cap = 0;
    for (int k = 0; k < n; k++) cap += s[k] ? s[k]->n : 0;
    *b = (ana_band_t){.update = sgd_xcalloc((size_t)cap + 1, sizeof *b->update),
                      .vtime_s = sgd_xcalloc((size_t)cap + 1, sizeof *b->vtime_s),
                      .sum = sgd_xcalloc((size_t)cap + 1, sizeof *b->sum)};
    int *at = sgd_xcalloc((size_t)n + 1, sizeof *at);
    double *vals = sgd_xcalloc((size_t)n + 1, sizeof *vals);
    double *times = sgd_xcalloc((size_t)n + 1, sizeof *times);
    int64_t u = 0;
    while (next_update(s, at, n, &u)) {
        int nv = 0, nt = 0;
        for (int k = 0; k < n; k++) { /* the members that have u, advanced past it */
            if (!s[k] || at[k] >= s[k]->n || s[k]->update[at[k]] != u) continue;
            int i = at[k]++;
            times[nt++] = (double)s[k]->vtime[i] / 1e9;
            if (!s[k]->kind[i] && isfinite(s[k]->value[i])) vals[nv++] = s[k]->value[i];
        }
        b->update[b->n] = u;
        b->vtime_s[b->n] = ana_mean(times, nt);
        b->sum[b->n++] = ana_summarize(vals, nv);
    }
    free(at), free(vals), free(times);
}

void ana_band_free(ana_band_t *b)
{
    free(b->update), free(b->vtime_s), free(b->sum);
    *b = (ana_band_t){0};
}
