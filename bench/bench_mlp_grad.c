/* bench_mlp_grad: how close model_loss_grad comes to the machine, on one core.
 *
 * For MLPs 784-200-10 and 784-256-10 at batch 64 and 128 it measures, in the same run:
 *   grad   -- model_loss_grad, in GFLOP/s using model_flops_per_sample (GEMM FLOPs only);
 *   sgemm  -- the same cblas_sgemm calls the gradient makes (forward, weight-gradient and
 *             input-gradient products, same shapes and transposes), back to back, same FLOPs;
 *   peak   -- the core's FP32 FMA peak, from a hand-written kernel of many independent FMA
 *             chains in the widest vector ISA the CPU supports (AVX-512, AVX2+FMA, SSE, scalar);
 * and prints grad/sgemm (overhead of everything that is not a GEMM: bias, ReLU, softmax,
 * copies) and grad/peak, sgemm/peak (how well these small, skinny GEMMs use the core).
 * OpenBLAS is pinned to one thread, as the simulator runs it.  Each figure is the best of
 * several timed repetitions, which filters out interruptions rather than averaging them in.
 * `bench_mlp_grad --peak` prints the peaks only; `--cpu-time` times grad and sgemm by the
 * thread's CPU time (the peak stays wall-clock), for comparisons on a shared machine. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <gsl/gsl_rng.h>

#include "bench/bench_timing.h"
#include "bench/fp32_peak.h"
#include "models/model.h"
#include "models/model_kind.h"

#define REPS 9            /* timed repetitions; the best one is reported */
#define MIN_SECONDS 0.05  /* each repetition runs at least this long */

/* --- The gradient and its GEMMs ------------------------------------------------------------ */

typedef struct {
    model_t *m;
    const float *params, *x;
    const int32_t *y;
    float *grad;
    int batch;
    /* Buffers for the sgemm-only replay: activations and deltas of every layer. */
    float *act[MODEL_MAX_LAYERS + 1], *delta, *delta2, *gw;
} work_t;

static void run_grad(void *arg)
{
    work_t *w = arg;
    model_loss_grad(w->m, w->params, w->x, w->y, w->batch, w->grad);
}

/* Exactly the cblas_sgemm calls model_loss_grad makes, in the same order. */
static void run_sgemm(void *arg)
{
    work_t *w = arg;
    model_t *m = w->m;
    int L = model_nlayers(m), B = w->batch;
    for (int l = 0; l < L; l++) {
        int nin = model_layer_fan_in(m, l), nout = model_layer_fan_out(m, l);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, nout, nin, 1.0f, w->act[l], nin,
                    w->params + model_layer_offset(m, l, false), nout, 1.0f, w->act[l + 1], nout);
    }
    for (int l = L - 1; l >= 0; l--) {
        int nin = model_layer_fan_in(m, l), nout = model_layer_fan_out(m, l);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nin, nout, B, 1.0f, w->act[l], nin,
                    w->delta, nout, 0.0f, w->gw + model_layer_offset(m, l, false), nout);
        if (l > 0)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, nin, nout, 1.0f, w->delta, nout,
                        w->params + model_layer_offset(m, l, false), nout, 0.0f, w->delta2, nin);
    }
}

/* --cpu-time: time by the thread's CPU seconds (bench_thread_cpu_now, one BLAS thread runs
 * in the calling thread). */
static bool cpu_time;

static double now(void) { return cpu_time ? bench_thread_cpu_now() : bench_now(); }

/* Best time per call of the gradient and of its GEMMs (bench_timing.h). */
static void time_pair(work_t *w, double *t_grad, double *t_sgemm)
{
    bench_pair_t p = {.a = run_grad, .b = run_sgemm, .work = w, .clock = now,
                      .min_seconds = MIN_SECONDS, .reps = REPS};
    bench_time_pair(&p, t_grad, t_sgemm);
}

