/* The sweep executor shared by both drivers of `sgdsim sweep` (cmd_sweep.c on one machine,
 * sweep_mpi.c for each MPI rank): which planned points are still to run in a database, and
 * the -j N process pool that runs them as `sgdsim run` children (sweep_exec.h). */
#include <errno.h>
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
#include "results/rdb.h"

/* ---- the database side of resuming -------------------------------------------------- */

static int point_is_done(sqlite3 *db, const char *path, const char *run_key, int *done,
                         sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs WHERE run_key = ?1 AND status IN"
                               " ('complete', 'diverged')", -1, &st, NULL) != SQLITE_OK)
        return sgd_errf(err, "%s: cannot read runs: %s", path, sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, run_key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *done = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sgd_errf(err, "%s: cannot read runs: %s", path, sqlite3_errmsg(db));
    return 0;
}

/* Deletes the rows of unfinished earlier attempts at this point (cascading to metrics,
 * traffic and staleness), so the point's final run is its only run, as in a sweep that was
 * never interrupted.  One transaction: a kill here leaves them or removes them whole. */
static int delete_unfinished(sqlite3 *db, const char *path, const char *run_key, int *ndeleted,
                             sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    *ndeleted = 0;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "DELETE FROM runs WHERE run_key = ?1 AND status IN"
                               " ('running', 'failed')", -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_text(st, 1, run_key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) goto fail;
    *ndeleted = sqlite3_changes(db);
    sqlite3_finalize(st);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        st = NULL;
        goto fail;
    }
    return 0;
