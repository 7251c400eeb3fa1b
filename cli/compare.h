/* The pieces of `sgdsim compare`: its arguments (compare_args.c), one look at the two
 * databases (cmd_compare.c), and the runs until decided of --run (compare_run.c).
 *
 * Ownership: compare_args_parse fills a compare_args_t that compare_args_free empties;
 * compare_open fills two sides that compare_close releases. */
#ifndef SGDSIM_CLI_COMPARE_H
#define SGDSIM_CLI_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/ab.h"
#include "cli/compare_side.h"
#include "cli/options.h"

typedef struct compare_args {
    const char *base_path, *cand_path;
    ana_rule_t rule;     /* --alpha, --min-effect, --rtol, --correction */
    uint64_t last;       /* --last K */
    const char *metrics; /* --metrics a,b,...; NULL: every metric */
    cli_list_t match_on; /* --match-on values as given */
    cli_list_t ignore;   /* --ignore values as given */
    ana_match_t match;   /* the two lists parsed, and --pool-builds */
    int format;          /* cli_format_t: --csv, --json */
    /* --run and what goes with it (compare_run.c) */
    const char *run_scenario, *base_scenario; /* --run, --run-baseline */
    cli_list_t sets, base_sets;               /* --set, --baseline-set */
    uint64_t max_seeds, batch, jobs;          /* --max-seeds, --batch, -j */
} compare_args_t;

/* 0 with the arguments in a, or the exit code (with --help: after the usage text, and *help
 * set).  a is freed with compare_args_free either way. */
int compare_args_parse(int argc, char **argv, compare_args_t *a, bool *help);
void compare_args_free(compare_args_t *a);

/* Opens both databases read-only, checks --metrics, reads their runs; 0 or exit 2. */
int compare_open(const compare_args_t *a, side_t *base, side_t *cand);
void compare_close(side_t *base, side_t *cand);

/* The comparison of sides[0] (baseline) and sides[1] at level alpha into *ab; 0 or exit 2. */
int compare_judge(const compare_args_t *a, double alpha, side_t *sides, ana_ab_t *ab);

/* Prints the rows in the format asked and the summary line (with `extra` words after it,
 * or NULL). */
void compare_render(const compare_args_t *a, const ana_ab_t *ab, const side_t *sides,
                    int exit_code, const char *extra);

/* --run: seeds in batches until every row that counts is decided (compare_run.c). */
int compare_run(const compare_args_t *a);

#endif
