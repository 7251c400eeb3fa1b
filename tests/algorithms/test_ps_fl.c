/* The FL rules (algorithms/rules/fedavg.c, fedasync.c, fedbuff.c): each rule's update of a
 * few clients' deltas against the update written out by hand in the family's order (each
 * term's step, summed in arrival order, then subtracted), bit for bit -- FedAvg's weighted
 * average, FedAsync's mixing with each staleness function, FedBuff's buffer with its
 * staleness weights; then whole runs: FedAvg's rounds (every update of the same version,
 * a round is its selected clients, a round in which everybody dropped out makes no update),
 * FedBuff's buffer of K pushes and its concurrency, FedAsync's one push per update, the
 * timed driver they need, and every bad option refused naming its JSON path. */
#include <math.h>
#include <stdlib.h>

#include "algorithms/ps_opts.h"
#include "algorithms/ps_rule.h"
#include "tests/algorithms/ps_sink.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

extern const ps_rule_t ps_rule_fedavg, ps_rule_fedasync, ps_rule_fedbuff;

#define FL_BASE                                                                            \
    "{\"schema_version\": 1, \"seed\": 13, \"algorithm\": {\"name\": \"fedavg\"},"           \
    " \"cluster\": {\"workers\": 8},"                                                       \
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 512, \"n_validation\": 128,"          \
    "           \"dim\": 12, \"classes\": 4, \"separation\": 2.0},"                           \
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [16], \"init\": \"glorot\"},"                 \
    " \"batch\": {\"per_worker\": 8}, \"optimizer\": {\"lr\": 0.05},"                         \
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"gamma\", \"mean\": 0.01,"    \
    " \"cv\": 0.5}},"                                                                         \
    " \"stop\": {\"updates\": 30}, \"eval\": {\"every\": 10}}"

enum { NP = 3, TERMS = 3 };

/* The rule's options for `algorithm` (a JSON object), as the loader parses them. */
static scn_t load(const char *algorithm)
{
    char set[256];
    snprintf(set, sizeof set, "algorithm=%s", algorithm);
    scn_override_t ov[] = {{set}};
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load_text(FL_BASE, "fl.json", ".", ov, 1, NULL, alg_scenario_table, &s, &err)) {
        fprintf(stderr, "load: %s\n", err.msg);
        abort();
    }
    return s;
}

/* The family's arithmetic for a per-gradient rule: theta -= sum of the terms' steps, summed
 * in order (ps_step.c's step_terms), on NP parameters. */
static void family_update(const ps_rule_t *rule, const char *algorithm, const ps_grad_t *g,
                          int nterms, float *theta)
{
    scn_t s = load(algorithm);
    const ps_opts_t *o = s.alg_opts;
    CHECK(o->rule == rule);
    CHECK(!o->merge && o->local.on && rule->federated);
    const size_t bytes = rule->state_bytes(o, NP);
    CHECK_INT_EQ((int64_t)rule->state_header, (int64_t)bytes); /* nothing saved */
    void *state = aligned_alloc(64, (bytes + 63) / 64 * 64);
    memset(state, 0, bytes);
    rule->init(state, o, NP);
    float sum[NP], term[NP];
    for (int j = 0; j < nterms; j++) {
        ps_grad_t gj = g[j];
        gj.now = theta;
        rule->step(state, &gj, j == 0 ? sum : term);
        if (j > 0)
            for (int i = 0; i < NP; i++) sum[i] += term[i];
    }
    for (int i = 0; i < NP; i++) theta[i] -= sum[i];
    free(state);
    scn_free(&s);
}

static const float deltas[TERMS][NP] = {
    {0.125f, -0.5f, 0.75f}, {-0.3f, 0.2f, 0.1f}, {1.5f, 0.25f, -2.0f}};
static const float stale[TERMS][NP] = {
    {0.0f, 1.0f, -1.0f}, {0.5f, 0.5f, 0.5f}, {-0.25f, 2.0f, 0.0f}};
static const float theta0[NP] = {0.1f, 0.2f, -0.3f};

