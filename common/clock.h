/* The wall clock that decides when things happen outside a run's virtual time: progress
 * displays, checkpoint intervals, how long a write took.  Monotonic, so a change of the
 * system's time never moves it; never read for anything a run computes. */
#ifndef SGDSIM_COMMON_CLOCK_H
#define SGDSIM_COMMON_CLOCK_H

#include <time.h>

/* Seconds of CLOCK_MONOTONIC: only differences mean anything. */
static inline double sgd_monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
