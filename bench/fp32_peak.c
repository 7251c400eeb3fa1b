/* The core's FP32 peak, measured: independent FMA chains in every vector ISA the CPU has
 * (fp32_peak.h).  Shared by the CPU benchmarks, which report their throughput against it. */
#include "bench/fp32_peak.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <immintrin.h>

#define REPS 9            /* timed repetitions; the best one is reported */
#define MIN_SECONDS 0.05  /* each repetition runs at least this long */

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
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
        double t0 = bench_now();
        f(iters);
        t = bench_now() - t0;
        if (t >= MIN_SECONDS) break;
        iters *= 2;
    }
    double best = 0;
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_now();
        double flops = f(iters);
        double gf = flops / (bench_now() - t0) * 1e-9;
        if (gf > best) best = gf;
    }
    return best;
}

double bench_fp32_peak(bool print, const char **isa)
{
    double peak = 0;
    const char *peak_isa = "scalar";
    __builtin_cpu_init();
    double p_scalar = measure_peak(peak_scalar);
    if (print) printf("FP32 peak, scalar     : %8.2f GFLOP/s\n", p_scalar);
    peak = p_scalar;
    double p_sse = measure_peak(peak_sse); /* SSE is part of x86-64 */
    if (print) printf("FP32 peak, SSE        : %8.2f GFLOP/s\n", p_sse);
    if (p_sse > peak) peak = p_sse, peak_isa = "SSE";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        double p = measure_peak(peak_avx2);
        if (print) printf("FP32 peak, AVX2+FMA   : %8.2f GFLOP/s\n", p);
        if (p > peak) peak = p, peak_isa = "AVX2+FMA";
    }
    if (__builtin_cpu_supports("avx512f")) {
        double p = measure_peak(peak_avx512);
        if (print) printf("FP32 peak, AVX-512 FMA: %8.2f GFLOP/s\n", p);
        if (p > peak) peak = p, peak_isa = "AVX-512";
    }
    if (print) printf("reference peak: %s, %.2f GFLOP/s\n", peak_isa, peak);
    if (isa) *isa = peak_isa;
    return peak;
}
