/* DC-ASGD (algorithms/rules/dcasgd.c): lambda_dc = 0 is SASGD with staleness "none" bit for
 * bit on both drivers; the rule's step on 3 parameters against values computed by hand for
 * both variants; with c > 1 (n-softsync) the compensation changes the run and batching does
 * not; every bad option is refused with its JSON path. */
#include <stdlib.h>

#include "algorithms/ps_opts.h"
#include "algorithms/ps_rule.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/algorithms/rule_takers.h"
#include "tests/check.h"

extern const ps_rule_t ps_rule_dcasgd;

static const char *base =
    "{\"schema_version\": 1, \"seed\": 11, \"algorithm\": {\"name\": \"dc-asgd\"},"
    " \"cluster\": {\"workers\": 4},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 512, \"n_validation\": 128,"
    "           \"dim\": 12, \"classes\": 4, \"separation\": 2.0},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [16], \"init\": \"glorot\"},"
    " \"batch\": {\"per_worker\": 8}, \"optimizer\": {\"lr\": 0.05},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"gamma\", \"mean\": 0.01, \"cv\": 0.5}},"
    " \"stop\": {\"updates\": 60}, \"eval\": {\"every\": 20}}";

static alg_outcome_t run(const char *const *sets, int nsets)
{
    return run_scenario(base, "dc.json", sets, nsets, NULL);
}

static void zero_lambda_equals_sasgd_without_staleness_scaling(void)
{
    static const char *const drivers[] = {"algorithm.driver=uniform", "algorithm.driver=timed"};
    for (int d = 0; d < 2; d++) {
        const char *dc[] = {"algorithm.name=dc-asgd", "algorithm.lambda_dc=0", drivers[d],
                            "algorithm.minibatch=random"};
        const char *sa[] = {"algorithm.name=sasgd", "algorithm.staleness=none", drivers[d],
                            "algorithm.minibatch=random"};
        alg_outcome_t a = run(dc, 4), b = run(sa, 4);
        CHECK_INT_EQ(a.status, ALG_COMPLETE);
        CHECK_INT_EQ(a.updates, 60);
        CHECK(same_params(&a, &b));
        CHECK_STR_EQ(a.digest, b.digest);
        free(a.final_params);
        free(b.final_params);
    }
}

/* The options of `algorithm` (a JSON object) as the loader parses them. */
static scn_t load(const char *algorithm)
{
    char set[256];
    snprintf(set, sizeof set, "algorithm=%s", algorithm);
    scn_override_t ov[] = {{set}};
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load_text(base, "dc.json", ".", ov, 1, NULL, alg_scenario_table, &s, &err)) {
        fprintf(stderr, "load: %s\n", err.msg);
        abort();
    }
    return s;
}

/* One step of the rule on 3 parameters; out gets the step (theta -= out). */
static void rule_step(const char *algorithm, const float g[3], const float now[3],
                      const float stale[3], float w, float out[3])
{
    scn_t s = load(algorithm);
    const ps_opts_t *o = s.alg_opts;
    CHECK(o->rule == &ps_rule_dcasgd);
    CHECK(!o->merge); /* each gradient against its own snapshot */
    const size_t bytes = ps_rule_dcasgd.state_bytes(o, 3);
    void *state = aligned_alloc(64, (bytes + 63) / 64 * 64);
    memset(state, 0, bytes);
    ps_rule_dcasgd.init(state, o, 3);
    const ps_grad_t gr = {.g = g, .now = now, .stale = stale, .tau = 2, .count = 1, .w = w,
                          .n = 3};
    ps_rule_dcasgd.step(state, &gr, out);
    free(state);
    scn_free(&s);
}

static void constant_variant_by_hand(void)
{
    /* lambda 0.5, w 0.5:  g~ = g + 0.5 g g (now - stale)
     *   1 + 0.5 * 1 * 1 * 0.5       =  1.25  -> 0.625
     *  -2 + 0.5 * 4 * (-0.5)        = -3     -> -1.5
     *   0.5 + 0.5 * 0.25 * 0        =  0.5   -> 0.25   (no delay, no compensation) */
    const float g[3] = {1.0f, -2.0f, 0.5f}, now[3] = {1.0f, 2.0f, 3.0f},
                stale[3] = {0.5f, 2.5f, 3.0f};
    float out[3];
    rule_step("{\"name\":\"dc-asgd\",\"lambda_dc\":0.5}", g, now, stale, 0.5f, out);
    CHECK(out[0] == 0.625f && out[1] == -1.5f && out[2] == 0.25f);
}

