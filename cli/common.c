/* Helpers shared by the subcommands: the option table of the scenario commands (parsed by
 * cli/options.c), loading a scenario onto this machine, error printing, number parsing,
 * build provenance. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algorithms/alg.h"
#include "cli/cli.h"
#include "cli/machine.h"
#include "cli/options.h"
#include "common/error.h"
#include "common/json.h"
#include "common/number.h"
#include "models/backend.h"
#include "models/blas_kernel.h"
#include "sgd_build_info.h"

bool cli_parse_u64(const char *s, uint64_t *out) { return sgd_parse_u64(s, out); }

/* --seed N: a decimal master seed. */
static bool parse_seed(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    cli_opts_t *o = target;
    if (!cli_parse_u64(v, &o->seed)) {
        snprintf(msg, size, "%s %s: expected a non-negative integer", opt, v);
        return false;
    }
    o->have_seed = true;
    return true;
}

/* --backend NAME: one of models/backend.h's names, applied as the override "backend=NAME". */
static bool parse_backend(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    cli_opts_t *o = target;
    bool known = false;
    for (int k = 0; sgd_backend_names[k]; k++) known |= strcmp(v, sgd_backend_names[k]) == 0;
    if (!known) {
        snprintf(msg, size, "%s %s: unknown backend (known: cpu, cuda)", opt, v);
        return false;
    }
    snprintf(o->backend_set, sizeof o->backend_set, "backend=%s", v);
    return true;
}

/* --blas-core NAME: "auto" or a kernel OpenBLAS knows (whether this machine runs it is
 * checked when the scenario is resolved, naming the flag). */
static bool parse_blas_core(void *target, const char *opt, const char *v, char *msg,
                            size_t size)
{
    cli_opts_t *o = target;
    if (strcasecmp(v, "auto") != 0 && !blas_kernel_find(v)) {
        char known[512];
        blas_kernel_list(known, sizeof known);
        snprintf(msg, size, "%s %s: unknown OpenBLAS kernel (known: auto, %s)", opt, v, known);
        return false;
    }
    o->blas_core = v;
    snprintf(o->blas_core_label, sizeof o->blas_core_label, "--blas-core %.40s", v);
    o->numerics.blas_core = v;
    o->numerics.blas_core_label = o->blas_core_label;
    return true;
}

/* --threads N: 0 (auto) .. SCN_THREADS_MAX, decimal. */
static bool parse_threads(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    cli_opts_t *o = target;
    uint64_t n;
    if (!cli_parse_u64(v, &n) || n > SCN_THREADS_MAX) {
        snprintf(msg, size, "%s %s: expected a number of threads in 0..%d (0 = auto: the CPUs "
                 "this process may use, shared among a sweep's -j processes)", opt, v,
                 SCN_THREADS_MAX);
        return false;
    }
    o->threads = v;
    o->numerics.threads = (int64_t)n;
    return true;
}

/* --tag KEY=VALUE: split at the first '=', the key non-empty and not given before, both
 * plain text (UTF-8, no control characters), checked before anything is opened. */
static bool parse_tag(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    cli_opts_t *o = target;
    const char *eq = strchr(v, '=');
    sgd_err_t err = {{0}};
    if (!eq) {
        snprintf(msg, size, "%s %s: expected KEY=VALUE", opt, v);
        return false;
    }
    if (eq == v) {
        snprintf(msg, size, "%s %s: the key (before '=') is empty", opt, v);
        return false;
    }
    size_t n = (size_t)(eq - v);
    char *key = sgd_xmalloc(n + 1);
    memcpy(key, v, n);
    key[n] = '\0';
    bool ok = false;
    if (sgd_json_check_plain(key, "the key", &err) ||
        sgd_json_check_plain(eq + 1, "the value", &err))
        snprintf(msg, size, "%s %s: %s", opt, v, err.msg);
    else
        ok = true;
    for (int i = 0; ok && i < o->tags.n; i++)
        if (strncmp(o->tags.v[i], v, n + 1) == 0) {
            snprintf(msg, size, "%s %s: the key '%s' is already given (%s %s)", opt, v, key, opt,
                     o->tags.v[i]);
            ok = false;
        }
    free(key);
    if (!ok) return false;
    o->tags.v = sgd_xrealloc(o->tags.v, (size_t)(o->tags.n + 1) * sizeof *o->tags.v);
    o->tags.v[o->tags.n++] = v;
    return true;
}

/* --checkpoint-every DURATION: "90", "90s", "10m", "2h" (a plain decimal and a unit). */
static bool parse_ckpt_every(void *target, const char *opt, const char *v, char *msg,
                             size_t size)
{
    cli_opts_t *o = target;
    static const struct {
        char unit;
        double seconds;
    } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}};
    size_t n = strlen(v);
    double scale = 1, value = 0;
    char num[64];
    if (n > 0 && n < sizeof num) {
        memcpy(num, v, n + 1);
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (num[n - 1] == units[i].unit) num[n - 1] = '\0', scale = units[i].seconds;
    }
    if (n == 0 || n >= sizeof num || !sgd_parse_decimal(num, &value) || !(value > 0) ||
        !isfinite(value * scale) || value * scale > 1e9) {
        snprintf(msg, size, "%s %s: expected a wall-clock duration > 0 such as 90s, 10m or 2h",
                 opt, v);
        return false;
    }
    o->ckpt_every = v;
    o->ckpt_every_s = value * scale;
    return true;
}

