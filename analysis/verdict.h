/* What `compare` concludes about one metric of one configuration: the candidate's seeds
 * against the baseline's, each seed giving one value (the mean of the last K rows of its
 * series, ana_window; for vtime_s the run's final virtual time).
 *
 * A row is judged in two steps.  ana_judge looks at the row alone, in this order:
 *   same           both sides ran the same seeds and every series is equal bit for bit;
 *   better/worse   the share of seeds whose value is not finite (a loss that blew up: that
 *                  seed diverged) differs between the sides: the larger share is worse for
 *                  a metric with a sense ("differs" without one).  A divergence is a fact
 *                  about a seed, not an estimate, so it is not a test of the family;
 *   equivalent     the means differ by at most --rtol relative (a stated tolerance);
 *   inconclusive   fewer than 2 values on a side: no spread to judge by;
 *   (tested)       otherwise the effect is tested (analysis/effect.h): paired over the seeds
 *                  both sides ran with finite values, when there are at least 2 of them
 *                  (seeds only one side ran are left out, and the row says how many);
 *                  Welch's test over all finite values otherwise.
 * Seeds whose value is not finite on both sides are left out of the test.
 *
 * ana_decide_family then decides the tested rows together: the rows of metrics with a sense
 * form the family (analysis/multiplicity.h: --correction holm|bh|none), and with alpha, the
 * margin m = --min-effect x |baseline mean| (relative), and the adjusted p-values
 *   better/worse   the adjusted p of "no effect" < alpha (the row's interval at its level
 *                  excludes 0) and |effect| >= m; by the metric's sense ("differs" without);
 *   equivalent     the adjusted TOST p < alpha: the row's 1 - 2a interval lies inside +-m;
 *   inconclusive   neither, with the seeds a side that would likely decide it
 *                  (ana_effect_seeds_needed at the planning level alpha / family size and
 *                  80% power).
 * Rows of metrics without a sense (lr, staleness, message counts) are shown for information:
 * tested at alpha without correction, never in the family or the exit code.
 * A row whose configurations differ only in the BLAS kernel, on one build (kernel_only), is
 * the same computation rounded differently: it reads "equivalent" unless the data say it
 * moved beyond the margin, or a seed diverged on one side only; then "differs (different
 * kernel)" -- never better or worse.
 *
 * Pure functions on caller-owned arrays; nothing is allocated that the caller frees. */
#ifndef SGDSIM_ANALYSIS_VERDICT_H
#define SGDSIM_ANALYSIS_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/effect.h"
#include "analysis/multiplicity.h"
#include "analysis/seed_stats.h"
#include "results/rdb_read.h"

/* The rows each run's value is the mean of, unless told otherwise (compare, report, the
 * results browser: one default). */
#define ANA_LAST_DEFAULT 10

typedef enum {
    ANA_SAME,         /* every series equal bit for bit, the same seeds */
    ANA_EQUIVALENT,   /* inside +-margin (TOST), --rtol, or a kernel-only difference */
    ANA_BETTER,       /* an effect beyond the margin the metric's good way */
    ANA_WORSE,        /* beyond the margin the bad way; more diverged or failed runs */
    ANA_DIFFERS,      /* beyond the margin, a metric without a sense; statuses differ */
    ANA_KERNEL,       /* beyond the margin, between runs that differ only in BLAS kernel */
    ANA_INCONCLUSIVE, /* neither decided: more seeds needed */
    ANA_NO_CLOCK,     /* vtime_s of runs without a clock (analysis/clock.h) */
    ANA_MISSING,      /* in the baseline, not in the candidate */
    ANA_AMBIGUOUS,    /* several configurations share a match, none is compared */
    ANA_NVERDICTS
} ana_verdict_t;

/* The verdict as the report prints it: "same", "equivalent", ... */
extern const char *const ana_verdict_name[ANA_NVERDICTS];

/* Whether a verdict fails a regression check: worse, missing or ambiguous. */
bool ana_verdict_fails(ana_verdict_t v);

