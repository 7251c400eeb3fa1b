/* `sgdsim report --json [--last K] [--updates N] [--at U,...]`: for each scenario, its
 * sweep's axes (analysis/sweep_axes.h) and each configuration's seed statistics
 * (analysis/groups.h, analysis/seed_stats.h), with every run they are taken over:
 *
 *   {"database": PATH,
 *    "statistics": {"last_k": K, "updates": N|null, "at": [U, ...], "over": TEXT},
 *    "scenarios": [{"scenario": NAME, "axes": [KEY, ...],
 *     "configurations": [{"values": {KEY: VALUE, ...}, "builds": [REV, ...],
 *       "n_seeds": N, "seeds": [...], "runs": [ID, ...], "n_diverged": D, "clock": BOOL,
 *       "final": {METRIC: S}, "last": {METRIC: S}, "min": {METRIC: S}, "max": {METRIC: S},
 *       "at": [{"update": U, "values": {METRIC: S}}],
 *       "staleness": {"mean": S, "max": S, "p50": S, "p90": S, "p99": S},
 *       "traffic": {KIND: {"sent_msgs": S, "skipped_msgs": S, "potential_msgs": S,
 *                          "sent_bytes": S, "skipped_bytes": S}},
 *       "traffic_reduction": S,
 *       "per_run": [RUN, ...]}]}]}
 *
 * S = {"n", "mean", "sd", "ci95_low", "ci95_high", "min", "max"} over the configuration's
 * runs that did not diverge and have a finite value (n of them).  A configuration's runs
 * are the latest finished run of each seed (with --updates, of those whose configuration
 * has stop.updates = N); those that diverged are counted in n_diverged and listed in
 * per_run, and left out of every statistic.  Per metric, "final" is each run's last row
 * (and vtime_s its virtual time), "last" the mean of its last K rows (default 10),
 * "min"/"max" its extremes, "at" its value at update U (--at).  Staleness is each run's
 * histogram: mean and largest tau, quantiles (the smallest tau with at least that share of
 * the gradients at or below it).  traffic_reduction is each run's messages that could have
 * been sent (sent + skipped, all kinds) per message sent.  RUN is one run's own values:
 *   {"id", "seed", "status", "diverged", "wall_s", "vtime_s" (with a clock),
 *    "metrics": {METRIC: {"final", "last", "last_n", "min", "max", "at": [V, ...]}},
 *    "staleness": {"gradients", "mean", "max", "p50", "p90", "p99"},
 *    "traffic": {KIND: {...as above}}, "traffic_reduction"}
 * Numbers are JSON numbers, exact; what is undefined (no value, the interval of one value)
 * is null.  Runs without a clock have no vtime_s or images_per_s.  "values" has the axes'
 * values with their JSON types; a key that changes no result (numerics.threads) is no axis
 * here, since it splits no configuration.  "builds" are the git revisions of the runs: one,
 * since runs of different builds are different configurations here, unless --pool-builds
 * ("statistics": {"pool_builds": true}) pooled them. */
#include "cli/report_json.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "analysis/seed_stats.h"
#include "analysis/sweep_axes.h"
#include "cli/cli.h"
#include "common/json.h"

/* ---- per-run quantities ------------------------------------------------------------------ */

/* Which number of a metric's curve. */
typedef enum { Q_FINAL, Q_LAST, Q_MIN, Q_MAX, Q_AT } metric_field_t;

typedef struct metric_q {
    const char *name;
    metric_field_t field;
    int at; /* Q_AT: index into opts.at */
} metric_q_t;

typedef double (*quantity_fn)(const rep_run_t *r, const void *arg);

static double metric_quantity(const rep_run_t *r, const void *arg)
{
    const metric_q_t *q = arg;
    if (q->field == Q_FINAL) return rep_final(r, q->name);
    const rep_metric_t *m = rep_metric(r, q->name);
    if (!m) return NAN;
    switch (q->field) {
    case Q_LAST: return m->w.last_mean;
    case Q_MIN: return m->w.min;
    case Q_MAX: return m->w.max;
    case Q_AT: return m->at[q->at];
    default: return m->w.final;
    }
}

/* arg: the offset of a double in ana_hist_t. */
static double staleness_quantity(const rep_run_t *r, const void *arg)
{
    return *(const double *)((const char *)&r->staleness + *(const size_t *)arg);
}

/* The traffic fields, by name; potential_msgs = sent + skipped. */
static const char *const traffic_field[] = {"sent_msgs", "skipped_msgs", "potential_msgs",
                                            "sent_bytes", "skipped_bytes"};
