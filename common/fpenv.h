/* The floating-point environment a thread hands to the threads that work for it.
 *
 * Worker threads start with the default environment, but a run may set flush-to-zero and
 * denormals-are-zero (algorithm.denormals), which change results: every task must run with
 * its submitter's.  On x86 that is the MXCSR register (what SSE arithmetic reads); elsewhere
 * the C fenv. */
#ifndef SGDSIM_COMMON_FPENV_H
#define SGDSIM_COMMON_FPENV_H

#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h> /* _MM_DENORMALS_ZERO_ON; includes xmmintrin.h */
typedef unsigned sgd_fpenv_t;
static inline void sgd_fpenv_get(sgd_fpenv_t *e) { *e = _mm_getcsr(); }
static inline void sgd_fpenv_set(const sgd_fpenv_t *e) { _mm_setcsr(*e); }
/* e with flush-to-zero (MXCSR bit 15) and denormals-are-zero (bit 6) on: denormal results
 * and inputs both become zero.  x86 only, as algorithm.denormals "flush" is. */
static inline sgd_fpenv_t sgd_fpenv_flushing(sgd_fpenv_t e)
{
    return e | _MM_FLUSH_ZERO_ON | _MM_DENORMALS_ZERO_ON;
}
#else
#include <fenv.h>
typedef fenv_t sgd_fpenv_t;
static inline void sgd_fpenv_get(sgd_fpenv_t *e) { fegetenv(e); }
static inline void sgd_fpenv_set(const sgd_fpenv_t *e) { fesetenv(e); }
#endif

#endif
