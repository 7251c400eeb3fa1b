/* compare's verdict table for two databases (web/verdicts.h): the study's runs handed to
 * the A/B comparison of analysis/ab.h, and its rows rendered as compare renders them. */
#include "web/verdicts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "web/bands.h"

/* One side: the study's indices of its database's runs that ended, as the comparison
 * takes them. */
typedef struct side {
    int *run;
    ana_ab_run_t *ab;
    int n;
} side_t;

static side_t side_of(const web_study_t *s, int db)
{
    side_t d = {.run = sgd_xcalloc((size_t)s->nruns + 1, sizeof(int)),
                .ab = sgd_xcalloc((size_t)s->nruns + 1, sizeof(ana_ab_run_t))};
    for (int i = 0; i < s->nruns; i++) {
        const web_run_t *r = &s->run[i];
        if (r->db != db || !r->status || strcmp(r->status, "running") == 0) continue;
        d.ab[d.n] = (ana_ab_run_t){.id = r->id, .seed = r->seed, .updates = r->updates,
                                   .vtime_ns = r->vtime_ns, .status = r->status,
                                   .blas_core = r->blas_core,
                                   .config_json = r->config_json ? r->config_json : "",
                                   .build = r->text[3], .clock = r->clock};
        d.run[d.n++] = i;
    }
    return d;
}

/* Where the comparison's rows come from: the study's series, lent. */
typedef struct source_ctx {
    const web_study_t *s;
    const side_t *side; /* [2] */
} source_ctx_t;

static int series(void *ctx, int side, int run, const char *name, rdb_series_t *out,
                  bool *owned, sgd_err_t *err)
{
    (void)err;
    const source_ctx_t *c = ctx;
    const rdb_series_t *x = web_run_series(&c->s->run[c->side[side].run[run]], name);
    *out = x ? *x : (rdb_series_t){0};
    *owned = false;
    return 0;
}

static int metric_names(void *ctx, int side, int run, char ***names, int *n, sgd_err_t *err)
{
    (void)err;
    const source_ctx_t *c = ctx;
    const web_run_t *r = &c->s->run[c->side[side].run[run]];
    *names = sgd_xcalloc((size_t)r->nmetrics + 1, sizeof **names);
    for (int m = 0; m < r->nmetrics; m++) (*names)[m] = sgd_xstrdup(r->metric[m].name);
    *n = r->nmetrics;
    return 0;
}

/* The configuration's label: its group's, or its scenario for a run a newer rerun of its
 * seed stands in for on the page. */
static const char *config_label(const web_study_t *s, const web_run_t *r)
{
    return r->group >= 0 ? s->group[r->group].label : r->scenario ? r->scenario : "";
}

static void add_rows(web_verdicts_t *v, const web_study_t *s, const side_t *sd,
                     const ana_ab_t *ab)
{
    v->row = sgd_xcalloc((size_t)ab->nrows + 1, sizeof *v->row);
    for (int i = 0; i < ab->nrows; i++) {
        const ana_ab_row_t *r = &ab->row[i];
        const ana_group_t *g = &ab->pairs.base.group[ab->pairs.pair[r->pair].base];
        const web_run_t *run = &s->run[sd[0].run[g->idx[0]]];
        sgd_strbuf_t seeds = {0}, d = {0};
        ana_ab_seeds_text(ab, sd[0].ab, sd[1].ab, r->pair, &seeds);
        ana_ab_detail(ab, r, &d);
        v->row[v->n++] = (web_verdict_row_t){
            sgd_xstrdup(run->scenario ? run->scenario : ""), sgd_xstrdup(config_label(s, run)),
            sgd_strbuf_take(&seeds), sgd_xstrdup(r->what), sgd_strbuf_take(&d), r->verdict,
            r->counts && ana_verdict_fails(r->verdict)};
        sgd_strbuf_free(&seeds), sgd_strbuf_free(&d);
    }
}

/* The study group of a pairing group's first run. */
static int study_group(const web_study_t *s, const side_t *d, const ana_group_t *g)
{
    return s->run[d->run[g->idx[0]]].group;
}

/* Pairs share a colour; every other group gets one of its own after them. */
static void pair_colors(web_verdicts_t *v, const web_study_t *s, const side_t *sd,
                        const ana_ab_t *ab)
{
    v->color = sgd_xcalloc((size_t)s->ngroups + 1, sizeof *v->color);
    for (int g = 0; g < s->ngroups; g++) v->color[g] = -1;
    int next = 0;
    for (int p = 0; p < ab->pairs.npairs; p++) {
        const ana_pair_t *pr = &ab->pairs.pair[p];
        if (pr->kind != ANA_PAIRED) continue;
        int gb = study_group(s, &sd[0], &ab->pairs.base.group[pr->base]);
        int gc = study_group(s, &sd[1], &ab->pairs.cand.group[pr->cand]);
        if (gb < 0 || gc < 0 || v->color[gb] >= 0 || v->color[gc] >= 0) continue;
        v->color[gb] = v->color[gc] = next++;
    }
    for (int g = 0; g < s->ngroups; g++)
        if (v->color[g] < 0) v->color[g] = next++;
}

int web_verdicts(const web_study_t *s, const ana_match_t *match, web_verdicts_t *v,
                 sgd_err_t *err)
{
    *v = (web_verdicts_t){0};
    side_t sd[2] = {side_of(s, 0), side_of(s, 1)};
    source_ctx_t ctx = {s, sd};
    ana_ab_source_t src = {.ctx = &ctx, .series = series, .metric_names = metric_names};
    ana_ab_opts_t o = {.match = *match, .rule = ana_rule_default(), .last = ANA_LAST_DEFAULT};
    ana_ab_t ab;
    int rc = ana_ab_compare(sd[0].ab, sd[0].n, sd[1].ab, sd[1].n, &src, &o, &ab, err);
    if (rc == 0) {
        add_rows(v, s, sd, &ab);
        sgd_strbuf_t rule = {0};
        ana_ab_summary(&ab, &rule);
        sgd_strbuf_puts(&rule, " (sgdsim compare's defaults)");
        v->rule = sgd_strbuf_take(&rule);
        v->nnew = ab.pairs.nnew;
        v->exit_code = ana_ab_exit(&ab);
        pair_colors(v, s, sd, &ab);
        ana_ab_free(&ab);
    }
    for (int i = 0; i < 2; i++) free(sd[i].run), free(sd[i].ab);
    return rc;
}

void web_group_colors(const web_study_t *s, web_verdicts_t *v)
{
    v->color = sgd_xcalloc((size_t)s->ngroups + 1, sizeof *v->color);
    for (int g = 0; g < s->ngroups; g++) v->color[g] = g;
}

void web_verdicts_free(web_verdicts_t *v)
{
    for (int i = 0; i < v->n; i++) {
        web_verdict_row_t *r = &v->row[i];
        free(r->scenario), free(r->configuration), free(r->seeds), free(r->metric);
        free(r->detail);
    }
    free(v->row), free(v->rule), free(v->color);
    *v = (web_verdicts_t){0};
}
