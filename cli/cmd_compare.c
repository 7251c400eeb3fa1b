/* `sgdsim compare BASELINE.db CANDIDATE.db [options]`: the regression test for algorithm
 * changes and the A/B of a hyper-parameter.
 *
 * Configurations (a run's configuration less its seed, and its build) are paired across the
 * two databases and every metric is judged over the seeds, then the whole call as one family
 * of tests (analysis/ab.h, analysis/verdict.h).  This file parses, reads both databases
 * (cli/compare_side.h) and prints (cli/compare_table.h); with --run it runs seeds until the
 * rows are decided (cli/compare_run.h).
 *
 * Exit codes (a contract for CI): 0 every row that counts is same, equivalent, better,
 * differs or has no clock; 1 something is worse, missing or ambiguous; 4 nothing fails but
 * something is inconclusive (more seeds would decide it); 2 bad input. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/compare_table.h"
#include "results/rdb_read.h"

/* Every name of --metrics (but vtime_s) must be a metric of one of the databases. */
static int check_metrics(rdb_t *hb, rdb_t *hc, const compare_args_t *a)
{
    if (!a->metrics) return SGD_EXIT_OK;
    int rc = SGD_EXIT_OK;
    char *copy = sgd_xstrdup(a->metrics), *save = NULL;
    for (char *m = strtok_r(copy, ",", &save); m && rc == SGD_EXIT_OK;
         m = strtok_r(NULL, ",", &save))
        if (strcmp(m, "vtime_s") != 0 && !rdb_has_metric(hb, m) && !rdb_has_metric(hc, m))
            rc = cli_bad_input("compare: --metrics: no metric \"%s\" in %s or %s", m,
                               a->base_path, a->cand_path);
    free(copy);
    return rc;
}

int compare_open(const compare_args_t *a, side_t *base, side_t *cand)
{
    *base = (side_t){.path = a->base_path};
    *cand = (side_t){.path = a->cand_path};
    sgd_err_t err = {{0}};
    int rc = SGD_EXIT_OK;
    if (rdb_open_readonly(a->base_path, &base->db, &err) ||
        rdb_open_readonly(a->cand_path, &cand->db, &err))
        rc = cli_bad_input("compare: %s", err.msg);
    if (rc == SGD_EXIT_OK) rc = check_metrics(base->db, cand->db, a);
    if (rc == SGD_EXIT_OK) rc = side_load(base);
    if (rc == SGD_EXIT_OK) rc = side_load(cand);
    if (rc != SGD_EXIT_OK) compare_close(base, cand);
    return rc;
}

void compare_close(side_t *base, side_t *cand)
{
    side_free(base);
    side_free(cand);
    rdb_close(base->db);
    rdb_close(cand->db);
    base->db = cand->db = NULL;
}

int compare_judge(const compare_args_t *a, double alpha, side_t *sides, ana_ab_t *ab)
{
    ana_ab_opts_t o = {.match = a->match, .rule = a->rule, .last = (int)a->last,
                       .metrics = a->metrics};
    o.rule.alpha = alpha;
    ana_ab_source_t src = side_source(sides);
    sgd_err_t err = {{0}};
    if (ana_ab_compare(sides[0].ab, sides[0].n, sides[1].ab, sides[1].n, &src, &o, ab, &err))
        return cli_bad_input("compare: %s", err.msg);
    return SGD_EXIT_OK;
}

void compare_render(const compare_args_t *a, const ana_ab_t *ab, const side_t *sides,
                    int exit_code, const char *extra)
{
    compare_view_t v = {.ab = ab, .base = &sides[0], .cand = &sides[1], .exit_code = exit_code};
    cli_format_t fmt = (cli_format_t)a->format;
    if (fmt == CLI_FMT_JSON) compare_json_print(&v, stdout);
    else compare_table_print(&v, fmt, stdout);
    if (fmt == CLI_FMT_TEXT) printf("\n");
    sgd_strbuf_t s = {0};
    ana_ab_summary(ab, &s);
    fprintf(fmt == CLI_FMT_TEXT ? stdout : stderr, "compare: %s%s%s\n", s.p, extra ? "; " : "",
            extra ? extra : "");
    sgd_strbuf_free(&s);
    if (ab->kernels_differ)
        fprintf(stderr, "compare: note: paired runs used different BLAS kernels "
                        "(runs.blas_core): last-bit differences are expected; runs of one "
                        "build and configuration on another kernel read \"equivalent\"\n");
}

/* One look at the two databases as they are. */
static int compare_once(const compare_args_t *a)
{
    side_t sides[2];
    int rc = compare_open(a, &sides[0], &sides[1]);
    if (rc != SGD_EXIT_OK) return rc;
    ana_ab_t ab;
    rc = compare_judge(a, a->rule.alpha, sides, &ab);
    if (rc == SGD_EXIT_OK) {
        rc = ana_ab_exit(&ab);
        compare_render(a, &ab, sides, rc, NULL);
        ana_ab_free(&ab);
    }
    compare_close(&sides[0], &sides[1]);
    return rc;
}

int cli_compare_main(int argc, char **argv)
{
    compare_args_t a;
    bool help;
    int rc = compare_args_parse(argc, argv, &a, &help);
    if (rc == SGD_EXIT_OK && !help) rc = a.run_scenario ? compare_run(&a) : compare_once(&a);
    compare_args_free(&a);
    return rc;
}
