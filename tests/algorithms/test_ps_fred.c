/* B-FASGD's corner cases where the FASGD authors' code (FRED) and sgdsim's default differ:
 * a client's first push (algorithm.first_push, algorithm.initial_v) and the staleness FRED
 * counts after a skipped fetch against the parameters' true age (the version_age histogram
 * and metrics).  Small scenarios on the uniform schedule, where iteration i happens at
 * virtual time i + 1 ns, so the final virtual time counts the iterations and each case can
 * be checked by hand; plus the options' bad input and their place in the run key. */
#include <stdlib.h>

#include "algorithms/alg.h"
#include "tests/algorithms/ps_sink.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

static const char *base =
    "{\"schema_version\": 1, \"seed\": 7, \"algorithm\": {\"name\": \"b-fasgd\"},"
    " \"cluster\": {\"workers\": 4},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 512, \"n_validation\": 128,"
    "           \"dim\": 12, \"classes\": 4, \"separation\": 2.0},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [16], \"init\": \"glorot\"},"
    " \"batch\": {\"per_worker\": 8}, \"optimizer\": {\"lr\": 0.05},"
    " \"stop\": {\"updates\": 60}, \"eval\": {\"every\": 0}}";

static alg_outcome_t run_rows(const char *const *sets, int nsets, rows_t *r)
{
    alg_sink_t sink = ps_sink(r);
    return run_scenario(base, "fred.json", sets, nsets, &sink);
}

/* ---- first push ------------------------------------------------------------------------- */

/* c_push so large that a gated push is (practically) never sent: with "always" each client
 * sends exactly its first gradient and every later one is re-applied, so each of the 40
 * iterations makes one update and 40 gradients are 40 potential pushes. */
