/* compare's verdict table for two databases (web/verdicts.h).  The same analysis calls as
 * cli/cmd_compare.c, in the same order: pairing, then per pair the status verdict, vtime_s
 * and each metric's judgement, a status that moved overriding a metric with a sense. */
#include "web/verdicts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "analysis/pairs.h"
#include "common/strbuf.h"
#include "web/bands.h"

/* One side: the study's indices of its database's runs that ended. */
typedef struct side {
    int *run;
    int n;
    ana_pair_run_t *pr;
} side_t;

static side_t side_of(const web_study_t *s, int db)
{
    side_t d = {.run = sgd_xcalloc((size_t)s->nruns + 1, sizeof(int)),
                .pr = sgd_xcalloc((size_t)s->nruns + 1, sizeof(ana_pair_run_t))};
    for (int i = 0; i < s->nruns; i++) {
        const web_run_t *r = &s->run[i];
        if (r->db != db || !r->status || strcmp(r->status, "running") == 0) continue;
        d.pr[d.n] = (ana_pair_run_t){r->id, r->seed, r->config_json ? r->config_json : ""};
        d.run[d.n++] = i;
    }
    return d;
}

/* A group of the pairing as study runs (seed order). */
typedef struct grp {
    const web_run_t **r;
    int n;
} grp_t;

static grp_t grp_of(const web_study_t *s, const side_t *d, const ana_group_t *g)
{
    grp_t o = {sgd_xcalloc((size_t)g->n + 1, sizeof *o.r), g->n};
    for (int i = 0; i < g->n; i++) o.r[i] = &s->run[d->run[g->idx[i]]];
    return o;
}

static void add_row(web_verdicts_t *v, const char *const label[3], const char *metric,
                    ana_verdict_t verdict, const char *detail)
{
    v->row = sgd_xrealloc(v->row, (size_t)(v->n + 1) * sizeof *v->row);
    v->row[v->n++] = (web_verdict_row_t){sgd_xstrdup(label[0]), sgd_xstrdup(label[1]),
                                         sgd_xstrdup(label[2]), sgd_xstrdup(metric),
                                         sgd_xstrdup(detail), verdict};
}

/* The configuration's label: its group's, or its scenario for a run a newer rerun of its
 * seed stands in for on the page. */
static const char *config_label(const web_study_t *s, const web_run_t *r)
{
    return r->group >= 0 ? s->group[r->group].label : r->scenario ? r->scenario : "";
}

static void seeds_text(const grp_t *g, sgd_strbuf_t *b)
{
    for (int i = 0; i < g->n; i++) sgd_strbuf_printf(b, "%s%lld", i ? "," : "", (long long)g->r[i]->seed);
}

static bool complete(const web_run_t *r)
{
    return r->status && strcmp(r->status, "complete") == 0;
}

static bool same_seeds(const grp_t *b, const grp_t *c)
{
    if (b->n != c->n) return false;
    for (int i = 0; i < b->n; i++)
        if (b->r[i]->seed != c->r[i]->seed) return false;
    return true;
}

static ana_verdict_t status_verdict(const grp_t *b, const grp_t *c)
{
    int bad_b = 0, bad_c = 0;
    bool same = same_seeds(b, c);
    for (int i = 0; i < b->n; i++) bad_b += !complete(b->r[i]);
    for (int i = 0; i < c->n; i++) bad_c += !complete(c->r[i]);
    for (int i = 0; same && i < b->n; i++) same = strcmp(b->r[i]->status, c->r[i]->status) == 0;
    return ana_status_verdict(bad_b, b->n, bad_c, c->n, same);
}

/* "0.3565 ± 0.012 (n=3)" as compare writes it. */
static void summary_text(sgd_strbuf_t *b, const ana_summary_t *s)
{
    if (s->n > 1) sgd_strbuf_printf(b, "%.6g \u00b1 %.2g (n=%d)", s->mean, s->sd, s->n);
    else if (s->n == 1) sgd_strbuf_printf(b, "%.6g (n=1)", s->mean);
    else sgd_strbuf_puts(b, "no finite value");
}

