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
 * `bench_mlp_grad --peak` prints the peaks only. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <gsl/gsl_rng.h>
#include <immintrin.h>

#include "models/model.h"

#define REPS 9            /* timed repetitions; the best one is reported */
#define MIN_SECONDS 0.05  /* each repetition runs at least this long */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Keeps results alive so the compiler cannot drop the kernels. */
static volatile float sink;

/* --- FMA peak -------------------------------------------------------------------------------
 * Independent accumulator chains: FMA latency is 4 cycles with up to 2 FMA units, so at least
 * 8 chains are needed to keep both busy.  The count must also fit the register file with the
 * two constants, or the compiler spills and the kernel measures memory instead: 24 of AVX-512's
 * 32 registers, 12 of AVX2's and SSE's 16.  acc = acc * a + b with a just below 1 stays bounded
 * and normal, so no denormal slow path is hit. */
#define CHAINS_512 24
#define CHAINS 12
/* Fully unrolled inner loops let the compiler keep acc[] in registers; without it GCC -O2
 * keeps the array in memory and the kernel measures store-to-load forwarding. */
#define PRAGMA_UNROLL _Pragma("GCC unroll 32")

__attribute__((target("avx512f"))) static double peak_avx512(int64_t iters)
{
    __m512 acc[CHAINS_512];
    __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
    for (int c = 0; c < CHAINS_512; c++) acc[c] = _mm512_set1_ps((float)c + sink);
    for (int64_t i = 0; i < iters; i++)
        PRAGMA_UNROLL
        for (int c = 0; c < CHAINS_512; c++) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    __m512 s = acc[0];
    for (int c = 1; c < CHAINS_512; c++) s = _mm512_add_ps(s, acc[c]);
    sink = _mm512_reduce_add_ps(s);
    return (double)iters * CHAINS_512 * 16 * 2;
}

__attribute__((target("avx2,fma"))) static double peak_avx2(int64_t iters)
{
    __m256 acc[CHAINS];
    __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
    for (int c = 0; c < CHAINS; c++) acc[c] = _mm256_set1_ps((float)c + sink);
    for (int64_t i = 0; i < iters; i++)
        PRAGMA_UNROLL
        for (int c = 0; c < CHAINS; c++) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
    __m256 s = acc[0];
    for (int c = 1; c < CHAINS; c++) s = _mm256_add_ps(s, acc[c]);
    float out[8];
    _mm256_storeu_ps(out, s);
    sink = out[0];
    return (double)iters * CHAINS * 8 * 2;
}

/* SSE has no FMA: a multiply and an add per step, 2 FLOPs, as the FMA kernels count them.
 * The dependent multiply-add doubles each chain's latency, so on cores with FMA units this
 * fallback (and the scalar one) reads below the true SSE peak: a lower bound, used as the
 * reference only on CPUs without AVX2. */
static double peak_sse(int64_t iters)
{
    __m128 acc[CHAINS];
    __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-6f);
    for (int c = 0; c < CHAINS; c++) acc[c] = _mm_set1_ps((float)c + sink);
    for (int64_t i = 0; i < iters; i++)
        PRAGMA_UNROLL
        for (int c = 0; c < CHAINS; c++) acc[c] = _mm_add_ps(_mm_mul_ps(acc[c], a), b);
    __m128 s = acc[0];
    for (int c = 1; c < CHAINS; c++) s = _mm_add_ps(s, acc[c]);
    float out[4];
    _mm_storeu_ps(out, s);
    sink = out[0];
    return (double)iters * CHAINS * 4 * 2;
}

static double peak_scalar(int64_t iters)
{
    float acc[CHAINS];
    for (int c = 0; c < CHAINS; c++) acc[c] = (float)c + sink;
    for (int64_t i = 0; i < iters; i++)
        PRAGMA_UNROLL
        for (int c = 0; c < CHAINS; c++) acc[c] = acc[c] * 0.999999f + 1e-6f;
    float s = 0;
    for (int c = 0; c < CHAINS; c++) s += acc[c];
    sink = s;
    return (double)iters * CHAINS * 2;
}

