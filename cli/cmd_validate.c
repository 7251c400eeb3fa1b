/* `sgdsim validate SCENARIO [--set k=v ...] [--backend NAME] [--blas-core NAME] [--threads N]
 * [--print]`: load and check a scenario without running it, with the check `run` makes
 * (alg_prepare_file: the run built up to its first event — data shapes against the model's,
 * batches, the memory guard, the algorithm's state), so validate refuses exactly what run
 * refuses, with run's message and exit code 2.  Only what this machine lacks keeps exit 0,
 * with a note: a dataset file not there (what depends on its shapes is then unchecked),
 * "cuda" without a GPU (the CPU backend stands in, so the rest is checked).  --print shows
 * the resolved configuration with every default filled in, pretty-printed (exact numbers, as
 * stored).  The BLAS kernel is resolved and started exactly as for `run` (cli/machine.h), so
 * a scenario that validates gets its kernel.
 *
 * Without --print it also says what the model is (model_describe: its kind's words and its
 * parameter count) and estimates what a run would cost — events, updates, memory and wall
 * time — so that `stop.updates: 1e15` (valid, and endless) shows up before it is started, and
 * shows the estimates `run`'s memory guard compares with this machine's memory before it
 * allocates (alg_check_memory; seen during the check), which `run` refuses on.  The
 * estimate extrapolates a pilot: the checked run itself, executed in this process for at
 * most PILOT_UPDATES updates or about PILOT_WALL_S seconds, with no database and no trace.
 * Events and seconds per update are measured between the pilot's first and last update;
 * memory is the pilot's peak resident size plus the parameter snapshots that accumulate
 * until as many versions are held at once as the algorithm says a run may hold
 * (alg_snapshot_versions: the parameter-server family's clients, about min(clients,
 * updates), the count its memory guard uses). */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "algorithms/alg.h"
#include "cli/cli.h"
#include "common/json.h"
#include "config/scenario.h"

#define PILOT_UPDATES 20
#define PILOT_WALL_S 2.0

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim validate SCENARIO [--set key.path=value ...] [--backend NAME]\n"
               "                       [--blas-core NAME] [--threads N] [--print]\n\n"
               "Checks SCENARIO as run does before it starts (types, ranges, unknown keys, a\n"
               "BLAS kernel this machine runs, shapes against the dataset's, sizes, memory):\n"
               "exit 2 with run's message for anything run refuses; exit 0 with a note when\n"
               "only this machine keeps it from running (a dataset file not there, no GPU).\n"
               "Then prints what the model is (its kind, layers and parameters), and\n"
               "estimates of a run's events, updates, memory and wall time,\n"
               "extrapolated from a short pilot run in memory (at most %d updates, about\n"
               "%.0f s; nothing is written), and the memory estimates that run checks against\n"
               "this machine's memory before it allocates (and refuses on).\n"
               "  --set key.path=value  override a field, validated like the file\n"
               "  --backend NAME        same as --set backend=NAME (cpu or cuda)\n"
               "  --blas-core NAME      like --set numerics.blas_core=NAME (auto, Haswell, ...)\n"
               "  -t, --threads N       same as --set numerics.threads=N (0 = auto)\n"
               "  --print               print the resolved configuration (defaults filled in),\n"
               "                        pretty-printed JSON, instead, and run no pilot\n",
            PILOT_UPDATES, PILOT_WALL_S);
}

/* The memory guard's estimates seen during the pilot's setup (alg_observe_memory). */
#define GUARD_MAX 8
typedef struct guard_seen {
    struct {
        char what[64];
        double bytes;
    } check[GUARD_MAX];
    int n;
    double limit;  /* physical memory; 0 when unknown */
    bool refused;  /* the last estimate was above the limit: the run stopped there */
} guard_seen_t;

/* What the pilot saw. */
typedef struct pilot {
    struct timespec t_first;        /* wall clock at the first update */
    double wall_last;               /* seconds from the first update to the latest */
    int64_t first, last;            /* update indices seen */
    uint64_t events_first, events_last;
    double snapshots_peak;          /* parameter-server family: distinct versions held; -1 */
} pilot_t;

