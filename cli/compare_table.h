/* What `sgdsim compare` prints of an A/B comparison (analysis/ab.h): the text table with a
 * line of prose per row, the same rows as CSV with the statistics as numbers, or one JSON
 * document for CI (seeds, runs and values of both sides as arrays, the configuration as an
 * object of keys and values, the effect and its interval, raw and adjusted p, the verdict
 * and the seeds a side that would likely decide it). */
#ifndef SGDSIM_CLI_COMPARE_TABLE_H
#define SGDSIM_CLI_COMPARE_TABLE_H

#include <stdio.h>

#include "analysis/ab.h"
#include "cli/compare_side.h"
#include "cli/table.h"

/* What the rendering needs besides the comparison: both sides, and the exit code. */
typedef struct compare_view {
    const ana_ab_t *ab;
    const side_t *base, *cand;
    int exit_code;
} compare_view_t;

/* The text table (CLI_FMT_TEXT) or the CSV rows (CLI_FMT_CSV). */
void compare_table_print(const compare_view_t *v, cli_format_t fmt, FILE *f);

/* The JSON document. */
void compare_json_print(const compare_view_t *v, FILE *f);

#endif
