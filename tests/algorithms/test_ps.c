/* Parameter-server family: the equivalences the issue names (softsync n = 1 == hardsync;
 * hardsync lambda x mu == minibatch SGD with lambda*mu; B-FASGD with c = 0 == FASGD), the
 * update rules against hand-written loops, staleness statistics under the uniform schedule,
 * truthful staleness after skipped fetches, snapshot sharing, traffic rows, determinism, and
 * every bad-input case with its JSON path. */
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "models/optim.h"
#include "models/model_kind.h"
#include "sim/network.h"
#include "sim/rng.h"
#include "tests/algorithms/ps_sink.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/algorithms/rule_takers.h"
#include "tests/check.h"

static const char *base = PS_SMALL_SASGD;

static alg_outcome_t run_rows(const char *const *sets, int nsets, rows_t *rows)
{
    alg_sink_t sink = rows ? ps_sink(rows) : (alg_sink_t){0};
    return run_scenario(base, "ps.json", sets, nsets, rows ? &sink : NULL);
}

static alg_outcome_t run(const char *const *sets, int nsets)
{
    return run_rows(sets, nsets, NULL);
}

static void release(alg_outcome_t *a, alg_outcome_t *b)
{
    free(a->final_params);
    if (b) free(b->final_params);
}

/* ---- equivalences ----------------------------------------------------------------------- */

static void softsync_n1_without_staleness_scaling_equals_hardsync_bit_for_bit(void)
{
    for (int timed = 0; timed < 2; timed++) {
        const char *drv = timed ? "algorithm.driver=timed" : "algorithm.driver=uniform";
        const char *soft[] = {"algorithm.name=sasgd", "algorithm.n=1",
                              "algorithm.staleness=none", drv};
        const char *hard[] = {"algorithm.name=hardsync", drv};
        alg_outcome_t a = run(soft, 4), b = run(hard, 2);
        CHECK_INT_EQ(a.status, ALG_COMPLETE);
        CHECK_INT_EQ(a.updates, 60);
        CHECK(same_params(&a, &b));
        CHECK(strcmp(a.digest, b.digest) == 0);
        CHECK_INT_EQ(a.vtime_ns, b.vtime_ns);
        release(&a, &b);
    }
}

static void hardsync_lambda_times_mu_equals_minibatch_sgd_with_lambda_mu_rows(void)
{
    /* CSGD with sequential sampling draws rows (t*32 + k) mod 512 for update t: the same rows
     * as the cyclic minibatches of hardsync's 4 x 8 gradients stacked in arrival order. */
    const char *hard[] = {"algorithm.name=hardsync", "cluster.workers=4", "batch.per_worker=8"};
    const char *sgd[] = {"algorithm={\"name\":\"csgd\"}", "cluster.workers=1",
                         "batch.per_worker=32", "batch.sampling=sequential"};
    rows_t *ra = calloc(1, sizeof *ra), *rb = calloc(1, sizeof *rb);
    alg_outcome_t a = run_rows(hard, 3, ra), b = run_rows(sgd, 4, rb);
    CHECK_INT_EQ(a.updates, 60);
    CHECK(same_params(&a, &b));
    /* and the recorded training losses agree row by row */
    int compared = 0;
    for (int i = 0, j = 0; i < ra->n; i++) {
        if (strcmp(ra->name[i], "train_loss") != 0) continue;
        while (j < rb->n && strcmp(rb->name[j], "train_loss") != 0) j++;
        if (j == rb->n) break;
        CHECK(ra->value[i] == rb->value[j]);
        compared++, j++;
    }
    CHECK_INT_EQ(compared, 60);
    /* hardsync holds at most two versions at once: the one being used and the next */
    CHECK(last(ra, "snapshots_peak") <= 2);
    CHECK_INT_EQ(last(ra, "staleness_max"), 0);
    release(&a, &b);
    free(ra);
    free(rb);
}