static void first_push_always_sends_each_clients_first_gradient(void)
{
    const char *sets[] = {("algorithm={\"name\":\"b-fasgd\",\"c_push\":1e12,"
                          "\"first_push\":\"always\"}"),
                          "stop.updates=40"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t o = run_rows(sets, 2, r);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    CHECK_INT_EQ(o.updates, 40);
    CHECK_INT_EQ(o.vtime_ns, 40);          /* no iteration without an update */
    CHECK_INT_EQ(r->push[0], 4);           /* the four clients' first pushes */
    CHECK_INT_EQ(r->push[2], 36);          /* the rest re-applied */
    CHECK_INT_EQ(r->push[0] + r->push[2], r->tau_total); /* potential = gradients applied */
    CHECK_INT_EQ(last(r, "push_sent"), 4);
    free(o.final_params);
    free(r);
}

/* The default, "gate": a client's first gradient meets the gate like every other, and with
 * nothing sent yet it has nothing to re-apply -- that iteration makes no update.  At
 * c_push = 0.08 and v = 0 a push passes with probability 1/801, so hundreds of iterations
 * go by before the first update; each is counted as a skipped push. */
static void first_push_gate_opens_with_iterations_that_make_no_update(void)
{
    const char *sets[] = {"algorithm={\"name\":\"b-fasgd\",\"c_push\":0.08}", "stop.updates=40"};
    const char *given[] = {("algorithm={\"name\":\"b-fasgd\",\"c_push\":0.08,"
                           "\"first_push\":\"gate\",\"initial_v\":0}"),
                           "stop.updates=40"};
    rows_t *r = calloc(1, sizeof *r), *g = calloc(1, sizeof *g);
    alg_outcome_t o = run_rows(sets, 2, r), same = run_rows(given, 2, g);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    CHECK_INT_EQ(o.updates, 40);
    CHECK(o.vtime_ns > 40 + 100);
    /* potential pushes = one per iteration; the iterations without an update included */
    CHECK_INT_EQ(r->push[0] + r->push[2], o.vtime_ns);
    CHECK(r->push[0] + r->push[2] > (uint64_t)r->tau_total);
    CHECK(strcmp(o.digest, same.digest) == 0); /* the defaults spelled out change nothing */
    free(o.final_params);
    free(same.final_params);
    free(r);
    free(g);
}

/* initial_v stands in for v until the server has taken in a gradient: at 1e6 the first
 * gates pass with probability 1 / (1 + 0.08 / 1e6) and the run opens at once. */
static void initial_v_sets_the_first_gates_probability(void)
{
    const char *sets[] = {"algorithm={\"name\":\"b-fasgd\",\"c_push\":0.08,\"initial_v\":1e6}",
                          "stop.updates=40"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t o = run_rows(sets, 2, r);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    CHECK_INT_EQ(o.updates, 40);
    CHECK(o.vtime_ns < 40 + 100);  /* not the hundreds of the default v = 0 */
    CHECK(r->push[0] >= 1);
    free(o.final_params);
    free(r);
}

/* ---- counted staleness and the parameters' true age ------------------------------------- */

/* No fetch is ever sent (c_fetch huge), so every client computes on version 0 and the
 * gradient applied as update u (0-based) is on parameters exactly u versions old: the ages
 * are 0..49, once each.  FRED's counting stamps a client with the server's version at each
 * skipped fetch, so its counted tau stays near lambda - 1 = 2. */
static void fred_counting_records_the_true_age_beside_the_counted_tau(void)
{
    const char *sets[] = {("algorithm={\"name\":\"b-fasgd\",\"c_fetch\":1e12,"
                          "\"skipped_fetch_tau\":\"fred\"}"),
                          "cluster.workers=3", "stop.updates=50"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t o = run_rows(sets, 3, r);
    CHECK_INT_EQ(o.updates, 50);
    CHECK_INT_EQ(r->fetch[0], 0);
    CHECK_INT_EQ(r->age_total, 50);
    for (int a = 0; a < 50; a++) CHECK_INT_EQ(r->age[a], 1);
    CHECK_NEAR(last(r, "version_age_mean"), 24.5, 1e-12);
    CHECK_INT_EQ(last(r, "version_age_max"), 49);
    CHECK_INT_EQ(r->tau_total, 50);
    CHECK(last(r, "staleness_mean") < 10);
    CHECK(last(r, "staleness_max") < 49);
    free(o.final_params);
    free(r);
}

/* Truthful counting: tau is the age, bin by bin, also where skipped fetches and re-applied
 * pushes make both large; the version_age metrics are left out (they would repeat the
 * staleness ones), the histogram is not. */
static void truthful_counting_gives_age_equal_to_tau(void)
{
    const char *cases[][2] = {
        {"algorithm={\"name\":\"b-fasgd\",\"c_fetch\":1e12}", "cluster.workers=3"},
        {"algorithm={\"name\":\"b-fasgd\",\"c_fetch\":0.05,\"c_push\":0.01}", "seed=3"},
        {"algorithm={\"name\":\"b-fasgd\",\"driver\":\"timed\",\"c_fetch\":0.05}",
         "compute={\"kind\":\"time\",\"time_s\":{\"dist\":\"gamma\",\"mean\":0.01,\"cv\":0.5}}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rows_t *r = calloc(1, sizeof *r);
        alg_outcome_t o = run_rows(cases[i], 2, r);
        CHECK_INT_EQ(o.status, ALG_COMPLETE);
        CHECK_INT_EQ(r->tau_total, 60);
        CHECK_INT_EQ(r->age_total, 60);
        CHECK(memcmp(r->tau, r->age, sizeof r->tau) == 0);
        CHECK(last(r, "staleness_max") > 3); /* fetches were skipped: old parameters */
        CHECK(isnan(last(r, "version_age_mean")));
        free(o.final_params);
        free(r);
    }
}

/* ---- configuration ---------------------------------------------------------------------- */

static void expect_error(const char *set, const char *needle)
{
    scn_override_t ov[1] = {{set}};
    scn_t s;
    sgd_err_t err = {{0}};
    int rc = scn_load_text(base, "fred.json", ".", ov, 1, NULL, alg_scenario_table, &s, &err);
    CHECK_INT_EQ(rc, -1);
    CHECK_STR_CONTAINS(err.msg, needle);
    if (rc == 0) scn_free(&s);
}

static void bad_first_push_and_initial_v_name_the_json_path(void)
{
    expect_error("algorithm={\"name\":\"b-fasgd\",\"first_push\":\"sometimes\"}",
                 "algorithm.first_push");
    expect_error("algorithm={\"name\":\"b-fasgd\",\"first_push\":true}", "algorithm.first_push");
    expect_error("algorithm={\"name\":\"b-fasgd\",\"initial_v\":-1}",
                 "algorithm.initial_v: expected number >= 0");
    expect_error("algorithm={\"name\":\"b-fasgd\",\"initial_v\":1e7}", "algorithm.initial_v");
    expect_error("algorithm={\"name\":\"b-fasgd\",\"initial_v\":\"1\"}", "algorithm.initial_v");
    expect_error("algorithm={\"name\":\"b-fasgd\",\"first_push\":\"always\",\"initial_v\":1}",
                 "algorithm.initial_v: only read with first_push \"gate\"");
    expect_error("algorithm={\"name\":\"fasgd\",\"first_push\":\"always\"}",
                 "algorithm.first_push: only valid with name b-fasgd, not \"fasgd\"");
    expect_error("algorithm={\"name\":\"sasgd\",\"initial_v\":1}",
                 "algorithm.initial_v: only valid with name b-fasgd, not \"sasgd\"");
    expect_error("algorithm={\"name\":\"downpour\",\"first_push\":\"gate\"}",
                 "algorithm.first_push: only valid with name b-fasgd");
}

static void load(const char *set, scn_t *s)
{
    scn_override_t ov[1] = {{set}};
    sgd_err_t err = {{0}};
    if (scn_load_text(base, "fred.json", ".", ov, 1, NULL, alg_scenario_table, s, &err)) {
        fprintf(stderr, "load: %s\n", err.msg);
        check_failures++;
        memset(s, 0, sizeof *s);
    }
}

/* At their defaults the two keys stay out of the resolved configuration, so B-FASGD runs
 * recorded before they existed keep their run keys; any other value is in it. */
static void defaults_leave_the_run_key_as_before(void)
{
    scn_t none, spelled, always, v1;
    load("algorithm={\"name\":\"b-fasgd\",\"c_push\":0.08}", &none);
    load("algorithm={\"name\":\"b-fasgd\",\"c_push\":0.08,\"first_push\":\"gate\","
         "\"initial_v\":0}", &spelled);
    load("algorithm={\"name\":\"b-fasgd\",\"c_push\":0.08,\"first_push\":\"always\"}", &always);
    load("algorithm={\"name\":\"b-fasgd\",\"c_push\":0.08,\"initial_v\":1}", &v1);
    if (!none.resolved_json || !spelled.resolved_json || !always.resolved_json ||
        !v1.resolved_json)
        return;
    CHECK(!strstr(none.resolved_json, "first_push") && !strstr(none.resolved_json, "initial_v"));
    CHECK_STR_EQ(none.config_hash, spelled.config_hash);
    CHECK_STR_CONTAINS(always.resolved_json, "\"first_push\":\"always\"");
    CHECK_STR_CONTAINS(v1.resolved_json, "\"initial_v\":1");
    CHECK(strcmp(none.config_hash, always.config_hash) != 0);
    CHECK(strcmp(none.config_hash, v1.config_hash) != 0);
    scn_free(&none);
    scn_free(&spelled);
    scn_free(&always);
    scn_free(&v1);
}

int main(void)
{
    first_push_always_sends_each_clients_first_gradient();
    first_push_gate_opens_with_iterations_that_make_no_update();
    initial_v_sets_the_first_gates_probability();
    fred_counting_records_the_true_age_beside_the_counted_tau();
    truthful_counting_gives_age_equal_to_tau();
    bad_first_push_and_initial_v_name_the_json_path();
    defaults_leave_the_run_key_as_before();
    return check_exit();
}
