/* bench_ps: how much of a parameter-server run is gradient math, and how fast it goes.
 *
 * Usage: bench_ps [-t THREADS] [-w WARMUP] MU LAMBDA UPDATES [GRADIENT_BATCH]
 * Runs sgdsim's `fasgd` on the uniform driver (fully asynchronous, c = 1: the loop of
 * bench/ps_numpy.py) on an MLP 784-200-10 over synthetic 784-dimensional data, without
 * evaluation, with the scenario's default algorithm.gradient_batch (16 on the CPU), and
 * measures in the same process:
 *   T -- wall time of the simulation loop (the engine's own wall-clock counter, which covers
 *        every event: client pick, snapshot copies, gradient, normaliser, update, bookkeeping);
 *   R -- wall time spent inside model_loss_grad during that loop (the bench is linked with
 *        -Wl,--wrap=model_loss_grad, so the simulator's own calls are timed; the simulator
 *        itself never reads the clock for this);
 *   G -- wall time the same number of model_loss_grad calls take with the same shapes on one
 *        parameter vector, outside the simulator (cache-hot parameters; the best of 3
 *        repetitions of up to 200 calls, scaled to the loop's count).
 * Prints updates/s (UPDATES / T) and the share of the run outside gradient math, 1 - R / T
 * (and 1 - G / T, which also counts the cost of reading a different, cache-cold parameter
 * version for every gradient as "outside").
 *
 * -w WARMUP measures only the updates after update WARMUP (the clock and R are read when the
 * runner reports that update): with many clients, the first ~LAMBDA updates each create a
 * parameter version nobody held before, whose fresh memory is page-faulted in
 * (docs/performance.md), and a warm-up window keeps that out of a steady-state figure.
 * -t THREADS runs the numerics on that many threads (numerics.threads, as `sgdsim run -t`);
 * with more than one, R adds up the threads' gradient time, so the shares are not printed.
 *
 * bench_ps ... GRADIENT_BATCH (> 1) then runs the same scenario twice more, with
 * algorithm.gradient_batch = 1 and = GRADIENT_BATCH, and prints the second one's loop
 * updates/s as a ratio to the first's, and whether the digests match: on one CPU thread the
 * ledger and the batched calls buy nothing, so this measures what deferring the numerics
 * costs.  bench/ps-vs-numpy.sh puts the first run next to the numpy implementation's
 * updates/s as a ratio; bench/run.sh uses the machine-readable "sgdsim ..." line.
 * OpenBLAS runs on one thread per numerics thread (the runner pins it), as in every sgdsim
 * run. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "models/model_kind.h"
#include "sim/rng.h"

#define NTRAIN 8192
#define DIM 784
#define HOT_CALLS 200 /* most gradients timed per repetition of G */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Timing wrapper around the simulator's gradient calls (see -Wl,--wrap in CMakeLists).
 * Integer nanoseconds in an atomic because with -t > 1 the calls come from several threads
 * at once (an atomic double would need libatomic). */
double __real_model_loss_grad(model_t *m, const float *params, const float *x,
                              const int32_t *y, int batch, float *grad);
double __wrap_model_loss_grad(model_t *m, const float *params, const float *x,
                              const int32_t *y, int batch, float *grad);
static _Atomic int64_t grad_ns;

double __wrap_model_loss_grad(model_t *m, const float *params, const float *x,
                              const int32_t *y, int batch, float *grad)
{
    int64_t t0 = now_ns();
    double loss = __real_model_loss_grad(m, params, x, y, batch, grad);
    atomic_fetch_add(&grad_ns, now_ns() - t0);
    return loss;
}

/* Seconds spent in gradient math so far. */
static double grad_seconds(void) { return 1e-9 * (double)atomic_load(&grad_ns); }

typedef struct {
    int mu, lambda, updates, batch, threads, warmup;
} args_t;

