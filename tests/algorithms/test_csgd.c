/* CSGD: numerical equivalences (P x b == 1 x P*b bit for bit; P = 1 == a hand-written
 * minibatch SGD loop), timing (analytic per-iteration cost, message-level allreduce ==
 * analytic on an uncontended network), determinism, and divergence handling. */
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "models/optim.h"
#include "models/model_kind.h"
#include "sim/collective.h"
#include "sim/rng.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

static const char *base =
    "{\"schema_version\": 1, \"seed\": 11,"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 512, \"n_validation\": 128,"
    "           \"dim\": 12, \"classes\": 4, \"separation\": 2.0},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [16, 8], \"init\": \"glorot\"},"
    " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9, \"weight_decay\": 0.001},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": 0.01},"
    " \"io\": {\"time_s\": 0.002},"
    " \"stop\": {\"updates\": 40}, \"eval\": {\"every\": 10}}";

static alg_outcome_t run(const char *text, const char *const *sets, int nsets)
{
    return run_scenario(text, "csgd.json", sets, nsets, NULL);
}

static void p_workers_equal_one_worker_with_p_times_the_batch(void)
{
    for (int sampling = 0; sampling < 2; sampling++) {
        const char *samp = sampling ? "batch.sampling=sequential" : "batch.sampling=shuffle";
        const char *a_sets[] = {"cluster.workers=4", "batch.per_worker=8", samp};
        const char *b_sets[] = {"cluster.workers=1", "batch.per_worker=32", samp};
        alg_outcome_t a = run(base, a_sets, 3), b = run(base, b_sets, 3);
        CHECK_INT_EQ(a.status, ALG_COMPLETE);
        CHECK_INT_EQ(a.updates, 40);
        CHECK(same_params(&a, &b));
        CHECK(a.vtime_ns != b.vtime_ns); /* same numbers, different virtual times */
        free(a.final_params);
        free(b.final_params);
    }
}

/* The reference: plain minibatch SGD written out with the models/ API alone. */
static void one_worker_equals_plain_minibatch_sgd(void)
{
    const char *sets[] = {"cluster.workers=1", "batch.per_worker=24", "batch.sampling=sequential",
                          "optimizer.schedule.warmup_updates=5"};
    alg_outcome_t o = run(base, sets, 4);

    gsl_rng *r = sim_rng_create(11, SIM_STREAM_SYNTH_DATA, 0);
    sgd_dataset_t all, train;
    dataset_synthetic(512 + 128, 12, 4, 2.0, r, &all);
    gsl_rng_free(r);
    dataset_view(&all, 0, 512, &train);
    model_spec_t spec = {.kind = model_kind_find("mlp"), .ninputs = 12, .nclasses = 4, .nhidden = 2,
                         .hidden = {16, 8}};
    model_t *m = model_create(&spec, 24);
    size_t n = model_nparams(m);
    float *theta = malloc(n * sizeof *theta), *g = malloc(n * sizeof *g);
    float *vel = calloc(n, sizeof *vel), *x = malloc(24 * 12 * sizeof *x);
    int32_t y[24];
    r = sim_rng_create(11, SIM_STREAM_INIT, 0);
    model_init_params(m, theta, MODEL_INIT_GLOROT, r);
    gsl_rng_free(r);
    optim_sgd_t opt = {.momentum = 0.9, .weight_decay = 0.001};
    lr_schedule_t lr = {.base_lr = 0.05, .scale_kind = LR_SCALE_NONE, .ref_batch = 256,
                        .warmup_updates = 5, .warmup_start_lr_factor = 0.0, .gamma = 0.1};
    for (int t = 0; t < 40; t++) {
        for (int k = 0; k < 24; k++) {
            int64_t row = ((int64_t)t * 24 + k) % 512;
            memcpy(x + k * 12, train.x + row * 12, 12 * sizeof(float));
            y[k] = train.y[row];
        }
        model_loss_grad(m, theta, x, y, 24, g);
        optim_sgd_step(&opt, theta, vel, g, n, (float)lr_at(&lr, t, 24));
    }
    CHECK_INT_EQ(o.nparams, n);
    CHECK(o.final_params && memcmp(o.final_params, theta, n * sizeof(float)) == 0);
    free(o.final_params);
    free(theta);
    free(g);
    free(vel);
    free(x);
    model_destroy(m);
    dataset_free(&all);
}

