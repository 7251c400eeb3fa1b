/* FedAsync (Xie, Koyejo & Gupta, "Asynchronous Federated Optimization", arXiv:1903.03934;
 * docs/papers.md §5): every push is an update.  A client that fetched theta_stale trains
 * locally (algorithm.local) and the server mixes its model in:
 *
 *     theta <- (1 - alpha_t) theta + alpha_t theta_client,  theta_client = theta_stale - Delta
 *     alpha_t = alpha * s(tau)
 *
 * with s the staleness function: "constant" 1, "polynomial" (tau + 1)^(-a), "hinge" 1 for
 * tau <= b, else 1 / (a (tau - b) + 1).  As a step (the family subtracts it):
 *
 *     out_i = alpha_t * ((theta_i - stale_i) + Delta_i),  alpha_t rounded to float once.
 *
 * Defaults: alpha 0.6, polynomial a = 0.5, hinge a = 10 and b = 6 (docs/papers.md §5 says
 * where they come from and what could not be checked). */
#include <math.h>

#include "algorithms/ps_opts.h"
#include "algorithms/ps_rule.h"

typedef enum { FA_CONSTANT, FA_POLYNOMIAL, FA_HINGE } fa_fn_t;

typedef struct fedasync_opts {
    double alpha;
    fa_fn_t fn;
    double a, b;
} fedasync_opts_t;

static const char *const fedasync_keys[] = {"alpha", "staleness", "a", "b", NULL};

static int parse_fn(const sgd_jobj_t *a, fedasync_opts_t *f, sgd_err_t *err)
{
    static const char *const fns[] = {"constant", "polynomial", "hinge", NULL};
    int fn;
    if (sgd_jobj_enum(a, "staleness", fns, FA_CONSTANT, &fn, err)) return -1;
    f->fn = (fa_fn_t)fn;
    switch (f->fn) {
    case FA_CONSTANT:
        return ps_reject_key(a, "a", "only valid with staleness \"polynomial\" or \"hinge\"",
                             err) ||
                       ps_reject_key(a, "b", "only valid with staleness \"hinge\"", err)
                   ? -1
                   : 0;
    case FA_POLYNOMIAL:
        return ps_reject_key(a, "b", "only valid with staleness \"hinge\"", err) ||
                       sgd_jobj_num(a, "a", 0.5, 0.0, false, 100.0, &f->a, err)
                   ? -1
                   : 0;
    case FA_HINGE:
        return sgd_jobj_num(a, "a", 10.0, 0.0, true, 1e6, &f->a, err) ||
                       sgd_jobj_num(a, "b", 6.0, 0.0, false, 1e9, &f->b, err)
                   ? -1
                   : 0;
    }
    return 0;
}

static int parse_fedasync(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    (void)s;
    o->c = 1;
    fedasync_opts_t *f = sgd_xcalloc(1, sizeof *f);
    o->rule_opts = f;
    return sgd_jobj_num(a, "alpha", 0.6, 0.0, true, 1.0, &f->alpha, err) ||
                   parse_fn(a, f, err)
               ? -1
               : 0;
}

/* s(tau) of the paper's three functions. */
static double fedasync_s(const fedasync_opts_t *f, int64_t tau)
{
    const double t = (double)tau;
    switch (f->fn) {
    case FA_CONSTANT: return 1.0;
    case FA_POLYNOMIAL: return pow(t + 1.0, -f->a);
    case FA_HINGE: return t <= f->b ? 1.0 : 1.0 / (f->a * (t - f->b) + 1.0);
    }
    return 1.0;
}

#define FEDASYNC_HEADER (((sizeof(fedasync_opts_t) + 63) / 64) * 64)

static size_t fedasync_state_bytes(const ps_opts_t *o, size_t n)
{
    (void)o, (void)n;
    return FEDASYNC_HEADER;
}

static void fedasync_init(void *state, const ps_opts_t *o, size_t n)
{
    (void)n;
    *(fedasync_opts_t *)state = *(const fedasync_opts_t *)o->rule_opts;
}

static void fedasync_step(void *state, const ps_grad_t *g, float *restrict out)
{
    const fedasync_opts_t *f = state;
    const float at = (float)(f->alpha * fedasync_s(f, g->tau));
    const float *restrict d = g->g, *restrict now = g->now, *restrict stale = g->stale;
    for (size_t i = 0; i < g->n; i++) out[i] = at * ((now[i] - stale[i]) + d[i]);
}

PS_RULE_PARSER(fedasync_options, ps_rule_fedasync)
const ps_rule_t ps_rule_fedasync = {
    .ops = PS_RULE_OPS("fedasync", fedasync_options),
    .protocol = PS_PROTO_BUFFER,
    .merge = false,
    .federated = true,
    .keys = fedasync_keys,
    .parse = parse_fedasync,
    .state_bytes = fedasync_state_bytes,
    .state_header = FEDASYNC_HEADER,
    .init = fedasync_init,
    .step = fedasync_step,
};
