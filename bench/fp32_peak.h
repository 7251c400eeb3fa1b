/* The core's FP32 peak for the CPU benchmarks (bench_mlp_grad, bench_cnn_grad): the best of
 * several timings of many independent FMA chains (AVX-512, AVX2+FMA, SSE, scalar; the
 * widest the CPU runs is the reference), in GFLOP/s, measured in the same run as the figure
 * it is compared with. */
#ifndef SGDSIM_BENCH_FP32_PEAK_H
#define SGDSIM_BENCH_FP32_PEAK_H

#include <stdbool.h>

/* A monotonic clock, s. */
double bench_now(void);

/* The calling thread's CPU seconds: on a machine shared with other work, wall-clock times
 * include the time a thread waited for a core, CPU time leaves that out (though not the cost
 * of caches shared with the other work).  The benchmarks' --cpu-time. */
double bench_thread_cpu_now(void);

/* The reference peak, GFLOP/s; *isa (may be NULL) names its tier.  With print, every tier's
 * peak and the reference are printed as they are measured. */
double bench_fp32_peak(bool print, const char **isa);

#endif
