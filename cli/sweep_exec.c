/* The sweep executor shared by both drivers of `sgdsim sweep` (cmd_sweep.c on one machine,
 * sweep_mpi.c for each MPI rank): which planned points are still to run in a database, and
 * the -j N process pool that runs them as `sgdsim run` children (sweep_exec.h), resuming
 * those with a checkpoint (sweep_ckpt.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/machine.h"
#include "cli/sweep_exec.h"
#include "cli/sweep_live.h"
#include "common/clock.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

int cli_sweep_pending(const char *db_path, const cli_sweep_plan_t *plan, const int *idx, int n,
                      int *out, int *nout, sgd_err_t *err)
{
    rdb_t *db;
    *nout = 0;
    if (rdb_open(db_path, &db, err)) return -1;
    for (int i = 0; i < n; i++) {
        bool done;
        if (rdb_key_finished(db, plan->points[idx[i]].run_key, &done, err)) {
            rdb_close(db);
            return -1;
        }
        if (!done) out[(*nout)++] = idx[i];
    }
    rdb_close(db);
    return 0;
}

/* ---- the process pool --------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

typedef struct slot {
    pid_t pid;
    int point;
    double t0;
    bool resumed; /* started with --resume from its checkpoint */
} slot_t;

/* The point's axes for --sweep-axes: the keys of its assignments, comma-separated (a new
 * string; "" for a point without axes).  Only what the user swept is an axis, never a
 * default that follows a swept key. */
static char *point_axes(const cli_sweep_point_t *pt)
{
    size_t cap = 1;
    for (int i = 0; i < pt->nsets; i++) cap += strlen(pt->sets[i]) + 1;
    char *out = sgd_xmalloc(cap);
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < pt->nsets; i++) {
        size_t klen = strcspn(pt->sets[i], "=");
        len += (size_t)snprintf(out + len, cap - len, "%s%.*s", i ? "," : "", (int)klen,
                                pt->sets[i]);
    }
    return out;
}

/* Starts `sgdsim run` for one point (with --progress-fd progress_fd unless it is -1, and
 * the checkpoint options of pc); returns the child's pid or -1 (errno set). */
static pid_t spawn_point(const char *self, const cli_sweep_exec_t *x, const cli_sweep_point_t *pt,
                         const cli_sweep_point_ckpt_t *pc, int progress_fd)
{
    char seed_buf[32], threads_buf[32], fd_buf[32], ckpt_buf[32];
    char *axes = point_axes(pt);
    const char **argv = sgd_xcalloc((size_t)(2 * pt->nsets + 2 * x->ntags + 20 +
                                             CLI_SWEEP_CKPT_MAX_ARGS), sizeof *argv);
    int a = 0;
    argv[a++] = self;
    argv[a++] = "run";
    argv[a++] = x->scenario;
    argv[a++] = "--db";
    argv[a++] = x->db;
    argv[a++] = "--quiet";
    argv[a++] = "--sweep-axes";
    argv[a++] = axes;
    if (x->seed) {
        snprintf(seed_buf, sizeof seed_buf, "%llu", (unsigned long long)*x->seed);
        argv[a++] = "--seed";
        argv[a++] = seed_buf;
    }
    for (int i = 0; i < pt->nsets; i++) {
        argv[a++] = "--set";
        argv[a++] = pt->sets[i];
    }
    for (int i = 0; i < x->ntags; i++) {
        argv[a++] = "--tag";
        argv[a++] = x->tags[i];
    }
    if (x->blas_core) {
        argv[a++] = "--blas-core";
        argv[a++] = x->blas_core;
    }
    if (x->threads || pt->threads_auto > 0) {
        snprintf(threads_buf, sizeof threads_buf, "%lld", (long long)pt->threads_auto);
        argv[a++] = "--threads";
        argv[a++] = x->threads ? x->threads : threads_buf;
    }
    if (progress_fd >= 0) {
        snprintf(fd_buf, sizeof fd_buf, "%d", progress_fd);
        argv[a++] = "--progress-fd";
        argv[a++] = fd_buf;
    }
    a = cli_sweep_ckpt_argv(x->ckpt, pc, argv, a, ckpt_buf);
    argv[a] = NULL;
    /* Built before fork(), so the child sets up nothing but the signals before execve. */
    char **env = cli_machine_child_env(pt->blas_core);
    pid_t parent = getpid();
    fflush(NULL);
    /* The stop signals stay blocked in the child until the point's `run` has its handlers
     * (cli/run_signals.h): one sent to the process group while the point starts is pending
     * through the exec, never the default action of a process not yet ready for it. */
    sigset_t stops, old;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGUSR1);
    sigprocmask(SIG_BLOCK, &stops, &old);
    pid_t pid = fork();
    if (pid == 0) {
        /* A sweep killed with SIGKILL must not leave points running on their own: they
         * would finish into the database behind a resumed sweep's back. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGUSR1, SIG_DFL);
        if (progress_fd >= 0) fcntl(progress_fd, F_SETFD, 0); /* the one pipe it keeps */
        execve(self, (char *const *)argv, env);
        fprintf(stderr, "sgdsim sweep: cannot run %s: %s\n", self, strerror(errno));
        _exit(SGD_EXIT_FAILURE);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    cli_machine_env_free(env);
    free(argv);
    free(axes);
    return pid;
}

