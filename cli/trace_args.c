/* `run`'s timeline options, declared in trace_args.h. */
#include "cli/trace_args.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/number.h"
#include "sim/dist.h"

cli_trace_args_t cli_trace_args_default(void)
{
    return (cli_trace_args_t){.opts = {.t0_ns = 0, .t1_ns = INT64_MAX, .max_events = 1000000}};
}

/* Parses "T0:T1" in seconds of virtual time (plain decimals; either side may be empty)
 * into a trace window. */
static int parse_window(const char *v, sim_trace_opts_t *o)
{
    const char *colon = strchr(v, ':');
    if (!colon || (size_t)(colon - v) >= 64) return -1;
    char first[64];
    memcpy(first, v, (size_t)(colon - v));
    first[colon - v] = '\0';
    double t0 = 0, t1 = INFINITY;
    if (first[0] && !sgd_parse_decimal(first, &t0)) return -1;
    if (colon[1] && !sgd_parse_decimal(colon + 1, &t1)) return -1;
    if (!(t0 >= 0) || !(t1 >= t0) || t0 > SIM_VTIME_MAX_S) return -1;
    o->t0_ns = sim_seconds_to_ns(t0);
    o->t1_ns = t1 > SIM_VTIME_MAX_S ? INT64_MAX : sim_seconds_to_ns(t1);
    return 0;
}

/* --trace-window T0:T1 */
bool cli_trace_opt_window(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    cli_trace_args_t *t = target;
    t->needs_trace = opt;
    if (parse_window(v, &t->opts) == 0) return true;
    snprintf(msg, size, "%s %s: expected T0:T1 in seconds of virtual time, 0 <= T0 <= T1 "
             "(e.g. 0.5:0.6)", opt, v);
    return false;
}

/* --trace-max-events N */
bool cli_trace_opt_max_events(void *target, const char *opt, const char *v, char *msg,
                              size_t size)
{
    cli_trace_args_t *t = target;
    t->needs_trace = opt;
    if (cli_parse_u64(v, &t->opts.max_events)) return true;
    snprintf(msg, size, "%s %s: expected a number of events >= 0", opt, v);
    return false;
}

/* --trace-level step|message */
bool cli_trace_opt_level(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    cli_trace_args_t *t = target;
    t->needs_trace = opt;
    if (strcmp(v, "step") == 0) t->opts.level = SIM_TRACE_LEVEL_STEP;
    else if (strcmp(v, "message") == 0) t->opts.level = SIM_TRACE_LEVEL_MESSAGE;
    else {
        snprintf(msg, size, "%s %s: expected step or message", opt, v);
        return false;
    }
    return true;
}
