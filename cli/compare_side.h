/* One side of `sgdsim compare`: the runs of a results database that have ended, as the A/B
 * comparison (analysis/ab.h) takes them, where its rows come from, and how a configuration
 * is named in the tables.  Read through results/rdb_rows.h and rdb_read.h only.
 *
 * Ownership: side_load fills a side_t that side_free empties; the ana_ab_run_t array points
 * into the side's strings. */
#ifndef SGDSIM_CLI_COMPARE_SIDE_H
#define SGDSIM_CLI_COMPARE_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/ab.h"
#include "results/rdb.h"

/* A run that ended (complete, diverged or failed), as compare reads it (owned strings). */
typedef struct crun {
    int64_t id, seed, workers;
    char *scenario, *algorithm;
    char *sweep_axes; /* runs.sweep_axes: the keys its sweep varied (JSON), or NULL */
} crun_t;

typedef struct side {
    const char *path;
    rdb_t *db;
    crun_t *run;      /* labels */
    ana_ab_run_t *ab; /* the same runs for the comparison (strings owned by the side) */
    char **owned;     /* every string of ab, for side_free */
    int nowned;
    int n;
} side_t;

/* Every run of s->db that has ended (a running one has no verdict yet); 0 or exit 2. */
int side_load(side_t *s);
void side_free(side_t *s);

/* The rows of both sides (analysis/ab.h's source): sides[0] the baseline, sides[1] the
 * candidate. */
ana_ab_source_t side_source(side_t *sides);

/* "fasgd P=4": the configuration of run i of s. */
void side_label(const side_t *s, int i, char *buf, size_t size);

#endif