/* Hand-written loops with the models/ API only: one client, so tau = 0 always. */
static void one_client_rules_equal_hand_written_loops(void)
{
    gsl_rng *r = sim_rng_create(7, SIM_STREAM_SYNTH_DATA, 0);
    sgd_dataset_t all, train;
    dataset_synthetic(512 + 128, 12, 4, 2.0, r, &all);
    gsl_rng_free(r);
    dataset_view(&all, 0, 512, &train);
    model_spec_t spec = {.kind = model_kind_find("mlp"), .ninputs = 12, .nclasses = 4, .nhidden = 1,
                         .hidden = {16}};
    model_t *m = model_create(&spec, 8);
    size_t n = model_nparams(m);
    float *theta = malloc(n * sizeof *theta), *g = malloc(n * sizeof *g);
    float *mag = malloc(n * sizeof *mag), x[8 * 12];
    int32_t y[8];
    for (int variant = 0; variant < 2; variant++) { /* 0: sasgd (paper), 1: fasgd (fred) */
        const char *sets[] = {variant ? "algorithm.name=fasgd" : "algorithm.name=sasgd",
                              "cluster.workers=1", "optimizer.lr=0.01"};
        alg_outcome_t o = run(sets, 3);
        r = sim_rng_create(7, SIM_STREAM_INIT, 0);
        model_init_params(m, theta, MODEL_INIT_GLOROT, r);
        gsl_rng_free(r);
        memset(mag, 0, n * sizeof *mag);
        for (int t = 0; t < 60; t++) {
            int64_t start = (t % 64) * 8;
            memcpy(x, train.x + start * 12, sizeof x);
            memcpy(y, train.y + start, sizeof y);
            model_loss_grad(m, theta, x, y, 8, g);
            const float w = (float)0.01; /* alpha * s(0) * 1/c with s(0) = 1, c = 1 */
            for (size_t i = 0; i < n; i++) {
                if (variant == 0) {
                    theta[i] -= w * g[i];
                } else {
                    mag[i] = 0.9f * mag[i] + 0.1f * fabsf(g[i]);
                    theta[i] -= (w * g[i]) / (mag[i] + 0.001f);
                }
            }
        }
        CHECK_INT_EQ(o.nparams, n);
        CHECK(o.final_params && memcmp(o.final_params, theta, n * sizeof(float)) == 0);
        release(&o, NULL);
    }
    free(theta);
    free(g);
    free(mag);
    model_destroy(m);
    dataset_free(&all);
}

static void bfasgd_with_zero_costs_equals_fasgd_bit_for_bit(void)
{
    for (int timed = 0; timed < 2; timed++) {
        const char *drv = timed ? "algorithm.driver=timed" : "algorithm.driver=uniform";
        const char *b[] = {"algorithm.name=b-fasgd", "algorithm.c_fetch=0",
                           "algorithm.c_push=0", "cluster.workers=6", drv};
        const char *f[] = {"algorithm.name=fasgd", "cluster.workers=6", drv};
        alg_outcome_t x = run(b, 5), y = run(f, 3);
        CHECK_INT_EQ(x.status, ALG_COMPLETE);
        CHECK(same_params(&x, &y));
        CHECK(strcmp(x.digest, y.digest) == 0);
        release(&x, &y);
    }
}

/* The ablation's identity: SASGD's 1/(tau+1) with FASGD's normaliser is FASGD itself (c = 1),
 * so FASGD = SASGD + a per-parameter adaptive step size. */
static void sasgd_fred_with_fasgd_normaliser_is_fasgd(void)
{
    const char *a[] = {"algorithm={\"name\":\"sasgd\",\"staleness\":\"fred\","
                       "\"normaliser\":\"fred\"}", "cluster.workers=6"};
    const char *b[] = {"algorithm.name=fasgd", "cluster.workers=6"};
    alg_outcome_t x = run(a, 2), y = run(b, 2);
    CHECK(same_params(&x, &y));
    CHECK(strcmp(x.digest, y.digest) == 0);
    release(&x, &y);
}

/* ---- staleness -------------------------------------------------------------------------- */