enum { NTRAFFIC_FIELDS = 5 };

typedef struct traffic_q {
    const char *kind;
    int field; /* index into traffic_field */
} traffic_q_t;

static double traffic_value(const rep_traffic_t *t, int field)
{
    switch (field) {
    case 0: return (double)t->sent_msgs;
    case 1: return (double)t->skipped_msgs;
    case 2: return (double)t->sent_msgs + (double)t->skipped_msgs;
    case 3: return (double)t->sent_bytes;
    default: return (double)t->skipped_bytes;
    }
}

static double traffic_quantity(const rep_run_t *r, const void *arg)
{
    const traffic_q_t *q = arg;
    for (int i = 0; i < r->ntraffic; i++)
        if (strcmp(r->traffic[i].kind, q->kind) == 0) return traffic_value(&r->traffic[i], q->field);
    return NAN;
}

/* Messages that could have been sent per message sent, over every kind; NaN without one. */
static double reduction_quantity(const rep_run_t *r, const void *arg)
{
    (void)arg;
    double sent = 0, potential = 0;
    for (int i = 0; i < r->ntraffic; i++) {
        sent += traffic_value(&r->traffic[i], 0);
        potential += traffic_value(&r->traffic[i], 2);
    }
    return sent > 0 ? potential / sent : NAN;
}

/* ---- statistics over a configuration's runs ---------------------------------------------- */

/* S of values v[0..n). */
static cJSON *stats_json(const double *v, int n)
{
    ana_summary_t s = ana_summarize(v, n);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", s.n);
    cJSON_AddNumberToObject(o, "mean", s.mean); /* cJSON writes NaN as null */
    cJSON_AddNumberToObject(o, "sd", s.sd);
    cJSON_AddNumberToObject(o, "ci95_low", s.ci_low);
    cJSON_AddNumberToObject(o, "ci95_high", s.ci_high);
    cJSON_AddNumberToObject(o, "min", s.min);
    cJSON_AddNumberToObject(o, "max", s.max);
    return o;
}

/* S of f over the runs that did not diverge and have a finite value. */
static cJSON *summary_json(rep_run_t *const *runs, int n, quantity_fn f, const void *arg)
{
    double *v = sgd_xcalloc((size_t)n + 1, sizeof *v);
    int nv = 0;
    for (int i = 0; i < n; i++) {
        double x = runs[i]->diverged ? NAN : f(runs[i], arg);
        if (isfinite(x)) v[nv++] = x;
    }
    cJSON *o = stats_json(v, nv);
    free(v);
    return o;
}

/* The metric names of runs[0..n) in the order they first appear, and vtime_s with a clock
 * (what "final" lists); the array and *n are the caller's to free (names point into runs). */
static const char **metric_names(rep_run_t *const *runs, int n, bool with_vtime, int *count)
{
    int cap = 1;
    for (int i = 0; i < n; i++) cap += runs[i]->nmetric;
    const char **name = sgd_xcalloc((size_t)cap, sizeof *name);
    *count = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < runs[i]->nmetric; k++) {
            const char *m = runs[i]->metric[k].name;
            bool seen = !rep_shown(m, runs[0]->clock);
            for (int j = 0; j < *count && !seen; j++) seen = strcmp(name[j], m) == 0;
            if (!seen) name[(*count)++] = m;
        }
    if (with_vtime && runs[0]->clock) name[(*count)++] = "vtime_s";
    return name;
}

/* {METRIC: S} of one field of every metric. */
static cJSON *metrics_json(rep_run_t *const *runs, int n, metric_field_t field, int at)
{
    int nn;
    const char **name = metric_names(runs, n, field == Q_FINAL, &nn);
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < nn; k++) {
        metric_q_t q = {name[k], field, at};
        cJSON_AddItemToObject(o, name[k], summary_json(runs, n, metric_quantity, &q));
    }
    free(name);
    return o;
}

/* The staleness fields of ana_hist_t by the names the JSON gives them. */
static const struct {
    const char *name;
    size_t off;
} hist_field[] = {
    {"gradients", offsetof(ana_hist_t, gradients)}, {"mean", offsetof(ana_hist_t, mean)},
    {"max", offsetof(ana_hist_t, max)},             {"p50", offsetof(ana_hist_t, p50)},
    {"p90", offsetof(ana_hist_t, p90)},             {"p99", offsetof(ana_hist_t, p99)},
};
enum { NHIST_FIELDS = 6 };