static const char *point_label(const cli_sweep_point_t *pt)
{
    return pt->label[0] ? pt->label : "(the scenario as is)";
}

/* One finished point's line; under --quiet only a point that did not end well (failed, bad
 * input, checkpointed) has one, so that a sweep's exit code always comes with its reason. */
static void progress_line(const cli_sweep_exec_t *x, cli_sweep_live_t *live, const char *what,
                          const cli_sweep_point_t *pt, double secs, int done, int total,
                          int running, double eta, bool ended_well)
{
    if (x->quiet && ended_well) return;
    cli_sweep_live_clear(live);
    fprintf(stderr, "sweep: %s%-9s %s (%.1f s) | %d/%d done, %d running", x->who, what,
            point_label(pt), secs, done, total, running);
    if (eta >= 0) fprintf(stderr, ", ETA %.0f s", eta);
    fputc('\n', stderr);
}

/* A running pool: what it runs, its children and its counts. */
typedef struct pool {
    const cli_sweep_exec_t *x;
    const cli_sweep_plan_t *plan;
    const int *idx;
    int n;
    int ntotal, nalready; /* for the progress line only (cli_sweep_execute) */
    const char *self;     /* this executable, which the points run */
    rdb_t *db;        /* x->db */
    slot_t *slots;    /* x->jobs slots; pid 0 = free */
    int nrunning, next, finished, skipped, nfailed, ndiverged, ninvalid, ncheckpointed;
    int *busy, nbusy; /* points not started: a live run of another process holds them */
    int rc;
    bool stop_launching;
    int forwarded; /* the signal passed on to the running points, 0 before */
    double t_start;
    cli_sweep_live_t *live; /* the status line on a terminal, or NULL */
} pool_t;

/* How bad an exit code is: a bad input over a failure over a checkpointed stop over 0. */
static int rc_rank(int code)
{
    return code == SGD_EXIT_BAD_INPUT ? 3 : code == SGD_EXIT_FAILURE ? 2
           : code == SWEEP_EXIT_CHECKPOINTED ? 1 : 0;
}

/* The pool's exit code becomes `code` unless it is already worse. */
static void raise_rc(pool_t *p, int code)
{
    if (rc_rank(code) > rc_rank(p->rc)) p->rc = code;
}

/* A point that another process's live run holds (its owner alive, results/rdb_lease.h): it
 * is not started, so that two runs never race for one point, and is looked at again when the
 * pool ends. */