static void terms(ps_grad_t g[TERMS], const int64_t samples[TERMS], const int64_t tau[TERMS])
{
    int64_t sum = 0;
    for (int j = 0; j < TERMS; j++) sum += samples[j];
    for (int j = 0; j < TERMS; j++)
        g[j] = (ps_grad_t){.g = deltas[j], .stale = stale[j], .tau = tau[j], .count = 1,
                           .n = NP, .samples = samples[j], .samples_sum = sum};
}

/* theta -= eta_g sum_k (n_k / sum n) Delta_k, each weight rounded to float once. */
static void fedavg_is_the_weighted_average(void)
{
    const int64_t n[TERMS] = {3, 5, 2}, tau[TERMS] = {0, 0, 0};
    ps_grad_t g[TERMS];
    terms(g, n, tau);
    float theta[NP], want[NP];
    memcpy(theta, theta0, sizeof theta);
    family_update(&ps_rule_fedavg, "{\"name\": \"fedavg\", \"server_lr\": 0.7}", g, TERMS,
                  theta);
    float sum[NP] = {0};
    for (int j = 0; j < TERMS; j++) {
        const float w = (float)(0.7 * (double)n[j] / 10.0);
        for (int i = 0; i < NP; i++) sum[i] = j == 0 ? w * deltas[j][i] : sum[i] + w * deltas[j][i];
    }
    for (int i = 0; i < NP; i++) want[i] = theta0[i] - sum[i];
    CHECK(memcmp(theta, want, sizeof theta) == 0);
    /* server_lr 1 with equal samples: theta - mean delta, the mean of the clients' models */
    const int64_t eq[TERMS] = {4, 4, 4};
    terms(g, eq, tau);
    memcpy(theta, theta0, sizeof theta);
    family_update(&ps_rule_fedavg, "{\"name\": \"fedavg\"}", g, TERMS, theta);
    for (int i = 0; i < NP; i++) {
        const double mean = ((double)deltas[0][i] + deltas[1][i] + deltas[2][i]) / 3.0;
        CHECK(fabs(theta[i] - (theta0[i] - mean)) < 1e-6);
    }
}

/* theta <- (1 - a_t) theta + a_t (stale - Delta), a_t = alpha s(tau), for one client. */
static void fedasync_mixes(const char *algorithm, double alpha, double s_tau, int64_t tau)
{
    const int64_t n[TERMS] = {1, 1, 1}, taus[TERMS] = {tau, tau, tau};
    ps_grad_t g[TERMS];
    terms(g, n, taus);
    float theta[NP], want[NP];
    memcpy(theta, theta0, sizeof theta);
    family_update(&ps_rule_fedasync, algorithm, &g[1], 1, theta);
    const float at = (float)(alpha * s_tau);
    for (int i = 0; i < NP; i++)
        want[i] = theta0[i] - at * ((theta0[i] - stale[1][i]) + deltas[1][i]);
    CHECK(memcmp(theta, want, sizeof theta) == 0);
    /* and it is the mixing within rounding */
    for (int i = 0; i < NP; i++) {
        const double client = (double)stale[1][i] - deltas[1][i];
        const double mixed = (1.0 - alpha * s_tau) * theta0[i] + alpha * s_tau * client;
        CHECK(fabs(theta[i] - mixed) < 1e-6);
    }
}

static void fedasync_with_each_staleness_function(void)
{
    fedasync_mixes("{\"name\": \"fedasync\"}", 0.6, 1.0, 7); /* the defaults: constant */
    fedasync_mixes("{\"name\": \"fedasync\", \"alpha\": 0.9, \"staleness\": \"polynomial\"}",
                   0.9, pow(8.0, -0.5), 7);
    fedasync_mixes("{\"name\": \"fedasync\", \"staleness\": \"polynomial\", \"a\": 2}", 0.6,
                   1.0 / 16.0, 3);
    /* hinge: 1 up to b, then 1 / (a (tau - b) + 1) */
    fedasync_mixes("{\"name\": \"fedasync\", \"staleness\": \"hinge\"}", 0.6, 1.0, 6);
    fedasync_mixes("{\"name\": \"fedasync\", \"staleness\": \"hinge\"}", 0.6,
                   1.0 / (10.0 * 2.0 + 1.0), 8);
    fedasync_mixes("{\"name\": \"fedasync\", \"staleness\": \"hinge\", \"a\": 0.5, \"b\": 1}",
                   0.6, 1.0 / (0.5 * 3.0 + 1.0), 4);
}

