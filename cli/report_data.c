/* The runs `report --json` and `report --welch` read (report_data.h).  Each kind of row
 * (runs, metric rows, staleness bins, traffic) is read in one pass ordered by run id, and a
 * row finds its run by binary search, so a database is read in four queries whatever its
 * number of runs. */
#include "cli/report_data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "common/number.h"
#include "results/rdb_rows.h"

static void run_free(rep_run_t *r)
{
    ana_run_free(&r->a);
    free(r->identity);
    free(r->build);
    free(r->config_json);
    free(r->status);
    for (int i = 0; i < r->nmetric; i++) free(r->metric[i].name);
    free(r->metric);
    for (int i = 0; i < r->ntraffic; i++) free(r->traffic[i].kind);
    free(r->traffic);
}

void rep_free(rep_db_t *d)
{
    for (int i = 0; i < d->n; i++) run_free(&d->run[i]);
    free(d->run);
    *d = (rep_db_t){0};
}

/* Whether the run's configuration has stop.updates = o->updates (when that is asked). */
static bool kept(const rep_opts_t *o, const ana_config_t *cfg)
{
    if (!o->has_updates) return true;
    uint64_t v;
    const char *text = ana_config_get(cfg, "stop.updates");
    return sgd_parse_u64(text, &v) && v == (uint64_t)o->updates;
}

static void init_run(const rdb_run_row_t *row, bool pool_builds, rep_run_t *r)
{
    memset(r, 0, sizeof *r);
    ana_run_init(&r->a, row->scenario, row->config_json, row->sweep_axes);
    r->id = row->id;
    r->seed = row->seed;
    r->identity = ana_run_identity(row->config_json, row->git_rev, pool_builds);
    r->build = row->git_rev ? sgd_xstrdup(row->git_rev) : NULL;
    r->config_json = row->config_json ? sgd_xstrdup(row->config_json) : NULL;
    r->status = sgd_xstrdup(row->status ? row->status : "");
    r->diverged = strcmp(r->status, "diverged") == 0;
    r->clock = ana_config_has_clock(row->config_json);
    r->wall_s = row->wall_s;
    r->vtime_s = row->has_vtime_ns ? (double)row->vtime_ns / 1e9 : NAN;
    r->staleness = ana_hist_of(NULL, NULL, 0);
}

static int load_runs(rdb_t *db, const rep_opts_t *o, rep_db_t *d, sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    rdb_runs_query_t q = {.finished_only = true, .by_scenario = true};
    int rc = rdb_runs_open(db, &q, &it, err) ? -1 : 1;
    rdb_run_row_t row;
    while (rc > 0 && (rc = rdb_runs_next(it, &row, err)) > 0) {
        rep_run_t r;
        init_run(&row, o->pool_builds, &r);
        if (!kept(o, &r.a.cfg)) {
            run_free(&r);
            continue;
        }
        d->run = sgd_xrealloc(d->run, (size_t)(d->n + 1) * sizeof *d->run);
        d->run[d->n++] = r;
    }
    rdb_rows_close(it);
    return rc;
}

static int by_id(const void *x, const void *y)
{
    const rep_run_t *a = *(const rep_run_t *const *)x, *b = *(const rep_run_t *const *)y;
    return (a->id > b->id) - (a->id < b->id);
}

/* The runs sorted by id, for find_run. */
typedef struct index {
    rep_run_t **by_id;
    int n;
} index_t;

static index_t index_of(rep_db_t *d)
{
    index_t x = {sgd_xcalloc((size_t)d->n + 1, sizeof *x.by_id), d->n};
    for (int i = 0; i < d->n; i++) x.by_id[i] = &d->run[i];
    qsort(x.by_id, (size_t)x.n, sizeof *x.by_id, by_id);
    return x;
}

static rep_run_t *find_run(const index_t *x, int64_t id)
{
    rep_run_t key = {.id = id}, *k = &key;
    rep_run_t **hit = bsearch(&k, x->by_id, (size_t)x->n, sizeof *x->by_id, by_id);
    return hit ? *hit : NULL;
}

/* One curve being read: its run, name and rows so far. */
typedef struct curve {
    rep_run_t *run;
    char *name;
    int64_t run_id;
    int64_t *update;
    double *value;
    int n, cap;
} curve_t;

/* Closes the curve: its window and values at o->at go to its run. */
static void curve_flush(curve_t *c, const rep_opts_t *o)
{
    if (c->run && c->name) {
        rep_run_t *r = c->run;
        r->metric = sgd_xrealloc(r->metric, (size_t)(r->nmetric + 1) * sizeof *r->metric);
        rep_metric_t *m = &r->metric[r->nmetric++];
        m->name = c->name;
        c->name = NULL;
        m->w = ana_window_of(c->value, c->n, o->last_k);
        for (int j = 0; j < o->nat; j++)
            m->at[j] = ana_value_at(c->update, c->value, c->n, o->at[j]);
    }
    free(c->name);
    c->name = NULL;
    c->n = 0;
}

static void curve_add(curve_t *c, const rdb_metric_row_t *m)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->update = sgd_xrealloc(c->update, (size_t)c->cap * sizeof *c->update);
        c->value = sgd_xrealloc(c->value, (size_t)c->cap * sizeof *c->value);
    }
    c->update[c->n] = m->update;
    c->value[c->n++] = m->value;
}