static void point_busy(pool_t *p, const cli_sweep_point_t *pt, const rdb_live_run_t *live)
{
    p->busy[p->nbusy++] = (int)(pt - p->plan->points);
    if (p->x->quiet) return;
    cli_sweep_live_clear(p->live);
    if (live->this_host)
        fprintf(stderr, "sweep: %snot starting %s: run %lld of this point is still running "
                "(pid %lld on this host); it is left alone\n", p->x->who, point_label(pt),
                (long long)live->id, (long long)live->pid);
    else /* a heartbeat ahead of this host's clock (RDB_LEASE_AHEAD_MS at most) is said so */
        fprintf(stderr, "sweep: %snot starting %s: run %lld of this point is still running "
                "(pid %lld on host %s, last commit %lld s %s); it is left alone\n", p->x->who,
                point_label(pt), (long long)live->id, (long long)live->pid, live->host,
                (long long)(live->heartbeat_age_s < 0 ? -live->heartbeat_age_s
                                                      : live->heartbeat_age_s),
                live->heartbeat_age_s < 0 ? "ahead of this host's clock" : "ago");
}

/* When the pool ends: a busy point whose other run has finished meanwhile is done; the
 * others are not, and the sweep says so and fails, so that it is run again. */
static void settle_busy(pool_t *p)
{
    int left = 0;
    for (int i = 0; i < p->nbusy; i++) {
        const cli_sweep_point_t *pt = &p->plan->points[p->busy[i]];
        sgd_err_t err = {{0}};
        bool done = false;
        if (rdb_key_finished(p->db, pt->run_key, &done, &err))
            fprintf(stderr, "sgdsim: %s\n", err.msg);
        if (done) p->skipped++;
        else p->busy[left++] = p->busy[i];
    }
    p->nbusy = left;
    if (left == 0) return;
    raise_rc(p, SGD_EXIT_FAILURE);
    fprintf(stderr, "sweep: %s%d point%s still being run by another process; run the sweep "
            "again once %s ended\n", p->x->who, left, left == 1 ? " is" : "s are",
            left == 1 ? "it has" : "they have");
}

/* What the pool does with the point it is about to start. */
typedef enum point_next { POINT_START, POINT_DONE, POINT_BUSY, POINT_STOP } point_next_t;

/* The database or a checkpoint cannot be used: no new point starts, exit code 2. */
static point_next_t point_stop(pool_t *p, const sgd_err_t *err)
{
    fprintf(stderr, "sgdsim: %s\n", err->msg);
    raise_rc(p, SGD_EXIT_BAD_INPUT);
    p->stop_launching = true;
    return POINT_STOP;
}

static void say_start(pool_t *p, const cli_sweep_point_t *pt, const cli_sweep_point_ckpt_t *pc,
                      int ndel)
{
    const cli_sweep_exec_t *x = p->x;
    if (x->quiet || (!ndel && !pc->resume)) return;
    cli_sweep_live_clear(p->live);
    if (pc->resume)
        fprintf(stderr, "sweep: %sresuming %s after update %lld from %s", x->who,
                point_label(pt), (long long)pc->meta.updates, pc->path);
    else
        fprintf(stderr, "sweep: %sredoing %s", x->who, point_label(pt));
    if (ndel) fprintf(stderr, " (removed %d unfinished earlier run%s)", ndel, ndel > 1 ? "s" : "");
    fputc('\n', stderr);
}

/* Checked again at launch, since another shard or an earlier pass may have done the point:
 * whether it is done (its checkpoint then goes), held by another live process, or to be
 * started -- from its checkpoint when it has one (pc), after the rows of its other
 * unfinished attempts are deleted, so that the point's final run is its only run, as in a
 * sweep that was never interrupted. */
static point_next_t prepare_point(pool_t *p, const cli_sweep_point_t *pt,
                                  cli_sweep_point_ckpt_t *pc)
{
    const cli_sweep_exec_t *x = p->x;
    sgd_err_t err = {{0}};
    bool done;
    int ndel = 0, nlive = 0;
    rdb_live_run_t live;
    memset(pc, 0, sizeof *pc);
    if (rdb_key_finished(p->db, pt->run_key, &done, &err)) return point_stop(p, &err);
    if (done) {
        cli_sweep_ckpt_remove(x->ckpt, pt->run_key);
        return POINT_DONE;
    }
    if (cli_sweep_ckpt_on(x->ckpt) && cli_sweep_ckpt_find(x->ckpt, pt->run_key, pc, &err))
        return point_stop(p, &err);
    rdb_keep_run_t keep = {.id = pc->meta.run_id, .started_at = pc->meta.run_started};
    if (rdb_delete_unfinished(p->db, pt->run_key, pc->resume ? &keep : NULL, &ndel, &nlive,
                              &live, &err))
        return point_stop(p, &err);
    if (pc->resume && !keep.found) {
        sgd_errf(&err, "sweep: %s: its checkpoint %s continues run %lld (started %s), which "
                 "%s does not hold as an unfinished run of this point -- a checkpoint of "
                 "another database, or a run deleted since; nothing was changed (give the "
                 "sweep the --db it belongs to, or remove the file to redo the point from "
                 "update 0)", point_label(pt), pc->path, (long long)pc->meta.run_id,
                 pc->meta.run_started, x->db);
        return point_stop(p, &err);
    }
    if (nlive) {
        point_busy(p, pt, &live);
        return POINT_BUSY;
    }
    say_start(p, pt, pc, ndel);
    return POINT_START;
}

