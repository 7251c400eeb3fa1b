/* The series of `sgdsim plot` (see plot_series.h): grouping, legend order, means, bands
 * and legend entries. */
#include "cli/plot_series.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/seed_band.h"
#include "analysis/seed_stats.h"
#include "cli/text.h"
#include "common/number.h"

static char *text_or_null(const char *v)
{
    return sgd_xstrdup(v ? v : "NULL");
}

/* The series with these values (vals[0..nvals), NULL for none), or -1. */
static int find_series(const plot_data_t *d, const char *const *vals, int nvals)
{
    for (int s = 0; s < d->nseries; s++) {
        bool same = true;
        for (int k = 0; k < nvals && same; k++)
            same = strcmp(d->series[s].values[k], vals[k] ? vals[k] : "NULL") == 0;
        if (same) return s;
    }
    return -1;
}

static int new_series(plot_data_t *d, const char *const *vals, int nvals, const char *config,
                      const char *build)
{
    d->series = sgd_xrealloc(d->series, (size_t)(d->nseries + 1) * sizeof *d->series);
    plot_series_t *s = &d->series[d->nseries];
    *s = (plot_series_t){.values = sgd_xcalloc((size_t)nvals + 1, sizeof *s->values),
                         .config = text_or_null(config), .build = sgd_xstrdup(build ? build : "")};
    for (int k = 0; k < nvals; k++) s->values[k] = text_or_null(vals[k]);
    return d->nseries++;
}

/* Keeps the scenario names' longest common prefix and whether they all are the same. */
static void note_scenario(plot_data_t *d, const char *name, bool *several)
{
    if (!name) name = "";
    if (!d->scenario) {
        d->scenario = sgd_xstrdup(name);
        return;
    }
    size_t i = 0;
    while (d->scenario[i] && d->scenario[i] == name[i]) i++;
    if (d->scenario[i] || name[i]) *several = true;
    d->scenario[i] = '\0';
}

/* Adds a selected run to d. */
static void add_run(plot_data_t *d, const rdb_curve_run_t *run, int nvals, int64_t *seeds,
                    bool pool_builds, bool *several)
{
    char id[24];
    const char *own[1] = {id};
    const char *const *vals = run->values;
    if (nvals == 1 && d->nkeys == 0) { /* without keys a run is its series */
        snprintf(id, sizeof id, "%lld", (long long)run->id);
        vals = own;
    }
    int s = find_series(d, vals, nvals);
    if (s < 0) s = new_series(d, vals, nvals, run->config, run->build);
    plot_series_t *ser = &d->series[s];
    if (!run->config || strcmp(run->config, ser->config) != 0) ser->mixed = true;
    if (strcmp(run->build ? run->build : "", ser->build) != 0) ser->builds_differ = true;
    const char *build = run->build ? run->build : "";
    bool repeat = false; /* each seed once: this later run stands in for an earlier one */
    for (int r = 0; r < d->nruns; r++)
        if (d->run_series[r] == s && seeds[r] == run->seed && run->config && d->run_config[r] &&
            strcmp(run->config, d->run_config[r]) == 0 &&
            (pool_builds || strcmp(build, d->run_build[r]) == 0))
            d->run_series[r] = -1, repeat = true;
    ser->nruns += !repeat;
    d->run_id[d->nruns] = run->id;
    d->run_series[d->nruns] = s;
    d->run_config[d->nruns] = run->config ? sgd_xstrdup(run->config) : NULL;
    d->run_build[d->nruns] = sgd_xstrdup(build);
    seeds[d->nruns++] = run->seed;
    if (run->status && strcmp(run->status, "running") == 0) d->nrunning++;
    note_scenario(d, run->scenario, several);
}

/* Natural order: digit runs compare as numbers, everything else bytewise. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0') a++;
            while (*b == '0') b++;
            size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
            if (la != lb) return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c) return c;
            a += la, b += lb;
        } else if (*a != *b) {
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        } else {
            a++, b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static bool is_number(const char *s, double *v) { return sgd_parse_decimal(s, v); }

/* Whether every series' value of key k is a number. */
static bool key_numeric(const plot_data_t *d, int k)
{
    double v;
    for (int s = 0; s < d->nseries; s++)
        if (!is_number(d->series[s].values[k], &v)) return false;
    return true;
}

