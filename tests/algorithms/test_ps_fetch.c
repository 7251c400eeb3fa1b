/* algorithm.fetch, when a client that pushed gets its fetch opportunity: "after_update"
 * (FRED's protocol, the default) or "after_push" (the SASGD paper's Rudra; docs/papers.md
 * §2).  What only the option can show:
 *   - under "after_push" SASGD with staleness "paper" is, bit for bit, a hand-written loop
 *     of the paper's rule -- theta -= (1/c) sum_k alpha/tau_k g_k, tau_k the updates made
 *     between the fetch of g_k's parameters and the update that applies it -- on the
 *     uniform schedule, whose client picks the test replays; with two clients and c = 2 a
 *     client often pushes twice into one update, on two versions;
 *   - with one push per update (c = 1) the two protocols are the same run, bit for bit, for
 *     every rule that takes the option, on both drivers;
 *   - hardsync refuses "after_push", and a value that is neither is refused, naming
 *     algorithm.fetch; the default is left out of the resolved configuration (run keys of
 *     runs recorded before the key existed stay theirs), "after_push" is in it. */
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "models/model_kind.h"
#include "sim/rng.h"
#include "tests/algorithms/ps_sink.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

static const char *base = PS_SMALL_SASGD;

static alg_outcome_t run(const char *const *sets, int nsets, rows_t *rows)
{
    alg_sink_t sink = ps_sink(rows);
    return run_scenario(base, "fetch.json", sets, nsets, &sink);
}

/* ---- the paper's rule by hand ------------------------------------------------------------ */

#define HAND_CLIENTS 2
#define HAND_C 2         /* 1-softsync: every update takes lambda pushes */
#define HAND_MU 8
#define HAND_UPDATES 60
#define HAND_ROWS 512

typedef struct hand_push {
    int client;
    int64_t version; /* of the parameters its gradient was computed on */
    int64_t t;       /* its cyclic minibatch: the t-th gradient of the run */
} hand_push_t;

/* The t-th gradient's cyclic rows appended to x, y (ps_ledger.c, "Minibatches"). */
static void append_block(const sgd_dataset_t *d, int64_t t, float *x, int32_t *y)
{
    const int64_t first = (t % (HAND_ROWS / HAND_MU)) * HAND_MU;
    memcpy(x, d->x + first * d->dim, (size_t)(HAND_MU * d->dim) * sizeof *x);
    memcpy(y, d->y + first, HAND_MU * sizeof *y);
}

/* One update of the paper's rule from the c buffered pushes: tau and alpha/tau per push;
 * pushes on one version with one factor stacked into one minibatch (in arrival order, as
 * sasgd merges them); theta -= sum of (alpha s(tau) count / c) g, summed in order of first
 * appearance (ps_step.c, rules/scaled.c).  Records the taus into hist. */
static void hand_update(model_t *m, const sgd_dataset_t *d, float **versions, int64_t version,
                        const hand_push_t *buf, float *theta, float *g, float *step,
                        int64_t *hist)
{
    const size_t n = model_nparams(m);
    int used[HAND_C] = {0}, nterms = 0;
    float x[HAND_C * HAND_MU * 12];
    int32_t y[HAND_C * HAND_MU];
    for (int b = 0; b < HAND_C; b++) hist[version - buf[b].version]++;
    for (int b = 0; b < HAND_C; b++) {
        if (used[b]) continue;
        const int64_t tau = version - buf[b].version;
        const double factor = tau > 0 ? 1.0 / (double)tau : 1.0; /* the paper's alpha/tau */
        int count = 0;
        for (int j = b; j < HAND_C; j++) {
            const int64_t tau_j = version - buf[j].version;
            const double f_j = tau_j > 0 ? 1.0 / (double)tau_j : 1.0;
            if (used[j] || buf[j].version != buf[b].version || f_j != factor) continue;
            append_block(d, buf[j].t, x + count * HAND_MU * 12, y + count * HAND_MU);
            used[j] = 1;
            count++;
        }
        model_loss_grad(m, versions[buf[b].version], x, y, count * HAND_MU, g);
        const float w = (float)(0.05 * factor * ((double)count / (double)HAND_C));
        for (size_t i = 0; i < n; i++) step[i] = nterms == 0 ? w * g[i] : step[i] + w * g[i];
        nterms++;
    }
    for (size_t i = 0; i < n; i++) theta[i] -= step[i];
}