/* Starts point pt (its checkpoint pc) in a free slot; false when no process can start. */
static bool start_point(pool_t *p, const cli_sweep_point_t *pt, const cli_sweep_point_ckpt_t *pc)
{
    int s = 0;
    while (p->slots[s].pid) s++;
    int progress_fd = cli_sweep_live_open(p->live, s, (int)(pt - p->plan->points), pt->updates);
    p->slots[s].pid = spawn_point(p->self, p->x, pt, pc, progress_fd);
    cli_sweep_live_started(p->live, s);
    if (p->slots[s].pid < 0) {
        fprintf(stderr, "sgdsim: sweep: cannot start a process: %s\n", strerror(errno));
        p->slots[s].pid = 0;
        cli_sweep_live_ended(p->live, s, false);
        raise_rc(p, SGD_EXIT_FAILURE);
        p->stop_launching = true;
        return false;
    }
    p->slots[s].point = (int)(pt - p->plan->points);
    p->slots[s].t0 = sgd_monotonic_s();
    p->slots[s].resumed = pc->resume;
    p->nrunning++;
    return true;
}

/* Starts points until the pool is full, the list is done or something stops it. */
static void launch_points(pool_t *p)
{
    while (!p->stop_launching && !stop_signal && p->nrunning < p->x->jobs && p->next < p->n) {
        const cli_sweep_point_t *pt = &p->plan->points[p->idx[p->next++]];
        cli_sweep_point_ckpt_t pc;
        point_next_t next = prepare_point(p, pt, &pc);
        if (next == POINT_DONE) {
            p->skipped++;
            cli_sweep_live_skipped(p->live, pt->updates);
        }
        bool started = next == POINT_START && start_point(p, pt, &pc);
        cli_sweep_point_ckpt_free(&pc);
        if (next == POINT_STOP || (next == POINT_START && !started)) return;
    }
}

/* The exit code of a finished point, checked against the database: a run that ended well
 * must carry the planned key, or the next sweep would not recognise the point as done.  A
 * point that the signal the sweep passed on killed before its run could take it (between
 * fork and the run's handler) has lost nothing a checkpoint holds: with checkpoints it
 * counts as checkpointed, as the run would have. */
static int point_outcome(pool_t *p, const cli_sweep_point_t *pt, int status)
{
    sgd_err_t err = {{0}};
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (WIFSIGNALED(status) && p->forwarded && WTERMSIG(status) == p->forwarded &&
        cli_sweep_ckpt_on(p->x->ckpt))
        return SWEEP_EXIT_CHECKPOINTED;
    if (code != SGD_EXIT_OK && code != SGD_EXIT_DIVERGED) return code;
    bool done = false;
    if (rdb_key_finished(p->db, pt->run_key, &done, &err) || !done) {
        fprintf(stderr, "sgdsim: sweep: %s finished but %s has no finished run with its key "
                "%.12s (was the scenario file changed during the sweep?)\n", pt->label,
                p->x->db, pt->run_key);
        return SGD_EXIT_FAILURE;
    }
    return code;
}

