/* One side of `sgdsim compare`: the runs of a results database that have ended, as compare
 * reads them, the configurations they group into, and how a configuration is named in the
 * tables.  Read through results/rdb_rows.h only.
 *
 * Ownership: side_load fills a side_t that side_free empties; a cgroup_t points into its side. */
#ifndef SGDSIM_CLI_COMPARE_SIDE_H
#define SGDSIM_CLI_COMPARE_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/pairs.h"
#include "results/rdb.h"

/* A run that ended (complete, diverged or failed), as compare reads it (owned strings). */
typedef struct crun {
    int64_t id, seed, workers, vtime_ns, updates;
    char *scenario, *algorithm, *status, *blas_core, *config_json;
    bool clock; /* analysis/clock.h */
} crun_t;

typedef struct side {
    const char *path;
    rdb_t *db;
    crun_t *run;
    int n;
} side_t;

/* One configuration's runs on one side, in seed order (pointers into the side). */
typedef struct cgroup {
    const crun_t **run;
    int n;
} cgroup_t;

/* Which configuration a row is about. */
typedef struct clabel {
    const char *scenario;
    char config[160], seeds[200];
} clabel_t;

/* Every run of s->db that has ended (a running one has no verdict yet); 0 or exit 2. */
int side_load(side_t *s);
void side_free(side_t *s);

/* The side's runs as analysis/pairs.h takes them (malloc'ed; the strings are the side's). */
ana_pair_run_t *side_pair_runs(const side_t *s);

/* "csgd P=4", seeds "1,2,3" (and " / 1,2" when the candidate's differ; c may be NULL). */
clabel_t side_label(const cgroup_t *b, const cgroup_t *c);

#endif
