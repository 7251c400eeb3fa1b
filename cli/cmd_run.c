/* `sgdsim run SCENARIO`: load the scenario, check and build the run (cli_prepare_run, the
 * check `validate` makes too), open the results database, run the simulation with a sink
 * that writes every metric row to the database, and print a summary.
 *
 * The database is opened only after the run was built, so a refused scenario creates no
 * file and leaves an existing one untouched; the run's row is marked complete together
 * with its last rows in one transaction. */
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "algorithms/alg.h"
#include "analysis/clock.h"
#include "cli/cli.h"
#include "cli/cmd_run_ckpt.h"
#include "cli/outpath.h"
#include "cli/run_signals.h"
#include "cli/trace_args.h"
#include "cli/text.h"
#include "config/scenario.h"
#include "results/rdb.h"
#include "results/rdb_meta.h"
#include "results/rdb_read.h"

typedef struct run_sink {
    rdb_t *db;
    const scn_t *scn;
    int64_t run_id;
    char host[256];
    rdb_tag_t *tags; /* --tag KEY=VALUE, split (keys owned) */
    size_t ntags;
    char *sweep_axes;   /* runs.sweep_axes: JSON array of the swept keys, or NULL (owned) */
    char *command_line; /* runs.command_line (owned) */
    /* progress display */
    bool progress;
    struct timespec t0, last_print;
    int progress_fd;            /* --progress-fd: "DONE TOTAL" lines for a sweep; 0 = none */
    struct timespec last_report;
    double final_val_error, final_val_loss, final_train_loss;
    bool have_val;
    run_ckpt_t *ckpt;   /* the checkpoint options (cmd_run_ckpt.h) */
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
        /* The kernel whose bits the run computes: the one OpenBLAS runs, or one it treats
         * as the same (cli_machine_use_kernel), so equal bits always read the same name. */
        .blas_core = r->scn->numerics.blas_core,
        .host = r->host,
        .tags = r->tags,
        .ntags = r->ntags,
        .sweep_axes = r->sweep_axes,
        .command_line = r->command_line,
    };
    return run_ckpt_begin(r->ckpt, r->db, &info, &r->run_id, err);
}