/* The options of the commands that take one SCENARIO; a command takes the groups it names
 * in cli_parse_opts's `accepted` (--set always). */
static const cli_opt_t scenario_opts[] = {
    {.name = "--set", .kind = CLI_ARG_LIST, .off = offsetof(cli_opts_t, set_args)},
    {.name = "--db", .kind = CLI_ARG_STRING, .off = offsetof(cli_opts_t, db),
     .group = CLI_OPT_DB},
    {.name = "--seed", .kind = CLI_ARG_CUSTOM, .parse = parse_seed, .group = CLI_OPT_SEED},
    {.name = "--quiet", .alias = "-q", .kind = CLI_ARG_FLAG,
     .off = offsetof(cli_opts_t, quiet), .group = CLI_OPT_QUIET},
    {.name = "--print", .kind = CLI_ARG_FLAG, .off = offsetof(cli_opts_t, print),
     .group = CLI_OPT_PRINT},
    {.name = "--backend", .kind = CLI_ARG_CUSTOM, .parse = parse_backend,
     .group = CLI_OPT_BACKEND},
    {.name = "--blas-core", .kind = CLI_ARG_CUSTOM, .parse = parse_blas_core,
     .group = CLI_OPT_NUMERICS},
    {.name = "--threads", .alias = "-t", .kind = CLI_ARG_CUSTOM, .parse = parse_threads,
     .group = CLI_OPT_NUMERICS},
    {.name = "--tag", .kind = CLI_ARG_CUSTOM, .parse = parse_tag, .group = CLI_OPT_TAG},
    {.name = "--checkpoint-every", .kind = CLI_ARG_CUSTOM, .parse = parse_ckpt_every,
     .metavar = "DURATION", .group = CLI_OPT_CKPT_EVERY},
    {.name = "--checkpoint-every-updates", .kind = CLI_ARG_U64,
     .off = offsetof(cli_opts_t, ckpt_every_updates), .lo = 1, .hi = INT64_MAX,
     .expect = "expected a number of updates >= 1", .group = CLI_OPT_CKPT_EVERY},
    {.name = NULL},
};

/* The --set assignments in order, then --backend's, which so wins over a --set backend=. */
static void collect_sets(cli_opts_t *o)
{
    o->sets = sgd_xcalloc((size_t)o->set_args.n + 2, sizeof *o->sets);
    for (int i = 0; i < o->set_args.n; i++) o->sets[o->nsets++].assignment = o->set_args.v[i];
    if (o->backend_set[0]) o->sets[o->nsets++].assignment = o->backend_set;
}

int cli_parse_opts(const char *cmd, int argc, char **argv, unsigned accepted,
                   const cli_opt_set_t *extra, cli_opts_t *o)
{
    static const char *const missing[] = {"SCENARIO"};
    memset(o, 0, sizeof *o);
    o->numerics.threads = -1;
    cli_opt_set_t sets[2] = {{scenario_opts, o, accepted}};
    if (extra) sets[1] = *extra;
    cli_cmd_spec_t spec = {.cmd = cmd, .npos = 1, .missing = missing, .sets = sets,
                           .nsets = extra ? 2 : 1};
    cli_args_t args;
    int rc = cli_args_parse(&spec, argc, argv, &args);
    o->help = args.help;
    if (args.npos) o->scenario = args.pos[0];
    cli_args_free(&args);
    if (rc == 0 && !o->help) collect_sets(o);
    return rc;
}

int cli_load_scenario(const cli_opts_t *o, scn_t *s)
{
    sgd_err_t err = {{0}};
    scn_machine_t m;
    if (scn_load(o->scenario, o->sets, o->nsets, o->have_seed ? &o->seed : NULL,
                 alg_scenario_table, s, &err))
        return cli_bad_input("%s", err.msg);
    cli_machine_get(1, &m);
    if (scn_resolve_numerics(s, &o->numerics, &m, &err) ||
        cli_machine_use_kernel(s->numerics.blas_core, &err)) {
        scn_free(s);
        return cli_bad_input("%s", err.msg);
    }
    /* IDX headers that claim more than fits are bad input for both commands (the headers
     * only: the data itself is the run's to load). */
    if (alg_check_idx_memory(&s->data, &err)) {
        scn_free(s);
        return cli_bad_input("%s: %s", o->scenario, err.msg);
    }
    return 0;
}

void cli_opts_free(cli_opts_t *o)
{
    free(o->sets);
    cli_list_free(&o->set_args);
    cli_list_free(&o->tags);
    memset(o, 0, sizeof *o);
}

const char *cli_version(void) { return SGD_VERSION; }
const char *cli_git_rev(void) { return SGD_GIT_REV; }

const char *cli_build_options(void) { return SGD_BUILD_OPTIONS; }