static void adaptive_variant_by_hand(void)
{
    /* lambda0 2, m 0.75, eps 1e-30 (1 + eps == 1 in float), w 0.5, MeanSquare starts at 0:
     *   MeanSquare = 0.25 g g = (1, 4, 0);  lambda_i = 2 / sqrt(MeanSquare_i + eps) = (2, 1, 2e15)
     *   g~ = 2 + 2 * 4 * 0.25 = 4;  -4 + 1 * 16 * (-0.5) = -12;  0 + 2e15 * 0 = 0 */
    const float g[3] = {2.0f, -4.0f, 0.0f}, now[3] = {1.0f, 1.0f, 1.0f},
                stale[3] = {0.75f, 1.5f, 0.0f};
    float out[3];
    rule_step("{\"name\":\"dc-asgd\",\"variant\":\"a\",\"lambda_dc\":2,\"m\":0.75,\"eps\":1e-30}",
              g, now, stale, 0.5f, out);
    CHECK(out[0] == 2.0f && out[1] == -6.0f && out[2] == 0.0f);
}

static void many_gradients_per_update_are_compensated_and_batching_changes_nothing(void)
{
    for (int adaptive = 0; adaptive < 2; adaptive++) {
        const char *variant = adaptive ? "algorithm.variant=a" : "algorithm.variant=c";
        const char *on[] = {"algorithm.n=2", "algorithm.lambda_dc=1", variant,
                            "algorithm.gradient_batch=16"};
        const char *one[] = {"algorithm.n=2", "algorithm.lambda_dc=1", variant,
                             "algorithm.gradient_batch=1"};
        const char *off[] = {"algorithm.n=2", "algorithm.lambda_dc=0", variant};
        alg_outcome_t a = run(on, 4), b = run(one, 4), c = run(off, 3);
        CHECK_INT_EQ(a.status, ALG_COMPLETE);
        CHECK_INT_EQ(a.updates, 60);
        CHECK(same_params(&a, &b));
        CHECK_STR_EQ(a.digest, b.digest);
        if (!adaptive) CHECK(!same_params(&a, &c)); /* lambda 0 is the plain step */
        free(a.final_params);
        free(b.final_params);
        free(c.final_params);
    }
}

static void expect_error(const char *algorithm, const char *needle)
{
    char set[256];
    snprintf(set, sizeof set, "algorithm=%s", algorithm);
    scn_override_t ov[] = {{set}};
    scn_t s;
    sgd_err_t err = {{0}};
    int rc = scn_load_text(base, "dc.json", ".", ov, 1, NULL, alg_scenario_table, &s, &err);
    CHECK_INT_EQ(rc, -1);
    CHECK_STR_CONTAINS(err.msg, needle);
    if (rc == 0) scn_free(&s);
}

static void bad_options_name_their_json_path(void)
{
    expect_error("{\"name\":\"dc-asgd\",\"lambda_dc\":-1}", "algorithm.lambda_dc: expected");
    expect_error("{\"name\":\"dc-asgd\",\"lambda_dc\":\"big\"}", "algorithm.lambda_dc");
    expect_error("{\"name\":\"dc-asgd\",\"variant\":\"b\"}", "algorithm.variant");
    expect_error("{\"name\":\"dc-asgd\",\"m\":0.9}",
                 "algorithm.m: only valid with variant \"a\"");
    expect_error("{\"name\":\"dc-asgd\",\"variant\":\"a\",\"m\":1}", "algorithm.m: expected");
    expect_error("{\"name\":\"dc-asgd\",\"variant\":\"a\",\"eps\":0}", "algorithm.eps");
    expect_error("{\"name\":\"dc-asgd\",\"n\":3}", "algorithm.n: must divide");
    char takers[256], want[320];
    rule_takers(base, "dc.json", "\"normaliser\": \"fred\"", takers, sizeof takers);
    snprintf(want, sizeof want, "algorithm.normaliser: only valid with name %s, not", takers);
    CHECK(strstr(takers, "fasgd") != NULL); /* the family's rules with a normaliser */
    expect_error("{\"name\":\"dc-asgd\",\"normaliser\":\"fred\"}", want);
    expect_error("{\"name\":\"dc-asgd\",\"k_push\":2}",
                 "algorithm.k_push: only valid with name downpour, not \"dc-asgd\"");
    expect_error("{\"name\":\"sasgd\",\"lambda_dc\":1}",
                 "algorithm.lambda_dc: only valid with name dc-asgd, not \"sasgd\"");
    expect_error("{\"name\":\"dc-asgd\",\"lambda\":1}", "algorithm.lambda: unknown key");
}

int main(void)
{
    zero_lambda_equals_sasgd_without_staleness_scaling();
    constant_variant_by_hand();
    adaptive_variant_by_hand();
    many_gradients_per_update_are_compensated_and_batching_changes_nothing();
    bad_options_name_their_json_path();
    return check_exit();
}
