/* B-FASGD (Odena, 2016; docs/papers.md §2): FASGD's step, with fetches and pushes gated by
 * the normaliser's mean v -- a client sends with probability 1 / (1 + c / (v + eps)) and a
 * skipped push makes the server re-apply the client's last gradient (ps.c). */
#include "algorithms/rules/scaled.h"

static const char *const bfasgd_keys[] = {
    "staleness",  "normaliser",        "decay",      "gamma",     "beta", "eps",
    "c_fetch",    "c_push",            "gating_eps", "skipped_fetch_tau", "first_push",
    "initial_v",  NULL};

static int parse_bfasgd(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    (void)s;
    return ps_parse_scaling(a, o, PS_STALE_FRED, PS_NORM_FRED, true, err) ||
                   ps_parse_gating(a, o, err)
               ? -1
               : 0;
}

PS_RULE_PARSER(bfasgd_options, ps_rule_bfasgd)
const ps_rule_t ps_rule_bfasgd = {
    .ops = PS_RULE_OPS("b-fasgd", bfasgd_options),
    .protocol = PS_PROTO_SOFTSYNC,
    .merge = false,
    .gated = true,
    .keys = bfasgd_keys,
    .parse = parse_bfasgd,
    PS_SCALED_ARITHMETIC,
};
