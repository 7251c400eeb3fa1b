/* `sgdsim run SCENARIO`: load the scenario, open the results database, run the simulation
 * with a sink that writes every metric row to the database, and print a summary.
 *
 * The database row for the run is created only after setup succeeded (so bad input leaves
 * no trace) and marked complete together with its last rows in one transaction. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>

#include "algorithms/alg.h"
#include "cli/cli.h"
#include "config/scenario.h"
#include "results/rdb.h"
#include "sim/dist.h"

typedef struct run_sink {
    rdb_t *db;
    const scn_t *scn;
    int64_t run_id;
    char host[256];
    /* progress display */
    bool progress;
    struct timespec t0, last_print;
    double final_val_error, final_val_loss, final_train_loss;
    bool have_val;
} run_sink_t;

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

static int sink_begin(void *arg, size_t nparams, sgd_err_t *err)
{
    run_sink_t *r = arg;
    (void)nparams;
    clock_gettime(CLOCK_MONOTONIC, &r->t0); /* progress ETA: count from here, after data loading */
    r->last_print = r->t0;
    rdb_run_info_t info = {
        .run_key = r->scn->config_hash,
        .scenario_name = r->scn->name,
        .scenario_path = r->scn->path,
        .algorithm = r->scn->algorithm,
        .workers = r->scn->workers,
        .seed = r->scn->seed,
        .backend = r->scn->backend,
        .config_json = r->scn->resolved_json,
        .config_hash = r->scn->config_hash,
        .sgdsim_version = cli_version(),
        .git_rev = cli_git_rev(),
        .build_options = cli_build_options(),
        .blas_core = openblas_get_corename(),
        .host = r->host,
    };
    return rdb_run_begin(r->db, &info, &r->run_id, err);
}

static int sink_metric(void *arg, int64_t update, int64_t vtime_ns, const char *name,
                       double value, sgd_err_t *err)
{
    run_sink_t *r = arg;
    if (strcmp(name, "val_error") == 0) r->final_val_error = value, r->have_val = true;
    else if (strcmp(name, "val_loss") == 0) r->final_val_loss = value;
    else if (strcmp(name, "train_loss") == 0) r->final_train_loss = value;
    return rdb_metric(r->db, r->run_id, update, vtime_ns, name, value, err);
}

static int sink_traffic(void *arg, const char *kind, uint64_t sent_msgs, uint64_t sent_bytes,
                        uint64_t skipped_msgs, uint64_t skipped_bytes, sgd_err_t *err)
{
    run_sink_t *r = arg;
    return rdb_traffic(r->db, r->run_id, kind, sent_msgs, sent_bytes, skipped_msgs,
                       skipped_bytes, err);
}

static int sink_staleness(void *arg, int64_t tau, int64_t count, sgd_err_t *err)
{
    run_sink_t *r = arg;
    return rdb_staleness(r->db, r->run_id, tau, count, err);
}

/* Progress on stderr when it is a terminal: wall-clock is used here for display only. */
static void sink_progress(void *arg, int64_t update, int64_t vtime_ns, double loss,
                          uint64_t events)
{
    run_sink_t *r = arg;
    if (!r->progress) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (seconds_between(&r->last_print, &now) < 0.2 && update < r->scn->stop_updates) return;
    r->last_print = now;
    double wall = seconds_between(&r->t0, &now);
    double eta = update > 0 ? wall / (double)update * (double)(r->scn->stop_updates - update) : 0;
    fprintf(stderr, "\r  update %lld/%lld  vtime %.3f s  loss %.4f  %.3g events/s  ETA %.0f s   ",
            (long long)update, (long long)r->scn->stop_updates, (double)vtime_ns * 1e-9, loss,
            wall > 0 ? (double)events / wall : 0.0, eta);
    fflush(stderr);
}

/* Ctrl-C or a polite kill: finish the current update and store the run as failed, with
 * its rows, instead of leaving it "running".  A second signal kills at once. */
static void on_signal(int sig)
{
    alg_request_interrupt();
    signal(sig, SIG_DFL);
}

