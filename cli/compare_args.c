/* The arguments of `sgdsim compare` (compare.h): the table of options, their checks and the
 * usage text. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/table.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim compare BASELINE.db CANDIDATE.db [--last K] [--alpha A]\n"
        "                      [--min-effect E] [--correction holm|bh|none] [--rtol X]\n"
        "                      [--metrics a,b,...] [--match-on KEYS] [--ignore KEYS]\n"
        "                      [--pool-builds] [--csv | --json]\n"
        "       sgdsim compare BASELINE.db CANDIDATE.db --run SCENARIO [--set K=V ...]\n"
        "                      [--run-baseline SCENARIO [--baseline-set K=V ...]]\n"
        "                      [--max-seeds N] [--batch N] [-j N] [options above]\n\n"
        "Pairs the configurations of the two databases (a run's configuration less its\n"
        "seed, run by one build) and judges, per configuration, the status, the virtual\n"
        "time (vtime_s) and every metric over the seeds: each run's value is the mean of\n"
        "the last K rows of its series. The effect (candidate - baseline) is tested paired\n"
        "by seed when both sides ran the same seeds (Welch's test when they did not), and\n"
        "all tests of the call form one family whose error is controlled (--correction).\n"
        "Verdicts: same (every series bit-equal) / better / worse (the interval excludes 0\n"
        "and the effect is at least the margin; lower is better for losses, errors and\n"
        "vtime_s, higher for images_per_s) / equivalent (the interval lies inside the\n"
        "margin) / inconclusive (neither: the row says how many seeds a side would likely\n"
        "decide it) / differs (a metric without a sense, or a status) / missing /\n"
        "ambiguous / no clock. A run that diverged or failed where the baseline's completed\n"
        "is worse.\n"
        "  --last K           each run's value: the mean of its last K rows (default 10)\n"
        "  --alpha A          the family's error rate, 0 < A < 1 (default 0.05)\n"
        "  --min-effect E     the margin: the smallest change, relative to the baseline\n"
        "                     mean, that matters (default 0.05)\n"
        "  --correction C     holm (default; family-wise error), bh (false discovery rate)\n"
        "                     or none\n"
        "  --rtol X           means within X relative are equivalent without a test\n"
        "                     (default 0)\n"
        "  --metrics a,b,...  compare only these metrics (vtime_s and status always)\n"
        "  --match-on KEYS    configurations match when these keys (a.b,c.d) agree\n"
        "                     (default: the whole configuration less the seed)\n"
        "  --ignore KEYS      configurations match on all but these keys\n"
        "  --pool-builds      a side's runs of one configuration by several builds form one\n"
        "                     sample (each seed once: its latest run); by default they are\n"
        "                     never pooled and such a configuration is ambiguous\n"
        "  --csv | --json     machine-readable rows; statistics are numbers\n"
        "  --run SCENARIO     run more candidate seeds into CANDIDATE.db (as sgdsim sweep\n"
        "                     SCENARIO would, with each configuration's swept keys and the\n"
        "                     seeds), in batches, until every row is decided or --max-seeds\n"
        "                     is reached: the baseline's seeds first, so that they pair;\n"
        "                     each look is tested at its share of alpha (O'Brien-Fleming)\n"
        "  --set K=V          a --set for the candidate's runs (repeatable)\n"
        "  --run-baseline SCENARIO  also run new seeds into BASELINE.db (which it then\n"
        "                     changes) once the candidate has every baseline seed; only\n"
        "                     when this binary is the build that made the baseline\n"
        "  --baseline-set K=V a --set for the baseline's runs (repeatable)\n"
        "  --max-seeds N      most seeds a side per configuration (default 20)\n"
        "  --batch N          seeds added per look (default 3)\n"
        "  -j N               runs at once (default 1)\n\n"
        "exit codes: 0 every row is same, equivalent, better, differs or has no clock;\n"
        "1 something is worse, missing or ambiguous; 4 nothing is worse, missing or\n"
        "ambiguous but something is inconclusive (more seeds would decide it); 2 bad input\n"
        "(not a results database, unknown metric or key, bad value)\n");
}

/* --metrics a,b,...: names separated by single commas. */
static bool opt_metrics(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    compare_args_t *a = target;
    if (!*v || strstr(v, ",,") || v[0] == ',' || v[strlen(v) - 1] == ',') {
        snprintf(msg, size, "%s %s: expected names separated by commas", opt, v);
        return false;
    }
    a->metrics = v;
    return true;
}

/* --alpha A: a test level strictly between 0 and 1. */
static bool opt_alpha(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    compare_args_t *a = target;
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x > 0 && x < 1)) {
        snprintf(msg, size, "%s %s: expected a number between 0 and 1", opt, v);
        return false;
    }
    a->rule.alpha = x;
    return true;
}

static bool opt_correction(void *target, const char *opt, const char *v, char *msg,
                           size_t size)
{
    compare_args_t *a = target;
    if (ana_correction_parse(v, &a->rule.correction)) return true;
    snprintf(msg, size, "%s %s: expected holm, bh or none", opt, v);
    return false;
}

