/* Staleness factors, FASGD normalisers, B-FASGD gating and the passes that write the
 * parameters (formulas in ps_rules.h). */
#include "algorithms/ps_rules.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

double ps_staleness_factor(ps_staleness_t rule, int64_t tau)
{
    SGD_ASSERT(tau >= 0);
    switch (rule) {
    case PS_STALE_NONE: return 1.0;
    case PS_STALE_PAPER: return tau > 0 ? 1.0 / (double)tau : 1.0;
    case PS_STALE_FRED: return 1.0 / ((double)tau + 1.0);
    }
    sgd_die(__FILE__, __LINE__, "unknown staleness rule %d", (int)rule);
    return 1.0;
}

void ps_norm_bind(ps_norm_t *nm, const ps_norm_cfg_t *cfg, size_t n, float *arrays)
{
    SGD_ASSERT(cfg->kind != PS_NORM_NONE);
    memset(nm, 0, sizeof *nm);
    nm->cfg = *cfg;
    nm->n = n;
    nm->m = arrays;
    if (cfg->kind == PS_NORM_PAPER) {
        nm->g1 = arrays + n;
        nm->g2 = arrays + 2 * n;
    }
}

void ps_norm_observe(ps_norm_t *nm, const float *restrict g)
{
    /* The statistics are float arrays updated in float (one rounding per operation, fixed
     * element order).  restrict: the arrays never overlap, which lets the compiler vectorise
     * without run-time overlap checks (element-wise, so the results are the same). */
    float *restrict m = nm->m;
    nm->mean_valid = false;
    if (nm->cfg.kind == PS_NORM_FRED) {
        const float d = (float)nm->cfg.decay, e = (float)(1.0 - nm->cfg.decay);
        for (size_t i = 0; i < nm->n; i++) {
            m[i] = d * m[i] + e * fabsf(g[i]);
        }
    } else {
        const float ga = (float)nm->cfg.gamma, ge = (float)(1.0 - nm->cfg.gamma);
        const float be = (float)nm->cfg.beta, bb = (float)(1.0 - nm->cfg.beta);
        const float eps = (float)nm->cfg.eps;
        float *restrict b = nm->g1, *restrict n2 = nm->g2;
        for (size_t i = 0; i < nm->n; i++) {
            n2[i] = ga * n2[i] + ge * g[i] * g[i];
            b[i] = ga * b[i] + ge * g[i];
            /* n - b^2 is a variance, >= 0 in exact arithmetic; rounding can make it slightly
             * negative, which must not reach sqrt. */
            float var = n2[i] - b[i] * b[i];
            if (var < 0.0f) var = 0.0f;
            m[i] = be * m[i] + bb * sqrtf(var + eps);
        }
    }
}

double ps_norm_mean(ps_norm_t *nm)
{
    if (nm->mean_valid) return nm->mean;
    /* Eight partial sums in double, i mod 8, combined in a fixed order: the same result
     * every time, and a loop the compiler can vectorise (one running sum cannot be). */
    double part[8] = {0};
    size_t i = 0;
    for (; i + 8 <= nm->n; i += 8)
        for (int j = 0; j < 8; j++) part[j] += nm->m[i + (size_t)j];
    for (; i < nm->n; i++) part[i % 8] += nm->m[i];
    double sum = ((part[0] + part[1]) + (part[2] + part[3])) +
                 ((part[4] + part[5]) + (part[6] + part[7]));
    nm->mean = nm->n ? sum / (double)nm->n : 0.0;
    nm->mean_valid = true;
    return nm->mean;
}

/* Whether x is NaN or infinite, branch-free: x - x is exactly 0 for every finite x (also
 * with flush-to-zero) and NaN otherwise.  Or-ed over a loop, it vectorises (an integer
 * reduction), so the check rides along the pass that writes the parameters. */
static inline int nonfinite(float x)
{
    return (x - x) != 0.0f;
}

/* The loops below come in two forms, with and without a copy of the new parameters: each is
 * written once as an always-inlined function of a constant `with_copy`, which the compiler
 * folds, so neither form carries a test per element. */
#define PASS static inline __attribute__((always_inline))