static void uniform_schedule_gives_mean_staleness_lambda_minus_one(void)
{
    const int lambdas[] = {8, 32};
    for (int i = 0; i < 2; i++) {
        char w[48];
        snprintf(w, sizeof w, "cluster.workers=%d", lambdas[i]);
        const char *sets[] = {w, "model={\"kind\":\"softmax\"}", "batch.per_worker=1",
                              "stop.updates=20000", "eval.every=0", "optimizer.lr=0.001",
                              "eval.train_loss_every=1000"};
        rows_t *r = calloc(1, sizeof *r);
        alg_outcome_t o = run_rows(sets, 7, r);
        CHECK_INT_EQ(r->tau_total, 20000);
        double mean = r->tau_sum / (double)r->tau_total;
        CHECK_NEAR(last(r, "staleness_mean"), mean, 1e-9);
        /* tau + 1 is geometric with mean lambda (a client is picked with probability
         * 1/lambda per iteration); sd ~ lambda, autocorrelated draws: 6+ standard errors */
        CHECK_NEAR(mean, lambdas[i] - 1, 0.05 * lambdas[i] + 0.5);
        /* median of a geometric(1/lambda) minus 1: about lambda ln 2 - 1 */
        CHECK_NEAR(last(r, "staleness_p50"), lambdas[i] * log(2.0) - 1, 0.15 * lambdas[i] + 1);
        /* fully asynchronous: every client holds its own version, plus the current one */
        CHECK(last(r, "snapshots_peak") <= lambdas[i] + 1);
        release(&o, NULL);
        free(r);
    }
}

