/* bench_cnn_grad: how close the LeNet-5 gradient (models/cnn.c) comes to its own GEMMs and to
 * the machine, on one core, in one run.
 *
 * For LeNet-5 on 28 x 28 x 1 images at batch 16, 64 and 128 it measures:
 *   grad   -- model_loss_grad, in GFLOP/s using model_flops_per_sample (GEMM FLOPs only:
 *             convolutions counted as their im2col products);
 *   sgemm  -- the network's products as cblas_sgemm calls in the im2col formulation (per conv
 *             and fc layer: forward, weight gradient and, but for the first layer, input
 *             gradient; the shapes, transposes and beta cnn.c gives them), back to back, same
 *             FLOPs.  These are the calls the gradient makes, except those of a one-channel
 *             stride-1 conv (LeNet's first layer), whose products cnn_direct.c computes
 *             itself: the replay keeps them as sgemm, so grad/sgemm compares the whole
 *             gradient with what OpenBLAS alone needs for its products;
 *   peak   -- the core's FP32 FMA peak from independent FMA chains (AVX-512 or AVX2+FMA, else
 *             scalar), as bench_mlp_grad measures it;
 * and prints grad/sgemm -- the cost of everything that is not a GEMM (im2col, col2im,
 * pooling, ReLU, bias, softmax), less what the direct convolution gains on sgemm -- and both
 * against the peak.  OpenBLAS on one thread, as the simulator runs it; each figure is the
 * best of REPS timings, alternating grad and sgemm so both see the same machine.
 * `bench_cnn_grad --core` prints the OpenBLAS kernel and exits (bench/cnn-vs-numpy.sh runs
 * numpy on it); `--cpu-time` times by the thread's CPU time. */
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

#define REPS 9
#define MIN_SECONDS 0.05

/* --- the gradient and its GEMMs ------------------------------------------------------------ */

typedef struct {
    model_t *m;
    const float *params, *x;
    const int32_t *y;
    float *grad, *a, *b, *c; /* a, b, c: operands of the replay, large enough for any call */
    int batch;
} work_t;

static void run_grad(void *arg)
{
    work_t *w = arg;
    model_loss_grad(w->m, w->params, w->x, w->y, w->batch, w->grad);
}

/* The cblas_sgemm calls of the network's im2col formulation: cnn.c's forward and backward
 * passes, same shapes and order, the direct convolution's products included. */
static void run_sgemm(void *arg)
{
    work_t *w = arg;
    const int n = model_layout(w->m)->ngeoms;
    const cnn_geom_t *g = model_layout(w->m)->geom;
    for (int i = 0; i < n; i++) {
        if (g[i].wl < 0) continue;
        int rows = w->batch * (int)g[i].rows, k = (int)g[i].kdim, oc = g[i].oc;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, oc, k, 1.0f, w->a, k,
                    w->params + model_layer_offset(w->m, g[i].wl, false), oc, 0.0f, w->c, oc);
    }
    for (int i = n - 1; i >= 0; i--) {
        if (g[i].wl < 0) continue;
        int rows = w->batch * (int)g[i].rows, k = (int)g[i].kdim, oc = g[i].oc;
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, oc, rows, 1.0f, w->a, k, w->b, oc,
                    0.0f, w->grad + model_layer_offset(w->m, g[i].wl, false), oc);
        if (i > 0)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, k, oc, 1.0f, w->b, oc,
                        w->params + model_layer_offset(w->m, g[i].wl, false), oc, 0.0f, w->c, k);
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

static model_spec_t lenet5(void)
{
    return (model_spec_t){.kind = model_kind_find("cnn"), .ninputs = 784, .nclasses = 10,
                          .cnn = cnn_lenet5()};
}

/* Largest operand of any replayed call, in floats. */
static size_t largest_operand(const model_t *m, int batch)
{
    const int n = model_layout(m)->ngeoms;
    const cnn_geom_t *g = model_layout(m)->geom;
    size_t big = 0;
    for (int i = 0; i < n; i++) {
        size_t rows = (size_t)batch * (size_t)(g[i].rows ? g[i].rows : 1);
        size_t s = rows * (size_t)(g[i].kdim > g[i].oc ? g[i].kdim : g[i].oc);
        if (s > big) big = s;
    }
    return big;
}

static void bench_batch(gsl_rng *r, int B, double peak)
{
    model_spec_t s = lenet5();
    model_t *m = model_create(&s, B);
    size_t np = model_nparams(m), big = largest_operand(m, B);
    float *params = malloc(np * sizeof *params), *grad = malloc(np * sizeof *grad);
    float *x = malloc((size_t)B * 784 * sizeof *x);
    int32_t *y = malloc((size_t)B * sizeof *y);
    model_init_params(m, params, MODEL_INIT_HE, r);
    for (int i = 0; i < B * 784; i++) x[i] = (float)gsl_rng_uniform(r);
    for (int i = 0; i < B; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, 10);
    work_t w = {.m = m, .params = params, .x = x, .y = y, .grad = grad, .batch = B,
                .a = calloc(big, sizeof(float)), .b = calloc(big, sizeof(float)),
                .c = calloc(big, sizeof(float))};
    for (size_t i = 0; i < big; i++) w.a[i] = 1e-3f * (float)(i % 7), w.b[i] = w.a[i];
    double flops = model_flops_per_sample(m) * B, tg, ts;
    time_pair(&w, &tg, &ts);
    double gg = flops / tg * 1e-9, gs = flops / ts * 1e-9;
    printf("%-8s %5d %10.2f %10.2f %10.2f %11.3f %10.3f %11.3f\n", "LeNet-5", B, flops * 1e-6, gg,
           gs, gg / gs, gg / peak, gs / peak);
    free(w.a), free(w.b), free(w.c);
    free(params), free(grad), free(x), free(y);
    model_destroy(m);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--core") == 0) { /* for bench/cnn-vs-numpy.sh */
        printf("%s\n", openblas_get_corename());
        return 0;
    }
    cpu_time = argc == 2 && strcmp(argv[1], "--cpu-time") == 0;
    if (argc > 2 || (argc == 2 && !cpu_time)) {
        fprintf(stderr, "bench_cnn_grad: unknown argument '%s'\n"
                        "usage: bench_cnn_grad [--core | --cpu-time]\n", argv[1]);
        return 2;
    }
    openblas_set_num_threads(1);
    printf("bench_cnn_grad: one BLAS thread, OpenBLAS core %s (%s), %s\n",
           openblas_get_corename(), openblas_get_config(),
           cpu_time ? "thread CPU time (the peak by the wall clock)" : "wall-clock time");
    const char *isa;
    double peak = bench_fp32_peak(false, &isa);
    printf("reference peak: %s, %.2f GFLOP/s\n\n", isa, peak);
    printf("%-8s %5s %10s %10s %10s %11s %10s %11s\n", "model", "batch", "MFLOP/call",
           "grad GF/s", "sgemm GF/s", "grad/sgemm", "grad/peak", "sgemm/peak");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1);
    static const int batches[] = {16, 64, 128};
    for (int i = 0; i < 3; i++) bench_batch(r, batches[i], peak);
    gsl_rng_free(r);
    return 0;
}