/* theta -= eta_g (1/K) sum_k Delta_k / sqrt(1 + tau_k). */
static void fedbuff_weighs_the_buffer_by_staleness(void)
{
    const int64_t n[TERMS] = {1, 9, 3}, tau[TERMS] = {0, 3, 8};
    ps_grad_t g[TERMS];
    terms(g, n, tau);
    float theta[NP], want[NP], sum[NP] = {0};
    memcpy(theta, theta0, sizeof theta);
    family_update(&ps_rule_fedbuff,
                  "{\"name\": \"fedbuff\", \"buffer\": 3, \"server_lr\": 0.5}", g, TERMS, theta);
    for (int j = 0; j < TERMS; j++) {
        const float w = (float)(0.5 / sqrt(1.0 + (double)tau[j]) / 3.0);
        for (int i = 0; i < NP; i++) sum[i] = j == 0 ? w * deltas[j][i] : sum[i] + w * deltas[j][i];
    }
    for (int i = 0; i < NP; i++) want[i] = theta0[i] - sum[i];
    CHECK(memcmp(theta, want, sizeof theta) == 0);
}

/* ---- runs ------------------------------------------------------------------------------ */

static alg_outcome_t run(const char *const *sets, int nsets, rows_t *rows)
{
    alg_sink_t sink = ps_sink(rows);
    return run_scenario(FL_BASE, "fl.json", sets, nsets, &sink);
}

/* FedAvg: each round's clients fetch one version, so every push is applied with staleness 0;
 * a round is clients_per_round tasks (one fetch and push each: nobody drops out here). */
static void fedavg_rounds_are_synchronous(void)
{
    rows_t *r = malloc(sizeof *r);
    const char *sets[] = {"algorithm={\"name\": \"fedavg\", \"clients_per_round\": 3,"
                          " \"local\": {\"steps\": 2}}"};
    alg_outcome_t a = run(sets, 1, r);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    CHECK_INT_EQ(a.updates, 30);
    CHECK_INT_EQ(r->tau_max, 0);
    CHECK_INT_EQ(r->tau_total, 30 * 3);
    CHECK(last(r, "rounds") == 30.0);
    CHECK(last(r, "rounds_empty") == 0.0);
    CHECK(last(r, "push_sent") == 90.0);
    CHECK(last(r, "fetch_sent") == 90.0);
    CHECK(last(r, "contributions_max") <= 30.0); /* at most once per round */
    CHECK_INT_EQ(a.grads, 30 * 3 * 2);
    free(a.final_params);
    free(r);
}

/* Everybody in a round dropped out: no update, the next round starts.  With one client per
 * round and dropout_p 0.5, about half the rounds are empty. */
static void an_empty_round_makes_no_update(void)
{
    rows_t *r = malloc(sizeof *r);
    const char *sets[] = {"algorithm={\"name\": \"fedavg\", \"clients_per_round\": 1,"
                          " \"local\": {\"steps\": 1}}",
                          "clients={\"dropout_p\": 0.5}"};
    alg_outcome_t a = run(sets, 2, r);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    const double rounds = last(r, "rounds"), empty = last(r, "rounds_empty");
    CHECK(empty > 5.0);
    CHECK(rounds == (double)a.updates + empty);
    CHECK(last(r, "tasks_dropped") == empty);
    CHECK(last(r, "dropped_compute_s") > 0.0);
    free(a.final_params);
    free(r);
}

/* FedBuff: K pushes per update (staleness rows count them), C clients in flight at most. */
static void fedbuff_applies_k_pushes(void)
{
    rows_t *r = malloc(sizeof *r);
    const char *sets[] = {"algorithm={\"name\": \"fedbuff\", \"buffer\": 4, \"concurrency\": 3,"
                          " \"local\": {\"steps\": 1}}"};
    alg_outcome_t a = run(sets, 1, r);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    CHECK_INT_EQ(r->tau_total, 30 * 4);
    CHECK(r->tau_max > 0); /* asynchronous: pushes wait in the buffer */
    CHECK(last(r, "clients_participated") <= 8.0);
    free(a.final_params);
    free(r);
}