static void skipped_fetches_keep_old_parameters_and_count_staleness_from_them(void)
{
    /* c_fetch so large that no fetch is ever sent: every client computes on version 0
     * forever, so the gradient applied as update u (0-based) has tau = u exactly. */
    const char *sets[] = {"algorithm.name=b-fasgd", "algorithm.c_fetch=1e12",
                          "cluster.workers=3", "stop.updates=50", "eval.every=0"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t o = run_rows(sets, 5, r);
    CHECK_INT_EQ(o.updates, 50);
    CHECK_INT_EQ(r->tau_total, 50);
    CHECK_INT_EQ(r->tau_bins, 50);
    CHECK_INT_EQ(r->tau_max, 49);
    CHECK_NEAR(last(r, "staleness_mean"), 24.5, 1e-12);
    CHECK_INT_EQ(r->fetch[0], 0);
    CHECK_INT_EQ(r->fetch[2], 49); /* one opportunity after each update but the last */
    CHECK_INT_EQ(last(r, "snapshots_peak"), 1);
    release(&o, NULL);
    free(r);
}

/* The authors' simulator's quirk, on request: after a skipped fetch the client is stamped
 * with the server's version, so tau no longer grows with the parameters' real age. */
static void fred_quirk_undercounts_staleness_after_skipped_fetches(void)
{
    const char *sets[] = {("algorithm={\"name\":\"b-fasgd\",\"c_fetch\":1e12,"
                          "\"skipped_fetch_tau\":\"fred\"}"),
                          "cluster.workers=3", "stop.updates=50", "eval.every=0"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t o = run_rows(sets, 4, r);
    CHECK_INT_EQ(r->fetch[0], 0);             /* still no parameters were fetched */
    CHECK_INT_EQ(r->tau_total, 50);
    CHECK(r->tau_max < 49);               /* truthful counting gives exactly 49 */
    CHECK(last(r, "staleness_mean") < 10);     /* about lambda - 1 = 2, not 24.5 */
    release(&o, NULL);
    free(r);
}

static void skipped_pushes_reapply_old_gradients_and_are_counted(void)
{
    const char *sets[] = {"algorithm.name=b-fasgd", "algorithm.c_push=0.02",
                          "cluster.workers=4", "stop.updates=400", "eval.every=100"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t o = run_rows(sets, 5, r);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    CHECK(r->push[2] > 0);                    /* some pushes were skipped */
    CHECK(r->push[0] > 0);
    CHECK_INT_EQ(r->push[1], r->push[0] * o.nparams * 4);
    CHECK_INT_EQ(r->push[3], r->push[2] * o.nparams * 4);
    /* every update applied one gradient: sent, or re-applied for a skipped push (a client's
     * very first push has nothing to re-apply, so it adds none) */
    CHECK_INT_EQ(r->tau_total, 400);
    CHECK(r->push[0] + r->push[2] >= 400);
    CHECK(r->push[0] < 400);                  /* so some updates were re-applications */
    CHECK_INT_EQ(last(r, "push_skipped"), (double)r->push[2]);
    release(&o, NULL);
    free(r);
}

static void downpour_pushes_every_k_push_gradients(void)
{
    const char *sets[] = {"algorithm={\"name\":\"downpour\",\"k_push\":3,\"k_fetch\":2}",
                          "stop.updates=30", "eval.every=0"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t o = run_rows(sets, 3, r);
    CHECK_INT_EQ(o.updates, 30);
    CHECK_INT_EQ(r->push[0], 30);
    CHECK_INT_EQ(r->tau_total, 30);
    /* 30 pushes x 3 gradients = 90 gradients were computed; with 4 clients each at most 2
     * gradients past its last push when the run stops */
    CHECK(o.vtime_ns >= 90 && o.vtime_ns <= 90 + 4 * 2);
    release(&o, NULL);
    free(r);
}

/* ---- time and determinism ---------------------------------------------------------------- */

static void timed_driver_records_virtual_time_and_is_deterministic(void)
{
    const char *sets[] = {"algorithm={\"name\":\"b-fasgd\",\"driver\":\"timed\","
                          "\"minibatch\":\"random\",\"c_fetch\":0.01,\"c_push\":0.001,"
                          "\"server_time_s\":0.0005}",
                          "cluster.time_factor={\"dist\":\"uniform\",\"min\":1,\"max\":3}"};
    const char *other[] = {sets[0], sets[1], "seed=8"};
    rows_t *r = calloc(1, sizeof *r);
    alg_outcome_t a = run_rows(sets, 2, r), b = run(sets, 2), c = run(other, 3);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    CHECK(strcmp(a.digest, b.digest) == 0);
    CHECK(same_params(&a, &b));
    CHECK(strcmp(a.digest, c.digest) != 0);
    /* 60 updates, each at least one server service of 0.5 ms apart */
    CHECK(a.vtime_ns >= 60 * 500000);
    CHECK(r->fetch[2] > 0);
    release(&a, &b);
    release(&c, NULL);
    free(r);
}

/* One client, nothing to contend with: each update is compute + push + service, then a
 * fetch before the next compute, each priced exactly as the network model says. */
static void timed_single_client_cycle_is_compute_push_service_fetch(void)
{
    const char *sets[] = {("algorithm={\"name\":\"sasgd\",\"driver\":\"timed\","
                          "\"server_time_s\":0.001}"),
                          "cluster.workers=1", "compute.time_s=0.01", "io.time_s=0.002",
                          "stop.updates=10"};
    alg_outcome_t o = run(sets, 5);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    /* parameters of 12-16-4: 12*16+16 + 16*4+4 = 276; a message crosses two 5 us links */
    int64_t msg = sim_transfer_ns(276 * 4, 10e9 / 8) + 2 * 5000;
    int64_t cycle = 12000000 + msg + 1000000;
    CHECK_INT_EQ(o.nparams, 276);
    CHECK_INT_EQ(o.vtime_ns, 10 * cycle + 9 * msg);
    release(&o, NULL);
}

static void same_seed_same_digest_under_uniform(void)
{
    const char *sets[] = {("algorithm={\"name\":\"fasgd\",\"normaliser\":\"paper\","
                          "\"minibatch\":\"random\"}"),
                          "cluster.workers=5"};
    alg_outcome_t a = run(sets, 2), b = run(sets, 2);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    CHECK(strcmp(a.digest, b.digest) == 0);
    release(&a, &b);
}

/* ---- batched evaluation ------------------------------------------------------------------ */

static bool same_rows(const rows_t *a, const rows_t *b)
{
    if (a->n != b->n || a->tau_total != b->tau_total || a->tau_bins != b->tau_bins ||
        a->tau_sum != b->tau_sum || a->tau_max != b->tau_max ||
        memcmp(a->fetch, b->fetch, sizeof a->fetch) != 0 ||
        memcmp(a->push, b->push, sizeof a->push) != 0)
        return false;
    for (int i = 0; i < a->n; i++)
        if (a->update[i] != b->update[i] || strcmp(a->name[i], b->name[i]) != 0 ||
            memcmp(&a->value[i], &b->value[i], sizeof a->value[i]) != 0)
            return false;
    return true;
}

/* Runs `alg` (an "algorithm" object) with gradient_batch 1 (every update applied when the
 * server makes it) and with larger batches (the schedule runs ahead, gradients are evaluated
 * in batches): every row, counter, digest and parameter must be the same.  Returns the mean
 * gradients per backend call of the largest batch. */
static double check_batching_changes_nothing(const char *alg, const char *extra,
                                             alg_status_t want)
{
    static const char *const batches[] = {"algorithm.gradient_batch=1",
                                          "algorithm.gradient_batch=3",
                                          "algorithm.gradient_batch=64"};
    char a[256];
    snprintf(a, sizeof a, "algorithm=%s", alg);
    rows_t *r0 = calloc(1, sizeof *r0), *r = calloc(1, sizeof *r);
    const char *sets[] = {a, "cluster.workers=6", "stop.updates=90", "eval.every=20",
                          batches[0], extra};
    const int nsets = extra ? 6 : 5;
    alg_outcome_t o0 = run_rows(sets, nsets, r0);
    CHECK_INT_EQ(o0.status, want);
    double per_call = 0;
    for (int b = 1; b < 3; b++) {
        sets[4] = batches[b];
        alg_outcome_t o = run_rows(sets, nsets, r);
        if (!(o.status == o0.status && o.updates == o0.updates && o.vtime_ns == o0.vtime_ns &&
              strcmp(o.digest, o0.digest) == 0 && same_params(&o, &o0) && same_rows(r, r0) &&
              o.events == o0.events)) {
            fprintf(stderr, "%s %s: %s differs from gradient_batch=1\n", alg,
                    extra ? extra : "", batches[b]);
            check_failures++;
        }
        per_call = (double)o.grads / (double)o.grad_calls;
        release(&o, NULL);
    }
    release(&o0, NULL);
    free(r0);
    free(r);
    return per_call;
}

static void batched_evaluation_changes_no_result(void)
{
    /* Fully asynchronous FASGD, the case batching is for: most scheduled gradients are on
     * parameters already known.  The CPU backend computes each in the background as one
     * request (tests/algorithms/test_ps_ledger.c tests batched calls, a GPU's path). */
    double per_call = check_batching_changes_nothing("{\"name\":\"fasgd\"}", NULL,
                                                     ALG_COMPLETE);
    CHECK(per_call == 1.0);
    check_batching_changes_nothing("{\"name\":\"fasgd\",\"n\":2,\"minibatch\":\"random\"}",
                                   NULL, ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"sasgd\",\"n\":3}", NULL, ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"sasgd\",\"minibatch\":\"random\"}", NULL,
                                   ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"hardsync\"}", NULL, ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"downpour\",\"k_push\":3,\"k_fetch\":2}", NULL,
                                   ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"downpour\",\"k_push\":2,\"k_fetch\":1,"
                                   "\"minibatch\":\"random\"}", NULL, ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"b-fasgd\",\"c_fetch\":0.01,\"c_push\":0.001}",
                                   NULL, ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"b-fasgd\",\"c_fetch\":0.01}", NULL,
                                   ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"b-fasgd\",\"c_push\":0.02,"
                                   "\"minibatch\":\"random\"}", NULL, ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"fasgd\",\"driver\":\"timed\","
                                   "\"server_time_s\":0.0005}", NULL, ALG_COMPLETE);
    check_batching_changes_nothing("{\"name\":\"sasgd\",\"driver\":\"timed\",\"n\":2,"
                                   "\"minibatch\":\"random\"}",
                                   "cluster.time_factor={\"dist\":\"uniform\",\"min\":1,"
                                   "\"max\":3}", ALG_COMPLETE);
    /* A virtual-time limit stops the engine with updates still scheduled: they are applied. */
    check_batching_changes_nothing("{\"name\":\"fasgd\",\"driver\":\"timed\"}",
                                   "stop.vtime_s=0.04", ALG_COMPLETE);
    /* Divergence found while applying scheduled updates ends the run at the same update,
     * with the counters the schedule had there. */
    check_batching_changes_nothing("{\"name\":\"sasgd\"}", "optimizer.lr=1e30",
                                   ALG_DIVERGED);
    check_batching_changes_nothing("{\"name\":\"fasgd\",\"driver\":\"timed\"}",
                                   "optimizer.lr=1e30", ALG_DIVERGED);
}

/* The default batch follows the backend: 16 (for the run's threads) on the CPU, 64 on a GPU;
 * the resolved configuration records it.  Loading needs no GPU. */
static void gradient_batch_default_follows_the_backend(void)
{
    static const struct {
        const char *set, *want;
    } cases[] = {{"backend=\"cpu\"", "\"gradient_batch\":16,"},
                 {"backend=\"cuda\"", "\"gradient_batch\":64,"}};
    for (int i = 0; i < 2; i++) {
        scn_override_t ov[1] = {{cases[i].set}};
        scn_t s;
        sgd_err_t err = {{0}};
        int rc = scn_load_text(base, "ps.json", ".", ov, 1, NULL, alg_scenario_table, &s, &err);
        CHECK_INT_EQ(rc, 0);
        if (rc == 0) {
            CHECK_STR_CONTAINS(s.resolved_json, cases[i].want);
            scn_free(&s);
        }
    }
}

/* ---- bad input -------------------------------------------------------------------------- */

static void expect_error(const char *set1, const char *set2, const char *needle)
{
    scn_override_t ov[2] = {{set1}, {set2}};
    scn_t s;
    sgd_err_t err = {{0}};
    int rc = scn_load_text(base, "ps.json", ".", ov, set2 ? 2 : 1, NULL, alg_scenario_table,
                           &s, &err);
    CHECK_INT_EQ(rc, -1);
    CHECK_STR_CONTAINS(err.msg, needle);
    if (rc == 0) scn_free(&s);
}

static void bad_input_names_the_json_path(void)
{
    expect_error("algorithm={\"name\":\"sasgd\",\"n\":3}", NULL,
                 "algorithm.n: must divide cluster.workers (lambda = 4), got 3");
    expect_error("optimizer.lr=-0.1", NULL, "optimizer.lr: expected number > 0");
    expect_error("optimizer.lr=NaN", NULL, "optimizer.lr");
    expect_error("algorithm={\"name\":\"b-fasgd\",\"c_fetch\":-1}", NULL,
                 "algorithm.c_fetch: expected number >= 0");
    expect_error("cluster.workers=0", NULL, "cluster.workers: expected integer >= 1, got 0");
    expect_error("algorithm.gradient_batch=0", NULL, "algorithm.gradient_batch: expected integer");
    expect_error("algorithm.gradient_batch=5000", NULL, "algorithm.gradient_batch");
    expect_error("algorithm.gradient_batch=\"64\"", NULL, "algorithm.gradient_batch");
    expect_error("algorithm={\"name\":\"sasgd\",\"staleness\":\"tau\"}", NULL,
                 "algorithm.staleness");
    expect_error("algorithm={\"name\":\"fasgd\",\"normaliser\":\"adam\"}", NULL,
                 "algorithm.normaliser");
    expect_error("algorithm={\"name\":\"fasgd\",\"driver\":\"clock\"}", NULL,
                 "algorithm.driver");
    expect_error("algorithm={\"name\":\"sasgd\",\"c_fetch\":0.1}", NULL,
                 "algorithm.c_fetch: only valid with name b-fasgd, not \"sasgd\"");
    expect_error("algorithm={\"name\":\"fasgd\",\"k_push\":2}", NULL,
                 "algorithm.k_push: only valid with name downpour");
    char takers[256], want[320];
    rule_takers(base, "ps.json", "\"staleness\": \"paper\"", takers, sizeof takers);
    snprintf(want, sizeof want, "algorithm.staleness: only valid with name %s, not", takers);
    CHECK(strstr(takers, "fasgd") != NULL); /* the family's rules with a staleness factor */
    expect_error("algorithm={\"name\":\"hardsync\",\"staleness\":\"paper\"}", NULL, want);
    expect_error("algorithm={\"name\":\"fasgd\",\"normaliser\":\"none\"}", NULL,
                 "algorithm.normaliser: fasgd needs");
    expect_error("algorithm={\"name\":\"fasgd\",\"normaliser\":\"paper\",\"decay\":0.5}", NULL,
                 "algorithm.decay: only valid with normaliser \"fred\"");
    expect_error("algorithm={\"name\":\"sasgd\",\"eps\":0.1}", NULL,
                 "algorithm.eps: only valid with a normaliser");
    expect_error("algorithm={\"name\":\"sasgd\",\"server_time_s\":0.1}", NULL,
                 "algorithm.server_time_s: only valid with driver \"timed\"");
    expect_error("optimizer.momentum=0.9", NULL, "optimizer.momentum: the parameter-server");
    expect_error("batch.sampling=sequential", NULL, "batch.sampling: not used");
    expect_error("algorithm={\"name\":\"fasgd\",\"skipped_fetch_tau\":\"fred\"}", NULL,
                 "algorithm.skipped_fetch_tau: only valid with name b-fasgd");
    expect_error("algorithm={\"name\":\"b-fasgd\",\"skipped_fetch_tau\":\"odena\"}", NULL,
                 "algorithm.skipped_fetch_tau");
    expect_error("algorithm={\"name\":\"sasgd\",\"bogus\":1}", NULL,
                 "algorithm.bogus: unknown key");
}

static void batches_larger_than_the_data_are_refused_at_setup(void)
{
    scn_override_t ov[] = {{"algorithm.name=hardsync"}, {"cluster.workers=64"},
                           {"batch.per_worker=16"}};
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(scn_load_text(base, "ps.json", ".", ov, 3, NULL, alg_scenario_table, &s, &err),
                 0);
    alg_outcome_t o;
    CHECK_INT_EQ(alg_run(&s, NULL, &o, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "batch.per_worker: 1024 rows per gradient evaluation");
    scn_free(&s);
}

int main(void)
{
    softsync_n1_without_staleness_scaling_equals_hardsync_bit_for_bit();
    hardsync_lambda_times_mu_equals_minibatch_sgd_with_lambda_mu_rows();
    one_client_rules_equal_hand_written_loops();
    bfasgd_with_zero_costs_equals_fasgd_bit_for_bit();
    sasgd_fred_with_fasgd_normaliser_is_fasgd();
    uniform_schedule_gives_mean_staleness_lambda_minus_one();
    skipped_fetches_keep_old_parameters_and_count_staleness_from_them();
    fred_quirk_undercounts_staleness_after_skipped_fetches();
    skipped_pushes_reapply_old_gradients_and_are_counted();
    downpour_pushes_every_k_push_gradients();
    timed_driver_records_virtual_time_and_is_deterministic();
    timed_single_client_cycle_is_compute_push_service_fetch();
    same_seed_same_digest_under_uniform();
    batched_evaluation_changes_no_result();
    gradient_batch_default_follows_the_backend();
    bad_input_names_the_json_path();
    batches_larger_than_the_data_are_refused_at_setup();
    return check_exit();
}
