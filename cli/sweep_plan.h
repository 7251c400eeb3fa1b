/* Sweep planning: from a scenario's "sweep" block and the command line's --set lists to the
 * ordered list of points a sweep runs, each with its deterministic run key.
 *
 * A point is a list of --set assignments ("key=value", value as JSON text).  Its run key is
 * the configuration hash of the scenario with those assignments applied (runs.run_key), so
 * a point is identified by what it computes, whatever sweep, shard or rank runs it.  The
 * order of points is canonical — axes of the sweep block in file order, then the command
 * line's axes in argument order, the last axis varying fastest — and never depends on -j,
 * --shard or MPI ranks, which only choose who runs which point.
 *
 * Ownership: cli_sweep_plan() fills a caller-allocated plan, freed with
 * cli_sweep_plan_free(). */
#ifndef SGDSIM_CLI_SWEEP_PLAN_H
#define SGDSIM_CLI_SWEEP_PLAN_H

#include <stdint.h>

#include "common/error.h"
#include "common/sha256.h"

/* Largest number of points a sweep may have (a guard against a typo such as 1e6 values). */
#define CLI_SWEEP_MAX_POINTS 1000000

typedef struct cli_sweep_point {
    char **sets;     /* nsets "key=value" assignments, in axis order (owned) */
    int nsets;
    char *label;     /* "cluster.workers=250 algorithm.name=csgd" for messages (owned) */
    char run_key[SGD_SHA256_HEX_LEN + 1];
} cli_sweep_point_t;

typedef struct cli_sweep_plan {
    cli_sweep_point_t *points; /* distinct points in canonical order (owned) */
    int npoints;
    int64_t nproduct;          /* size of the cartesian product before removing duplicates */
    int naxes;
} cli_sweep_plan_t;

/* Splits a --set argument "key=v1,v2,..." into its key and values.  Values are separated by
 * commas outside JSON brackets, braces and strings, so "model.hidden=[16,8],[32]" has two
 * values and '"a,b"' stays one string.  Empty values, unbalanced brackets or quotes and a
 * missing '=' are errors naming the argument.  *key and every (*values)[i] are new strings
 * the caller frees (free each, then the array). */
int cli_sweep_split(const char *assignment, char **key, char ***values, int *nvalues,
                    sgd_err_t *err);

/* Plans the sweep of scenario `path`: axes of its "sweep" block, overridden or extended by
 * the command line's `sets` (each "key=v1,v2,..."; a key given twice keeps the later list),
 * every point loaded and validated like `sgdsim run` would (errors name the point), duplicate
 * run keys dropped (the first occurrence stays).  seed may be NULL. */
int cli_sweep_plan(const char *path, const char *const *sets, int nsets, const uint64_t *seed,
                   cli_sweep_plan_t *plan, sgd_err_t *err);

void cli_sweep_plan_free(cli_sweep_plan_t *plan);

/* Parses "I/N" (0 <= I < N) for --shard; errors name the argument. */
int cli_sweep_parse_shard(const char *arg, int *index, int *count, sgd_err_t *err);

#endif
