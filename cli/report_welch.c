/* `sgdsim report DB --welch A B [--metric NAME] [--last K | --final] [--updates N] [--json]`:
 * Welch's t test of mean(A) - mean(B) over the seeds (analysis/effect.h), A and B being
 * settings: scenario names, as the experiment scripts name what they run over seeds.  A
 * setting's runs are the latest finished run of each seed (with --updates, of those whose
 * configuration has stop.updates = N); runs that diverged, and runs without a finite value,
 * are left out.  Each run gives the mean of its last K rows of the metric (default 10), or
 * with --final its last row.  Prints
 *
 *   val_error last10 A (n=3) - B (n=3): +0.0123; Welch t = 2.345, df = 3.9, two-sided
 *   p = 0.0801; 95% interval [-0.0023, +0.0269]
 *
 * or with --json {"metric", "window": "last"|"final", "last_k", "a": SIDE, "b": SIDE,
 * "diff", "t", "df", "p", "ci95_low", "ci95_high"}, SIDE = {"setting", "n", "mean", "sd",
 * "seeds", "runs", "n_diverged"}; t is null when infinite (both sides without spread and
 * different means: p is then 0); t, p and the interval are null when the values are beyond
 * double precision's range (no test).  A metric no run has, a setting without runs, one
 * that holds more than one configuration or build (the test would mix them; --pool-builds
 * pools builds), and fewer than 2 values on a side exit 2 saying so. */
#include "cli/report_welch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "analysis/effect.h"
#include "analysis/seed_stats.h"
#include "analysis/series.h"
#include "cli/cli.h"
#include "common/json.h"
#include "cli/text.h"
#include "results/rdb_read.h"

/* One side of the test: its runs' values. */
typedef struct side {
    const char *setting;
    double *value;
    int64_t *seed, *id; /* of the runs with a value */
    int n, ndiverged;
} side_t;

static void side_free(side_t *s)
{
    free(s->value);
    free(s->seed);
    free(s->id);
}

/* " with stop.updates = N", or "" */
static const char *length_text(const rep_opts_t *o, char *buf, size_t size)
{
    if (!o->has_updates) return "";
    snprintf(buf, size, " with stop.updates = %lld", (long long)o->updates);
    return buf;
}

/* The keys that tell the configurations of runs[0..n) (in groups g) apart, for a message. */
static char *differing_keys(const rep_group_t *g)
{
    int total = 0;
    for (int k = 0; k < g->n; k++) total += g->size[k];
    const char **cfg = sgd_xcalloc((size_t)total + 1, sizeof *cfg);
    int *group = sgd_xcalloc((size_t)total + 1, sizeof *group);
    for (int k = 0, i = 0; k < g->n; k++)
        for (int m = 0; m < g->size[k]; m++, i++) cfg[i] = g->member[k][m]->config_json;
    char **keys = NULL;
    int nkeys = ana_series_split_keys(cfg, group, total, &keys);
    char *text = nkeys ? ana_keys_join(keys, nkeys, ", ") : sgd_xstrdup("their configuration");
    ana_series_keys_free(keys, nkeys);
    free(cfg);
    free(group);
    return text;
}

/* Whether the groups of g differ only in their build. */
static bool one_configuration(const rep_group_t *g)
{
    char *first = ana_config_identity(g->member[0][0]->config_json);
    bool one = first != NULL;
    for (int k = 1; k < g->n && one; k++) {
        char *other = ana_config_identity(g->member[k][0]->config_json);
        one = other && strcmp(other, first) == 0;
        free(other);
    }
    free(first);
    return one;
}

/* The value each run of one configuration gives; NaN for a diverged run. */
static double run_value(const rep_run_t *r, const report_welch_args_t *w)
{
    if (r->diverged) return NAN;
    if (w->final) return rep_final(r, w->metric);
    const rep_metric_t *m = rep_metric(r, w->metric);
    return m ? m->w.last_mean : NAN;
}

static void collect(rep_run_t *const *runs, int n, const report_welch_args_t *w, side_t *s)
{
    s->value = sgd_xcalloc((size_t)n + 1, sizeof *s->value);
    s->seed = sgd_xcalloc((size_t)n + 1, sizeof *s->seed);
    s->id = sgd_xcalloc((size_t)n + 1, sizeof *s->id);
    for (int i = 0; i < n; i++) {
        double x = run_value(runs[i], w);
        s->ndiverged += runs[i]->diverged;
        if (!isfinite(x)) continue;
        s->value[s->n] = x;
        s->seed[s->n] = runs[i]->seed;
        s->id[s->n++] = runs[i]->id;
    }
}