static int sink_metric(void *arg, int64_t update, int64_t vtime_ns, const char *name,
                       double value, sgd_err_t *err)
{
    run_sink_t *r = arg;
    if (strcmp(name, "val_error") == 0) r->final_val_error = value, r->have_val = true;
    else if (strcmp(name, "val_loss") == 0) r->final_val_loss = value;
    else if (strcmp(name, "train_loss") == 0) r->final_train_loss = value;
    if (rdb_metric(r->db, r->run_id, update, vtime_ns, name, value, err)) return -1;
    run_ckpt_count_row(r->ckpt, update);
    return 0;
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

static int sink_client_labels(void *arg, int64_t client, int label, int64_t count, sgd_err_t *err)
{
    run_sink_t *r = arg;
    return rdb_client_labels(r->db, r->run_id, client, label, count, err);
}

static int sink_version_age(void *arg, int64_t age, int64_t count, sgd_err_t *err)
{
    run_sink_t *r = arg;
    return rdb_version_age(r->db, r->run_id, age, count, err);
}

/* Progress on stderr when it is a terminal: wall-clock is used here for display only. */
/* "DONE TOTAL\n" for a sweep's live display, at most every 0.1 s and at the last update.
 * The pipe does not block (the sweep made it so): a line that does not fit is dropped. */
static void report_progress(run_sink_t *r, int64_t update, const struct timespec *now)
{
    if (seconds_between(&r->last_report, now) < 0.1 && update < r->scn->stop_updates) return;
    r->last_report = *now;
    char line[64];
    int n = snprintf(line, sizeof line, "%lld %lld\n", (long long)update,
                     (long long)r->scn->stop_updates);
    if (write(r->progress_fd, line, (size_t)n) < 0) { /* EAGAIN or gone: nothing to do */ }
}

/* Progress on stderr when it is a terminal, and into --progress-fd: wall-clock is used here
 * for display only. */
static void sink_progress(void *arg, int64_t update, int64_t vtime_ns, double loss,
                          uint64_t events)
{
    run_sink_t *r = arg;
    if (!r->progress && !r->progress_fd) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (r->progress_fd) report_progress(r, update, &now);
    if (!r->progress) return;
    if (seconds_between(&r->last_print, &now) < 0.2 && update < r->scn->stop_updates) return;
    r->last_print = now;
    double wall = seconds_between(&r->t0, &now);
    double eta = update > 0 ? wall / (double)update * (double)(r->scn->stop_updates - update) : 0;
    fprintf(stderr, "\r  update %lld/%lld  vtime %.3f s  loss %.4f  %.3g events/s  ETA %.0f s   ",
            (long long)update, (long long)r->scn->stop_updates, (double)vtime_ns * 1e-9, loss,
            wall > 0 ? (double)events / wall : 0.0, eta);
    fflush(stderr);
}

static const char *status_name(alg_status_t s)
{
    switch (s) {
    case ALG_COMPLETE: return "complete";
    case ALG_DIVERGED: return "diverged";
    case ALG_FAILED: return "failed";
    case ALG_CHECKPOINTED: return "failed"; /* not over: --resume continues it */
    case ALG_RUNNING: break;
    }
    return "failed";
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sgdsim run SCENARIO [--db PATH] [--seed N] [--backend cpu|cuda] "
            "[--blas-core NAME] [--threads N]\n"
            "                  [--set key.path=value ...] [--tag KEY=VALUE ...] [--quiet]\n"
            "                  [--trace FILE [--trace-window T0:T1] [--trace-max-events N]\n"
            "                   [--trace-level step|message]]\n"
            "                  [--checkpoint FILE [--checkpoint-every DURATION]\n"
            "                   [--checkpoint-every-updates N] [--checkpoint-exit-at N]]\n"
            "                  [--resume FILE]\n\n"
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
            "  --tag KEY=VALUE       label the run (repeatable; table tags, sgdsim show): a\n"
            "                        non-empty key, each key once\n"
            "  --quiet               no progress line and no summary\n"
            "  --trace FILE          write the event timeline as Chrome trace-event JSON (open\n"
            "                        it in ui.perfetto.dev or chrome://tracing)\n"
            "  --trace-window T0:T1  keep only spans overlapping virtual seconds [T0, T1]\n"
            "                        (either side may be empty: 2.5: or :10)\n"
            "  --trace-max-events N  write at most N events: spans, flows, counter samples\n"
            "                        (default 1000000; 0 = no limit); the finished file is\n"
            "                        recorded with its SHA-256 in the table artifacts\n"
            "  --trace-level LEVEL   a link's messages: step (default: those of one collective\n"
            "                        in one update, or one push or fetch, as one span) or\n"
            "                        message (one span each)\n"
            "  --sweep-axes KEY,...  the swept keys of a sweep's point, stored with the run\n"
            "                        (runs.sweep_axes); sweep passes it, each KEY a --set key\n"
            "  --progress-fd N       write \"DONE TOTAL\" lines to open file descriptor N as\n"
            "                        the run goes (sgdsim sweep's live display uses it)\n"
            "  --checkpoint FILE     write the run's whole state to FILE (atomically) when\n"
            "                        asked below, and on SIGTERM or SIGUSR1 at the next update\n"
            "                        (then exit 75); every algorithm (csgd and lsgd not on\n"
            "                        the cuda backend)\n"
            "  --checkpoint-every DURATION  ... every DURATION of wall time (90s, 10m, 2h);\n"
            "                        it decides only when, never what the run computes\n"
            "  --checkpoint-every-updates N  ... after every N-th update\n"
            "  --checkpoint-exit-at N  write one after update N and exit 75 (with --resume: an\n"
            "                        update after the checkpoint's)\n"
            "  --resume FILE         continue the run FILE was written by, in the same --db,\n"
            "                        with the same scenario and options: the same bits as a\n"
            "                        run never interrupted (checkpoints go on to FILE unless\n"
            "                        --checkpoint says otherwise)\n\n"
            "exit codes: 0 complete, 1 failed, 2 bad input, 3 diverged (NaN/Inf),\n"
            "            75 stopped with a checkpoint (resume it with --resume), or stopped\n"
            "               by a signal while starting, with nothing written (run it again)\n");
}

