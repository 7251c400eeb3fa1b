/* FedAvg (McMahan, Moore, Ramage, Hampson & Agüera y Arcas, "Communication-Efficient Learning
 * of Deep Networks from Decentralized Data", AISTATS 2017; docs/papers.md §5): rounds.  Each
 * round the server samples K = clients_per_round of the registered clients that are online
 * and hold data, uniformly without replacement, all on the current version; each runs local
 * training (algorithm.local, default one epoch) and pushes its delta; the round ends when
 * every selected client has pushed or dropped out (ps_slots.c), and the server applies
 *
 *     theta -= eta_g * sum_k (n_k / sum_j n_j) Delta_k
 *
 * over the clients that reported, n_k the client's sample count (a partition's; equal without
 * one), eta_g = server_lr (1: plain FedAvg, theta becomes the weighted mean of the clients'
 * models).  Per term: out = w_k Delta_k with w_k = (float)(eta_g n_k / sum_j n_j); the family
 * sums the terms' steps in arrival order and subtracts the sum.  A round in which every
 * client dropped out makes no update; the next round starts at once. */
#include "algorithms/ps_opts.h"
#include "algorithms/ps_rule.h"

typedef struct fedavg_opts {
    double server_lr; /* eta_g */
} fedavg_opts_t;

/* McMahan et al.'s experiments sample C = 0.1 of 100 clients: 10 per round. */
#define FEDAVG_DEFAULT_K 10

static const char *const fedavg_keys[] = {"clients_per_round", "server_lr", NULL};

static int parse_fedavg(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    const int64_t def = s->workers < FEDAVG_DEFAULT_K ? s->workers : FEDAVG_DEFAULT_K;
    int64_t k;
    if (sgd_jobj_int(a, "clients_per_round", def, 1, s->workers, &k, err)) return -1;
    o->c = k;
    o->concurrency = k;
    fedavg_opts_t *f = sgd_xcalloc(1, sizeof *f);
    o->rule_opts = f;
    return sgd_jobj_num(a, "server_lr", 1.0, 0.0, true, 1e6, &f->server_lr, err);
}

/* The state: the options (nothing evolves, so nothing is saved). */
#define FEDAVG_HEADER (((sizeof(fedavg_opts_t) + 63) / 64) * 64)

static size_t fedavg_state_bytes(const ps_opts_t *o, size_t n)
{
    (void)o, (void)n;
    return FEDAVG_HEADER;
}

static void fedavg_init(void *state, const ps_opts_t *o, size_t n)
{
    (void)n;
    *(fedavg_opts_t *)state = *(const fedavg_opts_t *)o->rule_opts;
}

static void fedavg_step(void *state, const ps_grad_t *g, float *restrict out)
{
    const fedavg_opts_t *f = state;
    const float w = (float)(f->server_lr * (double)g->samples / (double)g->samples_sum);
    const float *restrict d = g->g;
    for (size_t i = 0; i < g->n; i++) out[i] = w * d[i];
}

PS_RULE_PARSER(fedavg_options, ps_rule_fedavg)
const ps_rule_t ps_rule_fedavg = {
    .ops = PS_RULE_OPS("fedavg", fedavg_options),
    .protocol = PS_PROTO_ROUNDS,
    .merge = false,
    .federated = true,
    .keys = fedavg_keys,
    .parse = parse_fedavg,
    .state_bytes = fedavg_state_bytes,
    .state_header = FEDAVG_HEADER,
    .init = fedavg_init,
    .step = fedavg_step,
};