/* FRED's schedule without blocking (fetch "after_push" on the uniform driver): each
 * iteration the client at a uniformly drawn place of the unblocked array (stream
 * client_pick) delivers a gradient on the version it holds, the server takes it in (an
 * update with c of them) and the client fetches the version current then.  Its place goes to
 * the array's last client and it is appended again (ps.c: block, unblock). */
static void hand_run(model_t *m, const sgd_dataset_t *d, float *theta, int64_t *hist)
{
    const size_t n = model_nparams(m);
    float **versions = calloc(HAND_UPDATES + 1, sizeof *versions);
    float *g = malloc(n * sizeof *g), *step = malloc(n * sizeof *step);
    versions[0] = malloc(n * sizeof(float));
    memcpy(versions[0], theta, n * sizeof(float));
    int unblocked[HAND_CLIENTS] = {0, 1};
    int64_t held[HAND_CLIENTS] = {0, 0}, version = 0, t = 0;
    hand_push_t buf[HAND_C];
    int nbuf = 0;
    gsl_rng *pick = sim_rng_create(7, SIM_STREAM_CLIENT_PICK, 0);
    while (version < HAND_UPDATES) {
        const unsigned long at = gsl_rng_uniform_int(pick, HAND_CLIENTS);
        const int k = unblocked[at];
        unblocked[at] = unblocked[HAND_CLIENTS - 1];
        unblocked[HAND_CLIENTS - 1] = k;
        buf[nbuf++] = (hand_push_t){.client = k, .version = held[k], .t = t++};
        if (nbuf == HAND_C) {
            hand_update(m, d, versions, version, buf, theta, g, step, hist);
            versions[++version] = malloc(n * sizeof(float));
            memcpy(versions[version], theta, n * sizeof(float));
            nbuf = 0;
        }
        held[k] = version;
    }
    gsl_rng_free(pick);
    for (int64_t v = 0; v <= HAND_UPDATES; v++) free(versions[v]);
    free(versions);
    free(g);
    free(step);
}

static void after_push_sasgd_is_the_papers_rule_by_hand(void)
{
    const char *sets[] = {"algorithm={\"name\":\"sasgd\",\"n\":1,\"staleness\":\"paper\","
                          "\"fetch\":\"after_push\"}",
                          "cluster.workers=2"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t o = run(sets, 2, r);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    CHECK_INT_EQ(o.updates, HAND_UPDATES);

    gsl_rng *rng = sim_rng_create(7, SIM_STREAM_SYNTH_DATA, 0);
    sgd_dataset_t all, train;
    dataset_synthetic(HAND_ROWS + 128, 12, 4, 2.0, rng, &all);
    gsl_rng_free(rng);
    dataset_view(&all, 0, HAND_ROWS, &train);
    model_spec_t spec = {.kind = model_kind_find("mlp"), .ninputs = 12, .nclasses = 4, .nhidden = 1,
                         .hidden = {16}};
    model_t *m = model_create(&spec, HAND_C * HAND_MU);
    const size_t n = model_nparams(m);
    float *theta = malloc(n * sizeof *theta);
    rng = sim_rng_create(7, SIM_STREAM_INIT, 0);
    model_init_params(m, theta, MODEL_INIT_GLOROT, rng);
    gsl_rng_free(rng);
    int64_t hist[HAND_UPDATES + 1] = {0};
    hand_run(m, &train, theta, hist);

    CHECK_INT_EQ(o.nparams, n);
    CHECK(o.final_params && memcmp(o.final_params, theta, n * sizeof(float)) == 0);
    for (int tau = 0; tau <= HAND_UPDATES; tau++) CHECK_INT_EQ(r->tau[tau], hist[tau]);
    /* the case the rule's division matters for: gradients two and more updates old */
    CHECK(hist[2] > 0);
    free(theta);
    free(o.final_params);
    free(r);
    model_destroy(m);
    dataset_free(&all);
}

/* ---- one push per update: one protocol --------------------------------------------------- */

/* Whether algorithm object `alg` (without its closing brace) loads with fetch "after_push". */
static bool takes_after_push(const char *alg)
{
    char set[256];
    snprintf(set, sizeof set, "algorithm=%s,\"fetch\":\"after_push\"}", alg);
    scn_override_t ov[] = {{set}};
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load_text(base, "fetch.json", ".", ov, 1, NULL, alg_scenario_table, &s, &err))
        return false;
    scn_free(&s);
    return true;
}

/* After_update and after_push give the same run for algorithm object `alg` (without its
 * closing brace) on both drivers. */