static cJSON *staleness_stats_json(rep_run_t *const *runs, int n)
{
    cJSON *o = cJSON_CreateObject();
    for (int f = 1; f < NHIST_FIELDS; f++) /* not gradients: a count, not a statistic */
        cJSON_AddItemToObject(o, hist_field[f].name,
                              summary_json(runs, n, staleness_quantity, &hist_field[f].off));
    return o;
}

static cJSON *traffic_stats_json(rep_run_t *const *runs, int n)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < n; i++)
        for (int k = 0; k < runs[i]->ntraffic; k++) {
            const char *kind = runs[i]->traffic[k].kind;
            if (cJSON_GetObjectItemCaseSensitive(o, kind)) continue;
            cJSON *one = cJSON_AddObjectToObject(o, kind);
            for (int f = 0; f < NTRAFFIC_FIELDS; f++) {
                traffic_q_t q = {kind, f};
                cJSON_AddItemToObject(one, traffic_field[f],
                                      summary_json(runs, n, traffic_quantity, &q));
            }
        }
    return o;
}

/* ---- one run's own values ----------------------------------------------------------------- */

static cJSON *run_metric_json(const rep_metric_t *m, const rep_opts_t *o)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "final", m->w.final);
    cJSON_AddNumberToObject(j, "last", m->w.last_mean);
    cJSON_AddNumberToObject(j, "last_n", m->w.last_n);
    cJSON_AddNumberToObject(j, "min", m->w.min);
    cJSON_AddNumberToObject(j, "max", m->w.max);
    cJSON *at = cJSON_AddArrayToObject(j, "at");
    for (int k = 0; k < o->nat; k++) cJSON_AddItemToArray(at, cJSON_CreateNumber(m->at[k]));
    return j;
}

static cJSON *run_json(const rep_run_t *r, const rep_opts_t *o)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "id", (double)r->id);
    cJSON_AddNumberToObject(j, "seed", (double)r->seed);
    cJSON_AddStringToObject(j, "status", r->status);
    cJSON_AddBoolToObject(j, "diverged", r->diverged);
    cJSON_AddNumberToObject(j, "wall_s", r->wall_s);
    if (r->clock) cJSON_AddNumberToObject(j, "vtime_s", r->vtime_s);
    cJSON *metrics = cJSON_AddObjectToObject(j, "metrics");
    for (int k = 0; k < r->nmetric; k++)
        if (rep_shown(r->metric[k].name, r->clock))
            cJSON_AddItemToObject(metrics, r->metric[k].name, run_metric_json(&r->metric[k], o));
    cJSON *st = cJSON_AddObjectToObject(j, "staleness");
    for (int f = 0; f < NHIST_FIELDS; f++)
        cJSON_AddNumberToObject(st, hist_field[f].name,
                                staleness_quantity(r, &hist_field[f].off));
    cJSON *tr = cJSON_AddObjectToObject(j, "traffic");
    for (int k = 0; k < r->ntraffic; k++) {
        cJSON *one = cJSON_AddObjectToObject(tr, r->traffic[k].kind);
        for (int f = 0; f < NTRAFFIC_FIELDS; f++)
            cJSON_AddNumberToObject(one, traffic_field[f], traffic_value(&r->traffic[k], f));
    }
    cJSON_AddNumberToObject(j, "traffic_reduction", reduction_quantity(r, NULL));
    return j;
}

/* ---- configurations and scenarios --------------------------------------------------------- */

/* The axes' values of a configuration (of its first run), with their JSON types. */
static cJSON *values_json(const rep_run_t *first, const char **axes, int naxes)
{
    cJSON *values = cJSON_CreateObject();
    for (int a = 0; a < naxes; a++) {
        const ana_config_t *c = &first->a.cfg;
        cJSON *v = NULL;
        for (int k = 0; k < c->n && !v; k++)
            if (strcmp(c->kv[k].key, axes[a]) == 0) v = cJSON_Parse(c->kv[k].json);
        cJSON_AddItemToObject(values, axes[a], v ? v : cJSON_CreateNull());
    }
    return values;
}

static void add_seed_statistics(cJSON *o, rep_run_t *const *runs, int n, const rep_opts_t *opts)
{
    cJSON_AddItemToObject(o, "final", metrics_json(runs, n, Q_FINAL, 0));
    cJSON_AddItemToObject(o, "last", metrics_json(runs, n, Q_LAST, 0));
    cJSON_AddItemToObject(o, "min", metrics_json(runs, n, Q_MIN, 0));
    cJSON_AddItemToObject(o, "max", metrics_json(runs, n, Q_MAX, 0));
    cJSON *at = cJSON_AddArrayToObject(o, "at");
    for (int k = 0; k < opts->nat; k++) {
        cJSON *one = cJSON_CreateObject();
        cJSON_AddNumberToObject(one, "update", (double)opts->at[k]);
        cJSON_AddItemToObject(one, "values", metrics_json(runs, n, Q_AT, k));
        cJSON_AddItemToArray(at, one);
    }
    cJSON_AddItemToObject(o, "staleness", staleness_stats_json(runs, n));
    cJSON_AddItemToObject(o, "traffic", traffic_stats_json(runs, n));
    cJSON_AddItemToObject(o, "traffic_reduction",
                          summary_json(runs, n, reduction_quantity, NULL));
}

