/* Update rules of the parameter-server family (docs/scenario.md, "parameter-server family";
 * docs/papers.md §2 for the sources):
 *
 *   staleness factor s(tau):  none  1
 *                             paper 1/tau for tau > 0, 1 for tau = 0   (SASGD, Zhang et al.)
 *                             fred  1/(tau + 1)                         (Odena's code, FRED)
 *   normaliser d_i (per parameter, updated with every incoming gradient g before the step):
 *                             none  d = 1
 *                             fred  m = decay m + (1 - decay) |g|;  d = m + eps
 *                             paper n = gamma n + (1 - gamma) g^2;  b = gamma b + (1 - gamma) g;
 *                                   v = beta v + (1 - beta) sqrt(max(n - b^2, 0) + eps);  d = v
 *   update with c gradients:  theta_i -= (1/c) sum_k alpha s(tau_k) g_k,i / d_i
 *
 * All statistics start at 0 (no bias correction, as in FRED).  B-FASGD's statistic is the
 * mean over all parameters of the moving average (m for fred, v for paper), and a client
 * transmits with probability 1 / (1 + c / (v + eps_gate)).
 *
 * Ownership: ps_norm_bind on a caller-allocated ps_norm_t and zeroed arrays the caller owns
 * (a rule's state, rules/scaled.c). */
#ifndef SGDSIM_ALGORITHMS_PS_RULES_H
#define SGDSIM_ALGORITHMS_PS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { PS_STALE_NONE, PS_STALE_PAPER, PS_STALE_FRED } ps_staleness_t;
typedef enum { PS_NORM_NONE, PS_NORM_FRED, PS_NORM_PAPER } ps_norm_kind_t;

typedef struct ps_norm_cfg {
    ps_norm_kind_t kind;
    double decay; /* fred: EMA decay of |g| */
    double gamma; /* paper: EMA decay of g and g^2 */
    double beta;  /* paper: EMA decay of the standard deviation */
    double eps;   /* fred: added to the EMA; paper: added under the square root */
} ps_norm_cfg_t;

typedef struct ps_norm {
    ps_norm_cfg_t cfg;
    size_t n;
    float *m;     /* fred: EMA of |g|; paper: v, the EMA of the std */
    float *g1;    /* paper: b, EMA of g (NULL for fred) */
    float *g2;    /* paper: n, EMA of g^2 (NULL for fred) */
    double mean;  /* mean of m over all parameters, valid when mean_valid */
    bool mean_valid;
} ps_norm_t;

double ps_staleness_factor(ps_staleness_t rule, int64_t tau);

/* Lays the statistics out in `arrays`: n zeroed floats for fred, 3n for paper.  kind must
 * not be PS_NORM_NONE. */
void ps_norm_bind(ps_norm_t *nm, const ps_norm_cfg_t *cfg, size_t n, float *arrays);
/* Folds one incoming gradient into the statistics (element order 0..n-1). */
void ps_norm_observe(ps_norm_t *nm, const float *g);
/* Mean of the moving average over all parameters (B-FASGD's v), computed on demand after an
 * observe and cached: FASGD without gating needs it only for the norm_mean metric. */
double ps_norm_mean(ps_norm_t *nm);
/* Without a normaliser: theta_i -= w * g_i (w * g_i rounded first, as a step accumulated
 * with weight w and then subtracted would be), and theta_i -= step_i; copy as below.  Each
 * returns whether every theta_i is finite afterwards. */
bool ps_plain_apply(float *theta, float w, const float *g, size_t n, float *copy);
bool ps_plain_sub(float *theta, const float *step, size_t n, float *copy);
/* theta_i -= step_i / d_i with the current statistics, and copy_i = the new theta_i unless
 * copy is NULL (a snapshot of the new version, filled in the same pass).  Returns whether
 * every theta_i is finite afterwards (checked in the same pass, for
 * alg_update_done_checked). */
bool ps_norm_apply(const ps_norm_t *nm, float *theta, const float *step, float *copy);
/* The same as ps_norm_observe(nm, g) followed by ps_norm_apply with step_i = w * g_i (each
 * element sees the same operations in the same order, so the bits are identical), in one pass
 * over memory: the common case of an update made of a single gradient.  Returns whether every
 * theta_i is finite afterwards. */
bool ps_norm_observe_apply(ps_norm_t *nm, float *theta, const float *g, float w, float *copy);

/* B-FASGD: probability of transmitting, 1 / (1 + c / (v + eps)); c = 0 gives exactly 1. */
double ps_gate_probability(double c, double v, double eps);

#endif
