/* The worker pool (common/pool.h): every task runs exactly once per call, on a worker index
 * in range, for 1, 2, 3 and 8 threads and many calls in a row; the calling thread works too;
 * workers run with the caller's MXCSR (flush-to-zero / denormals-are-zero) on x86. */
#include <stdatomic.h>
#include <stdlib.h>

#include "common/pool.h"
#include "tests/check.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#else
#define HAVE_MXCSR 0
#endif

#define NTASKS 257

typedef struct {
    atomic_int runs[NTASKS];
    int worker_of[NTASKS];
    int threads;
    atomic_int bad_worker, bad_csr;
    unsigned want_csr;
} call_t;

static void task(void *arg, int t, int worker)
{
    call_t *c = arg;
    atomic_fetch_add(&c->runs[t], 1);
    c->worker_of[t] = worker;
    if (worker < 0 || worker >= c->threads) atomic_fetch_add(&c->bad_worker, 1);
#if HAVE_MXCSR
    if ((_mm_getcsr() & 0x8040u) != (c->want_csr & 0x8040u)) atomic_fetch_add(&c->bad_csr, 1);
#endif
    /* A little work, so that the workers really share the tasks. */
    volatile double x = 0;
    for (int i = 0; i < 2000; i++) x = x + i;
}

static void every_task_runs_once(int threads)
{
    sgd_pool_t *p = sgd_pool_create(threads);
    CHECK_INT_EQ(sgd_pool_threads(p), threads);
#if HAVE_MXCSR
    const unsigned saved = _mm_getcsr();
#endif
    for (int round = 0; round < 50; round++) {
        call_t *c = calloc(1, sizeof *c);
        c->threads = threads;
#if HAVE_MXCSR
        /* Alternate the caller's FTZ/DAZ bits: each call must hand over the current ones. */
        _mm_setcsr(round % 2 ? saved | 0x8040u : saved & ~0x8040u);
        c->want_csr = _mm_getcsr();
#endif
        const int n = round % 5 == 4 ? 1 : NTASKS; /* a single task runs in the caller */
        sgd_pool_run(p, n, task, c);
        int wrong = 0;
        for (int t = 0; t < NTASKS; t++) wrong += atomic_load(&c->runs[t]) != (t < n ? 1 : 0);
        CHECK_INT_EQ(wrong, 0);
        CHECK_INT_EQ(atomic_load(&c->bad_worker), 0);
        CHECK_INT_EQ(atomic_load(&c->bad_csr), 0);
        if (threads == 1 || n == 1)
            for (int t = 0; t < n; t++) CHECK_INT_EQ(c->worker_of[t], 0);
        free(c);
    }
#if HAVE_MXCSR
    _mm_setcsr(saved);
#endif
    sgd_pool_run(p, 0, task, NULL); /* no tasks: returns at once */
    sgd_pool_destroy(p);
}

int main(void)
{
    const int threads[] = {1, 2, 3, 8};
    for (int i = 0; i < 4; i++) every_task_runs_once(threads[i]);
    sgd_pool_destroy(NULL);
    return check_exit();
}
