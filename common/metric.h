/* The metric table: every metric sgdsim records, one line each -- its name, unit, which way
 * is better, whether it needs a clock, how a run's rows become one value, its plot label and
 * its one-line meaning.  The one place that knows what a metric is: the runner refuses a
 * row whose name is not here (algorithms/runner.c), compare's verdicts take their sense
 * from it (analysis/verdict.c), report, show, plot, the results browser and run's summary
 * ask it which metrics need a clock and how to label them, and docs/results.md's list of
 * metric names is checked against it (test_common_metric_docs).  Adding a metric = one line
 * of SGD_METRICS in metric.c (and the row in docs/results.md).
 *
 * Why common/: algorithms/ records metrics and analysis/, web/, render/ and cli/ read them,
 * and the only folder all of them may include is common/ (cmake/layers.txt).  The table is
 * plain constant data and look-ups by name -- no I/O, no other module -- so it costs the
 * layers below nothing.
 *
 * Over seeds every metric is summarised the same way (mean, sample sd, Student's t interval:
 * analysis/seed_stats.h); what differs is how one run's rows become its value (agg). */
#ifndef SGDSIM_COMMON_METRIC_H
#define SGDSIM_COMMON_METRIC_H

#include <stdbool.h>
#include <stddef.h>

/* Which way a change of the metric is an improvement (compare's better/worse). */
typedef enum {
    SGD_METRIC_NEUTRAL, /* neither: a change "differs" and never counts as a failure */
    SGD_METRIC_LOWER,   /* lower is better (losses, errors, time) */
    SGD_METRIC_HIGHER,  /* higher is better (throughput) */
} sgd_metric_better_t;

/* How one run's rows become the run's value. */
typedef enum {
    SGD_METRIC_WINDOW, /* a curve over updates: its final row (report, plot's end), or the
                          mean of its last K rows (compare --last K) */
    SGD_METRIC_LAST,   /* a total or a summary of the whole run (written at the end, or
                          counted up as it goes): its last row */
    SGD_METRIC_RUN,    /* no metric rows: a column of the run itself (vtime_s: runs.vtime_ns) */
} sgd_metric_agg_t;

typedef struct sgd_metric {
    const char *name;           /* as stored in metrics.name */
    const char *unit;           /* "nats", "fraction", "samples/s", "messages", ...; "" none */
    sgd_metric_better_t better;
    bool needs_clock;           /* a number about nothing without a clock (analysis/clock.h:
                                   the uniform driver): shown as "no clock" instead */
    sgd_metric_agg_t agg;
    bool in_summary;            /* in the line `run` prints at its end */
    const char *label;          /* plot's default y label */
    const char *meaning;        /* one line: what it measures and when it is written */
} sgd_metric_t;

/* The table, in a fixed order (run's summary and the docs follow it); NULL-named last. */
extern const sgd_metric_t sgd_metrics[];

/* The descriptor of `name`, or NULL when no metric has that name. */
const sgd_metric_t *sgd_metric_find(const char *name);

/* How many metrics the table holds: sgd_metrics[0 .. sgd_metric_count()). */
size_t sgd_metric_count(void);

/* Whether `name` needs a clock (false for a name not in the table). */
bool sgd_metric_needs_clock(const char *name);

#endif