/* One configuration: the axes' values, its seeds and runs, its statistics and its runs'. */
static cJSON *config_json(rep_run_t *const *runs, int n, const char **axes, int naxes,
                          const rep_opts_t *opts)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "values", values_json(runs[0], axes, naxes));
    cJSON *builds = cJSON_AddArrayToObject(o, "builds");
    for (int i = 0; i < n; i++) {
        const char *b = ana_build_name(runs[i]->build);
        bool seen = false;
        for (int k = 0; k < i && !seen; k++) seen = strcmp(ana_build_name(runs[k]->build), b) == 0;
        if (!seen) cJSON_AddItemToArray(builds, cJSON_CreateString(b));
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
    add_seed_statistics(o, runs, n, opts);
    cJSON *per_run = cJSON_AddArrayToObject(o, "per_run");
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(per_run, run_json(runs[i], opts));
    return o;
}

/* The axes of runs[0..n) that change results; the caller frees the array. */
static const char **result_axes(rep_run_t *runs, int n, int *naxes)
{
    const ana_run_t **a = sgd_xcalloc((size_t)n, sizeof *a);
    for (int i = 0; i < n; i++) a[i] = &runs[i].a;
    int m = 0;
    const char **axes = ana_sweep_axes(a, n, naxes);
    /* A key that changes no result (numerics.threads) splits no configuration. */
    for (int k = 0; k < *naxes; k++)
        if (ana_key_changes_results(axes[k])) axes[m++] = axes[k];
    *naxes = m;
    free(a);
    return axes;
}

/* The scenario of runs[0..n): its axes and its configurations. */
static cJSON *scenario_json(rep_run_t *runs, int n, const rep_opts_t *opts)
{
    int naxes;
    const char **axes = result_axes(runs, n, &naxes);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scenario", runs[0].a.scenario);
    cJSON *ax = cJSON_AddArrayToObject(o, "axes");
    for (int k = 0; k < naxes; k++) cJSON_AddItemToArray(ax, cJSON_CreateString(axes[k]));
    cJSON *configs = cJSON_AddArrayToObject(o, "configurations");
    rep_group_t g = rep_group(runs, n);
    for (int k = 0; k < g.n; k++)
        cJSON_AddItemToArray(configs,
                             config_json(g.member[k], g.size[k], axes, naxes, opts));
    rep_group_free(&g);
    free(axes);
    return o;
}

static cJSON *statistics_json(const rep_opts_t *o)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddNumberToObject(s, "last_k", o->last_k);
    if (o->has_updates) cJSON_AddNumberToObject(s, "updates", (double)o->updates);
    else cJSON_AddNullToObject(s, "updates");
    cJSON *at = cJSON_AddArrayToObject(s, "at");
    for (int k = 0; k < o->nat; k++) cJSON_AddItemToArray(at, cJSON_CreateNumber((double)o->at[k]));
    cJSON_AddStringToObject(s, "over", REP_STATISTICS_OVER);
    cJSON_AddBoolToObject(s, "pool_builds", o->pool_builds);
    return s;
}

int report_json(rdb_t *db, const char *path, const rep_opts_t *opts)
{
    sgd_err_t err = {{0}};
    rep_db_t d;
    if (rep_load(db, opts, &d, &err)) {
        rep_free(&d);
        return cli_bad_input("report: %s", err.msg);
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "database", path);
    cJSON_AddItemToObject(root, "statistics", statistics_json(opts));
    cJSON *sc = cJSON_AddArrayToObject(root, "scenarios");
    for (int i = 0; i < d.n;) {
        int j = i;
        while (j < d.n && strcmp(d.run[j].a.scenario, d.run[i].a.scenario) == 0) j++;
        cJSON_AddItemToArray(sc, scenario_json(d.run + i, j - i, opts));
        i = j;
    }
    char *text = sgd_json_print(root, false); /* numbers exact: cJSON rounds the last digit */
    SGD_ASSERT(text);
    puts(text);
    free(text);
    cJSON_Delete(root);
    rep_free(&d);
    return SGD_EXIT_OK;
}
