/* Whether a run has a clock: its virtual time is simulated time in seconds.  The one run
 * without is the parameter-server family's `uniform` driver (docs/scenario.md: "no clocks";
 * iteration i happens at virtual time i+1 ns, so vtime_ns counts iterations): the
 * algorithms sasgd, fasgd, bfasgd, downpour and hardsync with algorithm.driver "uniform",
 * which is also their default when the key is absent.  Every other run (csgd, lsgd, the
 * family's `timed` driver, cost-only presets) has one. */
#ifndef SGDSIM_ANALYSIS_CLOCK_H
#define SGDSIM_ANALYSIS_CLOCK_H

#include <stdbool.h>

/* Whether the run of this resolved configuration (runs.config_json) has a clock; true for
 * text that is not a JSON object (nothing says it has none). */
bool ana_run_has_clock(const char *config_json);

#endif