/* One judged metric: values a[0..na) (finite) and b[0..nb), as compare judges them. */
static void judge(web_verdicts_t *v, const char *const label[3], const char *name,
                  const ana_metric_in_t *in, ana_verdict_t status, bool kernels_differ)
{
    ana_rule_t rule = {.rtol = 0, .alpha = 0.05, .min_effect = 0.01,
                       .kernels_differ = kernels_differ};
    ana_sense_t sense = ana_metric_sense(name);
    ana_judgement_t j = ana_judge(in, sense, &rule);
    ana_verdict_t verdict = j.verdict;
    if (verdict != ANA_SAME && (status == ANA_WORSE || status == ANA_BETTER))
        verdict = sense == ANA_NEUTRAL ? ANA_DIFFERS : status;
    sgd_strbuf_t d = {0};
    summary_text(&d, &j.base);
    if (j.verdict != ANA_SAME) {
        sgd_strbuf_puts(&d, " -> ");
        summary_text(&d, &j.cand);
        if (isfinite(j.rel_diff)) sgd_strbuf_printf(&d, ", %+.3g%%", 100 * j.rel_diff);
        if (!isnan(j.p)) sgd_strbuf_printf(&d, ", Welch p=%.3g", j.p);
    } else {
        sgd_strbuf_puts(&d, ", every run bit-equal");
    }
    if (verdict != j.verdict) sgd_strbuf_puts(&d, "; a run did not complete");
    add_row(v, label, name, verdict, d.p);
    sgd_strbuf_free(&d);
}

static void judge_vtime(web_verdicts_t *v, const char *const label[3], const grp_t *b,
                        const grp_t *c, ana_verdict_t status, bool kd)
{
    if (!b->r[0]->clock || !c->r[0]->clock) {
        add_row(v, label, "vtime_s", ANA_NO_CLOCK, ANA_NO_CLOCK_TEXT);
        return;
    }
    double *vb = sgd_xcalloc((size_t)b->n + 1, sizeof *vb), *vc = sgd_xcalloc((size_t)c->n + 1,
                                                                              sizeof *vc);
    bool equal = same_seeds(b, c);
    for (int i = 0; i < b->n; i++) vb[i] = (double)b->r[i]->vtime_ns * 1e-9;
    for (int i = 0; i < c->n; i++) vc[i] = (double)c->r[i]->vtime_ns * 1e-9;
    for (int i = 0; equal && i < b->n; i++) equal = b->r[i]->vtime_ns == c->r[i]->vtime_ns;
    ana_metric_in_t in = {vb, vc, b->n, c->n, 0, 0, equal};
    judge(v, label, "vtime_s", &in, status, kd);
    free(vb), free(vc);
}

/* Each member's window value of `name`: finite ones into out, *rows how many have rows. */
static int window_values(const grp_t *g, const char *name, double *out, int *nonfinite,
                         int *rows)
{
    int n = 0;
    *nonfinite = *rows = 0;
    for (int i = 0; i < g->n; i++) {
        const rdb_series_t *s = web_run_series(g->r[i], name);
        if (!s || s->n == 0) continue;
        (*rows)++;
        if (ana_window(s, WEB_VERDICT_LAST, &out[n])) n++;
        else (*nonfinite)++;
    }
    return n;
}

static bool series_equal(const grp_t *b, const grp_t *c, const char *name)
{
    static const rdb_series_t none = {0};
    bool equal = same_seeds(b, c);
    for (int i = 0; equal && i < b->n; i++) {
        const rdb_series_t *x = web_run_series(b->r[i], name), *y = web_run_series(c->r[i], name);
        equal = ana_series_identical(x ? x : &none, y ? y : &none);
    }
    return equal;
}

static void judge_metric(web_verdicts_t *v, const char *const label[3], const grp_t *b,
                         const grp_t *c, const char *name, ana_verdict_t status, bool kd)
{
    if (!b->r[0]->clock && strcmp(name, "images_per_s") == 0) {
        add_row(v, label, name, ANA_NO_CLOCK, ANA_NO_CLOCK_TEXT);
        return;
    }
    double *vb = sgd_xcalloc((size_t)b->n + 1, sizeof *vb), *vc = sgd_xcalloc((size_t)c->n + 1,
                                                                              sizeof *vc);
    int nfb, nfc, rows_b, rows_c;
    int nb = window_values(b, name, vb, &nfb, &rows_b), nc = window_values(c, name, vc, &nfc,
                                                                           &rows_c);
    if (rows_c == 0) {
        char detail[300];
        snprintf(detail, sizeof detail, "no %.200s rows in the candidate", name);
        add_row(v, label, name, ANA_MISSING, detail);
    } else {
        ana_metric_in_t in = {vb, vc, nb, nc, nfb, nfc, series_equal(b, c, name)};
        judge(v, label, name, &in, status, kd);
    }
    free(vb), free(vc);
}

