/* Whether a run has a clock: the one place that decides if its virtual time means seconds.
 *
 * The parameter-server family's "uniform" driver (docs/scenario.md, algorithm.driver; the
 * family's default) has no clock: iteration i happens at virtual time i + 1 ns, so vtime_ns
 * counts iterations, and virtual time, images/s and scaling efficiency computed from it
 * would be numbers about nothing.  Every other run (the synchronous algorithms, the family
 * under "timed", cost-only presets) models time.  The decision reads only the run's resolved
 * configuration (runs.config_json), which every schema stores, so report, show, compare and
 * plot agree on it.  Pure functions; nothing is allocated that outlives a call. */
#ifndef SGDSIM_ANALYSIS_CLOCK_H
#define SGDSIM_ANALYSIS_CLOCK_H

#include <stdbool.h>

#include "analysis/groups.h"

/* What the readers print instead of a virtual time, images/s or scaling efficiency. */
#define ANA_NO_CLOCK_TEXT "no clock (uniform driver)"

/* Whether the run of this resolved configuration (JSON text) has a clock; a configuration
 * that is not JSON is taken to have one (nothing says otherwise). */
bool ana_config_has_clock(const char *config_json);

/* The same decision on a flattened configuration (analysis/groups.h). */
bool ana_flat_has_clock(const ana_config_t *c);

#endif
