/* A configuration's curve over its seeds: at every update that some member's series has,
 * the summary of the members' finite values there (analysis/seed_stats.h: mean, sample sd,
 * min, max, 95% interval, n) and the mean virtual time of the members' rows at it.  What
 * `plot` draws as a series with its --band and what the results browser draws as a group's
 * line and band: one definition of "the mean over seeds at update u".
 *
 * A member's row counts for the time whether or not its value is finite; only finite
 * values (kind 0 and a finite number) enter the summary, so a seed that diverged drops out
 * of the mean from its first non-finite row on (n says how many seeds a point has).
 *
 * Ownership: ana_band_of fills a caller-allocated band that ana_band_free releases. */
#ifndef SGDSIM_ANALYSIS_SEED_BAND_H
#define SGDSIM_ANALYSIS_SEED_BAND_H

#include <stdint.h>

#include "analysis/seed_stats.h"
#include "results/rdb_read.h"

typedef struct ana_band {
    int n;                /* points: the distinct updates of the members' rows */
    int64_t *update;      /* ascending */
    double *vtime_s;      /* mean virtual time of the rows at the update, seconds */
    ana_summary_t *sum;   /* of the finite values at the update */
} ana_band_t;

/* The band of the member series s[0..n) (each ordered by update; NULL entries are members
 * without rows). */
void ana_band_of(const rdb_series_t *const *s, int n, ana_band_t *b);
void ana_band_free(ana_band_t *b);

#endif
