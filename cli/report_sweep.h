/* `sgdsim report`'s two parts' shared pieces and its sweep tables (report_sweep.c). */
#ifndef SGDSIM_CLI_REPORT_SWEEP_H
#define SGDSIM_CLI_REPORT_SWEEP_H

#include <stdbool.h>

#include "results/rdb.h"

/* Prints s escaped for the terminal (cli/text.h), as the tables print their cells: a
 * scenario name or configuration value from the database may hold control characters. */
void report_print_escaped(const char *s);

/* The sweep tables of every scenario with two or more finished runs in db (runs of
 * different builds split by a "build" axis unless pool_builds); the exit code. */
int report_sweeps(rdb_t *db, bool pool_builds);

#endif
