/* Distributions of durations and factors (compute times, I/O times, speed factors, ...),
 * read from scenario JSON and sampled with GSL.
 *
 * JSON forms accepted for a field `key` (sim_dist_parse):
 *     absent                                   constant default_constant
 *     3.5                                      constant 3.5 (a bare number >= 0)
 *     {"dist":"constant","value":x}            x >= 0
 *     {"dist":"uniform","min":a,"max":b}       0 <= a <= b
 *     {"dist":"normal","mean":m,"sd":s}        m >= 0, s >= 0; samples below 0 are clamped
 *                                              to 0, because every quantity modelled here
 *                                              (a duration, a speed factor) is non-negative
 *     {"dist":"lognormal","mean":m,"cv":c}     m > 0, c > 0 (mean and coefficient of
 *                                              variation of the lognormal itself)
 *     {"dist":"gamma","mean":m,"cv":c}         m > 0, c > 0
 *     {"dist":"exponential","mean":m}          m > 0
 * Every number must be finite.  The resolved object form is always written to the resolved
 * configuration, so a stored run says exactly what was sampled. */
#ifndef SGDSIM_SIM_DIST_H
#define SGDSIM_SIM_DIST_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "common/json.h"
#include "sim/engine.h" /* the horizon, SIM_TIME_BEYOND_NS */

/* The order matches the names accepted in "dist" (sim_dist_names). */
typedef enum {
    SIM_DIST_CONSTANT,
    SIM_DIST_UNIFORM,
    SIM_DIST_NORMAL,
    SIM_DIST_LOGNORMAL,
    SIM_DIST_GAMMA,
    SIM_DIST_EXPONENTIAL,
} sim_dist_kind_t;

/* NULL-terminated names of the kinds, indexed by sim_dist_kind_t. */
extern const char *const sim_dist_names[];

typedef struct sim_dist {
    sim_dist_kind_t kind;
    /* Parameters as the user wrote them:
     *   CONSTANT     p[0] = value
     *   UNIFORM      p[0] = min,  p[1] = max
     *   NORMAL       p[0] = mean, p[1] = sd (before clamping at 0)
     *   LOGNORMAL    p[0] = mean, p[1] = cv
     *   GAMMA        p[0] = mean, p[1] = cv
     *   EXPONENTIAL  p[0] = mean */
    double p[2];
} sim_dist_t;

/* Reads parent's field `key` in one of the forms above into *out and writes its resolved
 * object form to parent->out[key] (when parent->out is not NULL).  default_constant must be
 * finite and >= 0.  Returns 0, or -1 with a message naming the JSON path in err. */
int sim_dist_parse(const sgd_jobj_t *parent, const char *key, double default_constant,
                   sim_dist_t *out, sgd_err_t *err);

/* One draw, always >= 0.  CONSTANT consumes no draws from r (r may then be NULL); the other
 * kinds use gsl_ran_flat, gsl_ran_gaussian, gsl_ran_lognormal, gsl_ran_gamma and
 * gsl_ran_exponential respectively, so the number of underlying draws per sample is GSL's. */
double sim_dist_sample(const sim_dist_t *d, gsl_rng *r);

/* The exact mean of sim_dist_sample's output (for NORMAL, of the clamped normal
 * m*Phi(m/s) + s*phi(m/s), which exceeds m when s is not small against m). */
double sim_dist_mean(const sim_dist_t *d);

/* Seconds to integer nanoseconds: llround(s * 1e9), clamped to [0, SIM_TIME_BEYOND_NS].  NaN
 * aborts (inputs are checked so that no draw is NaN). */
int64_t sim_seconds_to_ns(double s);

/* The largest virtual time in seconds that inputs may name (stop.vtime_s, the start of a
 * --trace window; a window ending later has no end): a round number below the horizon,
 * 2^61 ns = 2.306e9 s, so every accepted time converts exactly. */
#define SIM_VTIME_MAX_S 2.3e9

/* The largest parameter a distribution accepts (a mean, a bound, a value: seconds or a
 * factor) and the largest coefficient of variation: far beyond anything modelled, small
 * enough that no sample is NaN (a gamma's shape 1/cv^2 stays a normal double). */
#define SIM_DIST_PARAM_MAX 1e12
#define SIM_DIST_CV_MAX 1e3

#endif