fail:
    sgd_errf(err, "%s: cannot remove an unfinished earlier run of a point: %s", path,
             sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int cli_sweep_pending(const char *db_path, const cli_sweep_plan_t *plan, const int *idx, int n,
                      int *out, int *nout, sgd_err_t *err)
{
    rdb_t *db;
    *nout = 0;
    if (rdb_open(db_path, &db, err)) return -1;
    for (int i = 0; i < n; i++) {
        int done;
        if (point_is_done(rdb_handle(db), db_path, plan->points[idx[i]].run_key, &done, err)) {
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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct slot {
    pid_t pid;
    int point;
    double t0;
} slot_t;

/* Starts `sgdsim run` for one point; returns the child's pid or -1 (errno set). */
static pid_t spawn_point(const char *self, const cli_sweep_exec_t *x, const cli_sweep_point_t *pt)
{
    char seed_buf[32], threads_buf[32];
    const char **argv = sgd_xcalloc((size_t)(2 * pt->nsets + 16), sizeof *argv);
    int a = 0;
    argv[a++] = self;
    argv[a++] = "run";
    argv[a++] = x->scenario;
    argv[a++] = "--db";
    argv[a++] = x->db;
    argv[a++] = "--quiet";
    if (x->seed) {
        snprintf(seed_buf, sizeof seed_buf, "%llu", (unsigned long long)*x->seed);
        argv[a++] = "--seed";
        argv[a++] = seed_buf;
    }
    for (int i = 0; i < pt->nsets; i++) {
        argv[a++] = "--set";
        argv[a++] = pt->sets[i];
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
    argv[a] = NULL;
    /* Built before fork(), so the child sets up nothing but the signals before execve. */
    char **env = cli_machine_child_env(pt->blas_core);
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* A sweep killed with SIGKILL must not leave points running on their own: they
         * would finish into the database behind a resumed sweep's back. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execve(self, (char *const *)argv, env);
        fprintf(stderr, "sgdsim sweep: cannot run %s: %s\n", self, strerror(errno));
        _exit(SGD_EXIT_FAILURE);
    }
    cli_machine_env_free(env);
    free(argv);
    return pid;
}

static void progress_line(const cli_sweep_exec_t *x, const char *what, const cli_sweep_point_t *pt,
                          double secs, int done, int total, int running, double eta)
{
    if (x->quiet) return;
    fprintf(stderr, "sweep: %s%-9s %s (%.1f s) | %d/%d done, %d running", x->who, what,
            pt->label[0] ? pt->label : "(the scenario as is)", secs, done, total, running);
    if (eta >= 0) fprintf(stderr, ", ETA %.0f s", eta);
    fputc('\n', stderr);
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
    sqlite3 *h = rdb_handle(db);

    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    stop_signal = 0;

    slot_t *slots = sgd_xcalloc((size_t)x->jobs, sizeof *slots);
    int nrunning = 0, next = 0, finished = 0, skipped = 0, nfailed = 0, ndiverged = 0;
    int rc = SGD_EXIT_OK;
    bool stop_launching = false, forwarded = false;
    double t_start = now_s();
    while (next < n || nrunning > 0) {
        while (!stop_launching && !stop_signal && nrunning < x->jobs && next < n) {
            const cli_sweep_point_t *pt = &plan->points[idx[next++]];
            int done, ndel;
            /* Checked again at launch: another shard or an earlier pass may have done it. */
            if (point_is_done(h, x->db, pt->run_key, &done, &err) ||
                (!done && delete_unfinished(h, x->db, pt->run_key, &ndel, &err))) {
                fprintf(stderr, "sgdsim: %s\n", err.msg);
                rc = SGD_EXIT_BAD_INPUT;
                stop_launching = true;
                break;
            }
            if (done) {
                skipped++;
                continue;
            }
            if (ndel && !x->quiet)
                fprintf(stderr, "sweep: %sredoing %s (removed %d unfinished earlier run%s)\n",
                        x->who, pt->label, ndel, ndel > 1 ? "s" : "");
            int s = 0;
            while (slots[s].pid) s++;
            slots[s].pid = spawn_point(self, x, pt);
            if (slots[s].pid < 0) {
                fprintf(stderr, "sgdsim: sweep: cannot start a process: %s\n", strerror(errno));
                slots[s].pid = 0;
                rc = SGD_EXIT_FAILURE;
                stop_launching = true;
                break;
            }
            slots[s].point = (int)(pt - plan->points);
            slots[s].t0 = now_s();
            nrunning++;
        }
        if (nrunning == 0) {
            if (stop_launching || stop_signal) break;
            continue;
        }
        /* Polled rather than blocking, so a stop signal that lands just before the wait is
         * still passed on at once. */
        if (stop_signal && !forwarded) {
            /* A polite stop: each point ends after its current update and is stored as
             * failed, which the next sweep redoes. */
            for (int s = 0; s < x->jobs; s++)
                if (slots[s].pid) kill(slots[s].pid, SIGTERM);
            forwarded = true;
        }
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid == 0 || (pid < 0 && errno == EINTR)) {
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
            continue;
        }
        if (pid < 0) {
            fprintf(stderr, "sgdsim: sweep: waitpid: %s\n", strerror(errno));
            rc = SGD_EXIT_FAILURE;
            break;
        }
        int s = 0;
        while (s < x->jobs && slots[s].pid != pid) s++;
        if (s == x->jobs) continue; /* not one of ours */
        const cli_sweep_point_t *pt = &plan->points[slots[s].point];
        double secs = now_s() - slots[s].t0;
        slots[s].pid = 0;
        nrunning--;
        finished++;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        const char *what = code == SGD_EXIT_OK ? "complete"
                           : code == SGD_EXIT_DIVERGED ? "diverged"
                           : code == SGD_EXIT_BAD_INPUT ? "bad input" : "failed";
        if (code == SGD_EXIT_OK || code == SGD_EXIT_DIVERGED) {
            /* The child loaded the scenario itself; its run must carry the planned key, or
             * the next sweep would not recognise the point as done. */
            int done = 0;
            if (point_is_done(h, x->db, pt->run_key, &done, &err) || !done) {
                fprintf(stderr, "sgdsim: sweep: %s finished but %s has no finished run with "
                        "its key %.12s (was the scenario file changed during the sweep?)\n",
                        pt->label, x->db, pt->run_key);
                code = SGD_EXIT_FAILURE;
                what = "failed";
            }
        }
        if (code == SGD_EXIT_DIVERGED) ndiverged++;
        if (code != SGD_EXIT_OK && code != SGD_EXIT_DIVERGED) nfailed++;
        if (code == SGD_EXIT_BAD_INPUT) {
            /* The same mistake (a missing data file, a batch larger than the data) would
             * fail the remaining points too: stop starting new ones. */
            stop_launching = true;
            rc = SGD_EXIT_BAD_INPUT;
        } else if (code != SGD_EXIT_OK && code != SGD_EXIT_DIVERGED && rc == SGD_EXIT_OK) {
            rc = SGD_EXIT_FAILURE;
        }
        double elapsed = now_s() - t_start;
        int left = n - finished - skipped;
        progress_line(x, what, pt, secs, nalready + skipped + finished, ntotal, nrunning,
                      stop_launching || stop_signal ? -1 : elapsed / finished * left);
    }
    if (stop_signal && rc == SGD_EXIT_OK) rc = SGD_EXIT_FAILURE;
    if (!x->quiet)
        fprintf(stderr, "sweep: %s%d point%s run (%d complete, %d diverged, %d failed), %d "
                "already done%s\n", x->who, finished, finished == 1 ? "" : "s",
                finished - ndiverged - nfailed, ndiverged, nfailed, nalready + skipped,
                stop_signal ? "; interrupted" : next < n ? "; stopped early" : "");
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(slots);
    rdb_close(db);
    return rc;
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