/* How many times the end of a run is written before giving up: the first time with its own
 * status, then as 'failed' with the reason.  Each try may wait the database's busy timeout
 * (10 s), so a lock held by another process for up to 30 s still ends with a row that
 * agrees with the exit code. */
#define RUN_END_TRIES 3

/* Writes the run's end; returns the status now in the database, "not recorded" when the
 * run's row was deleted or taken over by another process, or NULL when every try failed
 * (the row then stays 'running', as if the process had been killed, and a sweep redoes
 * it).  The caller's exit code follows what this returns. */
static const char *end_run(rdb_t *db, int64_t run_id, const rdb_run_end_t *end)
{
    sgd_err_t err = {{0}};
    if (rdb_run_end(db, run_id, end, &err) == 0) return end->status;
    fprintf(stderr, "sgdsim: %s\n", err.msg);
    if (rdb_run_gone(db, run_id)) return "not recorded"; /* another process has its row */
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

/* run's own options: where and what of the event timeline to write, the axes of the sweep
 * the run is a point of, and --progress-fd. */
typedef struct run_args {
    cli_trace_args_t trace;  /* first: the target of its options' parsers (trace_args.h) */
    const char *path;        /* --trace FILE, or NULL */
    const char *sweep_axes;  /* --sweep-axes KEY,...: set by `sgdsim sweep`; or NULL */
    uint64_t progress_fd;    /* --progress-fd N, 0 = none */
    run_ckpt_t ckpt;         /* --checkpoint*, --resume */
} run_args_t;

/* --checkpoint-every DURATION */
static bool opt_ckpt_every(void *target, const char *opt, const char *v, char *msg,
                           size_t size)
{
    run_args_t *t = target;
    return run_ckpt_parse_duration(&t->ckpt, opt, v, msg, size);
}

static const cli_opt_t trace_opts[] = {
    {.name = "--trace", .kind = CLI_ARG_STRING, .off = offsetof(run_args_t, path)},
    {.name = "--trace-window", .kind = CLI_ARG_CUSTOM, .parse = cli_trace_opt_window},
    {.name = "--trace-max-events", .kind = CLI_ARG_CUSTOM, .parse = cli_trace_opt_max_events},
    {.name = "--trace-level", .kind = CLI_ARG_CUSTOM, .parse = cli_trace_opt_level},
    {.name = "--sweep-axes", .kind = CLI_ARG_STRING, .off = offsetof(run_args_t, sweep_axes),
     .metavar = "KEY,..."},
    {.name = "--progress-fd", .kind = CLI_ARG_U64, .off = offsetof(run_args_t, progress_fd),
     .lo = 1, .hi = 1 << 20, .expect = "expected an open file descriptor number >= 1"},
    {.name = "--checkpoint", .kind = CLI_ARG_STRING, .off = offsetof(run_args_t, ckpt.path),
     .metavar = "FILE"},
    {.name = "--resume", .kind = CLI_ARG_STRING, .off = offsetof(run_args_t, ckpt.resume),
     .metavar = "FILE"},
    {.name = "--checkpoint-every", .kind = CLI_ARG_CUSTOM, .parse = opt_ckpt_every,
     .metavar = "DURATION"},
    {.name = "--checkpoint-every-updates", .kind = CLI_ARG_U64,
     .off = offsetof(run_args_t, ckpt.every_updates), .lo = 1, .hi = INT64_MAX,
     .expect = "expected a number of updates >= 1"},
    {.name = "--checkpoint-exit-at", .kind = CLI_ARG_U64,
     .off = offsetof(run_args_t, ckpt.exit_at), .lo = 1, .hi = INT64_MAX,
     .expect = "expected an update number >= 1"},
    {.name = NULL},
};

/* The shared scenario options and run's --trace ones; 0, or the exit code after the
 * message (with --help: 0 and o->help, after the usage text). */
static int parse_run_args(int argc, char **argv, cli_opts_t *o, run_args_t *t)
{
    *t = (run_args_t){.trace = cli_trace_args_default()};
    cli_opt_set_t extra = {trace_opts, t, 0};
    int rc = cli_parse_opts("run", argc, argv,
                            CLI_OPT_DB | CLI_OPT_SEED | CLI_OPT_QUIET | CLI_OPT_BACKEND |
                                CLI_OPT_NUMERICS | CLI_OPT_TAG, &extra, o);
    if (rc == 0 && o->help) usage(stdout);
    if (rc == 0 && !o->help && t->trace.needs_trace && !t->path)
        rc = cli_bad_input("run: %s: only valid with --trace FILE", t->trace.needs_trace);
    if (rc == 0 && !o->help) rc = run_ckpt_check_args(&t->ckpt);
    return rc;
}

/* Whether key is the key of one of the --set assignments ("key=value"). */
static bool is_set_key(const cli_opts_t *o, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i < o->set_args.n; i++)
        if (strncmp(o->set_args.v[i], key, n) == 0 && o->set_args.v[i][n] == '=') return true;
    return false;
}

