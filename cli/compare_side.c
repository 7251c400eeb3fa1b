/* One side of `sgdsim compare` (compare_side.h). */
#include "cli/compare_side.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "cli/cli.h"
#include "common/error.h"
#include "results/rdb_rows.h"

static char *dup_or_empty(const char *s)
{
    return sgd_xstrdup(s ? s : "");
}

static crun_t crun_of(const rdb_run_row_t *r)
{
    return (crun_t){.id = r->id, .seed = r->seed, .workers = r->workers,
                    .vtime_ns = r->vtime_ns, .updates = r->updates,
                    .scenario = dup_or_empty(r->scenario), .algorithm = dup_or_empty(r->algorithm),
                    .status = dup_or_empty(r->status), .blas_core = dup_or_empty(r->blas_core),
                    .config_json = dup_or_empty(r->config_json),
                    .clock = ana_config_has_clock(r->config_json)};
}

int side_load(side_t *s)
{
    rdb_rows_it_t *it = NULL;
    sgd_err_t err = {{0}};
    int rc = rdb_runs_open(s->db, &(rdb_runs_query_t){0}, &it, &err) ? -1 : 1;
    rdb_run_row_t row;
    while (rc > 0 && (rc = rdb_runs_next(it, &row, &err)) > 0) {
        if (!row.status || strcmp(row.status, "running") == 0) continue;
        s->run = sgd_xrealloc(s->run, (size_t)(s->n + 1) * sizeof *s->run);
        s->run[s->n++] = crun_of(&row);
    }
    rdb_rows_close(it);
    return rc < 0 ? cli_bad_input("compare: %s", err.msg) : SGD_EXIT_OK;
}

void side_free(side_t *s)
{
    for (int i = 0; i < s->n; i++) {
        crun_t *r = &s->run[i];
        free(r->scenario), free(r->algorithm), free(r->status), free(r->blas_core);
        free(r->config_json);
    }
    free(s->run);
}

ana_pair_run_t *side_pair_runs(const side_t *s)
{
    ana_pair_run_t *p = sgd_xcalloc((size_t)s->n + 1, sizeof *p);
    for (int i = 0; i < s->n; i++)
        p[i] = (ana_pair_run_t){s->run[i].id, s->run[i].seed, s->run[i].config_json};
    return p;
}

static void seeds_text(const cgroup_t *g, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < g->n; i++) {
        size_t len = strlen(buf);
        if (len < size) snprintf(buf + len, size - len, "%s%lld", i ? "," : "",
                                 (long long)g->run[i]->seed);
    }
}

clabel_t side_label(const cgroup_t *b, const cgroup_t *c)
{
    const crun_t *r = b->run[0];
    clabel_t l = {.scenario = r->scenario};
    snprintf(l.config, sizeof l.config, "%s P=%lld", r->algorithm, (long long)r->workers);
    char sb[96], sc[96];
    seeds_text(b, sb, sizeof sb);
    if (c) seeds_text(c, sc, sizeof sc);
    snprintf(l.seeds, sizeof l.seeds, "%s%s%s", sb, c && strcmp(sb, sc) ? " / " : "",
             c && strcmp(sb, sc) ? sc : "");
    return l;
}

