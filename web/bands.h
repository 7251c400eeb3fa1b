/* A group's bands: for every metric, the members' values at each update summarised over the
 * seeds (analysis/seed_band.h, the same curve `plot` draws), which the page draws as a line
 * with a mean +- sd band, and the summary of the members' final values. */
#ifndef SGDSIM_WEB_BANDS_H
#define SGDSIM_WEB_BANDS_H

#include "web/study.h"

/* Fills g->band from the series of g's runs in s (one band per metric some member has, in
 * s->metric's order). */
void web_group_bands(const web_study_t *s, web_group_t *g);

void web_group_bands_free(web_group_t *g);

/* The series of metric `name` of run r, or NULL when it has none. */
const rdb_series_t *web_run_series(const web_run_t *r, const char *name);

#endif