/* --sweep-axes "k1,k2" (empty: a sweep without axes) as the JSON array ["k1","k2"] in *json
 * (new string); every key must be one that a --set assigns, as each of a sweep point's axes
 * is.  0, or the exit code after the message. */
static int sweep_axes_json(const cli_opts_t *o, const char *list, char **json)
{
    cJSON *a = cJSON_CreateArray();
    char *copy = sgd_xstrdup(list);
    int rc = SGD_EXIT_OK;
    for (char *k = copy, *next; *list && k && rc == SGD_EXIT_OK; k = next) {
        next = strchr(k, ',');
        if (next) *next++ = '\0';
        if (!*k || !is_set_key(o, k))
            rc = cli_bad_input("run: --sweep-axes %s: \"%s\" is not the key of a --set (a "
                               "sweep point's axes are its --set keys)", list, k);
        else
            cJSON_AddItemToArray(a, cJSON_CreateString(k));
    }
    if (rc == SGD_EXIT_OK) *json = cJSON_PrintUnformatted(a);
    SGD_ASSERT(rc != SGD_EXIT_OK || *json);
    cJSON_Delete(a);
    free(copy);
    return rc;
}

/* Everything a run holds open; run_open fills it, run_close frees what is set. */
typedef struct run_state {
    scn_t s;
    bool loaded;
    alg_prepared_t *prepared; /* the run, built before the database is opened */
    run_sink_t r;
    sim_trace_t *trace;
    const char *trace_path;
    const char *db_path;
    run_ckpt_t ckpt;
} run_state_t;

static void run_close(run_state_t *st)
{
    run_ckpt_close(&st->ckpt);
    alg_prepared_free(st->prepared);
    free(st->r.sweep_axes);
    free(st->r.command_line);
    sim_trace_discard(st->trace); /* still open: the run was refused before it began */
    if (st->r.db) rdb_close(st->r.db);
    if (st->loaded) scn_free(&st->s);
    for (size_t i = 0; i < st->r.ntags; i++) free((char *)st->r.tags[i].key);
    free(st->r.tags);
}

/* The checked --tag arguments as the database's (key, value) pairs. */
static void split_tags(const cli_list_t *args, run_sink_t *r)
{
    r->tags = sgd_xcalloc((size_t)args->n + 1, sizeof *r->tags);
    for (int i = 0; i < args->n; i++) {
        size_t n = strcspn(args->v[i], "=");
        char *key = sgd_xmalloc(n + 1);
        memcpy(key, args->v[i], n);
        key[n] = '\0';
        r->tags[r->ntags++] = (rdb_tag_t){.key = key, .value = args->v[i] + n + 1};
    }
}

/* Builds the run (everything a run needs, checked: cli_prepare_run) into the open trace;
 * a refusal is the scenario's message, exit 2. */