/* Counts a point's outcome (exit code `code`) and what it means for the pool's exit code. */
static void book_outcome(pool_t *p, int code)
{
    if (code == SGD_EXIT_DIVERGED) p->ndiverged++;
    if (code == SGD_EXIT_OK || code == SGD_EXIT_DIVERGED) return;
    if (code == SWEEP_EXIT_CHECKPOINTED) { /* not over, nothing lost: the next sweep goes on */
        p->ncheckpointed++;
        raise_rc(p, code);
        return;
    }
    if (code == SGD_EXIT_BAD_INPUT && p->x->skip_invalid) {
        p->ninvalid++; /* its own message is on stderr already; the others may be fine */
        return;
    }
    p->nfailed++;
    if (code == SGD_EXIT_BAD_INPUT) {
        /* The same mistake (a missing data file, a batch larger than the data) would fail
         * the remaining points too: stop starting new ones. */
        p->stop_launching = true;
        raise_rc(p, SGD_EXIT_BAD_INPUT);
    } else {
        raise_rc(p, SGD_EXIT_FAILURE);
    }
}

/* What a point's end means for its checkpoint: a finished point deletes it; one that could
 * not be resumed from it keeps it, and the user is told what to do. */
static void settle_checkpoint(pool_t *p, const slot_t *slot, const cli_sweep_point_t *pt,
                              int code)
{
    const cli_sweep_ckpt_t *c = p->x->ckpt;
    if (code == SGD_EXIT_OK || code == SGD_EXIT_DIVERGED) cli_sweep_ckpt_remove(c, pt->run_key);
    if (code == SGD_EXIT_BAD_INPUT && slot->resumed)
        fprintf(stderr, "sgdsim: sweep: %s: its checkpoint %s/%s.ckpt was refused (above) and "
                "is kept, with the run it continues; resume it with the sgdsim, scenario and "
                "database that wrote it, or remove it to redo the point from update 0\n",
                point_label(pt), c->dir, pt->run_key);
}

/* Books the end of the child in slot s (exit status `status`) and prints its line. */
static void point_finished(pool_t *p, int s, int status)
{
    const cli_sweep_point_t *pt = &p->plan->points[p->slots[s].point];
    double secs = sgd_monotonic_s() - p->slots[s].t0;
    p->slots[s].pid = 0;
    p->nrunning--;
    p->finished++;
    int code = point_outcome(p, pt, status);
    cli_sweep_live_ended(p->live, s, code == SGD_EXIT_OK);
    const char *what = code == SGD_EXIT_OK ? "complete"
                       : code == SGD_EXIT_DIVERGED ? "diverged"
                       : code == SWEEP_EXIT_CHECKPOINTED ? "checkpointed"
                       : code == SGD_EXIT_BAD_INPUT ? "bad input" : "failed";
    book_outcome(p, code);
    settle_checkpoint(p, &p->slots[s], pt, code);
    double elapsed = sgd_monotonic_s() - p->t_start;
    int left = p->n - p->finished - p->skipped - p->nbusy;
    double eta = p->stop_launching || stop_signal ? -1 : elapsed / p->finished * left;
    progress_line(p->x, p->live, what, pt, secs, p->nalready + p->skipped + p->finished,
                  p->ntotal, p->nrunning, eta, code == SGD_EXIT_OK || code == SGD_EXIT_DIVERGED);
}

/* Waits (polling) for one child to end; false when the pool must stop waiting. */
static bool reap_one(pool_t *p)
{
    /* Polled rather than blocking, so a stop signal that lands just before the wait is
     * still passed on at once. */
    if (stop_signal && !p->forwarded) {
        /* A polite stop: each point ends after its current update and is stored as failed,
         * which the next sweep redoes -- or, with a checkpoint file, writes its checkpoint
         * first, from which the next sweep resumes it.  `run` takes SIGTERM and SIGUSR1
         * alike, and a second signal of one kind kills it at once; the points may have had
         * the sweep's signal too (Ctrl-C, kill of the process group, a scheduler signalling
         * every process of the job), so they are sent the other kind. */
        p->forwarded = stop_signal == SIGTERM ? SIGUSR1 : SIGTERM;
        for (int s = 0; s < p->x->jobs; s++)
            if (p->slots[s].pid) kill(p->slots[s].pid, p->forwarded);
    }
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0 || (pid < 0 && errno == EINTR)) {
        cli_sweep_live_poll(p->live);
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        return true;
    }
    if (pid < 0) {
        fprintf(stderr, "sgdsim: sweep: waitpid: %s\n", strerror(errno));
        p->rc = SGD_EXIT_FAILURE;
        return false;
    }
    int s = 0;
    while (s < p->x->jobs && p->slots[s].pid != pid) s++;
    if (s < p->x->jobs) point_finished(p, s, status); /* else not one of ours */
    return true;
}

