/* A rule that exists only in the test build (tests/algorithms/registry_with_example.c): the
 * proof that adding a parameter-server rule takes this one file and one registry line --
 * the conformance suite (tests/cli/test_cli_conformance.sh) runs it like every registered
 * algorithm.  "example-clipped": plain SGD on each gradient clipped element-wise to
 * [-clip, clip]; it may see merged gradients (their mean is clipped). */
#include "algorithms/ps_opts.h"
#include "algorithms/ps_rule.h"

typedef struct clip_state {
    float clip;
} clip_state_t;

static const char *const example_keys[] = {"clip", NULL};

static int parse_example(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    (void)s;
    double *clip = sgd_xcalloc(1, sizeof *clip);
    o->rule_opts = clip;
    return sgd_jobj_num(a, "clip", 1.0, 0.0, true, 1e6, clip, err);
}

static size_t example_state_bytes(const ps_opts_t *o, size_t n)
{
    (void)o;
    (void)n;
    return sizeof(clip_state_t);
}

static void example_init(void *state, const ps_opts_t *o, size_t n)
{
    (void)n;
    ((clip_state_t *)state)->clip = (float)*(const double *)o->rule_opts;
}

static void example_step(void *state, const ps_grad_t *g, float *out)
{
    const float clip = ((const clip_state_t *)state)->clip;
    for (size_t i = 0; i < g->n; i++) {
        float x = g->g[i] > clip ? clip : g->g[i] < -clip ? -clip : g->g[i];
        out[i] = g->w * x;
    }
}

PS_RULE_PARSER(example_options, ps_rule_example)
const ps_rule_t ps_rule_example = {
    .ops = PS_RULE_OPS("example-clipped", example_options),
    .protocol = PS_PROTO_SOFTSYNC,
    .merge = true,
    .keys = example_keys,
    .parse = parse_example,
    .state_bytes = example_state_bytes,
    /* the clip is the option's, laid out by init: nothing evolves, so nothing is saved */
    .state_header = sizeof(clip_state_t),
    .init = example_init,
    .step = example_step,
};
