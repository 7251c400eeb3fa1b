/* What `compare` concludes about one metric of one configuration: the candidate's seeds
 * against the baseline's, over a stated window of each curve.
 *
 * Each run contributes one value per metric: the mean of the last k rows of its series
 * (ana_window, `--last K`; for vtime_s the run's final virtual time).  The two sets of
 * values, one per seed, are then judged (ana_judge), in this order:
 *   same           both sides ran the same seeds and every series is equal bit for bit
 *                  (the determinism contract promises equal bits, not only equal values);
 *   better/worse   a seed's window holds a non-finite value on one side only (a loss that
 *                  blew up is the worst value a metric with a sense can have);
 *   within noise   the means differ by at most rtol relative (--rtol), or — with two or
 *                  more seeds a side — Welch's test does not reject equal means at alpha,
 *                  or the effect |mean_c - mean_b| / |mean_b| is below min_effect;
 *                  "differs (different kernel)" when within rtol and the runs used
 *                  different BLAS kernels;
 *   inconclusive   a side has one seed (no spread to judge a difference by) and the
 *                  means differ beyond rtol;
 *   better/worse   otherwise, by the metric's sense; "differs" for a metric without one.
 * A run that diverged (or failed) where the baseline's completed makes its configuration
 * worse (ana_status_verdict), and then every metric with a sense reads worse too: its values
 * stop early, and a shorter virtual time is never "better".
 *
 * Pure functions on caller-owned arrays; nothing is allocated. */
#ifndef SGDSIM_ANALYSIS_VERDICT_H
#define SGDSIM_ANALYSIS_VERDICT_H

#include <stdbool.h>

#include "analysis/seed_stats.h"
#include "results/rdb_read.h"

typedef enum {
    ANA_SAME,         /* every series equal bit for bit, the same seeds */
    ANA_NOISE,        /* within rtol, or inside the seed spread */
    ANA_KERNEL,       /* within rtol, on runs of different BLAS kernels */
    ANA_BETTER,       /* a significant effect the metric's good way */
    ANA_WORSE,        /* a significant effect the bad way; a diverged or failed run */
    ANA_DIFFERS,      /* a significant effect on a metric without a sense */
    ANA_INCONCLUSIVE, /* beyond rtol with one seed on a side: nothing to judge by */
    ANA_NO_CLOCK,     /* vtime_s of runs without a clock (analysis/clock.h) */
    ANA_MISSING,      /* in the baseline, not in the candidate */
    ANA_AMBIGUOUS,    /* several configurations share a match, none is compared */
    ANA_NVERDICTS
} ana_verdict_t;

/* The verdict as the report prints it: "same", "within noise", ... */
extern const char *const ana_verdict_name[ANA_NVERDICTS];

/* Whether a verdict fails a regression check: worse, missing or ambiguous. */
bool ana_verdict_fails(ana_verdict_t v);

typedef enum { ANA_NEUTRAL, ANA_LOWER_IS_BETTER, ANA_HIGHER_IS_BETTER } ana_sense_t;

/* Lower is better for *_loss, *_error and vtime_s, higher for images_per_s; every other
 * metric (lr, staleness, message counts, the normaliser) has no sense. */
ana_sense_t ana_metric_sense(const char *name);

/* The thresholds of a judgement. */
typedef struct ana_rule {
    double rtol;         /* |dmean| <= rtol * max(|mean_b|, |mean_c|): within noise */
    double alpha;        /* Welch's test level (--alpha, default 0.05) */
    double min_effect;   /* smallest |dmean| / |mean_b| that is better or worse */
    bool kernels_differ; /* the paired runs' BLAS kernels differ */
} ana_rule_t;

/* One metric of one configuration on both sides: each seed's window value. */
typedef struct ana_metric_in {
    const double *base, *cand; /* finite window values, one per seed */
    int nbase, ncand;
    int nonfinite_base, nonfinite_cand; /* seeds whose window holds a non-finite value */
    bool bit_equal; /* the same seeds, and every pair of series equal bit for bit */
} ana_metric_in_t;

typedef struct ana_judgement {
    ana_verdict_t verdict;
    ana_summary_t base, cand; /* of the finite values */
    double rel_diff; /* (mean_c - mean_b) / |mean_b|; NaN when undefined */
    double p;        /* Welch's two-sided p-value; NaN when no test was made */
} ana_judgement_t;

ana_judgement_t ana_judge(const ana_metric_in_t *in, ana_sense_t sense, const ana_rule_t *r);

/* The mean of the last `last` rows of s into *value (fewer when s is shorter): false when
 * s is empty or one of those rows is not finite. */
bool ana_window(const rdb_series_t *s, int last, double *value);

/* Whether two series are equal bit for bit (rows, update indices, times, values). */
bool ana_series_identical(const rdb_series_t *a, const rdb_series_t *b);

/* A configuration's runs by status: worse when the candidate's share of runs that did not
 * complete (diverged, failed) exceeds the baseline's, better when it is smaller, same when
 * both are 0 or the statuses agree seed by seed (same_statuses), else differs. */
ana_verdict_t ana_status_verdict(int nbad_base, int nbase, int nbad_cand, int ncand,
                                 bool same_statuses);

#endif