/* The rows of one paired configuration. */
static void pair_rows(web_verdicts_t *v, const web_study_t *s, const grp_t *b, const grp_t *c)
{
    sgd_strbuf_t seeds = {0}, other = {0};
    seeds_text(b, &seeds);
    seeds_text(c, &other);
    if (strcmp(seeds.p, other.p) != 0) sgd_strbuf_printf(&seeds, " / %s", other.p);
    const web_run_t *r = b->r[0];
    const char *label[3] = {r->scenario ? r->scenario : "", config_label(s, r), seeds.p};
    bool kd = strcmp(r->blas_core ? r->blas_core : "", c->r[0]->blas_core ? c->r[0]->blas_core
                                                                          : "") != 0;
    ana_verdict_t status = status_verdict(b, c);
    add_row(v, label, "status", status, status == ANA_SAME ? "complete" : "statuses differ");
    judge_vtime(v, label, b, c, status, kd);
    for (int m = 0; m < r->nmetrics; m++)
        judge_metric(v, label, b, c, r->metric[m].name, status, kd);
    sgd_strbuf_free(&seeds), sgd_strbuf_free(&other);
}

static void unpaired_row(web_verdicts_t *v, const web_study_t *s, const grp_t *b,
                         const ana_pair_t *p)
{
    sgd_strbuf_t seeds = {0}, d = {0};
    seeds_text(b, &seeds);
    const web_run_t *r = b->r[0];
    const char *label[3] = {r->scenario ? r->scenario : "", config_label(s, r), seeds.p};
    if (p->kind == ANA_UNPAIRED && p->differs)
        sgd_strbuf_printf(&d, "no candidate configuration matches; the nearest differs in %s",
                       p->differs);
    else if (p->kind == ANA_UNPAIRED) sgd_strbuf_puts(&d, "the candidate has no runs");
    else sgd_strbuf_printf(&d, "%d baseline and %d candidate configurations match", p->nbase,
                        p->ncand);
    add_row(v, label, "(configuration)", p->kind == ANA_UNPAIRED ? ANA_MISSING : ANA_AMBIGUOUS,
            d.p);
    sgd_strbuf_free(&seeds), sgd_strbuf_free(&d);
}

int web_verdicts(const web_study_t *s, web_verdicts_t *v, sgd_err_t *err)
{
    *v = (web_verdicts_t){0};
    side_t b = side_of(s, 0), c = side_of(s, 1);
    ana_match_t match = {{0}, {0}};
    ana_pairing_t p;
    int rc = ana_pair_runs(b.pr, b.n, c.pr, c.n, &match, &p, err);
    if (rc == 0) {
        char how[256];
        ana_match_describe(&match, how, sizeof how);
        snprintf(v->rule, sizeof v->rule, "configurations paired %s; each run's value: the "
                 "mean of its last %d rows; rtol 0, alpha 0.05, min effect 0.01 (sgdsim "
                 "compare's defaults)", how, WEB_VERDICT_LAST);
        v->nnew = p.nnew;
        for (int i = 0; i < p.npairs; i++) {
            const ana_pair_t *pr = &p.pair[i];
            grp_t gb = grp_of(s, &b, &p.base.group[pr->base]);
            if (pr->kind == ANA_PAIRED) {
                grp_t gc = grp_of(s, &c, &p.cand.group[pr->cand]);
                pair_rows(v, s, &gb, &gc);
                free(gc.r);
            } else {
                unpaired_row(v, s, &gb, pr);
            }
            free(gb.r);
        }
        ana_pairing_free(&p);
    }
    free(b.run), free(b.pr), free(c.run), free(c.pr);
    return rc;
}

void web_verdicts_free(web_verdicts_t *v)
{
    for (int i = 0; i < v->n; i++) {
        web_verdict_row_t *r = &v->row[i];
        free(r->scenario), free(r->configuration), free(r->seeds), free(r->metric);
        free(r->detail);
    }
    free(v->row);
    *v = (web_verdicts_t){0};
}