static const cli_opt_t compare_opts[] = {
    {.name = "--rtol", .kind = CLI_ARG_DOUBLE, .off = offsetof(compare_args_t, rule.rtol),
     .min = 0.0, .expect = "expected a number >= 0"},
    {.name = "--min-effect", .kind = CLI_ARG_DOUBLE,
     .off = offsetof(compare_args_t, rule.min_effect), .min = 0.0,
     .expect = "expected a number >= 0"},
    {.name = "--alpha", .kind = CLI_ARG_CUSTOM, .parse = opt_alpha},
    {.name = "--correction", .kind = CLI_ARG_CUSTOM, .parse = opt_correction},
    {.name = "--last", .kind = CLI_ARG_U64, .off = offsetof(compare_args_t, last), .lo = 1,
     .hi = 1000000, .expect = "expected a whole number of rows >= 1"},
    {.name = "--metrics", .kind = CLI_ARG_CUSTOM, .parse = opt_metrics},
    {.name = "--match-on", .kind = CLI_ARG_LIST, .off = offsetof(compare_args_t, match_on),
     .metavar = "KEYS"},
    {.name = "--ignore", .kind = CLI_ARG_LIST, .off = offsetof(compare_args_t, ignore),
     .metavar = "KEYS"},
    {.name = "--pool-builds", .kind = CLI_ARG_FLAG,
     .off = offsetof(compare_args_t, match.pool_builds)},
    {.name = "--run", .kind = CLI_ARG_STRING, .off = offsetof(compare_args_t, run_scenario),
     .metavar = "SCENARIO"},
    {.name = "--run-baseline", .kind = CLI_ARG_STRING,
     .off = offsetof(compare_args_t, base_scenario), .metavar = "SCENARIO"},
    {.name = "--set", .kind = CLI_ARG_LIST, .off = offsetof(compare_args_t, sets),
     .metavar = "K=V"},
    {.name = "--baseline-set", .kind = CLI_ARG_LIST, .off = offsetof(compare_args_t, base_sets),
     .metavar = "K=V"},
    {.name = "--max-seeds", .kind = CLI_ARG_U64, .off = offsetof(compare_args_t, max_seeds),
     .lo = 2, .hi = 10000, .expect = "expected a whole number of seeds from 2 to 10000"},
    {.name = "--batch", .kind = CLI_ARG_U64, .off = offsetof(compare_args_t, batch), .lo = 1,
     .hi = 10000, .expect = "expected a whole number of seeds from 1 to 10000"},
    {.name = "--jobs", .alias = "-j", .kind = CLI_ARG_U64, .off = offsetof(compare_args_t, jobs),
     .lo = 1, .hi = 1024, .expect = "expected a whole number of processes from 1 to 1024",
     .flags = CLI_ARG_ATTACHED},
    {.name = NULL},
};

/* The --match-on and --ignore values as key lists; 0 or the exit code. */
static int parse_match(compare_args_t *a)
{
    sgd_err_t err = {{0}};
    for (int i = 0; i < a->match_on.n; i++)
        if (ana_keys_parse(a->match_on.v[i], "--match-on", &a->match.match_on, &err))
            return cli_bad_input("compare: %s", err.msg);
    for (int i = 0; i < a->ignore.n; i++)
        if (ana_keys_parse(a->ignore.v[i], "--ignore", &a->match.ignore, &err))
            return cli_bad_input("compare: %s", err.msg);
    return SGD_EXIT_OK;
}

/* Options that only go with --run. */
static int check_run_args(const compare_args_t *a, const bool given[4])
{
    static const char *const names[] = {"--run-baseline", "--set", "--baseline-set",
                                        "--max-seeds, --batch or -j"};
    for (int i = 0; i < 4; i++)
        if (given[i] && !a->run_scenario)
            return cli_bad_input("compare: %s only with --run SCENARIO", names[i]);
    if (a->base_sets.n && !a->base_scenario)
        return cli_bad_input("compare: --baseline-set only with --run-baseline SCENARIO");
    if (a->run_scenario && a->batch > a->max_seeds)
        return cli_bad_input("compare: --batch %llu: more than --max-seeds %llu",
                             (unsigned long long)a->batch, (unsigned long long)a->max_seeds);
    return SGD_EXIT_OK;
}

int compare_args_parse(int argc, char **argv, compare_args_t *a, bool *help)
{
    static const char *const missing[] = {"BASELINE.db CANDIDATE.db", "CANDIDATE.db"};
    *a = (compare_args_t){.rule = ana_rule_default(), .last = ANA_LAST_DEFAULT,
                          .format = CLI_FMT_TEXT, .max_seeds = 0, .batch = 0, .jobs = 0};
    cli_opt_set_t sets[] = {{compare_opts, a, 0}, {cli_format_opts, &a->format, 0}};
    cli_cmd_spec_t spec = {.cmd = "compare", .npos = 2, .missing = missing, .sets = sets,
                           .nsets = 2};
    const char *pos[2];
    int rc = cli_args_parse_fixed(&spec, argc, argv, pos, help);
    if (rc == 0 && *help) usage(stdout);
    if (rc != 0 || *help) return rc;
    a->base_path = pos[0], a->cand_path = pos[1];
    bool given[4] = {a->base_scenario != NULL, a->sets.n > 0, a->base_sets.n > 0,
                     a->max_seeds || a->batch || a->jobs};
    if (!a->max_seeds) a->max_seeds = 20;
    if (!a->batch) a->batch = 3;
    if (!a->jobs) a->jobs = 1;
    rc = check_run_args(a, given);
    if (rc == SGD_EXIT_OK) rc = parse_match(a);
    return rc;
}

void compare_args_free(compare_args_t *a)
{
    ana_keys_free(&a->match.match_on);
    ana_keys_free(&a->match.ignore);
    cli_list_free(&a->match_on);
    cli_list_free(&a->ignore);
    cli_list_free(&a->sets);
    cli_list_free(&a->base_sets);
}