static void pilot_memory(void *ctx, const char *what, double bytes, double limit)
{
    guard_seen_t *g = ctx;
    g->limit = limit;
    g->refused = limit > 0 && bytes > limit;
    if (g->n == GUARD_MAX) return;
    snprintf(g->check[g->n].what, sizeof g->check[g->n].what, "%s", what);
    g->check[g->n++].bytes = bytes;
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static int pilot_metric(void *ctx, int64_t update, int64_t vtime_ns, const char *name,
                        double value, sgd_err_t *err)
{
    pilot_t *p = ctx;
    (void)update, (void)vtime_ns, (void)err;
    if (strcmp(name, "snapshots_peak") == 0) p->snapshots_peak = value;
    return 0;
}

static int pilot_traffic(void *ctx, const char *kind, uint64_t a, uint64_t b, uint64_t c,
                         uint64_t d, sgd_err_t *err)
{
    (void)ctx, (void)kind, (void)a, (void)b, (void)c, (void)d, (void)err;
    return 0;
}

/* After every update: the counters, and a stop once the pilot has had its time (the run
 * then ends as interrupted, which only the pilot sees: validate's process ends next). */
static void pilot_progress(void *ctx, int64_t update, int64_t vtime_ns, double loss,
                           uint64_t events)
{
    pilot_t *p = ctx;
    (void)vtime_ns, (void)loss;
    if (p->first < 0) {
        clock_gettime(CLOCK_MONOTONIC, &p->t_first);
        p->first = update;
        p->events_first = events;
    }
    p->last = update;
    p->events_last = events;
    p->wall_last = since(&p->t_first);
    if (p->wall_last > PILOT_WALL_S) alg_request_interrupt();
}

/* Executes the checked run as the pilot; *stop is the scenario the run was built on, whose
 * stop rule is shortened only now, after every check has read the real one (the memory
 * guard's estimates are the run's).  Returns -1 with the reason when it made no update. */
static int run_pilot(alg_prepared_t *run, scn_t *stop, pilot_t *p, size_t *nparams,
                     sgd_err_t *err)
{
    if (stop->stop_updates > PILOT_UPDATES) stop->stop_updates = PILOT_UPDATES;
    *p = (pilot_t){.first = -1, .snapshots_peak = -1};
    alg_sink_t sink = {.ctx = p, .metric = pilot_metric, .traffic = pilot_traffic,
                       .progress = pilot_progress};
    alg_outcome_t o;
    if (alg_execute(run, &sink, &o, err)) return -1;
    free(o.final_params);
    *nparams = o.nparams;
    if (p->first < 0) return sgd_errf(err, "the pilot made no update (%s)", o.detail);
    return 0;
}

/* "1.2 GB", "340 MB" ... */
static void format_bytes(double b, char *buf, size_t size)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int u = 0;
    while (b >= 1000 && u < 6) b /= 1000, u++;
    snprintf(buf, size, "%.3g %s", b, unit[u]);
}

/* "1.5 KiB", "23.5 GiB" ...: as run's memory guard states its limit. */
static void format_bytes_binary(double b, char *buf, size_t size)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024 && u < 6) b /= 1024, u++;
    snprintf(buf, size, "%.3g %s", b, unit[u]);
}

/* "42 s", "3.5 hours", "2.1e+03 years" ... */
static void format_seconds(double t, char *buf, size_t size)
{
    if (t < 120) snprintf(buf, size, "%.3g s", t);
    else if (t < 7200) snprintf(buf, size, "%.3g minutes", t / 60);
    else if (t < 3 * 86400) snprintf(buf, size, "%.3g hours", t / 3600);
    else if (t < 365.25 * 86400) snprintf(buf, size, "%.3g days", t / 86400);
    else snprintf(buf, size, "%.3g years", t / (365.25 * 86400));
}

/* "  memory guard: model about 1.3 MB, data about 52 kB, ...": what run compares with this
 * machine's memory before allocating, and whether it refuses (the last one checked). */