static void same_run_either_way(const char *alg, rows_t *ra, rows_t *rb)
{
    for (int timed = 0; timed < 2; timed++) {
        char a[192], b[192];
        const char *drv = timed ? "timed" : "uniform";
        snprintf(a, sizeof a, "algorithm=%s,\"driver\":\"%s\"}", alg, drv);
        snprintf(b, sizeof b, "algorithm=%s,\"driver\":\"%s\",\"fetch\":\"after_push\"}", alg,
                 drv);
        const char *sa[] = {a}, *sb[] = {b};
        alg_outcome_t oa = run(sa, 1, ra), ob = run(sb, 1, rb);
        CHECK_INT_EQ(oa.status, ALG_COMPLETE);
        if (!(strcmp(oa.digest, ob.digest) == 0 && same_params(&oa, &ob) &&
              oa.vtime_ns == ob.vtime_ns && oa.events == ob.events &&
              ra->tau_sum == rb->tau_sum && memcmp(ra->fetch, rb->fetch, sizeof ra->fetch) == 0)) {
            fprintf(stderr, "%s: after_push differs from after_update with c = 1\n", b);
            check_failures++;
        }
        free(oa.final_params);
        free(ob.final_params);
    }
}

/* Every registered rule that takes the option, as it is (the registry's list), then variants
 * that exercise more of some: FASGD's random minibatches, B-FASGD's gates, Downpour's k_fetch
 * and k_push, DC-ASGD's adaptive variant. */
static void with_one_push_per_update_the_protocols_are_the_same_run(void)
{
    static const char *const variants[] = {
        "{\"name\":\"fasgd\",\"minibatch\":\"random\"",
        "{\"name\":\"b-fasgd\",\"c_fetch\":0.05,\"c_push\":0.02",
        "{\"name\":\"downpour\",\"k_fetch\":2,\"k_push\":3",
        "{\"name\":\"dc-asgd\",\"variant\":\"a\""};
    rows_t *ra = calloc(1, sizeof *ra), *rb = calloc(1, sizeof *rb);
    int takers = 0;
    for (const alg_ops_t *const *a = alg_registry; *a; a++) {
        char alg[128];
        snprintf(alg, sizeof alg, "{\"name\":\"%s\"", (*a)->scenario.name);
        if (!takes_after_push(alg)) continue;
        takers++;
        same_run_either_way(alg, ra, rb);
    }
    CHECK(takers >= 3);
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        same_run_either_way(variants[i], ra, rb);
    free(ra);
    free(rb);
}

/* ---- the option itself ------------------------------------------------------------------- */

static void expect_error(const char *set, const char *needle)
{
    scn_override_t ov[1] = {{set}};
    scn_t s;
    sgd_err_t err = {{0}};
    int rc = scn_load_text(base, "fetch.json", ".", ov, 1, NULL, alg_scenario_table, &s, &err);
    CHECK_INT_EQ(rc, -1);
    CHECK_STR_CONTAINS(err.msg, needle);
    if (rc == 0) scn_free(&s);
}

static const char *resolved(const char *set, scn_t *s)
{
    scn_override_t ov[1] = {{set}};
    sgd_err_t err = {{0}};
    SGD_ASSERT(scn_load_text(base, "fetch.json", ".", ov, 1, NULL, alg_scenario_table, s,
                             &err) == 0);
    return s->resolved_json;
}

static void the_option_is_checked_and_recorded(void)
{
    expect_error("algorithm.fetch=\"sometimes\"",
                 "algorithm.fetch: expected one of \"after_update\", \"after_push\", got "
                 "\"sometimes\"");
    expect_error("algorithm.fetch=1", "algorithm.fetch: expected one of");
    expect_error("algorithm={\"name\":\"hardsync\",\"fetch\":\"after_push\"}",
                 "algorithm.fetch: \"after_push\" is not valid with name hardsync");
    scn_t a, b, c;
    CHECK(strstr(resolved("algorithm.fetch=\"after_update\"", &a), "\"fetch\":") == NULL);
    CHECK(strstr(resolved("algorithm.name=\"sasgd\"", &b), "\"fetch\":") == NULL);
    CHECK_STR_EQ(a.config_hash, b.config_hash);
    CHECK_STR_CONTAINS(resolved("algorithm.fetch=\"after_push\"", &c),
                       "\"fetch\":\"after_push\"");
    CHECK(strcmp(a.config_hash, c.config_hash) != 0);
    scn_free(&a);
    scn_free(&b);
    scn_free(&c);
}

int main(void)
{
    after_push_sasgd_is_the_papers_rule_by_hand();
    with_one_push_per_update_the_protocols_are_the_same_run();
    the_option_is_checked_and_recorded();
    return check_exit();
}
