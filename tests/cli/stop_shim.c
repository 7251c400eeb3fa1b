/* A stand-in for GSL's gsl_rng_alloc(), preloaded (LD_PRELOAD) by the tests of the signals a
 * run gets while it starts (test_cli_checkpoint_signals.sh): in a `sgdsim run` process (its
 * argv[1] is "run"; a sweep that starts it is left alone), the first random stream it
 * allocates -- while it builds the run, after main() began and before the database is
 * opened -- stops the process with SIGSTOP.  The test waits for that state, sends the signal
 * it tests, then SIGCONT: the signal lands at a known point of the start-up, on any machine,
 * without a sleep. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_rng.h>

static int armed; /* this process is a `sgdsim run` */

__attribute__((constructor)) static void shim_init(void)
{
    char buf[256] = {0};
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    size_t first = strnlen(buf, n);
    armed = first + 1 < n && strcmp(buf + first + 1, "run") == 0;
}

gsl_rng *gsl_rng_alloc(const gsl_rng_type *t)
{
    static gsl_rng *(*real)(const gsl_rng_type *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "gsl_rng_alloc");
    if (armed) {
        armed = 0;
        raise(SIGSTOP);
    }
    return real(t);
}
