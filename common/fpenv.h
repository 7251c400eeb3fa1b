/* The floating-point environment a thread hands to the threads that work for it.
 *
 * Worker threads start with the default environment, but a run may set flush-to-zero and
 * denormals-are-zero (algorithm.denormals), which change results: every task must run with
 * its submitter's.  On x86 that is the MXCSR register (what SSE arithmetic reads); elsewhere
 * the C fenv. */
#ifndef SGDSIM_COMMON_FPENV_H
#define SGDSIM_COMMON_FPENV_H

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
typedef unsigned sgd_fpenv_t;
static inline void sgd_fpenv_get(sgd_fpenv_t *e) { *e = _mm_getcsr(); }
static inline void sgd_fpenv_set(const sgd_fpenv_t *e) { _mm_setcsr(*e); }
#else
#include <fenv.h>
typedef fenv_t sgd_fpenv_t;
static inline void sgd_fpenv_get(sgd_fpenv_t *e) { fegetenv(e); }
static inline void sgd_fpenv_set(const sgd_fpenv_t *e) { fesetenv(e); }
#endif

#endif
