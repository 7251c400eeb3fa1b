/* FedBuff (Nguyen, Malik, Zhan, Yousefpour, Rabbat, Malek & Huba, "Federated Learning with
 * Buffered Asynchronous Aggregation", AISTATS 2022, arXiv:2106.06639; docs/papers.md §5): at
 * most C = algorithm.concurrency clients train at a time (local training, algorithm.local);
 * the server takes each delta into a buffer, and with K = buffer of them applies
 *
 *     theta -= eta_g (1/K) sum_k s(tau_k) Delta_k,   s(tau) = 1 / sqrt(1 + tau)
 *
 * eta_g = server_lr.  A client whose push the server took in leaves its slot, which takes
 * another client (ps_clients.h).  Per term: out = w_k Delta_k with
 * w_k = (float)(eta_g / sqrt(1 + tau_k) / K); the family sums the terms' steps in arrival
 * order and subtracts the sum.  Defaults: K = 10, eta_g = 1, C = 1000 (at most lambda). */
#include <math.h>

#include "algorithms/ps_opts.h"
#include "algorithms/ps_rule.h"

typedef struct fedbuff_opts {
    double server_lr; /* eta_g */
    int64_t k;        /* the buffer */
} fedbuff_opts_t;

static const char *const fedbuff_keys[] = {"buffer", "server_lr", NULL};

static int parse_fedbuff(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    (void)s;
    fedbuff_opts_t *f = sgd_xcalloc(1, sizeof *f);
    o->rule_opts = f;
    if (sgd_jobj_int(a, "buffer", 10, 1, 1 << 20, &f->k, err) ||
        sgd_jobj_num(a, "server_lr", 1.0, 0.0, true, 1e6, &f->server_lr, err))
        return -1;
    o->c = f->k;
    return 0;
}

#define FEDBUFF_HEADER (((sizeof(fedbuff_opts_t) + 63) / 64) * 64)

static size_t fedbuff_state_bytes(const ps_opts_t *o, size_t n)
{
    (void)o, (void)n;
    return FEDBUFF_HEADER;
}

static void fedbuff_init(void *state, const ps_opts_t *o, size_t n)
{
    (void)n;
    *(fedbuff_opts_t *)state = *(const fedbuff_opts_t *)o->rule_opts;
}

static void fedbuff_step(void *state, const ps_grad_t *g, float *restrict out)
{
    const fedbuff_opts_t *f = state;
    const float w =
        (float)(f->server_lr / sqrt(1.0 + (double)g->tau) / (double)f->k);
    const float *restrict d = g->g;
    for (size_t i = 0; i < g->n; i++) out[i] = w * d[i];
}

PS_RULE_PARSER(fedbuff_options, ps_rule_fedbuff)
const ps_rule_t ps_rule_fedbuff = {
    .ops = PS_RULE_OPS("fedbuff", fedbuff_options),
    .protocol = PS_PROTO_BUFFER,
    .merge = false,
    .federated = true,
    .default_concurrency = 1000,
    .keys = fedbuff_keys,
    .parse = parse_fedbuff,
    .state_bytes = fedbuff_state_bytes,
    .state_header = FEDBUFF_HEADER,
    .init = fedbuff_init,
    .step = fedbuff_step,
};
