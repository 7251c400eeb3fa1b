/* The one option parser of the sgdsim subcommands: each command describes its options as a
 * const table of descriptors (long name, short name, what kind of value, where it is stored,
 * how a bad value is told), and cli_args_parse walks argv once against those tables.
 *
 * Every mistake is reported the same way, naming the argument, on stderr, and turns into
 * exit code 2 (SGD_EXIT_BAD_INPUT):
 *     sgdsim: CMD: unknown option X (see sgdsim CMD --help)
 *     sgdsim: CMD: OPT: missing value
 *     sgdsim: CMD: OPT VALUE: EXPECT                    (a value that does not parse)
 *     sgdsim: CMD: unexpected argument X (see sgdsim CMD --help)
 *     sgdsim: CMD: missing WHAT (see sgdsim CMD --help)  (a positional or required option)
 * --help and -h are always accepted: parsing stops there with args->help set.
 *
 * A descriptor stores into a caller-owned target struct at an offset (offsetof), so tables
 * are const and shared: the scenario commands (run, validate, sweep) share one table in
 * common.c, the reading commands one for --csv/--json, and each command adds its own.
 * Ownership: cli_args_parse allocates the positional array and every CLI_ARG_LIST; the
 * caller frees them with cli_args_free and cli_list_free. */
#ifndef SGDSIM_CLI_OPTIONS_H
#define SGDSIM_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cli_arg_kind {
    CLI_ARG_FLAG,   /* no value: the bool at off becomes true */
    CLI_ARG_CONST,  /* no value: the int at off becomes ival (--csv, --json) */
    CLI_ARG_STRING, /* the const char * at off points at the value as given */
    CLI_ARG_U64,    /* the uint64_t at off: decimal in lo..hi */
    CLI_ARG_DOUBLE, /* the double at off: finite and >= min */
    CLI_ARG_LIST,   /* repeatable: the value is appended to the cli_list_t at off */
    CLI_ARG_CUSTOM, /* parse() checks and stores the value */
} cli_arg_kind_t;

enum {
    CLI_ARG_REQUIRED = 1, /* CLI_ARG_STRING only: missing unless given */
    CLI_ARG_ATTACHED = 2, /* the short name also takes a number attached: -j8 */
};

/* A repeatable option's values, in the order given (the strings are argv's). */
typedef struct cli_list {
    const char **v;
    int n;
} cli_list_t;

typedef struct cli_opt {
    const char *name;    /* "--db"; NULL ends a table */
    const char *alias;   /* "-t", or NULL */
    cli_arg_kind_t kind;
    size_t off;          /* where the value goes: offset in the option set's target */
    const char *metavar; /* the value's name in "missing --y METRIC"; NULL for flags */
    /* What a bad value is told after "OPT VALUE: " (CLI_ARG_U64, CLI_ARG_DOUBLE). */
    const char *expect;
    uint64_t lo, hi;     /* CLI_ARG_U64: the accepted range */
    double min;          /* CLI_ARG_DOUBLE: the smallest value */
    int ival;            /* CLI_ARG_CONST: the value stored */
    /* CLI_ARG_CUSTOM: stores value (opt is the option as given: "-t" or "--threads") into
     * target; on a bad value writes the whole complaint, "OPT VALUE: why", into msg and
     * returns false. */
    bool (*parse)(void *target, const char *opt, const char *value, char *msg, size_t size);
    unsigned flags;      /* CLI_ARG_REQUIRED, CLI_ARG_ATTACHED */
    unsigned group;      /* taken only when the set accepts this group (CLI_OPT_*); 0: always */
} cli_opt_t;

/* One table of options and the struct its offsets point into. */
typedef struct cli_opt_set {
    const cli_opt_t *opts;
    void *target;
    unsigned accepted; /* the groups of opts this command takes (cli_opt_t.group) */
} cli_opt_set_t;

typedef struct cli_cmd_spec {
    const char *cmd;            /* "compare": the prefix of messages, "see sgdsim CMD --help" */
    int npos;                   /* positional arguments: exactly npos ... */
    bool more_pos;              /* ... or at least npos when true */
    const char *const *missing; /* missing[n]: what is missing when only n < npos are given */
    const cli_opt_set_t *sets;
    int nsets;
} cli_cmd_spec_t;

typedef struct cli_args {
    const char **pos; /* the positional arguments (owned; cli_args_free) */
    int npos;
    bool help;        /* --help or -h: nothing after it was read, nothing was checked */
} cli_args_t;

/* Parses argv against spec's tables.  Returns 0, or SGD_EXIT_BAD_INPUT after printing the
 * problem; args is usable (and must be freed) either way. */
int cli_args_parse(const cli_cmd_spec_t *spec, int argc, char **argv, cli_args_t *args);
void cli_args_free(cli_args_t *args);

/* cli_args_parse for a command with exactly spec->npos positionals, copied into pos[] (they
 * point into argv; nothing to free); *help as args->help. */
int cli_args_parse_fixed(const cli_cmd_spec_t *spec, int argc, char **argv, const char **pos,
                         bool *help);
void cli_list_free(cli_list_t *l);

/* The --csv and --json flags of the reading commands, into an int holding a rnd_format_t
 * (render/table.h); their set's target is that int. */
extern const cli_opt_t cli_format_opts[];

#endif
