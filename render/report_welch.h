/* `sgdsim report DB --welch A B`: Welch's t test between two settings of one database. */
#ifndef SGDSIM_RENDER_REPORT_WELCH_H
#define SGDSIM_RENDER_REPORT_WELCH_H

#include <stdbool.h>

#include "render/report_data.h"
#include "results/rdb.h"

typedef struct report_welch_args {
    const char *a, *b;  /* the settings: scenario names */
    const char *metric; /* the metric compared (val_error) */
    bool final;         /* each run's final value; else the mean of its last K rows */
    bool json;
} report_welch_args_t;

/* Prints the test of db's runs that opts keeps (see report_welch.c); the exit code. */
int report_welch(rdb_t *db, const char *path, const rep_opts_t *opts,
                 const report_welch_args_t *w);

#endif
