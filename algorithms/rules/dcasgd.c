/* DC-ASGD (Zheng et al., "Asynchronous Stochastic Gradient Descent with Delay Compensation",
 * ICML 2017): the server compensates each gradient for the updates made since the client
 * fetched, with the first-order Taylor term whose Hessian is approximated by lambda g (.) g:
 *
 *     g~ = g + lambda g (.) g (.) (theta_now - theta_stale)
 *
 * and applies theta -= w g~ (w = lr s(tau) / c, the family's weight; s = 1 by default).
 *   variant "c" (DC-ASGD-c): lambda = lambda_dc, a constant (default 0.04);
 *   variant "a" (DC-ASGD-a): lambda_i = lambda_dc / sqrt(MeanSquare_i + eps), per parameter,
 *     with MeanSquare = m MeanSquare + (1 - m) g (.) g folded in with every gradient, before
 *     its compensation (defaults lambda_dc 2, m 0.95, eps 1e-7; MeanSquare starts at 0).
 * The defaults are the authors' CIFAR-10 settings as the public implementations (MXNet's
 * DCASGD optimizer, lamda = 0.04) carry them; eps, which keeps the first division finite, is
 * sgdsim's reading of "1 / sqrt(MeanSquare)" (docs/scenario.md).
 *
 * n-softsync with c > 1: gradients are never merged (merge = false), so each is compensated
 * against its own snapshot; every gradient of one update is compensated against the same
 * theta_now, the parameters before the update, and their steps are summed in arrival order.
 * With lambda_dc = 0 ("c") the step is w g exactly: SASGD with staleness "none". */
#include <math.h>
#include <stdio.h>

#include "algorithms/rules/scaled.h"

typedef struct dc_opts {
    bool adaptive;  /* variant "a" */
    double lambda;  /* lambda_dc: lambda, or lambda0 of the adaptive variant */
    double m;       /* "a": the mean square's decay */
    double eps;     /* "a": added to the mean square under the root */
} dc_opts_t;

static const char *const dcasgd_keys[] = {"lambda_dc", "variant", "m", "eps", "staleness", NULL};

static int parse_variant(const sgd_jobj_t *a, dc_opts_t *d, sgd_err_t *err)
{
    static const char *const variants[] = {"c", "a", NULL};
    int v;
    if (sgd_jobj_enum(a, "variant", variants, 0, &v, err)) return -1;
    d->adaptive = v == 1;
    if (!d->adaptive)
        return ps_reject_key(a, "m", "only valid with variant \"a\" (DC-ASGD-a)", err) ||
                       ps_reject_key(a, "eps", "only valid with variant \"a\" (DC-ASGD-a)", err) ||
                       sgd_jobj_num(a, "lambda_dc", 0.04, 0.0, false, 1e6, &d->lambda, err)
                   ? -1
                   : 0;
    return sgd_jobj_num(a, "lambda_dc", 2.0, 0.0, false, 1e6, &d->lambda, err) ||
                   sgd_jobj_num(a, "m", 0.95, 0.0, false, 0.999999, &d->m, err) ||
                   sgd_jobj_num(a, "eps", 1e-7, 0.0, true, 1e3, &d->eps, err)
               ? -1
               : 0;
}

static int parse_dcasgd(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    (void)s;
    static const char *const stale[] = {"none", "paper", "fred", NULL};
    int st;
    if (sgd_jobj_enum(a, "staleness", stale, 0, &st, err)) return -1;
    o->staleness = (ps_staleness_t)st;
    dc_opts_t *d = sgd_xcalloc(1, sizeof *d);
    o->rule_opts = d;
    return parse_variant(a, d, err);
}

/* The state: the options, then (variant "a") the mean square, one float per parameter,
 * one cache line after the header. */
typedef struct dc_state {
    dc_opts_t opts;
    float *mean_square; /* "a" */
} dc_state_t;
#define DC_HEADER (((sizeof(dc_state_t) + 63) / 64) * 64)

static size_t dcasgd_state_bytes(const ps_opts_t *o, size_t n)
{
    const dc_opts_t *d = o->rule_opts;
    return DC_HEADER + (d->adaptive ? n * sizeof(float) : 0);
}

static void dcasgd_init(void *state, const ps_opts_t *o, size_t n)
{
    (void)n;
    dc_state_t *st = state;
    st->opts = *(const dc_opts_t *)o->rule_opts;
    if (st->opts.adaptive) st->mean_square = (float *)(void *)((char *)state + DC_HEADER);
}

static void constant_step(float lambda, const ps_grad_t *g, float *restrict out)
{
    const float *restrict gr = g->g, *restrict now = g->now, *restrict stale = g->stale;
    const float w = g->w;
    if (lambda == 0.0f || !stale) { /* nothing to compensate: the plain step, exactly */
        for (size_t i = 0; i < g->n; i++) out[i] = w * gr[i];
        return;
    }
    for (size_t i = 0; i < g->n; i++)
        out[i] = w * (gr[i] + lambda * gr[i] * gr[i] * (now[i] - stale[i]));
}

static void adaptive_step(const dc_opts_t *d, float *restrict ms, const ps_grad_t *g,
                          float *restrict out)
{
    const float *restrict gr = g->g, *restrict now = g->now, *restrict stale = g->stale;
    const float w = g->w, m = (float)d->m, m1 = (float)(1.0 - d->m);
    const float lambda0 = (float)d->lambda, eps = (float)d->eps;
    for (size_t i = 0; i < g->n; i++) {
        ms[i] = m * ms[i] + m1 * gr[i] * gr[i];
        const float lambda = lambda0 / sqrtf(ms[i] + eps);
        const float comp = stale ? lambda * gr[i] * gr[i] * (now[i] - stale[i]) : 0.0f;
        out[i] = w * (gr[i] + comp);
    }
}

static void dcasgd_step(void *state, const ps_grad_t *g, float *out)
{
    dc_state_t *st = state;
    if (st->opts.adaptive)
        adaptive_step(&st->opts, st->mean_square, g, out);
    else
        constant_step((float)st->opts.lambda, g, out);
}

/* The mean square of variant "a": finite, and a mean of squares is never negative. */
static bool dcasgd_check_state(const void *state, size_t n, char *why, size_t size)
{
    const dc_state_t *st = state;
    for (size_t i = 0; st->opts.adaptive && i < n; i++)
        if (!isfinite(st->mean_square[i]) || st->mean_square[i] < 0) {
            snprintf(why, size, "mean square [%zu] = %g", i, (double)st->mean_square[i]);
            return false;
        }
    return true;
}

PS_RULE_PARSER(dcasgd_options, ps_rule_dcasgd)
const ps_rule_t ps_rule_dcasgd = {
    .ops = PS_RULE_OPS("dc-asgd", dcasgd_options),
    .protocol = PS_PROTO_SOFTSYNC,
    .merge = false, /* each gradient against its own snapshot */
    .keys = dcasgd_keys,
    .parse = parse_dcasgd,
    .state_bytes = dcasgd_state_bytes,
    .state_header = DC_HEADER, /* the options and the pointer; the mean square is saved */
    .init = dcasgd_init,
    .check_state = dcasgd_check_state,
    .step = dcasgd_step,
};
