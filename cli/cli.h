/* The sgdsim command-line interface: a NULL-terminated table of subcommands, each a
 * function taking the arguments after its name and returning the process exit code
 * (SGD_EXIT_* in common/error.h). */
#ifndef SGDSIM_CLI_CLI_H
#define SGDSIM_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithms/alg.h"
#include "cli/options.h"
#include "config/scenario.h"

typedef struct cli_command {
    const char *name;
    const char *summary; /* one line for `sgdsim --help` */
    int (*main)(int argc, char **argv);
} cli_command_t;

extern const cli_command_t *const cli_commands[];

int cli_run_main(int argc, char **argv);
int cli_validate_main(int argc, char **argv);
int cli_sweep_main(int argc, char **argv);
int cli_merge_main(int argc, char **argv);
int cli_query_main(int argc, char **argv);
int cli_export_main(int argc, char **argv);
int cli_report_main(int argc, char **argv);
int cli_serve_main(int argc, char **argv);
int cli_compare_main(int argc, char **argv);
int cli_plot_main(int argc, char **argv);
int cli_show_main(int argc, char **argv);
int cli_diff_main(int argc, char **argv);
int cli_cache_main(int argc, char **argv);

/* Options shared by the subcommands that take one SCENARIO (a table in common.c, parsed by
 * cli/options.h).  `accepted` says which optional flags a subcommand takes (CLI_OPT_*, the
 * groups of that table); --set and --help are always accepted. */
enum {
    CLI_OPT_DB = 1,
    CLI_OPT_SEED = 2,
    CLI_OPT_QUIET = 4,
    CLI_OPT_PRINT = 8,
    CLI_OPT_BACKEND = 16,
    CLI_OPT_NUMERICS = 32, /* --blas-core NAME, -t/--threads N */
    CLI_OPT_TAG = 64,      /* --tag KEY=VALUE (repeatable) */
    CLI_OPT_CKPT_EVERY = 128, /* --checkpoint-every DURATION, --checkpoint-every-updates N */
};

/* The results database of run and sweep when --db is not given (in the working directory). */
#define CLI_DEFAULT_DB "sgdsim.db"

typedef struct cli_opts {
    const char *scenario;    /* the one positional argument */
    cli_list_t set_args;     /* --set values as given (owned; cli_opts_free) */
    scn_override_t *sets;    /* --set assignments, then --backend's (owned; cli_opts_free) */
    int nsets;
    const char *db;          /* --db, NULL when not given */
    bool have_seed;          /* --seed given */
    uint64_t seed;
    bool quiet, print, help;
    /* --backend NAME, checked against models/backend.h's names and applied as the last
     * override "backend=NAME" (so it wins over a --set backend=...). */
    char backend_set[64];
    /* --blas-core NAME and --threads N, applied over numerics.blas_core and
     * numerics.threads after every --set (so they win; scn_numerics_flags_t).  blas_core and
     * threads keep the arguments as given, NULL when absent (a sweep passes them on). */
    const char *blas_core, *threads;
    char blas_core_label[64];
    scn_numerics_flags_t numerics;
    /* --tag KEY=VALUE as given, in order, each checked (a '=', a non-empty key of plain
     * text, no key twice); the strings are argv's, the array is owned (cli_opts_free). */
    cli_list_t tags;
    /* --checkpoint-every DURATION as given (a sweep passes it on; NULL when absent) and in
     * seconds of wall time (0 when absent), --checkpoint-every-updates N (0 when absent):
     * how often run and every point of a sweep write their checkpoints. */
    const char *ckpt_every;
    double ckpt_every_s;
    uint64_t ckpt_every_updates;
} cli_opts_t;

/* Parses argv of subcommand `cmd`: the shared options it accepts, plus `extra` (the
 * command's own table, or NULL).  Returns 0, or an exit code after printing the problem
 * (SGD_EXIT_BAD_INPUT); with --help, o->help is set and parsing stops.  cli_opts_free
 * either way. */
int cli_parse_opts(const char *cmd, int argc, char **argv, unsigned accepted,
                   const cli_opt_set_t *extra, cli_opts_t *o);
void cli_opts_free(cli_opts_t *o);

/* Loads o->scenario with o's overrides and seed, resolves its numerics against this
 * machine (cli/machine.h; one process) and makes OpenBLAS run the resolved kernel, which may
 * re-execute the program.  Returns 0, or SGD_EXIT_BAD_INPUT after printing the problem. */
int cli_load_scenario(const cli_opts_t *o, scn_t *s);

/* Prints "sgdsim: <msg>" to stderr and returns SGD_EXIT_BAD_INPUT: the commands' name of
 * sgd_bad_input (common/error.h), which the layers below cli/ call. */
#define cli_bad_input sgd_bad_input

/* Parses a decimal unsigned 64-bit integer argument; false on junk or overflow. */
bool cli_parse_u64(const char *s, uint64_t *out);

/* Build provenance, one line each: "0.1.0", "abc123-dirty", "RelWithDebInfo sanitize=0 ...". */
const char *cli_version(void);
const char *cli_git_rev(void);
const char *cli_build_options(void);

#endif