static int run_prepare(run_state_t *st)
{
    sgd_err_t err = {{0}};
    alg_prepare_opts_t po = {.trace = st->trace, .backend = ALG_BACKEND_NEEDED};
    if (cli_prepare_run(&st->s, &po, &st->prepared, &err)) return cli_bad_input("%s", err.msg);
    return 0;
}

/* --db, --trace, --checkpoint and --progress-fd must reach none of the run's inputs (the
 * scenario, its data files, the checkpoint given with --resume, the database and its
 * companions), and --trace and --progress-fd not the checkpoint either; checked before
 * anything is written.  The checkpoint may be the --resume file: it goes on there. */
static int check_outputs(const run_args_t *t, const run_state_t *st, bool db_given)
{
    sgd_outpath_input_t in[CLI_OUTPATH_SCENARIO_MAX + 3], ck[CLI_OUTPATH_SCENARIO_MAX + 1];
    size_t n = cli_outpath_scenario_inputs(st->s.path, &st->s, in);
    memcpy(ck, in, n * sizeof *in);
    size_t nck = n;
    const char *resume = st->ckpt.resume;
    if (resume) in[n++] = (sgd_outpath_input_t){resume, "the checkpoint given with --resume", false};
    const char *db_opt = db_given ? "--db" : "the default --db";
    int rc = cli_outpath_refuse("run", db_opt, st->db_path, true, in, n);
    in[n++] = ck[nck++] =
        (sgd_outpath_input_t){st->db_path, "the results database given with --db", true};
    if (!rc && st->ckpt.path)
        rc = cli_outpath_refuse("run", "--checkpoint", st->ckpt.path, false, ck, nck);
    if (st->ckpt.path && st->ckpt.path != resume)
        in[n++] = (sgd_outpath_input_t){st->ckpt.path, "the checkpoint file given with "
                                                       "--checkpoint", false};
    if (!rc && t->path) rc = cli_outpath_refuse("run", "--trace", t->path, false, in, n);
    if (!rc && st->r.progress_fd)
        rc = cli_outpath_refuse_fd("run", "--progress-fd", st->r.progress_fd, in, n);
    return rc;
}

/* A stop signal before the run began: nothing was written (no row, no checkpoint; the
 * trace is discarded), so there is nothing to resume but the run itself, which is not
 * failed: exit 75, "try again later", as a run stopped with a checkpoint. */
static int stopped_before_start(const run_state_t *st)
{
    const char *sig = cli_run_signals_name(cli_run_signals_caught());
    if (st->ckpt.resume)
        fprintf(stderr, "sgdsim: run: stopped by %s before the run went on; %s and %s are as "
                "they were (resume it again)\n", sig, st->db_path, st->ckpt.resume);
    else
        fprintf(stderr, "sgdsim: run: stopped by %s before the run began; nothing was "
                "recorded (run it again)\n", sig);
    return RUN_EXIT_CHECKPOINTED;
}

/* Loads the scenario (which may start the program again on another BLAS kernel, so before
 * anything is opened), opens the trace, builds the run and only then opens the database.
 * argv[0..argc) is run's command line after "sgdsim run", recorded with the run. */
