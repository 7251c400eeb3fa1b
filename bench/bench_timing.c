/* Alternate best-of timing of two calls (bench_timing.h). */
#include "bench/bench_timing.h"

/* Seconds per call of f over `calls` calls. */
static double time_calls(const bench_pair_t *p, void (*f)(void *), int calls)
{
    double t0 = p->clock();
    for (int i = 0; i < calls; i++) f(p->work);
    return (p->clock() - t0) / calls;
}

/* How many calls of f take at least p->min_seconds. */
static int calibrate(const bench_pair_t *p, void (*f)(void *))
{
    int calls = 1;
    while (time_calls(p, f, calls) * calls < p->min_seconds) calls *= 2;
    return calls;
}

void bench_time_pair(const bench_pair_t *p, double *ta, double *tb)
{
    int ca = calibrate(p, p->a), cb = calibrate(p, p->b);
    *ta = *tb = 1e300;
    for (int r = 0; r < p->reps; r++) {
        double t = time_calls(p, p->a, ca), u = time_calls(p, p->b, cb);
        if (t < *ta) *ta = t;
        if (u < *tb) *tb = u;
    }
}
