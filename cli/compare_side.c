/* One side of `sgdsim compare` (compare_side.h). */
#include "cli/compare_side.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "cli/cli.h"
#include "common/error.h"
#include "results/rdb_read.h"
#include "results/rdb_rows.h"

/* A copy of text (NULL stays NULL) that s frees. */
static const char *keep(side_t *s, const char *text)
{
    if (!text) return NULL;
    s->owned = sgd_xrealloc(s->owned, (size_t)(s->nowned + 1) * sizeof *s->owned);
    return s->owned[s->nowned++] = sgd_xstrdup(text);
}

static void add_run(side_t *s, const rdb_run_row_t *r)
{
    s->run = sgd_xrealloc(s->run, (size_t)(s->n + 1) * sizeof *s->run);
    s->ab = sgd_xrealloc(s->ab, (size_t)(s->n + 1) * sizeof *s->ab);
    s->run[s->n] = (crun_t){.id = r->id, .seed = r->seed, .workers = r->workers,
                            .scenario = sgd_xstrdup(r->scenario ? r->scenario : ""),
                            .algorithm = sgd_xstrdup(r->algorithm ? r->algorithm : ""),
                            .sweep_axes = r->sweep_axes ? sgd_xstrdup(r->sweep_axes) : NULL};
    s->ab[s->n] = (ana_ab_run_t){.id = r->id, .seed = r->seed, .updates = r->updates,
                                 .vtime_ns = r->vtime_ns, .status = keep(s, r->status),
                                 .blas_core = keep(s, r->blas_core),
                                 .config_json = keep(s, r->config_json ? r->config_json : ""),
                                 .build = keep(s, r->git_rev),
                                 .clock = ana_config_has_clock(r->config_json)};
    s->n++;
}

int side_load(side_t *s)
{
    rdb_rows_it_t *it = NULL;
    sgd_err_t err = {{0}};
    int rc = rdb_runs_open(s->db, &(rdb_runs_query_t){0}, &it, &err) ? -1 : 1;
    rdb_run_row_t row;
    while (rc > 0 && (rc = rdb_runs_next(it, &row, &err)) > 0)
        if (row.status && strcmp(row.status, "running") != 0) add_run(s, &row);
    rdb_rows_close(it);
    return rc < 0 ? cli_bad_input("compare: %s", err.msg) : SGD_EXIT_OK;
}

void side_free(side_t *s)
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
    side_t *s = &((side_t *)ctx)[side];
    *owned = true;
    return rdb_read_series(s->db, s->run[run].id, name, out, err);
}

static int metric_names(void *ctx, int side, int run, char ***names, int *n, sgd_err_t *err)
{
    side_t *s = &((side_t *)ctx)[side];
    return rdb_run_metric_names(s->db, s->run[run].id, names, n, err);
}

ana_ab_source_t side_source(side_t *sides)
{
    return (ana_ab_source_t){.ctx = sides, .series = read_series, .metric_names = metric_names};
}

void side_label(const side_t *s, int i, char *buf, size_t size)
{
    snprintf(buf, size, "%s P=%lld", s->run[i].algorithm, (long long)s->run[i].workers);
}