typedef double (*peak_fn)(int64_t iters);

static double measure_peak(peak_fn f)
{
    int64_t iters = 1 << 16;
    double t;
    /* Grow the loop until one call takes long enough to time reliably. */
    for (;;) {
        double t0 = now();
        f(iters);
        t = now() - t0;
        if (t >= MIN_SECONDS) break;
        iters *= 2;
    }
    double best = 0;
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        double flops = f(iters);
        double gf = flops / (now() - t0) * 1e-9;
        if (gf > best) best = gf;
    }
    return best;
}

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

static void run_grad(work_t *w)
{
    model_loss_grad(w->m, w->params, w->x, w->y, w->batch, w->grad);
}

/* Exactly the cblas_sgemm calls model_loss_grad makes, in the same order. */
static void run_sgemm(work_t *w)
{
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

/* Calls f enough times to take at least MIN_SECONDS; returns seconds per call. */
static double time_calls(void (*f)(work_t *), work_t *w, int calls)
{
    double t0 = now();
    for (int i = 0; i < calls; i++) f(w);
    return (now() - t0) / calls;
}

static int calibrate(void (*f)(work_t *), work_t *w)
{
    int calls = 1;
    while (time_calls(f, w, calls) * calls < MIN_SECONDS) calls *= 2;
    return calls;
}

/* Best time per call of the gradient and of its GEMMs, timed alternately so both see the
 * same machine conditions (other processes, clock frequency) and their ratio stays fair. */
static void time_pair(work_t *w, double *t_grad, double *t_sgemm)
{
    int cg = calibrate(run_grad, w), cs = calibrate(run_sgemm, w);
    *t_grad = *t_sgemm = 1e300;
    for (int r = 0; r < REPS; r++) {
        double tg = time_calls(run_grad, w, cg), ts = time_calls(run_sgemm, w, cs);
        if (tg < *t_grad) *t_grad = tg;
        if (ts < *t_sgemm) *t_sgemm = ts;
    }
}

/* Peak of every tier the CPU supports, printed; returns the widest one's (the reference). */
static double reference_peak(void)
{
    double peak = 0;
    const char *peak_isa = "scalar";
    __builtin_cpu_init();
    double p_scalar = measure_peak(peak_scalar);
    printf("FP32 peak, scalar     : %8.2f GFLOP/s\n", p_scalar);
    peak = p_scalar;
    double p_sse = measure_peak(peak_sse); /* SSE is part of x86-64 */
    printf("FP32 peak, SSE        : %8.2f GFLOP/s\n", p_sse);
    if (p_sse > peak) peak = p_sse, peak_isa = "SSE";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        double p = measure_peak(peak_avx2);
        printf("FP32 peak, AVX2+FMA   : %8.2f GFLOP/s\n", p);
        if (p > peak) peak = p, peak_isa = "AVX2+FMA";
    }
    if (__builtin_cpu_supports("avx512f")) {
        double p = measure_peak(peak_avx512);
        printf("FP32 peak, AVX-512 FMA: %8.2f GFLOP/s\n", p);
        if (p > peak) peak = p, peak_isa = "AVX-512";
    }
    printf("reference peak: %s, %.2f GFLOP/s\n", peak_isa, peak);
    return peak;
}

int main(int argc, char **argv)
{
    /* --peak: only the peaks (bench/run.sh runs copies side by side to see what the cores
     * give a perfectly parallel kernel). */
    bool peak_only = argc == 2 && strcmp(argv[1], "--peak") == 0;
    if (argc > 2 || (argc == 2 && !peak_only)) {
        fprintf(stderr, "usage: bench_mlp_grad [--peak]\n");
        return 2;
    }
    openblas_set_num_threads(1);
    printf("bench_mlp_grad: one BLAS thread, OpenBLAS core %s (%s)\n", openblas_get_corename(),
           openblas_get_config());
    double peak = reference_peak();
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
            model_spec_t s = {.kind = MODEL_MLP, .ninputs = 784, .nclasses = 10, .nhidden = 1,
                              .hidden = {hidden[h]}};
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
