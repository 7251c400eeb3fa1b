/* `sgdsim report --json`: for each scenario, its sweep's axes (analysis/sweep_axes.h) and
 * each configuration's seed statistics (analysis/groups.h, analysis/seed_stats.h), as
 *
 *   {"database": PATH, "scenarios": [{"scenario": NAME, "axes": [KEY, ...],
 *     "configurations": [{"values": {KEY: VALUE, ...}, "n_seeds": N, "seeds": [...],
 *       "runs": [ID, ...], "n_diverged": D,
 *       "final": {METRIC: {"n": K, "mean": M, "sd": S, "ci95_low": L, "ci95_high": H}}}]}]}
 *
 * A configuration's runs are the latest finished run of each seed; "final" holds the final
 * value of every metric they have, and vtime_s (the run's virtual time), over the runs
 * whose value is finite (n of them).  Numbers are JSON numbers, exact; what the statistics
 * leave undefined (n = 0, or the interval of one value) is null.  "values" has the axes'
 * values with their JSON types; a key that changes no result (numerics.threads) is no axis
 * here, since it splits no configuration. */
#include "cli/report_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "analysis/clock.h"
#include "analysis/groups.h"
#include "analysis/seed_stats.h"
#include "analysis/sweep_axes.h"
#include "cli/cli.h"
#include "results/rdb_rows.h"

/* A finished run with its final values. */
typedef struct jrun {
    ana_run_t a;
    int64_t id, seed;
    char *identity;
    bool diverged;
    double vtime_s; /* NaN when unknown */
    bool clock;     /* analysis/clock.h: without one, no vtime_s or images_per_s */
    char **name;    /* final metrics: name[i] = value[i] (NaN when not finite) */
    double *value;
    int nfinal;
} jrun_t;

typedef struct jdb {
    jrun_t *run;
    int n;
} jdb_t;

static void jrun_free(jrun_t *r)
{
    ana_run_free(&r->a);
    free(r->identity);
    for (int i = 0; i < r->nfinal; i++) free(r->name[i]);
    free(r->name);
    free(r->value);
}

static void jdb_free(jdb_t *d)
{
    for (int i = 0; i < d->n; i++) jrun_free(&d->run[i]);
    free(d->run);
}

static void load_run(const rdb_run_row_t *row, jrun_t *r)
{
    memset(r, 0, sizeof *r);
    ana_run_init(&r->a, row->scenario, row->config_json, row->sweep_axes);
    r->id = row->id;
    r->seed = row->seed;
    r->identity = ana_config_identity(row->config_json);
    r->diverged = row->status && strcmp(row->status, "diverged") == 0;
    r->vtime_s = row->has_vtime_ns ? (double)row->vtime_ns / 1e9 : NAN;
    r->clock = ana_config_has_clock(row->config_json);
}

/* Whether metric `name` means something for runs with or without a clock. */
static bool shown(const char *name, bool clock)
{
    return clock || (strcmp(name, "vtime_s") != 0 && strcmp(name, "images_per_s") != 0);
}

static int by_id(const void *x, const void *y)
{
    const jrun_t *a = *(const jrun_t *const *)x, *b = *(const jrun_t *const *)y;
    return (a->id > b->id) - (a->id < b->id);
}

/* The run with this id among sorted[0..n) (sorted by id), or NULL. */
static jrun_t *find_run(jrun_t **sorted, int n, int64_t id)
{
    jrun_t key = {.id = id}, *k = &key;
    jrun_t **hit = bsearch(&k, sorted, (size_t)n, sizeof *sorted, by_id);
    return hit ? *hit : NULL;
}

static void add_final(jrun_t *r, const rdb_metric_row_t *m)
{
    r->name = sgd_xrealloc(r->name, (size_t)(r->nfinal + 1) * sizeof *r->name);
    r->value = sgd_xrealloc(r->value, (size_t)(r->nfinal + 1) * sizeof *r->value);
    r->name[r->nfinal] = sgd_xstrdup(m->name ? m->name : "");
    r->value[r->nfinal++] = m->value;
}

/* The finished runs by scenario then id, and their final values. */
static int load(rdb_t *db, jdb_t *d, sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    rdb_runs_query_t q = {.finished_only = true, .by_scenario = true};
    int rc = rdb_runs_open(db, &q, &it, err) ? -1 : 1;
    rdb_run_row_t row;
    while (rc > 0 && (rc = rdb_runs_next(it, &row, err)) > 0) {
        d->run = sgd_xrealloc(d->run, (size_t)(d->n + 1) * sizeof *d->run);
        load_run(&row, &d->run[d->n++]);
    }
    rdb_rows_close(it);
    it = NULL;
    /* Final rows come by run id: find their runs by binary search. */
    jrun_t **sorted = sgd_xcalloc((size_t)d->n + 1, sizeof *sorted);
    for (int i = 0; i < d->n; i++) sorted[i] = &d->run[i];
    qsort(sorted, (size_t)d->n, sizeof *sorted, by_id);
    if (rc == 0) rc = rdb_finals_open(db, &it, err) ? -1 : 1;
    rdb_metric_row_t m;
    while (rc > 0 && (rc = rdb_metrics_next(it, &m, err)) > 0) {
        jrun_t *r = find_run(sorted, d->n, m.run_id);
        if (r) add_final(r, &m);
    }
    rdb_rows_close(it);
    free(sorted);
    return rc;
}

/* {"n", "mean", "sd", "ci95_low", "ci95_high"} of values v[0..n). */
static cJSON *stats_json(const double *v, int n)
{
    ana_summary_t s = ana_summarize(v, n);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", s.n);
    cJSON_AddNumberToObject(o, "mean", s.mean); /* cJSON writes NaN as null */
    cJSON_AddNumberToObject(o, "sd", s.sd);
    cJSON_AddNumberToObject(o, "ci95_low", s.ci_low);
    cJSON_AddNumberToObject(o, "ci95_high", s.ci_high);
    return o;
}

