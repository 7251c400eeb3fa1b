/* FASGD (Odena, 2016; docs/papers.md §2): n-softsync, the step divided per parameter by a
 * normaliser of the gradients' moving statistics ("fred" by default, or "paper"), scaled by
 * the staleness factor (default "fred", 1 / (tau + 1)).  The normaliser folds in each
 * gradient alone, so gradients are never merged. */
#include "algorithms/rules/scaled.h"

static const char *const fasgd_keys[] = {"staleness", "normaliser", "decay", "gamma",
                                         "beta",      "eps",        NULL};

static int parse_fasgd(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    (void)s;
    return ps_parse_scaling(a, o, PS_STALE_FRED, PS_NORM_FRED, true, err);
}

PS_RULE_PARSER(fasgd_options, ps_rule_fasgd)
const ps_rule_t ps_rule_fasgd = {
    .ops = PS_RULE_OPS("fasgd", fasgd_options),
    .protocol = PS_PROTO_SOFTSYNC,
    .merge = false,
    .keys = fasgd_keys,
    .parse = parse_fasgd,
    PS_SCALED_ARITHMETIC,
};