static void print_guard(const guard_seen_t *g)
{
    char b[32], lim[32];
    if (g->n == 0) return;
    format_bytes_binary(g->limit, lim, sizeof lim);
    printf("  memory guard: ");
    for (int i = 0; i < g->n; i++) {
        format_bytes_binary(g->check[i].bytes, b, sizeof b);
        printf("%s%s about %s", i ? ", " : "", g->check[i].what, b);
    }
    if (g->refused)
        printf("; run refuses this scenario: %s exceeds this machine's %s\n",
               g->check[g->n - 1].what, lim);
    else
        printf("; run refuses an estimate above this machine's %s\n", lim);
}

static void print_json_text(const cJSON *v)
{
    char *t = sgd_json_print(v, false);
    fputs(t, stdout);
    free(t);
}

static bool holds_scalars_only(const cJSON *v)
{
    for (const cJSON *c = v->child; c; c = c->next)
        if (cJSON_IsObject(c) || cJSON_IsArray(c)) return false;
    return true;
}

/* The resolved configuration, indented, each number exactly as stored (sgd_json_print);
 * an array of scalars stays on one line. */
static void print_pretty(const cJSON *v, int depth)
{
    bool obj = cJSON_IsObject(v);
    if ((!obj && !cJSON_IsArray(v)) || !v->child) {
        print_json_text(v);
        return;
    }
    if (!obj && holds_scalars_only(v)) {
        putchar('[');
        for (const cJSON *c = v->child; c; c = c->next) {
            print_json_text(c);
            if (c->next) fputs(", ", stdout);
        }
        putchar(']');
        return;
    }
    printf("%c\n", obj ? '{' : '[');
    for (const cJSON *c = v->child; c; c = c->next) {
        printf("%*s", 2 * (depth + 1), "");
        if (obj) {
            cJSON *key = cJSON_CreateString(c->string); /* escaped as the loader escapes */
            print_json_text(key);
            cJSON_Delete(key);
            fputs(": ", stdout);
        }
        print_pretty(c, depth + 1);
        printf("%s\n", c->next ? "," : "");
    }
    printf("%*s%c", 2 * depth, "", obj ? '}' : ']');
}

/* Prints the labelled estimates for a run of s->stop_updates updates. */
static void print_estimates(const scn_t *s, const pilot_t *p, const guard_seen_t *guard,
                            size_t nparams)
{
    double u = (double)s->stop_updates, steps = (double)(p->last - p->first);
    double ev_per = steps > 0 ? (double)(p->events_last - p->events_first) / steps
                              : (double)p->events_first / (double)(p->first > 0 ? p->first : 1);
    double events = (double)p->events_first + ev_per * (u - (double)p->first);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rss = 1024.0 * (double)ru.ru_maxrss; /* kB on Linux */
    /* the versions the algorithm says its run may hold (the memory guard's count), less
     * those the pilot already held */
    double snap = 0, versions = alg_snapshot_versions(s);
    if (p->snapshots_peak >= 0 && versions > p->snapshots_peak)
        snap = (versions - p->snapshots_peak) * 4.0 * (double)nparams;
    char mem[32], snap_s[32], wall[32];
    format_bytes(rss + snap, mem, sizeof mem);
    format_bytes(rss, snap_s, sizeof snap_s);
    printf("estimates for stop.updates = %lld (extrapolated from a pilot of %lld update%s on "
           "this machine; a stop.vtime_s limit may end a run sooner):\n",
           (long long)s->stop_updates, (long long)p->last, p->last == 1 ? "" : "s");
    printf("  updates:   %lld (stop.updates)\n", (long long)s->stop_updates);
    printf("  events:    about %.3g (%.3g per update)\n", events, ev_per);
    printf("  memory:    about %s (the pilot's peak %s", mem, snap_s);
    if (snap > 0) {
        char one[32];
        format_bytes(4.0 * (double)nparams, one, sizeof one);
        printf(", plus up to %.0f more parameter snapshots of %s: about %.0f versions held "
               "at once", fmax(0, versions - p->snapshots_peak), one, versions);
    }
    printf(")\n");
    print_guard(guard);
    if (steps > 0) {
        format_seconds(p->wall_last / steps * u, wall, sizeof wall);
        printf("  wall time: about %s (%.3g s per update)\n", wall, p->wall_last / steps);
    } else {
        printf("  wall time: not estimated (the pilot made a single update)\n");
    }
}