/* The values of setting s->setting into s; 0, or the exit code after saying why not. */
static int read_side(const rep_db_t *d, const char *path, const rep_opts_t *o,
                     const report_welch_args_t *w, side_t *s)
{
    char len[64];
    int i = 0, j;
    while (i < d->n && strcmp(d->run[i].a.scenario, s->setting) != 0) i++;
    for (j = i; j < d->n && strcmp(d->run[j].a.scenario, s->setting) == 0;) j++;
    char *name = cli_text_escape(s->setting);
    int rc = 0;
    if (i == j) {
        rc = cli_bad_input("report: %s: no finished run of setting '%s'%s", path, name,
                           length_text(o, len, sizeof len));
    } else {
        rep_group_t g = rep_group(d->run + i, j - i);
        if (g.n > 1 && one_configuration(&g)) {
            rc = cli_bad_input("report: %s: setting '%s' holds runs of %d builds of one "
                               "configuration (git revisions %s and %s): Welch's test would "
                               "count their seeds as one sample; pass --pool-builds to pool "
                               "them, or keep one build's runs", path, name, g.n,
                               ana_build_name(g.member[0][0]->build),
                               ana_build_name(g.member[1][0]->build));
        } else if (g.n > 1) {
            char *keys = differing_keys(&g), *shown = cli_text_escape(keys);
            rc = cli_bad_input("report: %s: setting '%s' holds %d configurations (they differ"
                               " in %s): Welch's test would mix them; pass --updates N or"
                               " name settings of one configuration", path, name, g.n, shown);
            free(keys);
            free(shown);
        } else {
            collect(g.member[0], g.size[0], w, s);
        }
        rep_group_free(&g);
    }
    if (rc == 0 && s->n < 2)
        rc = cli_bad_input("report: %s: setting '%s' has %d seed(s) with a finite %s%s"
                           " (%d diverged); Welch's test needs 2 on each side", path, name,
                           s->n, w->metric, length_text(o, len, sizeof len), s->ndiverged);
    free(name);
    return rc;
}

static cJSON *side_json(const side_t *s)
{
    ana_summary_t sum = ana_summarize(s->value, s->n);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "setting", s->setting);
    cJSON_AddNumberToObject(o, "n", s->n);
    cJSON_AddNumberToObject(o, "mean", sum.mean);
    cJSON_AddNumberToObject(o, "sd", sum.sd);
    cJSON *seeds = cJSON_AddArrayToObject(o, "seeds"), *runs = cJSON_AddArrayToObject(o, "runs");
    for (int i = 0; i < s->n; i++) {
        cJSON_AddItemToArray(seeds, cJSON_CreateNumber((double)s->seed[i]));
        cJSON_AddItemToArray(runs, cJSON_CreateNumber((double)s->id[i]));
    }
    cJSON_AddNumberToObject(o, "n_diverged", s->ndiverged);
    return o;
}

/* A number, or null when it is not finite (cJSON would print an infinity as null too). */
static void add_number(cJSON *o, const char *k, double v)
{
    cJSON_AddItemToObject(o, k, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static void print_json(const side_t *a, const side_t *b, const ana_effect_t *t,
                       const rep_opts_t *o, const report_welch_args_t *w)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "metric", w->metric);
    cJSON_AddStringToObject(root, "window", w->final ? "final" : "last");
    cJSON_AddNumberToObject(root, "last_k", o->last_k);
    cJSON_AddItemToObject(root, "a", side_json(a));
    cJSON_AddItemToObject(root, "b", side_json(b));
    double lo, hi;
    ana_effect_interval(t, 0.05, &lo, &hi);
    add_number(root, "diff", t->effect);
    add_number(root, "t", t->t); /* infinite: null (p = 0 then) */
    add_number(root, "df", t->df);
    add_number(root, "p", t->p);
    add_number(root, "ci95_low", lo);
    add_number(root, "ci95_high", hi);
    char *text = sgd_json_print(root, false); /* numbers exact: cJSON rounds the last digit */
    SGD_ASSERT(text);
    puts(text);
    free(text);
    cJSON_Delete(root);
}

static void print_text(const side_t *a, const side_t *b, const ana_effect_t *t,
                       const rep_opts_t *o, const report_welch_args_t *w)
{
    char *m = cli_text_escape(w->metric), *na = cli_text_escape(a->setting),
         *nb = cli_text_escape(b->setting);
    char what[32];
    if (w->final) snprintf(what, sizeof what, "final");
    else snprintf(what, sizeof what, "last%d", o->last_k);
    double lo, hi;
    ana_effect_interval(t, 0.05, &lo, &hi);
    if (isnan(t->p))
        printf("%s %s %s (n=%d) - %s (n=%d): %+.4g; no test: the values are beyond double "
               "precision's range\n", m, what, na, a->n, nb, b->n, t->effect);
    else
        printf("%s %s %s (n=%d) - %s (n=%d): %+.4f; Welch t = %.3f, df = %.1f, two-sided p = "
               "%.3g; 95%% interval [%+.4f, %+.4f]\n", m, what, na, a->n, nb, b->n, t->effect,
               t->t, t->df, t->p, lo, hi);
    free(m), free(na), free(nb);
}

int report_welch(rdb_t *db, const char *path, const rep_opts_t *opts,
                 const report_welch_args_t *w)
{
    sgd_err_t err = {{0}};
    if (strcmp(w->metric, "vtime_s") != 0 && !rdb_has_metric(db, w->metric)) {
        char *shown = cli_text_escape(w->metric);
        int rc = cli_bad_input("report: %s: --metric %s: unknown metric (no run of the database "
                               "has it)", path, shown);
        free(shown);
        return rc;
    }
    rep_db_t d;
    if (rep_load(db, opts, &d, &err)) {
        rep_free(&d);
        return cli_bad_input("report: %s", err.msg);
    }
    side_t a = {.setting = w->a}, b = {.setting = w->b};
    int rc = read_side(&d, path, opts, w, &a);
    if (rc == 0) rc = read_side(&d, path, opts, w, &b);
    if (rc == 0) {
        ana_effect_t t; /* mean(A) - mean(B): B is the effect's baseline */
        SGD_ASSERT(ana_effect_welch(b.value, b.n, a.value, a.n, &t) == 0);
        if (w->json) print_json(&a, &b, &t, opts, w);
        else print_text(&a, &b, &t, opts, w);
    }
    side_free(&a);
    side_free(&b);
    rep_free(&d);
    return rc;
}
