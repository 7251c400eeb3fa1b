/* The sgdsim command-line interface: a NULL-terminated table of subcommands, each a
 * function taking the arguments after its name and returning the process exit code
 * (SGD_EXIT_* in common/error.h). */
#ifndef SGDSIM_CLI_CLI_H
#define SGDSIM_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_command {
    const char *name;
    const char *summary; /* one line for `sgdsim --help` */
    int (*main)(int argc, char **argv);
} cli_command_t;

extern const cli_command_t *const cli_commands[];

int cli_run_main(int argc, char **argv);
int cli_validate_main(int argc, char **argv);

/* Prints "sgdsim: <msg>" to stderr and returns SGD_EXIT_BAD_INPUT. */
int cli_bad_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a decimal unsigned 64-bit integer argument; false on junk or overflow. */
bool cli_parse_u64(const char *s, uint64_t *out);

/* Build provenance, one line each: "0.1.0", "abc123-dirty", "RelWithDebInfo sanitize=0 ...". */
const char *cli_version(void);
const char *cli_git_rev(void);
const char *cli_build_options(void);

#endif
