/* Whether a run has a clock: the one place the readers ask if its virtual time means seconds.
 *
 * The parameter-server family's "uniform" driver (docs/scenario.md, algorithm.driver; the
 * family's default) has no clock: iteration i happens at virtual time i + 1 ns, so vtime_ns
 * counts iterations, and virtual time, images/s and scaling efficiency computed from it
 * would be numbers about nothing.  Which runs have one is the algorithm's to say
 * (alg_has_clock, algorithms/alg.h); each run records the answer (runs.has_clock, schema 7),
 * and the readers -- report, show, compare, plot, the results browser -- read that record.
 * A run that did not record it (written before schema 7, or merged from such a file) is
 * judged by its resolved configuration, where every sgdsim wrote algorithm.driver for the
 * algorithms that have one: "uniform" has no clock, anything else has (the same rule the
 * migration to schema 7 applies, results/rdb_reader.h's RDB_CLOCK_OF_CONFIG).  No list of
 * algorithm names is kept here.  Pure functions; nothing is allocated that outlives a call. */
#ifndef SGDSIM_ANALYSIS_CLOCK_H
#define SGDSIM_ANALYSIS_CLOCK_H

#include <stdbool.h>

#include "results/rdb_rows.h"

/* What the readers print instead of a virtual time, images/s or scaling efficiency. */
#define ANA_NO_CLOCK_TEXT "no clock (uniform driver)"

/* Whether a run has a clock: `recorded` is its runs.has_clock (1 or 0), or -1 when it did
 * not record one; then its resolved configuration (JSON text) decides: no clock under
 * algorithm.driver "uniform", a clock otherwise (also for text that is not JSON: nothing says
 * otherwise). */
bool ana_clock_of(int recorded, const char *config_json);

/* ana_clock_of for a run's summary row (results/rdb_rows.h). */
bool ana_run_has_clock(const rdb_run_row_t *row);

/* ana_clock_of without a record: the configuration alone. */
bool ana_config_has_clock(const char *config_json);

#endif