/* FedAsync: every push is an update. */
static void fedasync_updates_at_every_push(void)
{
    rows_t *r = malloc(sizeof *r);
    const char *sets[] = {"algorithm={\"name\": \"fedasync\", \"staleness\": \"hinge\","
                          " \"local\": {\"steps\": 1}}"};
    alg_outcome_t a = run(sets, 1, r);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    CHECK_INT_EQ(r->tau_total, 30);
    CHECK(r->tau_max > 0);
    free(a.final_params);
    free(r);
}

static void bad_fl_options_are_refused(void)
{
    static const struct {
        const char *set, *msg;
    } cases[] = {
        {"algorithm={\"name\": \"fedavg\", \"driver\": \"uniform\"}",
         "algorithm.driver: fedavg needs \"timed\""},
        {"algorithm={\"name\": \"fedbuff\", \"driver\": \"uniform\"}", "algorithm.driver"},
        {"algorithm={\"name\": \"fedavg\", \"clients_per_round\": 9}",
         "algorithm.clients_per_round"},
        {"algorithm={\"name\": \"fedavg\", \"clients_per_round\": 0}",
         "algorithm.clients_per_round"},
        {"algorithm={\"name\": \"fedavg\", \"concurrency\": 2}", "algorithm.concurrency"},
        {"algorithm={\"name\": \"fedavg\", \"server_lr\": 0}", "algorithm.server_lr"},
        {"algorithm={\"name\": \"fedavg\", \"fetch\": \"after_push\"}", "algorithm.fetch"},
        {"algorithm={\"name\": \"fedavg\", \"buffer\": 2}",
         "algorithm.buffer: only valid with name fedbuff"},
        {"algorithm={\"name\": \"fedasync\", \"alpha\": 0}", "algorithm.alpha"},
        {"algorithm={\"name\": \"fedasync\", \"alpha\": 1.5}", "algorithm.alpha"},
        {"algorithm={\"name\": \"fedasync\", \"staleness\": \"paper\"}", "algorithm.staleness"},
        {"algorithm={\"name\": \"fedasync\", \"a\": 1}", "algorithm.a: only valid with"},
        {"algorithm={\"name\": \"fedasync\", \"staleness\": \"polynomial\", \"b\": 1}",
         "algorithm.b: only valid with"},
        {"algorithm={\"name\": \"fedasync\", \"staleness\": \"hinge\", \"a\": 0}",
         "algorithm.a"},
        {"algorithm={\"name\": \"fedbuff\", \"buffer\": 0}", "algorithm.buffer"},
        {"algorithm={\"name\": \"fedbuff\", \"concurrency\": 9}", "algorithm.concurrency"},
        {"algorithm={\"name\": \"fedbuff\", \"server_lr\": -1}", "algorithm.server_lr"},
        {"algorithm={\"name\": \"sasgd\", \"concurrency\": 2}",
         "algorithm.concurrency: fewer clients in flight than cluster.workers (2 < 8) needs "
         "driver \"timed\""},
        {"algorithm={\"name\": \"downpour\", \"driver\": \"timed\", \"concurrency\": 2}",
         "algorithm.concurrency: not valid with name downpour"},
        {"algorithm={\"name\": \"b-fasgd\", \"driver\": \"timed\", \"concurrency\": 2}",
         "algorithm.concurrency: not valid with name b-fasgd"},
        {"algorithm={\"name\": \"sasgd\", \"driver\": \"timed\", \"concurrency\": 4,"
         " \"n\": 3}",
         "algorithm.n: must divide algorithm.concurrency (C = 4)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scn_override_t ov[] = {{cases[i].set}};
        scn_t s;
        sgd_err_t err = {{0}};
        const int rc = scn_load_text(FL_BASE, "fl.json", ".", ov, 1, NULL, alg_scenario_table,
                                     &s, &err);
        CHECK_INT_EQ(rc, -1);
        if (rc == 0) scn_free(&s);
        CHECK_STR_CONTAINS(err.msg, cases[i].msg);
    }
}

int main(void)
{
    fedavg_is_the_weighted_average();
    fedasync_with_each_staleness_function();
    fedbuff_weighs_the_buffer_by_staleness();
    fedavg_rounds_are_synchronous();
    an_empty_round_makes_no_update();
    fedbuff_applies_k_pushes();
    fedasync_updates_at_every_push();
    bad_fl_options_are_refused();
    return check_exit();
}
