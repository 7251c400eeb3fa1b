/* The machine a sgdsim process computes on, as far as results depend on it: which OpenBLAS
 * kernel runs, and how many CPUs the process may use.
 *
 * OpenBLAS picks its kernel once, when the library loads -- before main() -- and reads
 * OPENBLAS_CORETYPE only then.  So `run`, `validate` and `--version` first decide the kernel
 * (scn_resolve_numerics: the scenario's numerics.blas_core or --blas-core, the user's own
 * OPENBLAS_CORETYPE, the CPU's feature flags) and, when openblas_get_corename() names
 * another one, execute the same program again (/proc/self/exe, the same arguments) with
 * OPENBLAS_CORETYPE set to it.  `sweep` computes nothing itself: it starts each point's
 * `sgdsim run` with that point's kernel already in its environment.
 *
 * An environment prepared this way carries SGDSIM_BLAS_ENV = "<restarts>;<native>;<user>":
 *   restarts  how often this command line was re-executed for its kernel (0 or 1; a sweep
 *             hands its points 0),
 *   native    the kernel OpenBLAS chose by itself in the first sgdsim process of the chain
 *             (what "auto" falls back to), "" when the user had set OPENBLAS_CORETYPE,
 *   user      "-" when the user's environment had no OPENBLAS_CORETYPE, else "=" and its
 *             value.
 * cli_machine_init() reads and removes it and puts the user's OPENBLAS_CORETYPE back, so the
 * rest of the program sees, and passes on, the user's own environment.  A process never
 * re-executes twice: if OpenBLAS still runs another kernel after sgdsim set
 * OPENBLAS_CORETYPE for it, the command fails (exit 2) instead of running on a kernel it
 * would not record truthfully. */
#ifndef SGDSIM_CLI_MACHINE_H
#define SGDSIM_CLI_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "config/scenario.h"

#define CLI_MACHINE_MARKER "SGDSIM_BLAS_ENV"

/* First thing in main(): keeps argv (NULL-terminated, as main() received it) for a
 * re-exec, reads and removes the marker, restores the user's OPENBLAS_CORETYPE.  Returns 0,
 * or -1 with a message naming the variable when the marker is malformed. */
int cli_machine_init(int argc, char **argv, sgd_err_t *err);

/* CPUs this process may run on (sched_getaffinity), >= 1. */
int64_t cli_machine_cpus(void);

/* The machine to resolve scenarios against, its CPUs shared by `jobs` processes. */
void cli_machine_get(int64_t jobs, scn_machine_t *m);

/* Makes OpenBLAS run `kernel` (a name from blas_kernels[]): returns 0 when it already does;
 * otherwise re-executes this program with OPENBLAS_CORETYPE=kernel and does not return --
 * or returns -1 with a message when that cannot help (sgdsim already set
 * OPENBLAS_CORETYPE before OpenBLAS loaded and it runs another kernel, the user's own
 * OPENBLAS_CORETYPE was not honoured, or the command line was already re-executed once). */
int cli_machine_use_kernel(const char *kernel, sgd_err_t *err);

/* The environment for a sweep point's child process that is to run `kernel`: this
 * process's environment with OPENBLAS_CORETYPE=kernel and a marker (restarts 0), so the
 * child starts on its kernel without a re-exec.  NULL-terminated; the caller frees it with
 * cli_machine_env_free().  Meant to be built before fork() and handed to execve. */
char **cli_machine_child_env(const char *kernel);
void cli_machine_env_free(char **env);

/* One line on how `kernel` (resolved from "auto" on machine m) was chosen, for --version:
 * "OPENBLAS_CORETYPE=haswell in the environment", "auto: the kernel table's line for CPUs
 * with AVX2 and FMA", "auto: OpenBLAS's own choice (...)"; followed by
 * "; OpenBLAS runs Zen, which computes the same bits" when it runs an equivalent kernel. */
void cli_machine_describe(const scn_machine_t *m, const char *kernel, char *buf, size_t size);

#endif
