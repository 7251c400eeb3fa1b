/* Helpers shared by the subcommands: the option parser, loading a scenario onto this
 * machine, error printing, number parsing, build provenance. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algorithms/alg.h"
#include "cli/cli.h"
#include "cli/machine.h"
#include "common/error.h"
#include "models/backend.h"
#include "models/blas_kernel.h"
#include "sgd_build_info.h"

int cli_bad_input(const char *fmt, ...)
{
    va_list ap;
    fputs("sgdsim: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return SGD_EXIT_BAD_INPUT;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

static bool is(const char *a, const char *long_name, const char *short_name)
{
    return strcmp(a, long_name) == 0 || (short_name && strcmp(a, short_name) == 0);
}

/* --blas-core NAME: "auto" or a kernel OpenBLAS knows (whether this machine runs it is
 * checked when the scenario is resolved, naming the flag). */
static int parse_blas_core(const char *v, cli_opts_t *o)
{
    if (strcasecmp(v, "auto") != 0 && !blas_kernel_find(v)) {
        char known[512];
        blas_kernel_list(known, sizeof known);
        return cli_bad_input("--blas-core %s: unknown OpenBLAS kernel (known: auto, %s)", v,
                             known);
    }
    o->blas_core = v;
    snprintf(o->blas_core_label, sizeof o->blas_core_label, "--blas-core %.40s", v);
    o->numerics.blas_core = v;
    o->numerics.blas_core_label = o->blas_core_label;
    return 0;
}

/* --threads N: 0 (auto) .. SCN_THREADS_MAX, decimal. */
static int parse_threads(const char *a, const char *v, cli_opts_t *o)
{
    uint64_t n;
    if (!cli_parse_u64(v, &n) || n > SCN_THREADS_MAX)
        return cli_bad_input("%s %s: expected a number of threads in 0..%d (0 = auto: the "
                             "CPUs this process may use, shared among a sweep's -j "
                             "processes)", a, v, SCN_THREADS_MAX);
    o->threads = v;
    o->numerics.threads = (int64_t)n;
    return 0;
}

/* An option that takes a value: stores it, or returns an exit code after the message. */
static int parse_valued(const char *a, const char *v, cli_opts_t *o)
{
    if (is(a, "--set", NULL)) {
        o->sets[o->nsets++].assignment = v;
    } else if (is(a, "--db", NULL)) {
        o->db = v;
    } else if (is(a, "--backend", NULL)) {
        bool known = false;
        for (int k = 0; sgd_backend_names[k]; k++) known |= strcmp(v, sgd_backend_names[k]) == 0;
        if (!known) return cli_bad_input("--backend %s: unknown backend (known: cpu, cuda)", v);
        snprintf(o->backend_set, sizeof o->backend_set, "backend=%s", v);
    } else if (is(a, "--blas-core", NULL)) {
        return parse_blas_core(v, o);
    } else if (is(a, "--threads", "-t")) {
        return parse_threads(a, v, o);
    } else {
        if (!cli_parse_u64(v, &o->seed))
            return cli_bad_input("--seed %s: expected a non-negative integer", v);
        o->have_seed = true;
    }
    return 0;
}

int cli_parse_opts(const char *cmd, int argc, char **argv, unsigned accepted, cli_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->numerics.threads = -1;
    o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
    if (!o->sets) return cli_bad_input("out of memory");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool takes_value = is(a, "--set", NULL) ||
                           ((accepted & CLI_OPT_DB) && is(a, "--db", NULL)) ||
                           ((accepted & CLI_OPT_SEED) && is(a, "--seed", NULL)) ||
                           ((accepted & CLI_OPT_BACKEND) && is(a, "--backend", NULL)) ||
                           ((accepted & CLI_OPT_NUMERICS) &&
                            (is(a, "--blas-core", NULL) || is(a, "--threads", "-t")));
        if (is(a, "--help", "-h")) {
            o->help = true;
            return 0;
        } else if (takes_value) {
            if (i + 1 >= argc) return cli_bad_input("%s: missing value", a);
            int rc = parse_valued(a, argv[++i], o);
            if (rc) return rc;
        } else if ((accepted & CLI_OPT_QUIET) && is(a, "--quiet", "-q")) {
            o->quiet = true;
        } else if ((accepted & CLI_OPT_PRINT) && is(a, "--print", NULL)) {
            o->print = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_bad_input("%s: unknown option %s (see sgdsim %s --help)", cmd, a, cmd);
        } else if (o->scenario) {
            return cli_bad_input("%s: only one SCENARIO expected, got %s and %s", cmd,
                                 o->scenario, a);
        } else {
            o->scenario = a;
        }
    }
    if (!o->scenario) return cli_bad_input("%s: missing SCENARIO (see sgdsim %s --help)", cmd, cmd);
    /* --backend NAME consumed two arguments, so sets (argc + 1 entries) has room. */
    if (o->backend_set[0]) o->sets[o->nsets++].assignment = o->backend_set;
    return 0;
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
    return 0;
}

void cli_opts_free(cli_opts_t *o)
{
    free(o->sets);
    memset(o, 0, sizeof *o);
}

const char *cli_version(void) { return SGD_VERSION; }
const char *cli_git_rev(void) { return SGD_GIT_REV; }

const char *cli_build_options(void) { return SGD_BUILD_OPTIONS; }