static int parse_args(int argc, char **argv, args_t *a)
{
    *a = (args_t){.batch = 1, .threads = 1};
    int c;
    while ((c = getopt(argc, argv, "t:w:")) != -1) {
        if (c == 't') a->threads = atoi(optarg);
        else if (c == 'w') a->warmup = atoi(optarg);
        else return -1;
    }
    int n = argc - optind;
    if (n != 3 && n != 4) return -1;
    a->mu = atoi(argv[optind]);
    a->lambda = atoi(argv[optind + 1]);
    a->updates = atoi(argv[optind + 2]);
    if (n == 4) a->batch = atoi(argv[optind + 3]);
    return a->mu < 1 || a->lambda < 1 || a->updates < 1 || a->mu > NTRAIN || a->batch < 1 ||
                   a->batch > 4096 || a->threads < 1 || a->threads > 256 || a->warmup < 0 ||
                   a->warmup >= a->updates
               ? -1
               : 0;
}

/* The clock and the gradient time when the runner reported update `warmup` and the last. */
typedef struct {
    int64_t warmup, last;
    double t_warm, r_warm, t_last, r_last;
} window_t;

static void on_update(void *ctx, int64_t update, int64_t vtime_ns, double train_loss,
                      uint64_t events)
{
    (void)vtime_ns, (void)train_loss, (void)events;
    window_t *w = ctx;
    if (update == w->warmup) w->t_warm = now(), w->r_warm = grad_seconds();
    if (update == w->last) w->t_last = now(), w->r_last = grad_seconds();
}

/* Runs the scenario (with an optional --set); returns 0 and fills o, or prints why not. */
static int run_fasgd(const args_t *a, const char *set, window_t *w, alg_outcome_t *o)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"schema_version\": 1, \"algorithm\": {\"name\": \"fasgd\"},"
             " \"cluster\": {\"workers\": %d},"
             " \"data\": {\"source\": \"synthetic\", \"n_train\": %d, \"n_validation\": 64,"
             "           \"dim\": %d, \"classes\": 10},"
             " \"model\": {\"kind\": \"mlp\", \"hidden\": [200]},"
             " \"batch\": {\"per_worker\": %d}, \"optimizer\": {\"lr\": 0.005},"
             " \"stop\": {\"updates\": %d}, \"eval\": {\"every\": 0}}",
             a->lambda, NTRAIN, DIM, a->mu, a->updates);
    scn_override_t ov = {set};
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load_text(text, "bench_ps", ".", &ov, set ? 1 : 0, NULL, alg_scenario_table, &s,
                      &err)) {
        fprintf(stderr, "bench_ps: %s\n", err.msg);
        return 2;
    }
    s.numerics.threads_resolved = a->threads;
    alg_sink_t sink = {.ctx = w, .progress = w ? on_update : NULL};
    atomic_store(&grad_ns, 0);
    int rc = alg_run(&s, w ? &sink : NULL, o, &err) || o->status != ALG_COMPLETE;
    if (rc) fprintf(stderr, "bench_ps: run failed: %s%s\n", err.msg, o->detail);
    scn_free(&s);
    return rc;
}

/* Best seconds per cache-hot gradient call with the run's shapes; *mflop per call. */
static double hot_grad_seconds(int mu, int calls, double *mflop)
{
    model_spec_t spec = {.kind = model_kind_find("mlp"), .ninputs = DIM, .nclasses = 10,
                         .nhidden = 1, .hidden = {200}};
    model_t *m = model_create(&spec, mu);
    size_t n = model_nparams(m);
    float *theta = malloc(n * sizeof *theta), *g = malloc(n * sizeof *g);
    float *x = malloc((size_t)NTRAIN * DIM * sizeof *x);
    int32_t *y = malloc(NTRAIN * sizeof *y);
    if (!theta || !g || !x || !y) abort();
    gsl_rng *r = sim_rng_create(1, SIM_STREAM_INIT, 0);
    model_init_params(m, theta, MODEL_INIT_HE, r);
    for (size_t i = 0; i < (size_t)NTRAIN * DIM; i++) x[i] = (float)gsl_rng_uniform(r);
    for (int i = 0; i < NTRAIN; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, 10);
    gsl_rng_free(r);
    double best = 1e300;
    int batches = NTRAIN / mu;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (int t = 0; t < calls; t++) {
            int b = t % batches;
            __real_model_loss_grad(m, theta, x + (size_t)b * (size_t)mu * DIM,
                                   y + (size_t)b * (size_t)mu, mu, g);
        }
        double dt = (now() - t0) / calls;
        if (dt < best) best = dt;
    }
    *mflop = model_flops_per_sample(m) * mu * 1e-6;
    free(theta);
    free(g);
    free(x);
    free(y);
    model_destroy(m);
    return best;
}