static const char *status_name(alg_status_t s)
{
    switch (s) {
    case ALG_COMPLETE: return "complete";
    case ALG_DIVERGED: return "diverged";
    case ALG_FAILED: return "failed";
    case ALG_RUNNING: break;
    }
    return "failed";
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sgdsim run SCENARIO [--db PATH] [--seed N] [--backend cpu|cuda] "
            "[--blas-core NAME] [--threads N]\n"
            "                  [--set key.path=value ...] [--quiet]\n\n"
            "Runs SCENARIO and appends the run to a results database.\n"
            "  --db PATH             results database (default ./" CLI_DEFAULT_DB ")\n"
            "  --seed N              master seed, overrides the scenario's \"seed\"\n"
            "  --backend NAME        numerics backend, overrides the scenario's \"backend\":\n"
            "                        cpu (OpenBLAS) or cuda (cuBLAS; exit 2 without a GPU)\n"
            "  --blas-core NAME      OpenBLAS kernel, overrides numerics.blas_core: auto (the\n"
            "                        fastest this CPU runs: SkylakeX, Haswell, else OpenBLAS's\n"
            "                        choice) or a kernel name such as Haswell\n"
            "  -t, --threads N       threads, overrides numerics.threads (0 = auto: the CPUs\n"
            "                        this process may use)\n"
            "  --set key.path=value  override any scenario field (repeatable), validated like "
            "the file\n"
            "  --quiet               no progress line and no summary\n"
            "  --trace FILE          write the event timeline as Chrome trace-event JSON (open\n"
            "                        it in ui.perfetto.dev or chrome://tracing)\n"
            "  --trace-window T0:T1  keep only spans overlapping virtual seconds [T0, T1]\n"
            "                        (either side may be empty: 2.5: or :10)\n"
            "  --trace-max-events N  write at most N events: spans, flows, counter samples\n"
            "                        (default 1000000; 0 = no limit)\n\n"
            "exit codes: 0 complete, 1 failed, 2 bad input, 3 diverged (NaN/Inf)\n");
}

/* How many times the end of a run is written before giving up: the first time with its own
 * status, then as 'failed' with the reason.  Each try may wait the database's busy timeout
 * (10 s), so a lock held by another process for up to 30 s still ends with a row that
 * agrees with the exit code. */
#define RUN_END_TRIES 3

/* Writes the run's end; returns the status now in the database, or NULL when every try
 * failed (the row then stays 'running', as if the process had been killed, and a sweep
 * redoes it).  The caller's exit code follows what this returns. */
static const char *end_run(rdb_t *db, int64_t run_id, const rdb_run_end_t *end)
{
    sgd_err_t err = {{0}};
    if (rdb_run_end(db, run_id, end, &err) == 0) return end->status;
    fprintf(stderr, "sgdsim: %s\n", err.msg);
    char detail[SGD_ERR_MAX + 64];
    snprintf(detail, sizeof detail, "the end of the run could not be written: %s", err.msg);
    rdb_run_end_t failed = *end;
    failed.status = "failed";
    failed.status_detail = detail;
    for (int i = 1; i < RUN_END_TRIES; i++)
        if (rdb_run_end(db, run_id, &failed, &err) == 0) {
            fprintf(stderr, "sgdsim: the run is recorded as failed\n");
            return "failed";
        }
    fprintf(stderr, "sgdsim: %s\nsgdsim: the run stays 'running' in %s, as a killed run "
            "would\n", err.msg, rdb_path(db));
    return NULL;
}

/* Parses "T0:T1" in seconds of virtual time into a trace window. */
static int parse_window(const char *v, sim_trace_opts_t *o)
{
    const char *colon = strchr(v, ':');
    if (!colon) return -1;
    char *end;
    double t0 = 0, t1 = INFINITY;
    if (colon != v) {
        t0 = strtod(v, &end);
        if (end != colon) return -1;
    }
    if (colon[1]) {
        t1 = strtod(colon + 1, &end);
        if (*end) return -1;
    }
    if (!(t0 >= 0) || !(t1 >= t0) || t0 > SIM_VTIME_MAX_S) return -1;
    o->t0_ns = sim_seconds_to_ns(t0);
    o->t1_ns = t1 > SIM_VTIME_MAX_S ? INT64_MAX : sim_seconds_to_ns(t1);
    return 0;
}

