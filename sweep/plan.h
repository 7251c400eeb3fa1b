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
 * Ownership: sweep_plan() fills a caller-allocated plan, freed with
 * sweep_plan_free(). */
#ifndef SGDSIM_SWEEP_PLAN_H
#define SGDSIM_SWEEP_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "common/sha256.h"
#include "config/scenario.h"

/* Largest number of points a sweep may have (a guard against a typo such as 1e6 values). */
#define SWEEP_MAX_POINTS 1000000

typedef struct sweep_point {
    char **sets;     /* nsets "key=value" assignments, in axis order (owned) */
    int nsets;
    char *label;     /* "cluster.workers=250 algorithm.name=csgd" for messages (owned) */
    char run_key[SGD_SHA256_HEX_LEN + 1];
    char blas_core[BLAS_KERNEL_NAME_MAX]; /* the point's resolved OpenBLAS kernel */
    int64_t threads_auto; /* threads "auto" resolved for the sweep's -j; 0 when the point's
                             configuration gives a number itself */
    int64_t updates;      /* its stop.updates, for the progress display */
} sweep_point_t;

/* A point that did not load (--skip-invalid): where it is in the product, and why. */
typedef struct sweep_invalid {
    int64_t index;   /* 0-based position in the cartesian product */
    char *label;     /* as sweep_point_t's (owned) */
    char *error;     /* the loader's message (owned) */
} sweep_invalid_t;

typedef struct sweep_plan {
    sweep_point_t *points; /* distinct points in canonical order (owned) */
    int npoints;
    int64_t nproduct;          /* size of the cartesian product before removing duplicates */
    int naxes;
    sweep_invalid_t *invalid; /* points left out by skip_invalid, in order (owned) */
    int ninvalid;
} sweep_plan_t;

/* Splits a --set argument "key=v1,v2,..." into its key and values.  Values are separated by
 * commas outside JSON brackets, braces and strings, so "model.hidden=[16,8],[32]" has two
 * values and '"a,b"' stays one string.  Empty values, unbalanced brackets or quotes and a
 * missing '=' are errors naming the argument.  *key and every (*values)[i] are new strings
 * the caller frees (free each, then the array). */
int sweep_split(const char *assignment, char **key, char ***values, int *nvalues,
                sgd_err_t *err);

typedef struct sweep_plan_opts {
    const char *const *lists;     /* --set arguments "key=v1,v2,...", in order */
    int nlists;
    const scn_numerics_flags_t *flags; /* --blas-core, --threads: every point, over its
                                          axes (may be NULL) */
    const uint64_t *seed;         /* --seed, or NULL */
    const scn_machine_t *machine; /* resolves each point's numerics, as its run will */
    const char *const *zips;      /* --zip arguments "KEY1,KEY2,...", in order (sweep/zip.h) */
    int nzips;
    bool skip_invalid;            /* leave out points that do not load or that their run
                                     would refuse (alg_prepare_file; plan->invalid) */
} sweep_plan_opts_t;

/* Plans the sweep of scenario `path`: axes of its "sweep" block, overridden or extended by
 * the command line's lists (a key given twice keeps the later list), grouped by the zip
 * groups into dimensions (sweep/zip.h), every point loaded, validated and resolved against
 * o->machine like `sgdsim run` would (errors name the point; with o->skip_invalid such a
 * point goes to plan->invalid instead, and planning goes on), duplicate run keys dropped (the
 * first occurrence stays).  A flag over a key that is also an axis is refused, as --seed
 * with a seed axis is: it would collapse the axis. */
int sweep_plan(const char *path, const sweep_plan_opts_t *o, sweep_plan_t *plan,
               sgd_err_t *err);

void sweep_plan_free(sweep_plan_t *plan);

/* Parses "I/N" (0 <= I < N) for --shard; errors name the argument. */
int sweep_parse_shard(const char *arg, int *index, int *count, sgd_err_t *err);

#endif