/* The sweep's last line; under --quiet only when it fails, where it says why. */
static void print_totals(const pool_t *p)
{
    if (p->x->quiet && p->rc == SGD_EXIT_OK) return;
    int ndone = p->finished - p->nfailed - p->ninvalid - p->ncheckpointed;
    int ninvalid = p->ninvalid + p->x->ninvalid;
    fprintf(stderr, "sweep: %s%d point%s done (%d complete, %d diverged), %d failed",
            p->x->who, ndone, ndone == 1 ? "" : "s", ndone - p->ndiverged, p->ndiverged,
            p->nfailed);
    if (p->ncheckpointed) fprintf(stderr, ", %d checkpointed", p->ncheckpointed);
    if (ninvalid || p->x->skip_invalid) fprintf(stderr, ", %d invalid", ninvalid);
    if (p->nbusy) fprintf(stderr, ", %d running in another process", p->nbusy);
    bool preempted = stop_signal && stop_signal != SIGINT && cli_sweep_ckpt_on(p->x->ckpt);
    fprintf(stderr, ", %d already done%s\n", p->nalready + p->skipped,
            preempted ? "; stopped with checkpoints (run the sweep again to go on)"
            : stop_signal ? "; interrupted" : p->next < p->n ? "; stopped early" : "");
}

int cli_sweep_execute(const cli_sweep_exec_t *x, const cli_sweep_plan_t *plan, const int *idx,
                      int n, int ntotal, int nalready)
{
    sgd_err_t err = {{0}};
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return cli_bad_input("sweep: cannot find the sgdsim executable: %s",
                                       strerror(errno));
    self[len] = '\0';
    rdb_t *db;
    if (rdb_open(x->db, &db, &err)) return cli_bad_input("%s", err.msg);

    struct sigaction sa = {0}, old_int, old_term, old_usr1;
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGUSR1, &sa, &old_usr1);
    stop_signal = 0;

    pool_t p = {.x = x, .plan = plan, .idx = idx, .n = n, .ntotal = ntotal,
                .nalready = nalready, .self = self, .db = db,
                .slots = sgd_xcalloc((size_t)x->jobs, sizeof(slot_t)), .rc = SGD_EXIT_OK,
                .busy = sgd_xcalloc((size_t)n + 1, sizeof(int)),
                .t_start = sgd_monotonic_s()};
    int64_t total_updates = 0;
    for (int i = 0; i < n; i++) total_updates += plan->points[idx[i]].updates;
    p.live = cli_sweep_live_start(x->quiet, x->jobs, total_updates);
    while (p.next < n || p.nrunning > 0) {
        launch_points(&p);
        if (p.nrunning == 0) {
            if (p.stop_launching || stop_signal) break;
            continue;
        }
        if (!reap_one(&p)) break;
    }
    /* SIGTERM and SIGUSR1 are a scheduler's "stop now, go on later": with checkpoints that is
     * what happened.  SIGINT keeps its meaning, an interrupted sweep. */
    if (stop_signal)
        raise_rc(&p, stop_signal != SIGINT && cli_sweep_ckpt_on(x->ckpt) ? SWEEP_EXIT_CHECKPOINTED
                                                                         : SGD_EXIT_FAILURE);
    cli_sweep_live_end(p.live);
    settle_busy(&p);
    print_totals(&p);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGUSR1, &old_usr1, NULL);
    free(p.slots);
    free(p.busy);
    rdb_close(db);
    return p.rc;
}

bool cli_sweep_under_mpi(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                       "MPI_LOCALNRANKS", NULL};
    for (const char *const *v = vars; *v; v++) {
        const char *s = getenv(*v);
        if (s && atoi(s) > 1) return true;
    }
    return false;
}
