/* What `sgdsim plot` reads from its command line beyond plain options: the conditions of
 * --where (which runs to draw) and the legend labels of --label.
 *
 * --where is a small language, not SQL: comma-separated terms KEY OP LITERAL, all of which
 * must hold.  KEY is a runs column (algorithm, workers, seed, ...), "lambda", or a dotted
 * configuration key (cluster.workers, optimizer.lr); OP is one of = != < <= > >=; LITERAL
 * is everything up to the next comma, not starting with an operator (seed==1 is refused):
 * a number when it reads as one whole (1000, 1e-3), true or false (1 and 0, as JSON
 * booleans compare), else text as it is (no quotes are needed or removed).  The terms
 * become rdb_cond_t values, which results/rdb_read.c turns into SQL with the literal and
 * the key's path as bound parameters.
 *
 * --label NAME=TEXT renames in the legend: NAME a --by key renames the key ("lambda=λ"
 * shows λ=250; an empty TEXT shows the value alone), NAME KEY:VALUE replaces that key's
 * whole "KEY=VALUE" term for series with that value ("scenario:exp2/fasgd=FASGD").
 *
 * Errors: the message is printed (cli_bad_input) and the exit code returned. */
#ifndef SGDSIM_CLI_PLOT_SELECT_H
#define SGDSIM_CLI_PLOT_SELECT_H

#include "cli/options.h"
#include "render/plot_series.h"
#include "results/rdb.h"
#include "results/rdb_curves.h"

typedef struct plot_where {
    rdb_cond_t *conds; /* their strings point into text */
    int n;
    char *text; /* the terms' copy, cut into keys and literals */
} plot_where_t;

/* Parses every --where value (each one or more terms) into *w and checks each key against
 * db; the caller frees *w with plot_where_free, also after an error. */
int plot_where_parse(rdb_t *db, const cli_list_t *values, plot_where_t *w);
void plot_where_free(plot_where_t *w);

/* Parses every --label value into *l (plot_labels_t: plot_series.h); each key must be one of keys[0..nkeys).  The caller
 * frees *l with plot_labels_free, also after an error. */
int plot_labels_parse(const cli_list_t *values, const char *const *keys, int nkeys,
                      plot_labels_t *l);
void plot_labels_free(plot_labels_t *l);

#endif
