/* The tables of `sgdsim compare`: one row per verdict, in two forms built side by side — the
 * text table with a line of prose per row, and the machine-readable one (--csv, --json)
 * whose statistics are numbers — and the count of each verdict.
 *
 * Ownership: compare_table_init / compare_table_free. */
#ifndef SGDSIM_CLI_COMPARE_TABLE_H
#define SGDSIM_CLI_COMPARE_TABLE_H

#include <stddef.h>

#include "analysis/verdict.h"
#include "cli/compare_side.h"
#include "cli/table.h"

typedef struct compare_table {
    cli_table_t text, data;
    int count[ANA_NVERDICTS];
} compare_table_t;

/* The numbers of a row: the judgement, and for a missing configuration the keys. */
typedef struct row_data {
    const ana_judgement_t *j; /* NULL: no statistics */
    const char *differs;
} row_data_t;

void compare_table_init(compare_table_t *t);
void compare_table_free(compare_table_t *t);

/* One verdict about `what` (a metric, status, vtime_s, ...) of configuration l: a line of
 * each table, with `detail` the text table's prose. */
void compare_table_add(compare_table_t *t, const clabel_t *l, const char *what,
                       ana_verdict_t v, const char *detail, const row_data_t *d);

/* The prose of a judged metric: "0.3565 ± 0.012 (n=3) -> 0.36 (n=3), +1%, Welch p=0.4". */
void compare_judgement_text(const ana_judgement_t *j, char *buf, size_t size);

#endif