PASS int apply_pass(const ps_norm_t *nm, float *restrict theta, const float *restrict step,
                    float *restrict copy, bool with_copy)
{
    const float *restrict m = nm->m;
    int bad = 0;
    if (nm->cfg.kind == PS_NORM_FRED) {
        const float eps = (float)nm->cfg.eps;
        for (size_t i = 0; i < nm->n; i++) {
            theta[i] -= step[i] / (m[i] + eps);
            bad |= nonfinite(theta[i]);
            if (with_copy) copy[i] = theta[i];
        }
        return bad;
    }
    /* v > 0 always: after the first gradient v >= (1 - beta) sqrt(eps), and a step only
     * follows an observe. */
    for (size_t i = 0; i < nm->n; i++) {
        theta[i] -= step[i] / m[i];
        bad |= nonfinite(theta[i]);
        if (with_copy) copy[i] = theta[i];
    }
    return bad;
}

PASS int plain_apply_pass(float *restrict theta, float w, const float *restrict g, size_t n,
                         float *restrict copy, bool with_copy)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        float step = w * g[i];
        theta[i] -= step;
        bad |= nonfinite(theta[i]);
        if (with_copy) copy[i] = theta[i];
    }
    return bad;
}

bool ps_plain_apply(float *restrict theta, float w, const float *restrict g, size_t n,
                    float *restrict copy)
{
    return !(copy ? plain_apply_pass(theta, w, g, n, copy, true)
                  : plain_apply_pass(theta, w, g, n, NULL, false));
}

PASS int plain_sub_pass(float *restrict theta, const float *restrict step, size_t n,
                       float *restrict copy, bool with_copy)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        theta[i] -= step[i];
        bad |= nonfinite(theta[i]);
        if (with_copy) copy[i] = theta[i];
    }
    return bad;
}

bool ps_plain_sub(float *restrict theta, const float *restrict step, size_t n,
                  float *restrict copy)
{
    return !(copy ? plain_sub_pass(theta, step, n, copy, true)
                  : plain_sub_pass(theta, step, n, NULL, false));
}

bool ps_norm_apply(const ps_norm_t *nm, float *restrict theta, const float *restrict step,
                   float *restrict copy)
{
    return !(copy ? apply_pass(nm, theta, step, copy, true)
                  : apply_pass(nm, theta, step, NULL, false));
}

PASS int fred_observe_apply_pass(ps_norm_t *nm, float *restrict theta, const float *restrict g,
                                 float w, float *restrict copy, bool with_copy)
{
    float *restrict m = nm->m;
    const float d = (float)nm->cfg.decay, e = (float)(1.0 - nm->cfg.decay);
    const float eps = (float)nm->cfg.eps;
    int bad = 0;
    for (size_t i = 0; i < nm->n; i++) {
        m[i] = d * m[i] + e * fabsf(g[i]);
        float step = w * g[i];
        theta[i] -= step / (m[i] + eps);
        bad |= nonfinite(theta[i]);
        if (with_copy) copy[i] = theta[i];
    }
    return bad;
}

PASS int paper_observe_apply_pass(ps_norm_t *nm, float *restrict theta,
                                  const float *restrict g, float w, float *restrict copy,
                                  bool with_copy)
{
    float *restrict m = nm->m, *restrict b = nm->g1, *restrict n2 = nm->g2;
    const float ga = (float)nm->cfg.gamma, ge = (float)(1.0 - nm->cfg.gamma);
    const float be = (float)nm->cfg.beta, bb = (float)(1.0 - nm->cfg.beta);
    const float eps = (float)nm->cfg.eps;
    int bad = 0;
    for (size_t i = 0; i < nm->n; i++) { /* ps_norm_observe's operations, then the step's */
        n2[i] = ga * n2[i] + ge * g[i] * g[i];
        b[i] = ga * b[i] + ge * g[i];
        float var = n2[i] - b[i] * b[i];
        if (var < 0.0f) var = 0.0f;
        m[i] = be * m[i] + bb * sqrtf(var + eps);
        float step = w * g[i];
        theta[i] -= step / m[i];
        bad |= nonfinite(theta[i]);
        if (with_copy) copy[i] = theta[i];
    }
    return bad;
}

bool ps_norm_observe_apply(ps_norm_t *nm, float *restrict theta, const float *restrict g,
                           float w, float *restrict copy)
{
    nm->mean_valid = false;
    if (nm->cfg.kind == PS_NORM_FRED)
        return !(copy ? fred_observe_apply_pass(nm, theta, g, w, copy, true)
                      : fred_observe_apply_pass(nm, theta, g, w, NULL, false));
    return !(copy ? paper_observe_apply_pass(nm, theta, g, w, copy, true)
                  : paper_observe_apply_pass(nm, theta, g, w, NULL, false));
}

double ps_gate_probability(double c, double v, double eps)
{
    return 1.0 / (1.0 + c / (v + eps));
}
