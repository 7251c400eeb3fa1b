/* A group's bands (web/bands.h): analysis/seed_band.h's curve over the seeds, and the
 * members' final values. */
#include "web/bands.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/seed_band.h"

const rdb_series_t *web_run_series(const web_run_t *r, const char *name)
{
    int lo = 0, hi = r->nmetrics; /* metrics arrive sorted by name */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(r->metric[mid].name, name);
        if (c == 0) return &r->metric[mid].s;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* The members' last values, and their summary. */
static void band_finals(const rdb_series_t *const *s, int n, web_band_t *b)
{
    b->final_value = sgd_xcalloc((size_t)n + 1, sizeof *b->final_value);
    double *vals = sgd_xcalloc((size_t)n + 1, sizeof *vals);
    int nv = 0;
    for (int k = 0; k < n; k++) {
        bool finite = s[k] && s[k]->n > 0 && !s[k]->kind[s[k]->n - 1] &&
                      isfinite(s[k]->value[s[k]->n - 1]);
        b->final_value[k] = finite ? s[k]->value[s[k]->n - 1] : NAN;
        if (finite) vals[nv++] = s[k]->value[s[k]->n - 1];
    }
    b->final = ana_summarize(vals, nv);
    free(vals);
}

/* The band of one metric: analysis/seed_band.h's, whose arrays the web band takes over. */
static void make_band(const rdb_series_t *const *s, int n, const char *name, web_band_t *b)
{
    ana_band_t a;
    ana_band_of(s, n, &a);
    *b = (web_band_t){.name = sgd_xstrdup(name), .n = a.n, .update = a.update,
                      .vtime_s = a.vtime_s, .sum = a.sum};
    band_finals(s, n, b);
}

void web_group_bands(const web_study_t *s, web_group_t *g)
{
    const rdb_series_t **m = sgd_xcalloc((size_t)g->n + 1, sizeof *m);
    g->band = sgd_xcalloc((size_t)s->nmetrics + 1, sizeof *g->band);
    for (int i = 0; i < s->nmetrics; i++) {
        bool any = false;
        for (int k = 0; k < g->n; k++) {
            m[k] = web_run_series(&s->run[g->run[k]], s->metric[i]);
            any |= m[k] != NULL;
        }
        if (any) make_band(m, g->n, s->metric[i], &g->band[g->nbands++]);
    }
    free(m);
}

void web_group_bands_free(web_group_t *g)
{
    for (int i = 0; i < g->nbands; i++) {
        web_band_t *b = &g->band[i];
        free(b->name), free(b->update), free(b->vtime_s), free(b->sum), free(b->final_value);
    }
    free(g->band);
    g->band = NULL;
    g->nbands = 0;
}
