/* `run`'s options of the event timeline beside --trace FILE: --trace-window T0:T1,
 * --trace-max-events N and --trace-level step|message, as cli_opt_t parsers (options.h,
 * CLI_ARG_CUSTOM).  Their target is an option set's struct whose FIRST member is a
 * cli_trace_args_t. */
#ifndef SGDSIM_CLI_TRACE_ARGS_H
#define SGDSIM_CLI_TRACE_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/trace.h"

typedef struct cli_trace_args {
    const char *needs_trace; /* the last of these options given, which needs --trace */
    sim_trace_opts_t opts;
} cli_trace_args_t;

/* The defaults: the whole run, at most 1,000,000 events, steps. */
cli_trace_args_t cli_trace_args_default(void);

bool cli_trace_opt_window(void *target, const char *opt, const char *v, char *msg, size_t size);
bool cli_trace_opt_max_events(void *target, const char *opt, const char *v, char *msg,
                              size_t size);
bool cli_trace_opt_level(void *target, const char *opt, const char *v, char *msg, size_t size);

#endif
