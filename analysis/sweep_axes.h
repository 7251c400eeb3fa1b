/* A sweep's axes: which keys of its runs' configurations the sweep varied.
 *
 * When every run stored its axes (runs.sweep_axes, schema 3): their union, in the order
 * stored, less the keys that do not vary.  Otherwise inferred: the keys whose value is not
 * the same in every run, in resolved-configuration order, less those that follow another (a
 * default that follows a swept key, as algorithm.n follows the number of clients; of two
 * that follow each other, cluster.workers or algorithm.name, else the earlier one, stays).
 * Never the seed. */
#ifndef SGDSIM_ANALYSIS_SWEEP_AXES_H
#define SGDSIM_ANALYSIS_SWEEP_AXES_H

#include "analysis/groups.h"

/* The axes of runs[0..n) (n >= 1), in order; *naxes gets their number.  The caller frees
 * the array; the keys point into the runs. */
const char **ana_sweep_axes(const ana_run_t *const *runs, int n, int *naxes);

#endif