static int series_cmp(const plot_series_t *a, const plot_series_t *b, const bool *numeric,
                      int nvals)
{
    for (int k = 0; k < nvals; k++) {
        double x, y;
        int c = numeric[k] && is_number(a->values[k], &x) && is_number(b->values[k], &y)
                    ? (x > y) - (x < y)
                    : natural_cmp(a->values[k], b->values[k]);
        if (c) return c;
    }
    return 0;
}

/* Sorts the series into legend order (an insertion sort: stable, and a legend is short)
 * and renumbers the runs' series. */
static void sort_series(plot_data_t *d, int nvals)
{
    bool *numeric = sgd_xcalloc((size_t)nvals + 1, sizeof *numeric);
    int *order = sgd_xcalloc((size_t)d->nseries + 1, sizeof *order);
    int *rank = sgd_xcalloc((size_t)d->nseries + 1, sizeof *rank);
    for (int k = 0; k < nvals; k++) numeric[k] = key_numeric(d, k);
    for (int i = 0; i < d->nseries; i++) {
        int j = i;
        while (j > 0 && series_cmp(&d->series[order[j - 1]], &d->series[i], numeric, nvals) > 0)
            order[j] = order[j - 1], j--;
        order[j] = i;
    }
    plot_series_t *sorted = sgd_xcalloc((size_t)d->nseries + 1, sizeof *sorted);
    for (int i = 0; i < d->nseries; i++) sorted[i] = d->series[order[i]], rank[order[i]] = i;
    for (int r = 0; r < d->nruns; r++)
        if (d->run_series[r] >= 0) d->run_series[r] = rank[d->run_series[r]];
    free(d->series);
    d->series = sorted;
    free(rank);
    free(order);
    free(numeric);
}

int plot_series_read_runs(rdb_t *db, const plot_query_t *q, plot_data_t *d, sgd_err_t *err)
{
    memset(d, 0, sizeof *d);
    d->nkeys = q->nkeys;
    int nvals = q->nkeys ? q->nkeys : q->band != PLOT_BAND_NONE || q->pool ? 0 : 1;
    rdb_curve_it_t *it = NULL;
    if (rdb_curve_runs_open(db, q->keys, q->nkeys, &q->sel, &it, err)) return -1;
    int cap = 0, rc;
    int64_t *seeds = NULL;
    bool several = false;
    rdb_curve_run_t run;
    while ((rc = rdb_curve_runs_next(it, &run, err)) > 0) {
        if (d->nruns == cap) {
            cap = cap ? 2 * cap : 64;
            d->run_id = sgd_xrealloc(d->run_id, (size_t)cap * sizeof *d->run_id);
            d->run_series = sgd_xrealloc(d->run_series, (size_t)cap * sizeof *d->run_series);
            d->run_config = sgd_xrealloc(d->run_config, (size_t)cap * sizeof *d->run_config);
            d->run_build = sgd_xrealloc(d->run_build, (size_t)cap * sizeof *d->run_build);
            seeds = sgd_xrealloc(seeds, (size_t)cap * sizeof *seeds);
        }
        add_run(d, &run, nvals, seeds, q->pool_builds, &several);
    }
    rdb_curve_close(it);
    free(seeds);
    if (rc < 0) return -1;
    d->scenarios_differ = several;
    if (several) {
        size_t n = strlen(d->scenario);
        while (n && !strchr("/-_ .", d->scenario[n - 1])) n--; /* back to a whole word */
        while (n && strchr("/-_ .", d->scenario[n - 1])) n--;
        d->scenario[n] = '\0';
    }
    sort_series(d, nvals);
    return 0;
}

/* One value of a run at an update. */
typedef struct point {
    int64_t update, run, vtime_ns;
    double value;
} point_t;

typedef struct points {
    point_t *v;
    int n, cap;
} points_t;

static int point_cmp(const void *pa, const void *pb)
{
    const point_t *a = pa, *b = pb;
    if (a->update != b->update) return a->update < b->update ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);
}