int main(int argc, char **argv)
{
    /* --peak: only the peaks (bench/run.sh runs copies side by side to see what the cores
     * give a perfectly parallel kernel). */
    bool peak_only = argc == 2 && strcmp(argv[1], "--peak") == 0;
    cpu_time = argc == 2 && strcmp(argv[1], "--cpu-time") == 0;
    if (argc > 2 || (argc == 2 && !peak_only && !cpu_time)) {
        fprintf(stderr, "usage: bench_mlp_grad [--peak | --cpu-time]\n");
        return 2;
    }
    openblas_set_num_threads(1);
    printf("bench_mlp_grad: one BLAS thread, OpenBLAS core %s (%s), %s\n",
           openblas_get_corename(), openblas_get_config(),
           cpu_time ? "thread CPU time (the peak by the wall clock)" : "wall-clock time");
    double peak = bench_fp32_peak(true, NULL);
    if (peak_only) return 0;
    printf("\n");

    static const int hidden[2] = {200, 256}, batches[2] = {64, 128};
    printf("%-12s %5s %10s %10s %10s %11s %10s %11s\n", "model", "batch", "MFLOP/call",
           "grad GF/s", "sgemm GF/s", "grad/sgemm", "grad/peak", "sgemm/peak");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1);
    for (int h = 0; h < 2; h++) {
        for (int bi = 0; bi < 2; bi++) {
            int B = batches[bi];
            model_spec_t s = {.kind = model_kind_find("mlp"), .ninputs = 784, .nclasses = 10,
                              .nhidden = 1, .hidden = {hidden[h]}};
            model_t *m = model_create(&s, B);
            size_t np = model_nparams(m);
            float *params = malloc(np * sizeof *params), *grad = malloc(np * sizeof *grad);
            float *gw = malloc(np * sizeof *gw);
            float *x = malloc((size_t)B * 784 * sizeof *x);
            int32_t *y = malloc((size_t)B * sizeof *y);
            model_init_params(m, params, MODEL_INIT_HE, r);
            for (int i = 0; i < B * 784; i++) x[i] = (float)gsl_rng_uniform(r);
            for (int i = 0; i < B; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, 10);

            work_t w = {.m = m, .params = params, .x = x, .y = y, .grad = grad, .batch = B,
                        .gw = gw};
            int L = model_nlayers(m), maxw = 784;
            w.act[0] = x;
            for (int l = 1; l <= L; l++) {
                size_t fan_in = (size_t)model_layer_fan_in(m, l - 1);
                size_t fan_out = (size_t)model_layer_fan_out(m, l - 1);
                w.act[l] = malloc((size_t)B * fan_in * sizeof(float) +
                                  (size_t)B * fan_out * sizeof(float));
                memset(w.act[l], 0, (size_t)B * fan_out * sizeof(float));
            }
            w.delta = calloc((size_t)B * (size_t)maxw, sizeof(float));
            w.delta2 = calloc((size_t)B * (size_t)maxw, sizeof(float));
            for (int i = 0; i < B * maxw; i++) w.delta[i] = 1e-3f * (float)(i % 7);

            double flops = model_flops_per_sample(m) * B;
            double tg, ts;
            time_pair(&w, &tg, &ts);
            double gg = flops / tg * 1e-9, gs = flops / ts * 1e-9;
            char name[32];
            snprintf(name, sizeof name, "784-%d-10", hidden[h]);
            printf("%-12s %5d %10.2f %10.2f %10.2f %11.3f %10.3f %11.3f\n", name, B, flops * 1e-6,
                   gg, gs, gg / gs, gg / peak, gs / peak);

            for (int l = 1; l <= L; l++) free(w.act[l]);
            free(w.delta);
            free(w.delta2);
            free(params);
            free(grad);
            free(gw);
            free(x);
            free(y);
            model_destroy(m);
        }
    }
    gsl_rng_free(r);
    return 0;
}
