/* sgdsim entry point: sets up the machine (cli/machine.h: the environment OpenBLAS was
 * started with) and dispatches to the subcommands in cli_commands[]. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>
#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "cli/machine.h"
#include "cli/run_signals.h"
#include "common/error.h"

const cli_command_t *const cli_commands[] = {
    &(const cli_command_t){"run", "run a scenario and store the results", cli_run_main},
    &(const cli_command_t){"validate", "check a scenario file without running it",
                           cli_validate_main},
    &(const cli_command_t){"sweep", "run every point of a parameter sweep (resumable, -j N)",
                           cli_sweep_main},
    &(const cli_command_t){"merge", "merge results databases (shards, MPI ranks)", cli_merge_main},
    &(const cli_command_t){"query", "run read-only SQL on a results database", cli_query_main},
    &(const cli_command_t){"report", "summarise runs and sweeps (pivot tables)", cli_report_main},
    &(const cli_command_t){"serve", "serve the results browser's page, live", cli_serve_main},
    &(const cli_command_t){"export", "write every table to CSV files", cli_export_main},
    &(const cli_command_t){"plot", "draw a metric's curves with gnuplot (PNG/SVG/PDF)",
                           cli_plot_main},
    &(const cli_command_t){"compare", "compare two databases run by run (regression test)",
                           cli_compare_main},
    &(const cli_command_t){"show", "everything about one run: record, configuration, metrics",
                           cli_show_main},
    &(const cli_command_t){"diff", "the configuration keys that differ between two runs",
                           cli_diff_main},
    &(const cli_command_t){"cache", "list or prune the decoded-dataset cache", cli_cache_main},
    NULL,
};

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim COMMAND [ARGS]   (sgdsim COMMAND --help for details)\n\n"
               "Deterministic discrete-event simulator of distributed SGD training.\n\n"
               "commands:\n");
    for (const cli_command_t *const *c = cli_commands; *c; c++)
        fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
    fprintf(f, "\noptions:\n  --version  print version, git revision, build options, BLAS "
               "core\n  --help     this text\n");
}

/* The kernel shown is the one a default run uses (numerics.blas_core "auto"): --version
 * starts OpenBLAS on it exactly as `run` would, so it prints what really loads. */
static int version(void)
{
    scn_machine_t m;
    sgd_err_t err = {{0}};
    char kernel[BLAS_KERNEL_NAME_MAX], how[512], same[256];
    cli_machine_get(1, &m);
    if (blas_kernel_resolve("auto", "--version: numerics.blas_core \"auto\"", &m.blas, kernel,
                            &err) ||
        cli_machine_use_kernel(kernel, &err))
        return cli_bad_input("%s", err.msg);
    cli_machine_describe(&m, kernel, how, sizeof how);
    printf("sgdsim %s\n", cli_version());
    printf("git revision: %s\n", cli_git_rev());
    printf("build: %s\n", cli_build_options());
    /* The kernel whose bits every computation has: OpenBLAS may run an equivalent one. */
    printf("BLAS: %s (core %s)\n", openblas_get_config(), kernel);
    printf("BLAS kernel choice: %s; %lld CPU%s for threads\n", how, (long long)m.cpus,
           m.cpus == 1 ? "" : "s");
    blas_kernel_same_bits_list(same, sizeof same);
    printf("BLAS kernels with the same bits: %s\n", same);
    return SGD_EXIT_OK;
}

int main(int argc, char **argv)
{
    /* `run`'s stop signals, first of all: none may kill a run by its default action while
     * it starts (cli/run_signals.h).  Any command may have been started with them blocked
     * (the kernel's re-exec): the others take them as they always did. */
    if (argc >= 2 && strcmp(argv[1], "run") == 0) cli_run_signals_catch();
    else cli_run_signals_unblock();
    /* A file-size limit (ulimit -f) must turn into a failed write that the results writer
     * reports and survives, not a signal that kills the process mid-transaction. */
    signal(SIGXFSZ, SIG_IGN);
    /* GSL's default error handler aborts the process; the analysis checks every argument
     * and every result itself (analysis/seed_stats.h), so a value GSL cannot take is a
     * defined "no test", never a crash. */
    gsl_set_error_handler_off();
    sgd_err_t err = {{0}};
    if (cli_machine_init(argc, argv, &err)) return cli_bad_input("%s", err.msg);
    if (argc < 2) {
        usage(stderr);
        return SGD_EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return SGD_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) return version();
    for (const cli_command_t *const *c = cli_commands; *c; c++)
        if (strcmp((*c)->name, argv[1]) == 0) return (*c)->main(argc - 2, argv + 2);
    fprintf(stderr, "sgdsim: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return SGD_EXIT_BAD_INPUT;
}
