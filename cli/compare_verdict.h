/* The verdicts of `sgdsim compare`: how a candidate run's status, final virtual time and
 * metric series stand against the baseline's, and which way they moved.
 *
 * A metric has a sense (cmp_metric_sense): lower is better for losses, error rates and the
 * run's final virtual time (the same updates in less simulated time), higher is better for
 * throughput (images_per_s), and every other metric — learning rate, staleness, message
 * counts, the normaliser — is neutral: a change is reported as "differs", neither better nor
 * worse.  Beyond the tolerance, the direction of a series is that of its last row (the final
 * value); a series whose last rows agree but whose path differs "differs". */
#ifndef SGDSIM_CLI_COMPARE_VERDICT_H
#define SGDSIM_CLI_COMPARE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "results/rdb_read.h"

typedef enum {
    CMP_SAME,      /* every row equal bit for bit */
    CMP_WITHIN,    /* within rtol (relative) in every value and virtual time */
    CMP_KERNEL,    /* within rtol, and the two runs used different BLAS kernels */
    CMP_BETTER,    /* beyond rtol, the final value moved the metric's good way */
    CMP_WORSE,     /* beyond rtol, the final value moved the bad way */
    CMP_DIFFERS,   /* beyond rtol, no direction: a neutral metric, or only the path moved */
    CMP_MISSING,   /* in the baseline, not in the candidate */
    CMP_AMBIGUOUS, /* several runs match, so none is compared */
    CMP_NVERDICTS
} cmp_verdict_t;

/* The verdict as the report prints it: "same", "differs within tolerance", ... */
extern const char *const cmp_verdict_name[CMP_NVERDICTS];

typedef enum { CMP_NEUTRAL, CMP_LOWER_IS_BETTER, CMP_HIGHER_IS_BETTER } cmp_sense_t;

/* The sense of metric `name` ("vtime_s": the run's final virtual time). */
cmp_sense_t cmp_metric_sense(const char *name);

/* What a comparison of one matched pair of runs needs besides the values. */
typedef struct cmp_rule {
    double rtol;         /* |a-b| <= rtol * max(|a|,|b|) is within tolerance */
    bool kernels_differ; /* the runs' runs.blas_core differ */
} cmp_rule_t;

/* The runs' statuses: a run that diverged where the baseline completed is worse. */
cmp_verdict_t cmp_status(const char *base, const char *cand);

/* One value of each run (the final virtual time) of the given sense; detail gets both. */
cmp_verdict_t cmp_scalar(double base, double cand, cmp_sense_t sense, const cmp_rule_t *r,
                         char *detail, size_t size);

/* Two whole series of one metric (base->n > 0, cand->n > 0); detail gets the final values
 * and the largest difference, or the first row where the two differ in shape. */
cmp_verdict_t cmp_series(const rdb_series_t *base, const rdb_series_t *cand, cmp_sense_t sense,
                         const cmp_rule_t *r, char *detail, size_t size);

#endif
