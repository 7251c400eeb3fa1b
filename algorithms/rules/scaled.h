/* The arithmetic shared by the scaled-step rules (SASGD, FASGD, B-FASGD, Downpour,
 * hardsync): theta_i -= sum_k w_k g_k,i / d_i, with d = 1 without a normaliser and the
 * FASGD normaliser's d otherwise (ps_rules.h has the formulas).  Their state is a ps_norm_t
 * followed by its arrays.  PS_SCALED_ARITHMETIC fills a ps_rule_t's arithmetic members. */
#ifndef SGDSIM_ALGORITHMS_RULES_SCALED_H
#define SGDSIM_ALGORITHMS_RULES_SCALED_H

#include "algorithms/ps_opts.h"
#include "algorithms/ps_rule.h"

size_t ps_scaled_state_bytes(const ps_opts_t *o, size_t n);
void ps_scaled_init(void *state, const ps_opts_t *o, size_t n);
void ps_scaled_accumulate(void *state, const ps_grad_t *g, float *sum, bool first);
bool ps_scaled_apply(void *state, float *theta, const float *sum, size_t n, float *copy);
bool ps_scaled_apply_one(void *state, const ps_grad_t *g, float *theta, float *copy);
bool ps_scaled_norm_mean(void *state, double *mean);
bool ps_scaled_check_state(const void *state, size_t n, char *why, size_t size);

/* The normaliser's arrays start one cache line after its header (a ps_norm_t: options,
 * pointers to the arrays and the cached mean, laid out again by init, so a checkpoint saves
 * only the arrays). */
#define PS_SCALED_HEADER (((sizeof(ps_norm_t) + 63) / 64) * 64)

#define PS_SCALED_ARITHMETIC                                                              \
    .state_bytes = ps_scaled_state_bytes, .state_header = PS_SCALED_HEADER,               \
    .init = ps_scaled_init, .check_state = ps_scaled_check_state,                          \
    .accumulate = ps_scaled_accumulate, .apply = ps_scaled_apply,                         \
    .apply_one = ps_scaled_apply_one, .norm_mean = ps_scaled_norm_mean

#endif