/* Closed-form time of a ring allreduce of nelems floats over a flat star of p workers. */
static int64_t ring_allreduce_ns(int p, uint64_t nelems, double link_Bps, int64_t latency_ns)
{
    sim_net_t *n = sim_net_create();
    sim_topo_spec_t spec = {.kind = SIM_TOPO_FLAT, .workers = p, .link_Bps = link_Bps,
                            .link_latency_ns = latency_ns};
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    sim_sched_t *s = sim_sched_allreduce(SIM_AR_RING, p);
    int eps[8];
    SGD_ASSERT(p <= (int)(sizeof eps / sizeof eps[0]));
    for (int i = 0; i < p; i++) eps[i] = i;
    int64_t ns = sim_sched_analytic_ns(s, &t, n, eps, nelems, 4);
    sim_sched_destroy(s);
    sim_net_destroy(n);
    return ns;
}

static void iteration_time_is_io_plus_compute_plus_allreduce(void)
{
    const char *sets[] = {"cluster.workers=4", "network.fidelity=analytic",
                          "compute.update_time_s=0.001"};
    alg_outcome_t o = run(base, sets, 3);
    /* parameters of 12-16-8-4: (12*16+16) + (16*8+8) + (8*4+4) = 380 */
    CHECK_INT_EQ(o.nparams, 380);
    /* The default network, 10 Gbit/s and 5 us per link, and a ring allreduce of all 380:
     * 6 steps of 2 link latencies + a chunk of 95 floats (380 B at 1.25 B/ns = 304 ns). */
    int64_t ar = ring_allreduce_ns(4, 380, 10e9 / 8, 5000);
    CHECK_INT_EQ(ar, 6 * (2 * 5000 + 304));
    CHECK_INT_EQ(o.vtime_ns, 40 * (2000000 + 10000000 + ar + 1000000));
    free(o.final_params);
}

static void message_level_allreduce_matches_analytic_when_uncontended(void)
{
    const int ps[] = {2, 3, 4, 8};
    for (int i = 0; i < 4; i++) {
        char w[64];
        snprintf(w, sizeof w, "cluster.workers=%d", ps[i]);
        const char *msg[] = {w, "network.fidelity=message", "batch.per_worker=4"};
        const char *ana[] = {w, "network.fidelity=analytic", "batch.per_worker=4"};
        alg_outcome_t a = run(base, msg, 3), b = run(base, ana, 3);
        CHECK_INT_EQ(a.vtime_ns, b.vtime_ns);
        CHECK(same_params(&a, &b));
        CHECK(a.events > b.events); /* the messages really were simulated */
        free(a.final_params);
        free(b.final_params);
    }
}

static void same_seed_same_digest_other_seed_other_digest(void)
{
    const char *s1[] = {"compute.time_s={\"dist\":\"lognormal\",\"mean\":0.01,\"cv\":0.3}"};
    const char *s2[] = {"compute.time_s={\"dist\":\"lognormal\",\"mean\":0.01,\"cv\":0.3}",
                        "seed=12"};
    alg_outcome_t a = run(base, s1, 1), b = run(base, s1, 1), c = run(base, s2, 2);
    CHECK_STR_EQ(a.digest, b.digest);
    CHECK_INT_EQ(a.vtime_ns, b.vtime_ns);
    CHECK(strcmp(a.digest, c.digest) != 0);
    free(a.final_params);
    free(b.final_params);
    free(c.final_params);
}

static void a_huge_learning_rate_diverges_cleanly(void)
{
    const char *sets[] = {"optimizer.lr=1e30", "optimizer.momentum=0"};
    alg_outcome_t o = run(base, sets, 2);
    CHECK_INT_EQ(o.status, ALG_DIVERGED);
    CHECK(o.updates < 40);
    CHECK_STR_CONTAINS(o.detail, "became NaN/Inf at update");
    free(o.final_params);
}

int main(void)
{
    p_workers_equal_one_worker_with_p_times_the_batch();
    one_worker_equals_plain_minibatch_sgd();
    iteration_time_is_io_plus_compute_plus_allreduce();
    message_level_allreduce_matches_analytic_when_uncontended();
    same_seed_same_digest_other_seed_other_digest();
    a_huge_learning_rate_diverges_cleanly();
    return check_exit();
}
