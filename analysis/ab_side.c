/* One side of `sgdsim compare` (ab_side.h). */
#include "analysis/ab_side.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "common/error.h"
#include "results/rdb_read.h"
#include "results/rdb_rows.h"

/* A copy of text (NULL stays NULL) that s frees. */
static const char *keep(ana_ab_side_t *s, const char *text)
{
    if (!text) return NULL;
    s->owned = sgd_xrealloc(s->owned, (size_t)(s->nowned + 1) * sizeof *s->owned);
    return s->owned[s->nowned++] = sgd_xstrdup(text);
}

static void add_run(ana_ab_side_t *s, const rdb_run_row_t *r)
{
    s->run = sgd_xrealloc(s->run, (size_t)(s->n + 1) * sizeof *s->run);
    s->ab = sgd_xrealloc(s->ab, (size_t)(s->n + 1) * sizeof *s->ab);
    s->run[s->n] = (ana_ab_side_run_t){.id = r->id, .seed = r->seed, .workers = r->workers,
                            .scenario = sgd_xstrdup(r->scenario ? r->scenario : ""),
                            .algorithm = sgd_xstrdup(r->algorithm ? r->algorithm : ""),
                            .sweep_axes = r->sweep_axes ? sgd_xstrdup(r->sweep_axes) : NULL};
    s->ab[s->n] = (ana_ab_run_t){.id = r->id, .seed = r->seed, .updates = r->updates,
                                 .vtime_ns = r->vtime_ns, .status = keep(s, r->status),
                                 .blas_core = keep(s, r->blas_core),
                                 .config_json = keep(s, r->config_json ? r->config_json : ""),
                                 .build = keep(s, r->git_rev),
                                 .clock = ana_run_has_clock(r)};
    s->n++;
}

int ana_ab_side_load(ana_ab_side_t *s, sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    int rc = rdb_runs_open(s->db, &(rdb_runs_query_t){0}, &it, err) ? -1 : 1;
    rdb_run_row_t row;
    while (rc > 0 && (rc = rdb_runs_next(it, &row, err)) > 0)
        if (row.status && strcmp(row.status, "running") != 0) add_run(s, &row);
    rdb_rows_close(it);
    return rc < 0 ? -1 : 0;
}

void ana_ab_side_free(ana_ab_side_t *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->run[i].scenario), free(s->run[i].algorithm), free(s->run[i].sweep_axes);
    for (int i = 0; i < s->nowned; i++) free(s->owned[i]);
    free(s->run), free(s->ab), free(s->owned);
    s->run = NULL, s->ab = NULL, s->owned = NULL, s->n = s->nowned = 0;
}

static int read_series(void *ctx, int side, int run, const char *name, rdb_series_t *out,
                       bool *owned, sgd_err_t *err)
{
    ana_ab_side_t *s = &((ana_ab_side_t *)ctx)[side];
    *owned = true;
    return rdb_read_series(s->db, s->run[run].id, name, out, err);
}

static int metric_names(void *ctx, int side, int run, char ***names, int *n, sgd_err_t *err)
{
    ana_ab_side_t *s = &((ana_ab_side_t *)ctx)[side];
    return rdb_run_metric_names(s->db, s->run[run].id, names, n, err);
}

ana_ab_source_t ana_ab_side_source(ana_ab_side_t *sides)
{
    return (ana_ab_source_t){.ctx = sides, .series = read_series, .metric_names = metric_names};
}

void ana_ab_side_label(const ana_ab_side_t *s, int i, char *buf, size_t size)
{
    snprintf(buf, size, "%s P=%lld", s->run[i].algorithm, (long long)s->run[i].workers);
}

/* ---- the two databases ----------------------------------------------------------------- */

/* Every name of d->metrics (but vtime_s) must be a metric of one of the databases. */
static int check_metrics(rdb_t *hb, rdb_t *hc, const ana_ab_dbs_t *d, sgd_err_t *err)
{
    if (!d->metrics) return 0;
    int rc = 0;
    char *copy = sgd_xstrdup(d->metrics), *save = NULL;
    for (char *m = strtok_r(copy, ",", &save); m && rc == 0; m = strtok_r(NULL, ",", &save))
        if (strcmp(m, "vtime_s") != 0 && !rdb_has_metric(hb, m) && !rdb_has_metric(hc, m))
            rc = sgd_errf(err, "--metrics: no metric \"%s\" in %s or %s", m, d->base_path,
                          d->cand_path);
    free(copy);
    return rc;
}

int ana_ab_sides_open(const ana_ab_dbs_t *d, ana_ab_side_t *base, ana_ab_side_t *cand,
                      sgd_err_t *err)
{
    *base = (ana_ab_side_t){.path = d->base_path};
    *cand = (ana_ab_side_t){.path = d->cand_path};
    int rc = rdb_open_readonly(d->base_path, &base->db, err) ||
             rdb_open_readonly(d->cand_path, &cand->db, err) ||
             check_metrics(base->db, cand->db, d, err) || ana_ab_side_load(base, err) ||
             ana_ab_side_load(cand, err) ? -1 : 0;
    if (rc) ana_ab_sides_close(base, cand);
    return rc;
}

void ana_ab_sides_close(ana_ab_side_t *base, ana_ab_side_t *cand)
{
    ana_ab_side_free(base);
    ana_ab_side_free(cand);
    rdb_close(base->db);
    rdb_close(cand->db);
    base->db = cand->db = NULL;
}

int ana_ab_sides_judge(const ana_ab_dbs_t *d, double alpha, ana_ab_side_t *sides,
                       ana_ab_t *ab, sgd_err_t *err)
{
    ana_ab_opts_t o = {.match = d->match, .rule = d->rule, .last = d->last,
                       .metrics = d->metrics};
    o.rule.alpha = alpha;
    ana_ab_source_t src = ana_ab_side_source(sides);
    return ana_ab_compare(sides[0].ab, sides[0].n, sides[1].ab, sides[1].n, &src, &o, ab, err);
}
