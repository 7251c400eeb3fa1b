/* SASGD (Zhang et al., IJCAI 2016; docs/papers.md §3): n-softsync, each gradient scaled by
 * the staleness factor (default "paper", alpha / tau), no normaliser by default -- so the
 * gradients of one update computed on one snapshot may be merged into one stacked
 * minibatch.  With a normaliser it is FASGD's step under another name. */
#include "algorithms/rules/scaled.h"

static const char *const sasgd_keys[] = {"staleness", "normaliser", "decay", "gamma",
                                         "beta",      "eps",        NULL};

static int parse_sasgd(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    (void)s;
    return ps_parse_scaling(a, o, PS_STALE_PAPER, PS_NORM_NONE, false, err);
}

PS_RULE_PARSER(sasgd_options, ps_rule_sasgd)
const ps_rule_t ps_rule_sasgd = {
    .ops = PS_RULE_OPS("sasgd", sasgd_options),
    .protocol = PS_PROTO_SOFTSYNC,
    .merge = true,
    .keys = sasgd_keys,
    .parse = parse_sasgd,
    PS_SCALED_ARITHMETIC,
};