typedef enum { ANA_NEUTRAL, ANA_LOWER_IS_BETTER, ANA_HIGHER_IS_BETTER } ana_sense_t;

/* Lower is better for *_loss, *_error and vtime_s, higher for images_per_s; every other
 * metric (lr, staleness, message counts, the normaliser) has no sense. */
ana_sense_t ana_metric_sense(const char *name);

/* The thresholds of a judgement. */
typedef struct ana_rule {
    double alpha;        /* the family's error rate (--alpha, default 0.05) */
    double min_effect;   /* margin relative to |baseline mean| (--min-effect) */
    double rtol;         /* |dmean| <= rtol * max(|mean_b|, |mean_c|): equivalent */
    ana_correction_t correction; /* --correction */
    double power;        /* of the seeds-needed calculation (0.8) */
    int seeds_cap;       /* most seeds a side it names */
} ana_rule_t;

/* compare's defaults: alpha 0.05, min effect 0.05, rtol 0, Holm, power 0.8, cap 1000. */
ana_rule_t ana_rule_default(void);

/* One side's values of a row: per seed (seed order), NaN or +-inf where its window is not
 * finite. */
typedef struct ana_side_values {
    const int64_t *seed;
    const double *value;
    int n;
} ana_side_values_t;

typedef struct ana_metric_in {
    ana_side_values_t base, cand;
    ana_sense_t sense;
    bool bit_equal;   /* the same seeds, and every pair of series equal bit for bit */
    bool kernel_only; /* the configurations differ only in the BLAS kernel, one build */
} ana_metric_in_t;

typedef struct ana_judgement {
    ana_verdict_t verdict;
    const char *why;           /* a decision made before any test, in words; NULL */
    ana_summary_t base, cand;  /* of each side's finite values */
    int nonfinite_base, nonfinite_cand;
    ana_effect_t effect;       /* kind ANA_TEST_NONE: no test */
    int left_out;              /* seeds only one side ran, left out of a paired test */
    double rel_effect;         /* effect / |baseline mean|; NaN when undefined */
    double margin;             /* min_effect x |baseline mean| */
    double p, p_adj;           /* "no effect": raw and adjusted (NaN: no test) */
    double p_eq, p_eq_adj;     /* TOST of |effect| < margin */
    double level, level_eq;    /* the levels of the two intervals */
    double ci_low, ci_high;    /* the two-sided 1 - level interval of the effect */
    double eq_low, eq_high;    /* the 1 - 2 level_eq interval TOST decides on */
    int seeds_needed;          /* inconclusive: seeds a side; 0 unknown; > cap: more */
    bool in_family;            /* counted in the family's correction */
    bool kernel_only;
    ana_sense_t sense;
} ana_judgement_t;

/* The row alone (the first step above); a tested row is decided by ana_decide_family. */
ana_judgement_t ana_judge(const ana_metric_in_t *in, const ana_rule_t *r);

/* Whether the row still waits for ana_decide_family. */
bool ana_judgement_tested(const ana_judgement_t *j);

/* Decides the tested rows of j[0..n) as one family (the second step above); returns the
 * family's size. */
int ana_decide_family(ana_judgement_t *const *j, int n, const ana_rule_t *r);

/* The mean of the last `last` rows of s into *value (fewer when s is shorter): false when
 * s is empty; *value is not finite when one of those rows is not (a NaN or infinite loss). */
bool ana_window(const rdb_series_t *s, int last, double *value);

/* Whether two series are equal bit for bit (rows, update indices, times, values). */
bool ana_series_identical(const rdb_series_t *a, const rdb_series_t *b);

/* A configuration's runs by status: worse when the candidate's share of runs that did not
 * complete (diverged, failed) exceeds the baseline's, better when it is smaller, same when
 * both are 0 or the statuses agree seed by seed (same_statuses), else differs. */
ana_verdict_t ana_status_verdict(int nbad_base, int nbase, int nbad_cand, int ncand,
                                 bool same_statuses);

#endif
