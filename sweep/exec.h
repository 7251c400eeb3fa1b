/* Running a planned sweep (sweep/plan.h): the -j N process pool that `sgdsim sweep` uses on
 * one machine and that each MPI rank uses for its share of the points (sweep/mpi.h); both
 * drivers call it, neither includes the other.
 *
 * Each point runs as a child process `sgdsim run SCENARIO --db DB --quiet --set ...` (the
 * same binary, exec'd), so a point is exactly what `sgdsim run` with those overrides
 * computes, with one BLAS thread, and a crash in one point cannot take the sweep down.
 * The child starts with the point's OpenBLAS kernel in its environment (cli/machine.h), and
 * with --threads K (K = the CPUs this process may use / -j, at least 1) when the point's
 * configuration leaves numerics.threads to "auto".
 * Children die with the sweep (PR_SET_PDEATHSIG): a sweep killed with SIGKILL leaves no
 * orphan still writing into the database.  With checkpoints (sweep/ckpt.h) each child also
 * writes its point's checkpoint, and a point that has one is continued from it. */
#ifndef SGDSIM_SWEEP_EXEC_H
#define SGDSIM_SWEEP_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "sweep/ckpt.h"
#include "sweep/plan.h"
#include "common/error.h"

/* Exit code of a sweep that stopped with its running points checkpointed (SIGTERM or
 * SIGUSR1 with --checkpoint-dir), or that has a point a checkpoint stopped: run it again to
 * go on.  The code `run` uses for the same (EX_TEMPFAIL, cmd_run_ckpt.h). */
#define SWEEP_EXIT_CHECKPOINTED 75

typedef struct sweep_exec {
    const char *scenario; /* scenario file, as given */
    const char *db;       /* results database the points write to */
    const uint64_t *seed; /* --seed, or NULL */
    int jobs;             /* processes at once, >= 1 */
    bool quiet;           /* no progress lines */
    const char *who;      /* prefix of progress lines: "" or "rank 1: " */
    const char *blas_core; /* --blas-core as given to the sweep, passed on; or NULL */
    const char *threads;   /* --threads as given to the sweep, passed on; or NULL */
    const char *const *tags; /* --tag KEY=VALUE of the sweep (checked), passed to every point */
    int ntags;
    bool skip_invalid;     /* --skip-invalid: a point that reports bad input does not stop
                              the sweep, and the exit code leaves it out */
    int ninvalid;          /* points the plan left out as invalid, for the summary line */
    const sweep_ckpt_t *ckpt; /* --checkpoint-dir and its intervals, or NULL */
    /* The environment of a point's process for its OpenBLAS kernel, built before fork()
     * (cli/machine.h: the kernel in OPENBLAS_CORETYPE before OpenBLAS loads), and its free;
     * NULL: this process's environment as it is. */
    char **(*child_env)(const char *kernel);
    void (*child_env_free)(char **env);
} sweep_exec_t;

/* Selects, from plan points idx[0..n), those without a finished run (status complete or
 * diverged) in the database at db_path, in order, into out (n entries); *nout = how many.
 * The database is created if missing (errors name the path). */
int sweep_pending(const char *db_path, const sweep_plan_t *plan, const int *idx, int n,
                  int *out, int *nout, sgd_err_t *err);

/* Runs plan points idx[0..n) that are not finished in x->db yet; `ntotal` and `nalready` are
 * only for the progress line (points of the whole sweep, points already done elsewhere).
 * Before a point starts, its unfinished rows (status running or failed, from a killed or
 * interrupted earlier attempt) are deleted -- except, with x->ckpt, the run the point's
 * checkpoint continues: the point is then resumed from it.  A checkpoint of a run this
 * database does not hold stops the sweep with exit 2, naming the file, and changes
 * nothing.  Returns the exit code: 0 when every point ended complete or diverged, 1 when
 * one failed or the sweep was interrupted, 75 (SWEEP_EXIT_CHECKPOINTED) when, with x->ckpt,
 * SIGTERM or SIGUSR1 stopped it or a point stopped with a checkpoint and nothing failed, 2
 * when a point reported bad input (no new points are started then; with x->skip_invalid the
 * sweep goes on and such a point is counted as invalid, not in the exit code) or the
 * database could not be used.  SIGINT, SIGTERM and SIGUSR1 are passed on to the running
 * points (SIGTERM as SIGUSR1, the others as SIGTERM, so that a point that had the signal
 * too does not take a second one of the same kind as "kill at once"): a point with a
 * checkpoint file writes it and stops, one without ends failed.  The last line on stderr counts done (complete, diverged), failed, checkpointed
 * and invalid points apart. */
int sweep_execute(const sweep_exec_t *x, const sweep_plan_t *plan, const int *idx,
                  int n, int ntotal, int nalready);

/* True when this process was started by mpirun/srun with more than one rank. */
bool sweep_under_mpi(void);

#endif
