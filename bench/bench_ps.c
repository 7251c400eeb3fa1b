/* bench_ps: how much of a parameter-server run is gradient math, and how fast it goes.
 *
 * Usage: bench_ps MU LAMBDA UPDATES.  Runs sgdsim's `fasgd` on the uniform driver (fully
 * asynchronous, c = 1: the loop of bench/ps_numpy.py) on an MLP 784-200-10 over synthetic
 * 784-dimensional data, without evaluation, and measures in the same process:
 *   T -- wall time of the simulation loop (the engine's own wall-clock counter, which covers
 *        every event: client pick, snapshot copies, gradient, normaliser, update, bookkeeping);
 *   R -- wall time spent inside model_loss_grad during that loop (the bench is linked with
 *        -Wl,--wrap=model_loss_grad, so the simulator's own calls are timed; the simulator
 *        itself never reads the clock for this);
 *   G -- wall time of UPDATES calls of model_loss_grad with the same shapes on one parameter
 *        vector, outside the simulator (cache-hot parameters; best of 3 repetitions).
 * Prints updates/s (UPDATES / T) and the share of the run outside gradient math, 1 - R / T
 * (and 1 - G / T, which also counts the cost of reading a different, cache-cold parameter
 * version for every gradient as "outside").
 * bench/ps-vs-numpy.sh puts this next to the numpy implementation's updates/s as a ratio.
 *
 * bench_ps MU LAMBDA UPDATES BATCH (BATCH > 1) also runs the same scenario with
 * algorithm.gradient_batch = BATCH and prints its loop's updates/s as a ratio to the first
 * run's (gradient_batch 1), and whether the digests match: on the CPU the ledger and the
 * batched calls buy nothing, so this measures what deferring the numerics costs.
 * OpenBLAS runs on one thread (the runner pins it), as in every sgdsim run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "sim/rng.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Timing wrapper around the simulator's gradient calls (see -Wl,--wrap in CMakeLists). */
double __real_model_loss_grad(model_t *m, const float *params, const float *x,
                              const int32_t *y, int batch, float *grad);
double __wrap_model_loss_grad(model_t *m, const float *params, const float *x,
                              const int32_t *y, int batch, float *grad);
static double grad_seconds;

double __wrap_model_loss_grad(model_t *m, const float *params, const float *x,
                              const int32_t *y, int batch, float *grad)
{
    double t0 = now();
    double loss = __real_model_loss_grad(m, params, x, y, batch, grad);
    grad_seconds += now() - t0;
    return loss;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: bench_ps MU LAMBDA UPDATES [GRADIENT_BATCH]\n");
        return 2;
    }
    int mu = atoi(argv[1]), lambda = atoi(argv[2]), updates = atoi(argv[3]);
    int batch = argc == 5 ? atoi(argv[4]) : 1;
    if (mu < 1 || lambda < 1 || updates < 1 || mu > 8192 || batch < 1 || batch > 4096) {
        fprintf(stderr, "bench_ps: MU in [1, 8192], LAMBDA and UPDATES >= 1, GRADIENT_BATCH in "
                        "[1, 4096]\n");
        return 2;
    }
    char text[1024];
    snprintf(text, sizeof text,
             "{\"schema_version\": 1, \"algorithm\": {\"name\": \"fasgd\"},"
             " \"cluster\": {\"workers\": %d},"
             " \"data\": {\"source\": \"synthetic\", \"n_train\": 8192, \"n_validation\": 64,"
             "           \"dim\": 784, \"classes\": 10},"
             " \"model\": {\"kind\": \"mlp\", \"hidden\": [200]},"
             " \"batch\": {\"per_worker\": %d}, \"optimizer\": {\"lr\": 0.005},"
             " \"stop\": {\"updates\": %d}, \"eval\": {\"every\": 0}}",
             lambda, mu, updates);
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load_text(text, "bench_ps", ".", NULL, 0, NULL, alg_scenario_table, &s, &err)) {
        fprintf(stderr, "bench_ps: %s\n", err.msg);
        return 2;
    }
    alg_outcome_t o;
    if (alg_run(&s, NULL, &o, &err) || o.status != ALG_COMPLETE) {
        fprintf(stderr, "bench_ps: run failed: %s%s\n", err.msg, o.detail);
        return 1;
    }
    double T = o.wall_s, R = grad_seconds;

    /* The gradient math alone: same model, same batch shape, cyclic rows. */
    model_spec_t spec = {.kind = MODEL_MLP, .ninputs = 784, .nclasses = 10, .nhidden = 1,
                         .hidden = {200}};
    model_t *m = model_create(&spec, mu);
    size_t n = model_nparams(m);
    float *theta = malloc(n * sizeof *theta), *g = malloc(n * sizeof *g);
    float *x = malloc((size_t)8192 * 784 * sizeof *x);
    int32_t *y = malloc(8192 * sizeof *y);
    gsl_rng *r = sim_rng_create(1, SIM_STREAM_INIT, 0);
    model_init_params(m, theta, MODEL_INIT_HE, r);
    for (size_t i = 0; i < (size_t)8192 * 784; i++) x[i] = (float)gsl_rng_uniform(r);
    for (int i = 0; i < 8192; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, 10);
    gsl_rng_free(r);
    double G = 1e300;
    int batches = 8192 / mu;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (int t = 0; t < updates; t++) {
            int b = t % batches;
            __real_model_loss_grad(m, theta, x + (size_t)b * (size_t)mu * 784,
                                   y + (size_t)b * (size_t)mu, mu, g);
        }
        double dt = now() - t0;
        if (dt < G) G = dt;
    }
    printf("sgdsim mu %d lambda %d updates %d: %.3f s loop, %.1f updates/s; in the loop %.3f s "
           "in gradient math (outside: %.1f%%); the same gradients on hot parameters %.3f s "
           "(outside: %.1f%%)\n",
           mu, lambda, updates, T, updates / T, R, 100.0 * (1.0 - R / T), G,
           100.0 * (1.0 - G / T));
    printf("sgdsim updates_per_s %.3f outside_share %.4f outside_share_hot %.4f\n", updates / T,
           1.0 - R / T, 1.0 - G / T);
    if (batch > 1) {
        char set[64];
        snprintf(set, sizeof set, "algorithm.gradient_batch=%d", batch);
        scn_override_t ov = {set};
        scn_t sb;
        alg_outcome_t ob;
        if (scn_load_text(text, "bench_ps", ".", &ov, 1, NULL, alg_scenario_table, &sb, &err)) {
            fprintf(stderr, "bench_ps: %s\n", err.msg);
            return 2;
        }
        if (alg_run(&sb, NULL, &ob, &err) || ob.status != ALG_COMPLETE) {
            fprintf(stderr, "bench_ps: run failed: %s%s\n", err.msg, ob.detail);
            return 1;
        }
        printf("sgdsim gradient_batch %d: %.1f updates/s, %.3f x gradient_batch 1; %.1f "
               "gradients per backend call; same digest: %s\n",
               batch, updates / ob.wall_s, T / ob.wall_s, (double)ob.grads / (double)ob.grad_calls,
               strcmp(o.digest, ob.digest) == 0 ? "yes" : "NO");
        free(ob.final_params);
        scn_free(&sb);
    }
    free(o.final_params);
    free(theta);
    free(g);
    free(x);
    free(y);
    model_destroy(m);
    scn_free(&s);
    return 0;
}
