/* `sgdsim compare BASELINE.db CANDIDATE.db [options]`: the regression test for algorithm
 * changes and the A/B of a hyper-parameter.
 *
 * Configurations (a run's configuration less its seed, and its build) are paired across the
 * two databases and every metric is judged over the seeds, then the whole call as one family
 * of tests (analysis/ab.h, analysis/verdict.h).  This file parses, has both databases read
 * and judged (analysis/ab_side.h) and prints (render/compare_table.h); with --run, seeds are
 * run until the rows are decided (sweep/decide.h).
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
#include "cli/machine.h"
#include "sweep/decide.h"
#include "render/compare_table.h"
#include "results/rdb_read.h"

ana_ab_dbs_t compare_dbs(const compare_args_t *a)
{
    return (ana_ab_dbs_t){.base_path = a->base_path, .cand_path = a->cand_path,
                          .metrics = a->metrics, .last = (int)a->last, .match = a->match,
                          .rule = a->rule};
}

void compare_render(const compare_args_t *a, const ana_ab_t *ab, const ana_ab_side_t *sides,
                    int exit_code, const char *extra)
{
    compare_view_t v = {.ab = ab, .base = &sides[0], .cand = &sides[1], .exit_code = exit_code};
    rnd_format_t fmt = (rnd_format_t)a->format;
    if (fmt == RND_FMT_JSON) compare_json_print(&v, stdout);
    else compare_table_print(&v, fmt, stdout);
    if (fmt == RND_FMT_TEXT) printf("\n");
    sgd_strbuf_t s = {0};
    ana_ab_summary(ab, &s);
    fprintf(fmt == RND_FMT_TEXT ? stdout : stderr, "compare: %s%s%s\n", s.p, extra ? "; " : "",
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
    ana_ab_side_t sides[2];
    ana_ab_t ab;
    ana_ab_dbs_t d = compare_dbs(a);
    sgd_err_t err = {{0}};
    if (ana_ab_sides_open(&d, &sides[0], &sides[1], &err))
        return cli_bad_input("compare: %s", err.msg);
    int rc = ana_ab_sides_judge(&d, d.rule.alpha, sides, &ab, &err)
                 ? cli_bad_input("compare: %s", err.msg) : SGD_EXIT_OK;
    if (rc == SGD_EXIT_OK) {
        rc = ana_ab_exit(&ab);
        compare_render(a, &ab, sides, rc, NULL);
        ana_ab_free(&ab);
    }
    ana_ab_sides_close(&sides[0], &sides[1]);
    return rc;
}

/* --run: seeds in batches until every row that counts is decided, then the rows. */
static int compare_until_decided(const compare_args_t *a)
{
    scn_machine_t machine;
    cli_machine_get((int64_t)a->jobs, &machine);
    sweep_decide_opts_t o = {.dbs = compare_dbs(a), .run_scenario = a->run_scenario,
                             .base_scenario = a->base_scenario, .sets = a->sets.v,
                             .nsets = a->sets.n, .base_sets = a->base_sets.v,
                             .nbase_sets = a->base_sets.n, .max_seeds = (int)a->max_seeds,
                             .batch = (int)a->batch, .jobs = (int)a->jobs,
                             .build = cli_git_rev(), .machine = &machine,
                             .child_env = cli_machine_child_env,
                             .child_env_free = cli_machine_env_free};
    sweep_decided_t d;
    int rc = sweep_decide(&o, &d);
    if (rc) return rc;
    compare_render(a, &d.ab, d.sides, d.exit_code, d.summary);
    rc = d.exit_code;
    sweep_decided_free(&d);
    return rc;
}

int cli_compare_main(int argc, char **argv)
{
    compare_args_t a;
    bool help;
    int rc = compare_args_parse(argc, argv, &a, &help);
    if (rc == SGD_EXIT_OK && !help)
        rc = a.run_scenario ? compare_until_decided(&a) : compare_once(&a);
    compare_args_free(&a);
    return rc;
}
