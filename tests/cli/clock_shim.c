/* A stand-in for the C library's clock_gettime(), preloaded (LD_PRELOAD) by the tests of rules
 * that wall-clock time drives (test_cli_live_rows.sh): with SHIM_CLOCK_STEP_MS=N, the
 * monotonic clock starts at its real reading and advances exactly N ms at every reading,
 * whatever the real time does.  N = 0 is a clock that stands still (a machine infinitely
 * fast, or a rule whose interval never ends); a large N is a machine so slow that every
 * interval ends before the next reading.  So a test states what the rule must do for each
 * clock, and passes the same on a fast or a slow, an idle or a loaded machine.  Other clocks
 * and processes without SHIM_CLOCK_STEP_MS read the real time. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* The C library's declaration, repeated for the interposed definition. */
int clock_gettime(clockid_t id, struct timespec *ts);

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int64_t step_ns = -1;         /* -1: not faking */
static int64_t start_ns;             /* the first reading's real time */
static int64_t readings;             /* monotonic readings so far (atomic) */

__attribute__((constructor)) static void shim_init(void)
{
    *(void **)&real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime"); /* POSIX's idiom */
    const char *step = getenv("SHIM_CLOCK_STEP_MS");
    struct timespec t;
    if (!step || !real_clock_gettime || real_clock_gettime(CLOCK_MONOTONIC, &t) != 0) return;
    step_ns = strtoll(step, NULL, 10) * 1000000;
    start_ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (!real_clock_gettime) *(void **)&real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
    if (id != CLOCK_MONOTONIC || step_ns < 0) return real_clock_gettime(id, ts);
    int64_t n = __atomic_fetch_add(&readings, 1, __ATOMIC_RELAXED);
    int64_t now = start_ns + n * step_ns;
    ts->tv_sec = (time_t)(now / 1000000000);
    ts->tv_nsec = (long)(now % 1000000000);
    return 0;
}