static int load_curves(rdb_t *db, const index_t *x, const rep_opts_t *o, sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    int rc = rdb_curves_of_finished_open(db, &it, err) ? -1 : 1;
    curve_t c = {0};
    rdb_metric_row_t m;
    while (rc > 0 && (rc = rdb_metrics_next(it, &m, err)) > 0) {
        const char *name = m.name ? m.name : "";
        if (!c.name || c.run_id != m.run_id || strcmp(c.name, name) != 0) {
            curve_flush(&c, o);
            c.run = find_run(x, m.run_id);
            c.run_id = m.run_id;
            c.name = sgd_xstrdup(name);
        }
        curve_add(&c, &m);
    }
    curve_flush(&c, o);
    free(c.update);
    free(c.value);
    rdb_rows_close(it);
    return rc;
}

/* One run's histogram being read. */
typedef struct bins {
    int64_t run_id, *tau, *count;
    int n;
} bins_t;

static void bins_flush(bins_t *b, const index_t *x)
{
    rep_run_t *r = b->n ? find_run(x, b->run_id) : NULL;
    if (r) r->staleness = ana_hist_of(b->tau, b->count, b->n);
    b->n = 0;
}

static int load_staleness(rdb_t *db, const index_t *x, sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    int rc = rdb_staleness_bins_open(db, &it, err) ? -1 : 1;
    bins_t b = {0};
    int cap = 0;
    rdb_staleness_bin_t s;
    while (rc > 0 && (rc = rdb_staleness_bins_next(it, &s, err)) > 0) {
        if (b.n && s.run_id != b.run_id) bins_flush(&b, x);
        if (b.n == cap) {
            cap = cap ? 2 * cap : 64;
            b.tau = sgd_xrealloc(b.tau, (size_t)cap * sizeof *b.tau);
            b.count = sgd_xrealloc(b.count, (size_t)cap * sizeof *b.count);
        }
        b.run_id = s.run_id;
        b.tau[b.n] = s.tau;
        b.count[b.n++] = s.count;
    }
    bins_flush(&b, x);
    free(b.tau);
    free(b.count);
    rdb_rows_close(it);
    return rc;
}

static int load_traffic(rdb_t *db, const index_t *x, sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    int rc = rdb_traffic_kinds_open(db, &it, err) ? -1 : 1;
    rdb_traffic_kind_row_t t;
    while (rc > 0 && (rc = rdb_traffic_kinds_next(it, &t, err)) > 0) {
        rep_run_t *r = find_run(x, t.run_id);
        if (!r) continue;
        r->traffic = sgd_xrealloc(r->traffic, (size_t)(r->ntraffic + 1) * sizeof *r->traffic);
        r->traffic[r->ntraffic++] =
            (rep_traffic_t){sgd_xstrdup(t.kind ? t.kind : ""), t.sent_msgs, t.sent_bytes,
                            t.skipped_msgs, t.skipped_bytes};
    }
    rdb_rows_close(it);
    return rc;
}

int rep_load(rdb_t *db, const rep_opts_t *o, rep_db_t *d, sgd_err_t *err)
{
    *d = (rep_db_t){0};
    if (load_runs(db, o, d, err)) return -1;
    index_t x = index_of(d);
    int rc = load_curves(db, &x, o, err) || load_staleness(db, &x, err) ||
             load_traffic(db, &x, err) ? -1 : 0;
    free(x.by_id);
    return rc;
}

rep_group_t rep_group(rep_run_t *runs, int n)
{
    char **identity = sgd_xcalloc((size_t)n + 1, sizeof *identity);
    int64_t *id = sgd_xcalloc((size_t)n + 1, sizeof *id);
    int64_t *seed = sgd_xcalloc((size_t)n + 1, sizeof *seed);
    for (int i = 0; i < n; i++)
        identity[i] = runs[i].identity, id[i] = runs[i].id, seed[i] = runs[i].seed;
    ana_group_t *g;
    rep_group_t out = {0};
    out.n = ana_group_seeds(identity, id, seed, n, &g);
    out.member = sgd_xcalloc((size_t)out.n + 1, sizeof *out.member);
    out.size = sgd_xcalloc((size_t)out.n + 1, sizeof *out.size);
    for (int k = 0; k < out.n; k++) {
        out.size[k] = g[k].n;
        out.member[k] = sgd_xcalloc((size_t)g[k].n + 1, sizeof **out.member);
        for (int i = 0; i < g[k].n; i++) out.member[k][i] = &runs[g[k].idx[i]];
    }
    ana_groups_free(g, out.n);
    free(identity), free(id), free(seed);
    return out;
}

void rep_group_free(rep_group_t *g)
{
    for (int k = 0; k < g->n; k++) free(g->member[k]);
    free(g->member);
    free(g->size);
    *g = (rep_group_t){0};
}

const rep_metric_t *rep_metric(const rep_run_t *r, const char *name)
{
    for (int i = 0; i < r->nmetric; i++)
        if (strcmp(r->metric[i].name, name) == 0) return &r->metric[i];
    return NULL;
}

double rep_final(const rep_run_t *r, const char *name)
{
    if (strcmp(name, "vtime_s") == 0) return r->vtime_s;
    const rep_metric_t *m = rep_metric(r, name);
    return m ? m->w.final : NAN;
}

bool rep_shown(const char *name, bool clock)
{
    return clock || (strcmp(name, "vtime_s") != 0 && strcmp(name, "images_per_s") != 0);
}
