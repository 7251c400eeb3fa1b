/* `sgdsim run`'s stop signals, declared in run_signals.h. */
#include "cli/run_signals.h"

#include <pthread.h>
#include <time.h>

#include "algorithms/alg.h"

static volatile sig_atomic_t caught;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGUSR1};
#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])

/* The first of a kind asks; SA_RESETHAND leaves the next of that kind its default action. */
static void on_stop(int sig)
{
    if (!caught) caught = sig;
    if (sig == SIGINT) alg_request_interrupt();
    else alg_request_checkpoint_exit();
}

static void stop_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < NSTOP; i++) sigaddset(set, stop_signals[i]);
}

void cli_run_signals_unblock(void)
{
    sigset_t set;
    stop_set(&set);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

void cli_run_signals_catch(void)
{
    struct sigaction sa = {.sa_handler = on_stop, .sa_flags = (int)(SA_RESETHAND | SA_RESTART)};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSTOP; i++) sigaction(stop_signals[i], &sa, NULL);
    cli_run_signals_unblock();
}

int cli_run_signals_caught(void) { return caught; }

const char *cli_run_signals_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGUSR1 ? "SIGUSR1"
                                                                                  : "a signal";
}

void cli_run_signals_hold(sigset_t *old)
{
    sigset_t set;
    stop_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, old);
    if (caught) raise(caught);
}

void cli_run_signals_release(const sigset_t *old)
{
    if (caught) {
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, caught);
        const struct timespec now = {0, 0};
        sigtimedwait(&one, NULL, &now);
    }
    pthread_sigmask(SIG_SETMASK, old, NULL);
}