int cli_run_main(int argc, char **argv)
{
    /* The --trace options are run's own; everything else goes to the shared parser. */
    const char *trace_path = NULL, *needs_trace = NULL; /* a --trace-* option given */
    sim_trace_opts_t trace_opts = {.t0_ns = 0, .t1_ns = INT64_MAX, .max_events = 1000000};
    sim_trace_t *trace = NULL;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    for (int i = 0; rest && i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--trace") == 0 || strcmp(a, "--trace-window") == 0 ||
            strcmp(a, "--trace-max-events") == 0) {
            if (i + 1 >= argc) {
                free(rest);
                return cli_bad_input("run: %s: missing value", a);
            }
            const char *v = argv[++i];
            uint64_t n;
            if (strcmp(a, "--trace") != 0) needs_trace = a;
            if (strcmp(a, "--trace") == 0) {
                trace_path = v;
            } else if (strcmp(a, "--trace-window") == 0 ? parse_window(v, &trace_opts) != 0
                                                       : !cli_parse_u64(v, &n)) {
                free(rest);
                return cli_bad_input("run: %s %s: expected %s", a, v,
                                     a[8] == 'w' ? "T0:T1 in seconds of virtual time, 0 <= T0 "
                                                   "<= T1 (e.g. 0.5:0.6)"
                                                 : "a number of events >= 0");
            } else if (strcmp(a, "--trace-max-events") == 0) {
                trace_opts.max_events = n;
            }
        } else {
            rest[nrest++] = argv[i];
        }
    }
    if (needs_trace && !trace_path) {
        free(rest);
        return cli_bad_input("run: %s: only valid with --trace FILE", needs_trace);
    }
    if (!rest) return cli_bad_input("out of memory");
    cli_opts_t opts;
    int rc = cli_parse_opts("run", nrest, rest,
                            CLI_OPT_DB | CLI_OPT_SEED | CLI_OPT_QUIET | CLI_OPT_BACKEND |
                                CLI_OPT_NUMERICS, &opts);
    if (rc == 0 && opts.help) usage(stdout);
    if (rc != 0 || opts.help) goto out;
    const char *db_path = opts.db ? opts.db : CLI_DEFAULT_DB;
    bool quiet = opts.quiet;

    scn_t s;
    sgd_err_t err = {{0}};
    /* Before anything is opened: this may start the program again on another BLAS kernel. */
    if ((rc = cli_load_scenario(&opts, &s)) != 0) goto out;
    run_sink_t r = {.scn = &s, .progress = !quiet && isatty(2)};
    if (gethostname(r.host, sizeof r.host) != 0) snprintf(r.host, sizeof r.host, "unknown");
    r.host[sizeof r.host - 1] = '\0';
    if (rdb_open(db_path, &r.db, &err)) {
        rc = cli_bad_input("%s", err.msg);
        scn_free(&s);
        goto out;
    }
    if (trace_path && sim_trace_open(trace_path, &trace_opts, &trace, &err)) {
        rc = cli_bad_input("%s", err.msg);
        rdb_close(r.db);
        scn_free(&s);
        goto out;
    }
    alg_sink_t sink = {.ctx = &r, .begin = sink_begin, .metric = sink_metric,
                       .traffic = sink_traffic, .staleness = sink_staleness,
                       .progress = sink_progress, .trace = trace};
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    alg_outcome_t o;
    if (alg_run(&s, &sink, &o, &err)) {
        rc = cli_bad_input("%s: %s", s.path, err.msg);
        rdb_close(r.db);
        scn_free(&s);
        goto out;
    }
    if (r.progress) fputc('\n', stderr);
    /* The trace is finished before the run's end is written, so that a trace that could
     * not be written makes the run 'failed' in the database, as in the exit code. */
    uint64_t written = trace ? sim_trace_written(trace) : 0;
    uint64_t dropped = trace ? sim_trace_dropped(trace) : 0;
    char trace_err[SGD_ERR_MAX + 32] = "";
    if (sim_trace_close(trace, &err))
        snprintf(trace_err, sizeof trace_err, "trace %s", err.msg);
    trace = NULL;
    rdb_run_end_t end = {
        .status = trace_err[0] && o.status == ALG_COMPLETE ? "failed" : status_name(o.status),
        .status_detail = o.detail[0] ? o.detail : trace_err[0] ? trace_err : NULL,
        .vtime_ns = o.vtime_ns,
        .updates = o.updates,
        .events = (int64_t)o.events,
        .wall_s = o.wall_s,
        .events_per_s = o.events_per_s,
        .digest = o.digest,
    };
    const char *stored = end_run(r.db, r.run_id, &end);
    rc = !stored ? SGD_EXIT_FAILURE
         : strcmp(stored, "complete") == 0 ? SGD_EXIT_OK
         : strcmp(stored, "diverged") == 0 ? SGD_EXIT_DIVERGED : SGD_EXIT_FAILURE;
    if (strcmp(end.status, "complete") != 0)
        fprintf(stderr, "sgdsim: run %s: %s\n", end.status,
                end.status_detail ? end.status_detail : "");
    if (trace_err[0] && o.detail[0]) fprintf(stderr, "sgdsim: %s\n", trace_err);
    if (trace_path && !trace_err[0] && !quiet)
        printf("trace: %s (%llu events%s)\n", trace_path, (unsigned long long)written,
               dropped ? "; more events than --trace-max-events were left out" : "");
    if (!quiet) {
        printf("run %lld: %s, %s, %lld workers, %lld updates, %.3f s virtual time, %llu events "
               "(%.3g events/s)\n",
               (long long)r.run_id, stored ? stored : "running", s.algorithm,
               (long long)s.workers,
               (long long)o.updates, (double)o.vtime_ns * 1e-9, (unsigned long long)o.events,
               o.events_per_s);
        if (o.grad_calls > 0)
            printf("gradients: %llu in %llu backend calls\n", (unsigned long long)o.grads,
                   (unsigned long long)o.grad_calls);
        if (r.have_val)
            printf("final: train_loss %.4f  val_loss %.4f  val_error %.4f\n", r.final_train_loss,
                   r.final_val_loss, r.final_val_error);
        printf("digest %s\nresults: %s (run id %lld; try: sqlite3 %s \"SELECT * FROM "
               "run_summary\")\n",
               o.digest, db_path, (long long)r.run_id, db_path);
    }
    free(o.final_params);
    rdb_close(r.db);
    scn_free(&s);
out:
    sim_trace_close(trace, NULL);
    cli_opts_free(&opts);
    free(rest);
    return rc;
}
