/* The pieces of `sgdsim compare`: its arguments (compare_args.c) and its rows printed
 * (cmd_compare.c); the two databases are read and judged by analysis/ab_side.h, and --run's
 * seeds run until decided by sweep/decide.h.
 *
 * Ownership: compare_args_parse fills a compare_args_t that compare_args_free empties. */
#ifndef SGDSIM_CLI_COMPARE_H
#define SGDSIM_CLI_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/ab.h"
#include "analysis/ab_side.h"
#include "cli/options.h"

typedef struct compare_args {
    const char *base_path, *cand_path;
    ana_rule_t rule;     /* --alpha, --min-effect, --rtol, --correction */
    uint64_t last;       /* --last K */
    const char *metrics; /* --metrics a,b,...; NULL: every metric */
    cli_list_t match_on; /* --match-on values as given */
    cli_list_t ignore;   /* --ignore values as given */
    ana_match_t match;   /* the two lists parsed, and --pool-builds */
    int format;          /* rnd_format_t: --csv, --json */
    /* --run and what goes with it (sweep/decide.h) */
    const char *run_scenario, *base_scenario; /* --run, --run-baseline */
    cli_list_t sets, base_sets;               /* --set, --baseline-set */
    uint64_t max_seeds, batch, jobs;          /* --max-seeds, --batch, -j */
} compare_args_t;

/* 0 with the arguments in a, or the exit code (with --help: after the usage text, and *help
 * set).  a is freed with compare_args_free either way. */
int compare_args_parse(int argc, char **argv, compare_args_t *a, bool *help);
void compare_args_free(compare_args_t *a);

/* The databases and the comparison's options of the arguments (analysis/ab_side.h). */
ana_ab_dbs_t compare_dbs(const compare_args_t *a);

/* Prints the rows in the format asked and the summary line (with `extra` words after it,
 * or NULL). */
void compare_render(const compare_args_t *a, const ana_ab_t *ab, const ana_ab_side_t *sides,
                    int exit_code, const char *extra);

#endif
