/* The stop signals of `sgdsim run` -- SIGINT, SIGTERM and SIGUSR1 -- caught from the first
 * instruction of main() on, so that none can kill a run by its default action while it
 * loads its data or builds its state (a scheduler signals every process of a job, whenever
 * it starts).  The first of each kind is a request (alg_request_interrupt for SIGINT,
 * alg_request_checkpoint_exit for the others, which is an interrupt without checkpoints);
 * a second of the same kind kills at once, as before.
 *
 * What a caught signal does depends on when it came: before the run's row exists, `run`
 * stops at its next stage with nothing written -- no database row, no checkpoint, no trace
 * -- and exits 75 (cli_run_signals_caught says it came); once the run has begun, at the next
 * update boundary (alg.h).  A process that starts sgdsim itself (the BLAS kernel's re-exec,
 * a sweep's point) blocks these signals across the exec, so that one arriving then waits,
 * pending, for the new image's handlers instead of killing it: cli_run_signals_hold and
 * cli_run_signals_release. */
#ifndef SGDSIM_CLI_RUN_SIGNALS_H
#define SGDSIM_CLI_RUN_SIGNALS_H

#include <signal.h>

/* Installs the handlers, then unblocks the signals (a parent may have blocked them across
 * the exec that started this process: one pending since is delivered now). */
void cli_run_signals_catch(void);

/* Only unblocks them, leaving their disposition as it is (the commands but run). */
void cli_run_signals_unblock(void);

/* The first stop signal caught, or 0. */
int cli_run_signals_caught(void);

/* The signal's name ("SIGTERM"), for messages. */
const char *cli_run_signals_name(int sig);

/* Blocks the stop signals before an exec, keeping the old mask in *old; a signal already
 * caught is raised again, to stay pending for the new image. */
void cli_run_signals_hold(sigset_t *old);

/* After an exec that failed: takes back the signal raised again for the new image (this
 * process has it already) and restores the mask. */
void cli_run_signals_release(const sigset_t *old);

#endif