/* The series of run id, or -1 for a run not read (one that began after the runs were). */
static int series_of(const plot_data_t *d, int64_t id)
{
    int lo = 0, hi = d->nruns - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (d->run_id[mid] == id) return d->run_series[mid];
        if (d->run_id[mid] < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static void series_add(plot_series_t *s, int *cap, bool band, double x, double y, double lo,
                       double hi)
{
    if (s->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        s->x = sgd_xrealloc(s->x, (size_t)*cap * sizeof *s->x);
        s->y = sgd_xrealloc(s->y, (size_t)*cap * sizeof *s->y);
        if (band) {
            s->lo = sgd_xrealloc(s->lo, (size_t)*cap * sizeof *s->lo);
            s->hi = sgd_xrealloc(s->hi, (size_t)*cap * sizeof *s->hi);
        }
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    if (band) s->lo[s->n] = lo, s->hi[s->n] = hi;
    s->n++;
}

/* p's points (sorted by update, then run) as one series per run, for analysis/seed_band.h;
 * *n the runs.  The arrays point into one allocation each, freed by free_runs. */
static rdb_series_t *runs_of(const points_t *p, int *n)
{
    int64_t *ids = sgd_xcalloc((size_t)p->n + 1, sizeof *ids);
    int *count = sgd_xcalloc((size_t)p->n + 1, sizeof *count), *which = sgd_xcalloc((size_t)p->n + 1, sizeof *which);
    *n = 0;
    for (int i = 0; i < p->n; i++) { /* a run's index: a short linear search (few seeds) */
        int k = 0;
        while (k < *n && ids[k] != p->v[i].run) k++;
        if (k == *n) ids[(*n)++] = p->v[i].run;
        which[i] = k;
        count[k]++;
    }
    rdb_series_t *s = sgd_xcalloc((size_t)*n + 1, sizeof *s);
    for (int k = 0; k < *n; k++)
        s[k] = (rdb_series_t){.update = sgd_xcalloc((size_t)count[k], sizeof(int64_t)),
                              .vtime = sgd_xcalloc((size_t)count[k], sizeof(int64_t)),
                              .value = sgd_xcalloc((size_t)count[k], sizeof(double)),
                              .kind = sgd_xcalloc((size_t)count[k], 1)};
    for (int i = 0; i < p->n; i++) {
        rdb_series_t *r = &s[which[i]];
        r->update[r->n] = p->v[i].update;
        r->vtime[r->n] = p->v[i].vtime_ns;
        r->value[r->n++] = p->v[i].value;
    }
    free(ids), free(count), free(which);
    return s;
}

/* Adds one point per update of p's values (sorted by update) to s: mean, band, log
 * filtering (plot_series_read_points).  Returns the points kept. */
static int aggregate(const points_t *p, const plot_query_t *q, plot_series_t *s)
{
    int cap = 0, kept = 0, nruns;
    bool band = q->band != PLOT_BAND_NONE;
    rdb_series_t *runs = runs_of(p, &nruns);
    const rdb_series_t **members = sgd_xcalloc((size_t)nruns + 1, sizeof *members);
    for (int k = 0; k < nruns; k++) members[k] = &runs[k];
    ana_band_t b;
    ana_band_of(members, nruns, &b); /* one definition of the mean over seeds per update */
    for (int i = 0; i < b.n; i++) {
        const ana_summary_t *sum = &b.sum[i];
        double mean = sum->mean, sd = sum->sd;
        double x = q->vtime ? b.vtime_s[i] : (double)b.update[i];
        double lo = q->band == PLOT_BAND_STD ? mean - sd : sum->min;
        double hi = q->band == PLOT_BAND_STD ? mean + sd : sum->max;
        if ((q->logx && !(x > 0)) || (q->logy && !(mean > 0)) || !isfinite(x) ||
            !isfinite(mean))
            continue;
        if (q->logy && !(lo > 0)) lo = mean;
        series_add(s, &cap, band, x, mean, lo, hi);
        kept++;
    }
    ana_band_free(&b);
    for (int k = 0; k < nruns; k++) rdb_series_free(&runs[k]);
    free(runs), free(members);
    return kept;
}

int plot_series_read_points(rdb_t *db, const plot_query_t *q, plot_data_t *d, sgd_err_t *err)
{
    rdb_curve_it_t *it = NULL;
    if (rdb_curve_points_open(db, q->metric, &q->sel, &it, err)) return -1;
    points_t *per = sgd_xcalloc((size_t)d->nseries + 1, sizeof *per);
    rdb_curve_point_t pt;
    int rc;
    while ((rc = rdb_curve_points_next(it, &pt, err)) > 0) {
        int s = series_of(d, pt.run);
        if (s < 0) continue;
        points_t *p = &per[s];
        if (p->n == p->cap) {
            p->cap = p->cap ? 2 * p->cap : 256;
            p->v = sgd_xrealloc(p->v, (size_t)p->cap * sizeof *p->v);
        }
        p->v[p->n++] = (point_t){pt.update, pt.run, pt.vtime_ns, pt.value};
    }
    rdb_curve_close(it);
    d->npoints = 0;
    for (int s = 0; s < d->nseries; s++) {
        /* A series without rows has no array: qsort's pointer must be valid even for 0. */
        if (per[s].n > 0) qsort(per[s].v, (size_t)per[s].n, sizeof *per[s].v, point_cmp);
        if (rc == 0) d->npoints += aggregate(&per[s], q, &d->series[s]);
        free(per[s].v);
    }
    free(per);
    return rc == 0 ? 0 : -1;
}

typedef struct text {
    char *s;
    size_t len, cap;
} text_t;

static void text_add(text_t *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) t->s = sgd_xrealloc(t->s, t->cap = 2 * (t->len + n + 1));
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

/* Key k's term of series s into t, as the labels say; marks the KEY:VALUE labels used. */
static void add_term(text_t *t, const char *key, const char *value,
                     const plot_labels_t *labels, bool *used)
{
    const char *rename = NULL;
    for (int i = 0; i < labels->n; i++) {
        const plot_label_t *l = &labels->v[i];
        if (strcmp(l->key, key) != 0) continue;
        if (l->value && strcmp(l->value, value) == 0) {
            used[i] = true;
            text_add(t, l->text);
            return;
        }
        if (!l->value) rename = l->text;
    }
    if (!rename) rename = key;
    if (*rename) {
        text_add(t, rename);
        text_add(t, "=");
    }
    text_add(t, value);
}

int plot_series_label(plot_data_t *d, const char *const *keys, int omit,
                      const plot_labels_t *labels, sgd_err_t *err)
{
    bool *used = sgd_xcalloc((size_t)labels->n + 1, sizeof *used);
    for (int s = 0; s < d->nseries; s++) {
        plot_series_t *ser = &d->series[s];
        text_t t = {0};
        text_add(&t, "");
        for (int k = 0, n = 0; k < d->nkeys; k++) {
            if (k == omit) continue;
            if (n++) text_add(&t, " ");
            add_term(&t, keys[k], ser->values[k], labels, used);
        }
        if (d->nkeys == 1 && omit == 0) text_add(&t, "all runs"); /* only the facet key */
        if (d->nkeys == 0 && ser->values[0]) {
            text_add(&t, "run=");
            text_add(&t, ser->values[0]);
        } else if (d->nkeys == 0) {
            char n[32];
            snprintf(n, sizeof n, " (%d seed%s)", ser->nruns, ser->nruns == 1 ? "" : "s");
            text_add(&t, d->scenario);
            text_add(&t, n);
        }
        free(ser->label);
        ser->label = t.s;
    }
    int rc = 0;
    for (int i = 0; i < labels->n && !rc; i++)
        if (labels->v[i].value && !used[i]) {
            char *value = cli_text_escape(labels->v[i].value);
            rc = sgd_errf(err, "--label %s:%s=...: no series has %s=%s", labels->v[i].key,
                          value, labels->v[i].key, value);
            free(value);
        }
    free(used);
    return rc;
}

void plot_data_free(plot_data_t *d)
{
    for (int s = 0; s < d->nseries; s++) {
        plot_series_t *ser = &d->series[s];
        for (int k = 0; ser->values[k]; k++) free(ser->values[k]);
        free(ser->values);
        free(ser->label);
        free(ser->config);
        free(ser->build);
        free(ser->x);
        free(ser->y);
        free(ser->lo);
        free(ser->hi);
    }
    free(d->series);
    free(d->run_id);
    free(d->run_series);
    for (int r = 0; r < d->nruns; r++) free(d->run_config[r]), free(d->run_build[r]);
    free(d->run_config);
    free(d->run_build);
    free(d->scenario);
    memset(d, 0, sizeof *d);
}
