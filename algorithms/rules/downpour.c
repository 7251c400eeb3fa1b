/* Downpour SGD (Dean et al., 2012): every client fetches every k_fetch-th gradient and
 * pushes every k_push-th (the gradients computed since, on the snapshots they were computed
 * on); the server applies each push as one update of plain SGD, no staleness factor. */
#include "algorithms/rules/scaled.h"

static const char *const downpour_keys[] = {"k_fetch", "k_push", NULL};

static int parse_downpour(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    (void)s;
    return sgd_jobj_int(a, "k_fetch", 1, 1, 1 << 20, &o->k_fetch, err) ||
                   sgd_jobj_int(a, "k_push", 1, 1, 1 << 20, &o->k_push, err)
               ? -1
               : 0;
}

PS_RULE_PARSER(downpour_options, ps_rule_downpour)
const ps_rule_t ps_rule_downpour = {
    .ops = PS_RULE_OPS("downpour", downpour_options),
    .protocol = PS_PROTO_DOWNPOUR,
    .merge = true,
    .keys = downpour_keys,
    .parse = parse_downpour,
    PS_SCALED_ARITHMETIC,
};
