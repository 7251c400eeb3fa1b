/* sgdsim entry point: dispatches to the subcommands in cli_commands[]. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>

#include "cli/cli.h"
#include "common/error.h"

const cli_command_t *const cli_commands[] = {
    &(const cli_command_t){"run", "run a scenario and store the results", cli_run_main},
    &(const cli_command_t){"validate", "check a scenario file without running it",
                           cli_validate_main},
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

static void version(void)
{
    printf("sgdsim %s\n", cli_version());
    printf("git revision: %s\n", cli_git_rev());
    printf("build: %s\n", cli_build_options());
    printf("BLAS: %s (core %s)\n", openblas_get_config(), openblas_get_corename());
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) must turn into a failed write that the results writer
     * reports and survives, not a signal that kills the process mid-transaction. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return SGD_EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return SGD_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        version();
        return SGD_EXIT_OK;
    }
    for (const cli_command_t *const *c = cli_commands; *c; c++)
        if (strcmp((*c)->name, argv[1]) == 0) return (*c)->main(argc - 2, argv + 2);
    fprintf(stderr, "sgdsim: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return SGD_EXIT_BAD_INPUT;
}