/* Run r's final value of `name` (vtime_s: its virtual time); NaN when it has none. */
static double final_of(const jrun_t *r, const char *name)
{
    if (strcmp(name, "vtime_s") == 0) return r->vtime_s;
    for (int i = 0; i < r->nfinal; i++)
        if (strcmp(r->name[i], name) == 0) return r->value[i];
    return NAN;
}

static bool listed(const cJSON *obj, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(obj, name) != NULL;
}

/* "final": every metric of the group's runs (in each run's name order), then vtime_s;
 * neither vtime_s nor images_per_s for runs without a clock. */
static cJSON *finals_json(jrun_t *const *runs, int n)
{
    cJSON *o = cJSON_CreateObject();
    double *v = sgd_xcalloc((size_t)n + 1, sizeof *v);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < (pass ? 1 : n); i++)
            for (int k = 0; k < (pass ? 1 : runs[i]->nfinal); k++) {
                const char *name = pass ? "vtime_s" : runs[i]->name[k];
                if (listed(o, name) || !shown(name, runs[0]->clock)) continue;
                int nv = 0;
                for (int j = 0; j < n; j++) {
                    double x = final_of(runs[j], name);
                    if (isfinite(x)) v[nv++] = x;
                }
                cJSON_AddItemToObject(o, name, stats_json(v, nv));
            }
    free(v);
    return o;
}

/* One configuration: the axes' values (of its first run), its seeds and runs, and finals. */
static cJSON *config_json(jrun_t *const *runs, int n, const char **axes, int naxes)
{
    cJSON *o = cJSON_CreateObject(), *values = cJSON_AddObjectToObject(o, "values");
    for (int a = 0; a < naxes; a++) {
        const ana_config_t *c = &runs[0]->a.cfg;
        cJSON *v = NULL;
        for (int k = 0; k < c->n && !v; k++)
            if (strcmp(c->kv[k].key, axes[a]) == 0) v = cJSON_Parse(c->kv[k].json);
        cJSON_AddItemToObject(values, axes[a], v ? v : cJSON_CreateNull());
    }
    cJSON_AddNumberToObject(o, "n_seeds", n);
    cJSON *seeds = cJSON_AddArrayToObject(o, "seeds"), *ids = cJSON_AddArrayToObject(o, "runs");
    int diverged = 0;
    for (int i = 0; i < n; i++) {
        cJSON_AddItemToArray(seeds, cJSON_CreateNumber((double)runs[i]->seed));
        cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)runs[i]->id));
        diverged += runs[i]->diverged;
    }
    cJSON_AddNumberToObject(o, "n_diverged", diverged);
    cJSON_AddBoolToObject(o, "clock", runs[0]->clock);
    cJSON_AddItemToObject(o, "final", finals_json(runs, n));
    return o;
}

/* The scenario of runs[0..n): its axes and its configurations. */
static cJSON *scenario_json(jrun_t *runs, int n)
{
    const ana_run_t **a = sgd_xcalloc((size_t)n, sizeof *a);
    char **identity = sgd_xcalloc((size_t)n, sizeof *identity);
    int64_t *id = sgd_xcalloc((size_t)n, sizeof *id), *seed = sgd_xcalloc((size_t)n, sizeof *seed);
    for (int i = 0; i < n; i++)
        a[i] = &runs[i].a, identity[i] = runs[i].identity, id[i] = runs[i].id,
        seed[i] = runs[i].seed;
    int naxes, m = 0;
    const char **axes = ana_sweep_axes(a, n, &naxes);
    /* A key that changes no result (numerics.threads) splits no configuration. */
    for (int k = 0; k < naxes; k++)
        if (ana_key_changes_results(axes[k])) axes[m++] = axes[k];
    naxes = m;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scenario", runs[0].a.scenario);
    cJSON *ax = cJSON_AddArrayToObject(o, "axes");
    for (int k = 0; k < naxes; k++) cJSON_AddItemToArray(ax, cJSON_CreateString(axes[k]));
    cJSON *configs = cJSON_AddArrayToObject(o, "configurations");
    ana_group_t *g;
    int ng = ana_group_seeds(identity, id, seed, n, &g);
    jrun_t **members = sgd_xcalloc((size_t)n, sizeof *members);
    for (int k = 0; k < ng; k++) {
        for (int i = 0; i < g[k].n; i++) members[i] = &runs[g[k].idx[i]];
        cJSON_AddItemToArray(configs, config_json(members, g[k].n, axes, naxes));
    }
    free(members);
    ana_groups_free(g, ng);
    free(axes);
    free(a), free(identity), free(id), free(seed);
    return o;
}

int report_json(rdb_t *db, const char *path)
{
    sgd_err_t err = {{0}};
    jdb_t d = {0};
    if (load(db, &d, &err)) {
        jdb_free(&d);
        return cli_bad_input("report: %s", err.msg);
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "database", path);
    cJSON *sc = cJSON_AddArrayToObject(root, "scenarios");
    for (int i = 0; i < d.n;) {
        int j = i;
        while (j < d.n && strcmp(d.run[j].a.scenario, d.run[i].a.scenario) == 0) j++;
        cJSON_AddItemToArray(sc, scenario_json(d.run + i, j - i));
        i = j;
    }
    char *text = cJSON_PrintUnformatted(root);
    SGD_ASSERT(text);
    puts(text);
    free(text);
    cJSON_Delete(root);
    jdb_free(&d);
    return SGD_EXIT_OK;
}
