/* A configuration's seeds as a legend shows them: a count and compact ranges, not every
 * seed ("40 seeds: 1–40", "5 seeds: 1–3, 7, 9", "seed 4"), so that forty seeds do not push
 * the plot off the page.
 *
 * Ownership: the returned string is the caller's (free). */
#ifndef SGDSIM_WEB_SEED_LIST_H
#define SGDSIM_WEB_SEED_LIST_H

#include <stdint.h>

/* At most this many items (a range or a seed) are written; beyond it the first
 * WEB_SEED_LIST_HEAD, an ellipsis and the last: "20 seeds: 1, 3, 5, 7, …, 39". */
#define WEB_SEED_LIST_PIECES 6
#define WEB_SEED_LIST_HEAD 4

/* seeds[0..n) (n >= 1; any order, each once) as "N seeds: " and their runs of consecutive
 * values, a run of three or more as "first–last" (an en dash), shorter ones seed by seed;
 * one seed as "seed S".  NULL when n < 1. */
char *web_seed_list(const int64_t *seeds, int n);

#endif