static int run_open(const cli_opts_t *o, const run_args_t *t, int argc, char **argv,
                    run_state_t *st)
{
    sgd_err_t err = {{0}};
    memset(st, 0, sizeof *st);
    st->db_path = o->db ? o->db : CLI_DEFAULT_DB;
    char *axes = NULL;
    int rc = t->sweep_axes ? sweep_axes_json(o, t->sweep_axes, &axes) : 0;
    if (rc == 0) rc = cli_load_scenario(o, &st->s);
    if (rc) {
        free(axes);
        return rc;
    }
    st->loaded = true;
    st->r = (run_sink_t){.scn = &st->s, .progress = !o->quiet && isatty(2), .sweep_axes = axes,
                         .command_line = cli_shell_words("sgdsim run", argc, argv),
                         .progress_fd = (int)t->progress_fd};
    split_tags(&o->tags, &st->r);
    st->ckpt = t->ckpt;
    st->r.ckpt = &st->ckpt;
    st->trace_path = t->path;
    if (st->r.progress_fd && fcntl(st->r.progress_fd, F_GETFD) < 0)
        return cli_bad_input("run: --progress-fd %d: not an open file descriptor",
                             st->r.progress_fd);
    if ((rc = check_outputs(t, st, o->db != NULL)) || (rc = run_ckpt_check_target(&st->ckpt)))
        return rc;
    /* A run is resumed in the database it began in: a --db that is not there is the wrong
     * one, and is not created (with an empty schema) only to be refused. */
    if (st->ckpt.resume && access(st->db_path, F_OK) != 0)
        return cli_bad_input("run: --resume %s: %s %s: no such database (a run is resumed in "
                             "the database it began in)", st->ckpt.resume,
                             o->db ? "--db" : "the default --db", st->db_path);
    /* A reader that went away must not kill the run: the write fails, and that is all. */
    if (st->r.progress_fd) signal(SIGPIPE, SIG_IGN);
    if (gethostname(st->r.host, sizeof st->r.host) != 0)
        snprintf(st->r.host, sizeof st->r.host, "unknown");
    st->r.host[sizeof st->r.host - 1] = '\0';
    if (t->path && sim_trace_open(t->path, &t->trace.opts, &st->trace, &err))
        return cli_bad_input("%s", err.msg);
    if ((rc = run_prepare(st)) != 0) return rc;
    if ((rc = run_ckpt_prepare(&st->ckpt, &st->s, st->prepared, st->db_path)) != 0) return rc;
    run_ckpt_note_trace(&st->ckpt, st->trace);
    /* Loading and building take time: a stop signal meanwhile leaves even the database
     * unopened (cli/run_signals.h). */
    if (cli_run_signals_caught()) return stopped_before_start(st);
    if (rdb_open(st->db_path, &st->r.db, &err)) return cli_bad_input("%s", err.msg);
    return 0;
}

/* Closes the trace (its error, if any, into trace_err) and writes the run's end; returns
 * the exit code that follows what the database now holds. */
static int record_end(run_state_t *st, const alg_outcome_t *o, char *trace_err, size_t size,
                      rdb_run_end_t *end)
{
    sgd_err_t err = {{0}};
    /* The trace is finished before the run's end is written, so that a trace that could
     * not be written makes the run 'failed' in the database, as in the exit code. */
    if (sim_trace_close(st->trace, &err)) snprintf(trace_err, size, "trace %s", err.msg);
    else if (st->trace &&
             rdb_artifact_file(st->r.db, st->r.run_id, "trace", st->trace_path, &err))
        snprintf(trace_err, size, "trace not recorded: %s", err.msg);
    st->trace = NULL;
    *end = (rdb_run_end_t){
        .status = trace_err[0] && o->status == ALG_COMPLETE ? "failed" : status_name(o->status),
        .status_detail = o->detail[0] ? o->detail : trace_err[0] ? trace_err : NULL,
        .vtime_ns = o->vtime_ns,
        .updates = o->updates,
        .events = (int64_t)o->events,
        .wall_s = o->wall_s,
        .events_per_s = o->events_per_s,
        .digest = o->digest,
    };
    const char *stored = end_run(st->r.db, st->r.run_id, end);
    if (strcmp(end->status, "complete") != 0)
        fprintf(stderr, "sgdsim: run %s: %s\n", end->status,
                end->status_detail ? end->status_detail : "");
    if (trace_err[0] && o->detail[0]) fprintf(stderr, "sgdsim: %s\n", trace_err);
    end->status = stored; /* NULL: still 'running' */
    return !stored ? SGD_EXIT_FAILURE
           : strcmp(stored, "complete") == 0 ? SGD_EXIT_OK
           : strcmp(stored, "diverged") == 0 ? SGD_EXIT_DIVERGED : SGD_EXIT_FAILURE;
}

/* The summary on stdout (not with --quiet); a run without a clock (analysis/clock.h) says
 * so where the virtual time would be, as report and show do. */