/* What validate found: the checked run (NULL when refused), the guard's estimates, and what
 * this machine lacks. */
typedef struct checked {
    alg_prepared_t *run;
    guard_seen_t guard;
    alg_prepare_opts_t opts;
} checked_t;

/* Makes run's check on *s (built with the CPU backend standing in for one this machine
 * lacks).  0 when run would start it or only this machine keeps it from starting (c->opts
 * .missing); else the exit code after run's message, with the guard's estimates first on
 * stdout when the guard refused it. */
static int check_like_run(const scn_t *s, checked_t *c)
{
    sgd_err_t err = {{0}};
    *c = (checked_t){.opts = {.backend = ALG_BACKEND_OR_CPU}};
    alg_observe_memory(pilot_memory, &c->guard);
    int rc = alg_prepare_file(s, &c->opts, &c->run, &err);
    alg_observe_memory(NULL, NULL);
    if (rc == 0 || c->opts.missing[0]) return 0;
    if (c->guard.refused) print_guard(&c->guard);
    fflush(stdout);
    return cli_bad_input("%s", err.msg);
}

/* "sgdsim: note: ...": what this machine lacks for the run, and what it means for the check. */
static void print_missing(const checked_t *c)
{
    fprintf(stderr, "sgdsim: note: %s\nsgdsim: note: this machine lacks it, not the scenario: "
                    "run exits 2 here until it has it; %s\n", c->opts.missing,
            c->run ? "everything else was checked, with the cpu backend in its place"
                   : "what depends on the dataset's shapes (model, batches, memory) is unchecked");
}

/* The ok line and what the model is (its kind's description, models/model.h), then the
 * estimates from the pilot (not without what this machine lacks). */
static void print_ok_and_estimates(const cli_opts_t *o, scn_t *s, checked_t *c)
{
    printf("%s: ok (algorithm %s, %lld worker%s, BLAS kernel %s, %lld thread%s, config "
           "%.12s)\n", o->scenario, s->algorithm, (long long)s->workers,
           s->workers == 1 ? "" : "s", s->numerics.blas_core,
           (long long)s->numerics.threads_resolved, s->numerics.threads_resolved == 1 ? "" : "s",
           s->config_hash);
    const model_t *model = c->run ? alg_prepared_model(c->run) : NULL;
    if (model) {
        char what[640];
        model_describe(model_spec(model), what, sizeof what);
        printf("model: %s\n", what);
    }
    fflush(stdout);
    if (c->opts.missing[0]) {
        printf("estimates: not available: %s\n", c->opts.missing);
        print_guard(&c->guard);
        return;
    }
    pilot_t p;
    size_t nparams = 0;
    sgd_err_t err = {{0}};
    const int64_t updates = s->stop_updates;
    if (run_pilot(c->run, s, &p, &nparams, &err)) {
        printf("estimates: not available, the pilot run did not get going: %s\n", err.msg);
        print_guard(&c->guard);
    } else {
        s->stop_updates = updates; /* the estimates are for the run */
        print_estimates(s, &p, &c->guard, nparams);
    }
}

int cli_validate_main(int argc, char **argv)
{
    cli_opts_t o;
    int rc = cli_parse_opts("validate", argc, argv,
                            CLI_OPT_PRINT | CLI_OPT_BACKEND | CLI_OPT_NUMERICS, NULL, &o);
    if (rc == 0 && o.help) usage(stdout);
    if (rc != 0 || o.help) goto out;
    scn_t s;
    checked_t c;
    if ((rc = cli_load_scenario(&o, &s)) != 0) goto out;
    if ((rc = check_like_run(&s, &c)) == 0) {
        if (c.opts.missing[0]) print_missing(&c);
        if (o.print) {
            cJSON *tree = cJSON_Parse(s.resolved_json);
            SGD_ASSERT(tree); /* the loader printed it */
            print_pretty(tree, 0);
            putchar('\n');
            cJSON_Delete(tree);
        } else {
            print_ok_and_estimates(&o, &s, &c);
        }
    }
    alg_prepared_free(c.run);
    scn_free(&s);
out:
    cli_opts_free(&o);
    return rc;
}