/* The first run's figures over the measured window. */
static void report(const args_t *a, const alg_outcome_t *o, const window_t *w)
{
    int n = a->updates - a->warmup;
    double T = a->warmup ? w->t_last - w->t_warm : o->wall_s;
    double R = a->warmup ? w->r_last - w->r_warm : grad_seconds();
    double mflop, G = hot_grad_seconds(a->mu, n < HOT_CALLS ? n : HOT_CALLS, &mflop) * n;
    char share[64] = "na", share_hot[64] = "na";
    if (a->threads == 1) {
        snprintf(share, sizeof share, "%.4f", 1.0 - R / T);
        snprintf(share_hot, sizeof share_hot, "%.4f", 1.0 - G / T);
    }
    printf("sgdsim mu %d lambda %d updates %d (measured after update %d), %d thread(s): %.3f s "
           "loop, %.1f updates/s; in the loop %.3f s in gradient math (outside: %s); the same "
           "gradients on hot parameters %.3f s (outside: %s); %.2f MFLOP per gradient; digest "
           "%s\n",
           a->mu, a->lambda, a->updates, a->warmup, a->threads, T, n / T, R, share, G, share_hot,
           mflop, o->digest);
    printf("sgdsim updates_per_s %.3f outside_share %s outside_share_hot %s mflop_per_grad %.4f "
           "digest %s\n",
           n / T, share, share_hot, mflop, o->digest);
}

/* gradient_batch 1 against gradient_batch a->batch, both over the whole loop. */
static int compare_batching(const args_t *a)
{
    char set1[64] = "algorithm.gradient_batch=1", setb[64];
    snprintf(setb, sizeof setb, "algorithm.gradient_batch=%d", a->batch);
    alg_outcome_t o1, ob;
    if (run_fasgd(a, set1, NULL, &o1)) return 1;
    if (run_fasgd(a, setb, NULL, &ob)) return 1;
    printf("sgdsim gradient_batch %d: %.1f updates/s, %.3f x gradient_batch 1; %.1f gradients "
           "per backend call; same digest: %s\n",
           a->batch, a->updates / ob.wall_s, o1.wall_s / ob.wall_s,
           (double)ob.grads / (double)ob.grad_calls,
           strcmp(o1.digest, ob.digest) == 0 ? "yes" : "NO");
    free(o1.final_params);
    free(ob.final_params);
    return 0;
}

int main(int argc, char **argv)
{
    args_t a;
    if (parse_args(argc, argv, &a)) {
        fprintf(stderr, "usage: bench_ps [-t THREADS] [-w WARMUP] MU LAMBDA UPDATES "
                        "[GRADIENT_BATCH]\n  MU in [1, %d], LAMBDA and UPDATES >= 1, THREADS in "
                        "[1, 256], WARMUP in [0, UPDATES), GRADIENT_BATCH in [1, 4096]\n",
                NTRAIN);
        return 2;
    }
    window_t w = {.warmup = a.warmup, .last = a.updates};
    alg_outcome_t o;
    if (run_fasgd(&a, NULL, &w, &o)) return 1;
    report(&a, &o, &w);
    free(o.final_params);
    return a.batch > 1 ? compare_batching(&a) : 0;
}