static void print_summary(const run_state_t *st, const alg_outcome_t *o, const char *stored)
{
    const run_sink_t *r = &st->r;
    char vtime[64];
    if (ana_config_has_clock(st->s.resolved_json))
        snprintf(vtime, sizeof vtime, "%.3f s virtual time", (double)o->vtime_ns * 1e-9);
    else
        snprintf(vtime, sizeof vtime, "%s", ANA_NO_CLOCK_TEXT);
    printf("run %lld: %s, %s, %lld worker%s, %lld update%s, %s, %llu event%s "
           "(%.3g events/s)\n",
           (long long)r->run_id, stored ? stored : "running", st->s.algorithm,
           (long long)st->s.workers, st->s.workers == 1 ? "" : "s", (long long)o->updates,
           o->updates == 1 ? "" : "s", vtime,
           (unsigned long long)o->events, o->events == 1 ? "" : "s", o->events_per_s);
    if (o->grad_calls > 0)
        printf("gradients: %llu in %llu backend call%s\n", (unsigned long long)o->grads,
               (unsigned long long)o->grad_calls, o->grad_calls == 1 ? "" : "s");
    if (r->have_val)
        printf("final: train_loss %.4f  val_loss %.4f  val_error %.4f\n", r->final_train_loss,
               r->final_val_loss, r->final_val_error);
    printf("digest %s\nresults: %s (run id %lld; try: sqlite3 %s \"" RDB_EXAMPLE_QUERY
           "\")\n",
           o->digest, st->db_path, (long long)r->run_id, st->db_path);
}

/* Runs the simulation into the open state and records its end; returns the exit code. */
static int run_simulation(run_state_t *st, const cli_opts_t *opts, const run_args_t *t)
{
    sgd_err_t err = {{0}};
    alg_sink_t sink = {.ctx = &st->r, .begin = sink_begin, .metric = sink_metric,
                       .traffic = sink_traffic, .staleness = sink_staleness,
                       .version_age = sink_version_age, .client_labels = sink_client_labels,
                       .progress = sink_progress, .trace = st->trace};
    /* The signals are caught since main(): one that came before the run's row exists
     * stops it here, with nothing recorded.  From here on the runner takes it, at the next
     * update (Ctrl-C: stored failed, with its rows; SIGTERM or SIGUSR1 with --checkpoint: a
     * checkpoint, then exit 75). */
    if (cli_run_signals_caught()) return stopped_before_start(st);
    run_ckpt_arm(&st->ckpt, st->prepared);
    alg_outcome_t o;
    if (alg_execute(st->prepared, &sink, &o, &err))
        return cli_bad_input("%s: %s", st->s.path, err.msg);
    if (o.status == ALG_CHECKPOINTED) run_ckpt_detail(&st->ckpt, &o, o.detail, sizeof o.detail);
    if (st->r.progress) fputc('\n', stderr);
    uint64_t written = st->trace ? sim_trace_written(st->trace) : 0;
    uint64_t dropped = st->trace ? sim_trace_dropped(st->trace) : 0;
    char trace_err[SGD_ERR_MAX + 32] = "";
    rdb_run_end_t end;
    int rc = record_end(st, &o, trace_err, sizeof trace_err, &end);
    if (t->path && !trace_err[0] && !opts->quiet)
        printf("trace: %s (%llu event%s%s)\n", t->path, (unsigned long long)written,
               written == 1 ? "" : "s",
               dropped ? "; more events than --trace-max-events were left out" : "");
    if (!opts->quiet) print_summary(st, &o, end.status);
    free(o.final_params);
    if (o.status == ALG_CHECKPOINTED && end.status && strcmp(end.status, "failed") == 0)
        return RUN_EXIT_CHECKPOINTED;
    return rc;
}

int cli_run_main(int argc, char **argv)
{
    cli_opts_t opts;
    run_args_t t;
    run_state_t st = {0};
    int rc = parse_run_args(argc, argv, &opts, &t);
    if (rc == 0 && !opts.help) rc = run_open(&opts, &t, argc, argv, &st);
    if (rc == 0 && !opts.help) rc = run_simulation(&st, &opts, &t);
    run_close(&st);
    cli_opts_free(&opts);
    return rc;
}
