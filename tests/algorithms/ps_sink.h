/* Shared by the parameter-server tests: an alg_sink_t that keeps what a run reports in
 * memory (every metric row in order, the traffic totals of each kind, the staleness and
 * version-age histograms bin by bin with their totals), and last(), a metric's last value.
 * A rows_t is large (about 1 MB): allocate it, do not put it on the stack.  Also the small
 * SASGD scenario those tests start from (PS_SMALL_SASGD). */
#ifndef SGDSIM_TESTS_ALGORITHMS_PS_SINK_H
#define SGDSIM_TESTS_ALGORITHMS_PS_SINK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/alg.h"

#define PS_SINK_ROWS 20000 /* metric rows kept (later ones are dropped) */
#define PS_SINK_BINS 4096  /* histogram bins kept (later ones count in the totals only) */

/* The small SASGD scenario several parameter-server tests start from (4 clients, 60
 * updates, gamma compute times), varied with --set overrides. */
#define PS_SMALL_SASGD                                                                     \
    "{\"schema_version\": 1, \"seed\": 7, \"algorithm\": {\"name\": \"sasgd\"},"                \
    " \"cluster\": {\"workers\": 4},"                                                       \
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 512, \"n_validation\": 128,"          \
    "           \"dim\": 12, \"classes\": 4, \"separation\": 2.0},"                           \
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [16], \"init\": \"glorot\"},"                 \
    " \"batch\": {\"per_worker\": 8}, \"optimizer\": {\"lr\": 0.05},"                         \
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"gamma\", \"mean\": 0.01,"    \
    " \"cv\": 0.5}},"                                                                         \
    " \"stop\": {\"updates\": 60}, \"eval\": {\"every\": 20}}"

typedef struct rows {
    int n;
    int64_t update[PS_SINK_ROWS];
    char name[PS_SINK_ROWS][24];
    double value[PS_SINK_ROWS];
    int64_t tau[PS_SINK_BINS], age[PS_SINK_BINS]; /* counted staleness, true age */
    int64_t tau_total, age_total;                 /* gradients in each histogram */
    int64_t tau_bins, tau_max;                    /* staleness rows reported, largest tau */
    double tau_sum;                               /* sum of tau over the gradients */
    uint64_t fetch[4], push[4]; /* sent msgs, sent bytes, skipped msgs, skipped bytes */
} rows_t;

static inline int ps_sink_metric(void *c, int64_t u, int64_t v, const char *name,
                                 double value, sgd_err_t *e)
{
    (void)v, (void)e;
    rows_t *r = c;
    if (r->n < PS_SINK_ROWS) {
        r->update[r->n] = u;
        snprintf(r->name[r->n], sizeof r->name[0], "%s", name);
        r->value[r->n++] = value;
    }
    return 0;
}

static inline int ps_sink_traffic(void *c, const char *kind, uint64_t sm, uint64_t sb,
                                  uint64_t km, uint64_t kb, sgd_err_t *e)
{
    (void)e;
    rows_t *r = c;
    uint64_t *t = strcmp(kind, "fetch") == 0 ? r->fetch : r->push;
    t[0] = sm, t[1] = sb, t[2] = km, t[3] = kb;
    return 0;
}

/* Adds count gradients at x to a histogram's bins (those kept) and total. */
static inline void ps_sink_bin(int64_t *bins, int64_t *total, int64_t x, int64_t count)
{
    if (x < PS_SINK_BINS) bins[x] += count;
    *total += count;
}

static inline int ps_sink_staleness(void *c, int64_t tau, int64_t count, sgd_err_t *e)
{
    (void)e;
    rows_t *r = c;
    ps_sink_bin(r->tau, &r->tau_total, tau, count);
    r->tau_bins++;
    r->tau_sum += (double)tau * (double)count;
    if (tau > r->tau_max) r->tau_max = tau;
    return 0;
}

static inline int ps_sink_version_age(void *c, int64_t age, int64_t count, sgd_err_t *e)
{
    (void)e;
    rows_t *r = c;
    ps_sink_bin(r->age, &r->age_total, age, count);
    return 0;
}

/* The sink writing into r (which it clears first). */
static inline alg_sink_t ps_sink(rows_t *r)
{
    memset(r, 0, sizeof *r);
    return (alg_sink_t){.ctx = r, .metric = ps_sink_metric, .traffic = ps_sink_traffic,
                        .staleness = ps_sink_staleness, .version_age = ps_sink_version_age};
}

/* Last value of metric `name`, NAN when absent. */
static inline double last(const rows_t *r, const char *name)
{
    double v = NAN;
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->name[i], name) == 0) v = r->value[i];
    return v;
}

#endif
