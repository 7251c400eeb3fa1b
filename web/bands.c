/* A group's bands (web/bands.h): the members' series merged by update index. */
#include "web/bands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Members' series of one metric and the merge's position in each. */
typedef struct merge {
    const rdb_series_t **s;
    int *at, n;
    double *vals, *times; /* scratch: one per member */
} merge_t;

/* The smallest update not yet merged; false when every series is done. */
static bool next_update(const merge_t *m, int64_t *u)
{
    bool any = false;
    for (int k = 0; k < m->n; k++) {
        if (!m->s[k] || m->at[k] >= m->s[k]->n) continue;
        int64_t v = m->s[k]->update[m->at[k]];
        if (!any || v < *u) *u = v;
        any = true;
    }
    return any;
}

/* One point of the band at update u: the members that have it, advanced past it. */
static void merge_point(merge_t *m, int64_t u, web_band_t *b)
{
    int nv = 0, nt = 0;
    for (int k = 0; k < m->n; k++) {
        const rdb_series_t *s = m->s[k];
        if (!s || m->at[k] >= s->n || s->update[m->at[k]] != u) continue;
        int i = m->at[k]++;
        m->times[nt++] = (double)s->vtime[i] / 1e9;
        if (!s->kind[i]) m->vals[nv++] = s->value[i];
    }
    int p = b->n++;
    b->update[p] = u;
    b->vtime_s[p] = ana_mean(m->times, nt);
    b->sum[p] = ana_summarize(m->vals, nv);
}

/* The members' last values, and their summary. */
static void band_finals(const merge_t *m, web_band_t *b)
{
    b->final_value = sgd_xcalloc((size_t)m->n + 1, sizeof *b->final_value);
    int nv = 0;
    for (int k = 0; k < m->n; k++) {
        const rdb_series_t *s = m->s[k];
        bool finite = s && s->n > 0 && !s->kind[s->n - 1];
        b->final_value[k] = finite ? s->value[s->n - 1] : NAN;
        if (finite) m->vals[nv++] = s->value[s->n - 1];
    }
    b->final = ana_summarize(m->vals, nv);
}

static void make_band(merge_t *m, const char *name, web_band_t *b)
{
    int cap = 0;
    for (int k = 0; k < m->n; k++) cap += m->s[k] ? m->s[k]->n : 0;
    *b = (web_band_t){.name = sgd_xstrdup(name),
                      .update = sgd_xcalloc((size_t)cap + 1, sizeof *b->update),
                      .vtime_s = sgd_xcalloc((size_t)cap + 1, sizeof *b->vtime_s),
                      .sum = sgd_xcalloc((size_t)cap + 1, sizeof *b->sum)};
    memset(m->at, 0, (size_t)m->n * sizeof *m->at);
    int64_t u = 0;
    while (next_update(m, &u)) merge_point(m, u, b);
    band_finals(m, b);
}

void web_group_bands(const web_study_t *s, web_group_t *g)
{
    merge_t m = {.s = sgd_xcalloc((size_t)g->n + 1, sizeof *m.s),
                 .at = sgd_xcalloc((size_t)g->n + 1, sizeof *m.at), .n = g->n,
                 .vals = sgd_xcalloc((size_t)g->n + 1, sizeof *m.vals),
                 .times = sgd_xcalloc((size_t)g->n + 1, sizeof *m.times)};
    g->band = sgd_xcalloc((size_t)s->nmetrics + 1, sizeof *g->band);
    for (int i = 0; i < s->nmetrics; i++) {
        bool any = false;
        for (int k = 0; k < g->n; k++) {
            m.s[k] = web_run_series(&s->run[g->run[k]], s->metric[i]);
            any |= m.s[k] != NULL;
        }
        if (any) make_band(&m, s->metric[i], &g->band[g->nbands++]);
    }
    free(m.s), free(m.at), free(m.vals), free(m.times);
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
