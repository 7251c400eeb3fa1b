/* The background checkpoint writer declared in ckpt_writer.h. */
#include "common/ckpt_writer.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "common/clock.h"

/* One write: what the thread reads (set before it starts) and what it leaves (read after
 * the join, or after `ended` was seen true: the release/acquire pair orders them). */
typedef struct job {
    char *path;
    sgd_ckpt_meta_t meta;
    void *payload;
    size_t n;
    int rc;
    sgd_err_t err;
    double seconds;
} job_t;

struct sgd_ckpt_writer {
    job_t job;
    void *spare; /* the last written payload, for sgd_ckpt_writer_reclaim */
    size_t spare_n;
    pthread_t thread;
    bool busy;      /* started, not collected (the owner's alone) */
    bool threaded;  /* the job runs on `thread` (else it ran in start) */
    atomic_bool ended;
    double last_seconds;
};

/* Writes the file; the payload stays in the job until the owner collects it. */
static void run_job(sgd_ckpt_writer_t *w)
{
    job_t *j = &w->job;
    double t0 = sgd_monotonic_s();
    j->rc = sgd_ckpt_write(j->path, &j->meta, j->payload, j->n, &j->err);
    j->seconds = sgd_monotonic_s() - t0;
    atomic_store_explicit(&w->ended, true, memory_order_release);
}

static void *thread_main(void *arg)
{
    run_job(arg);
    return NULL;
}

/* A thread for the job with every signal blocked: a signal meant for the run (SIGTERM
 * asking for a checkpoint) must reach the run's thread, and none may interrupt the write. */
static bool start_thread(sgd_ckpt_writer_t *w)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool ok = pthread_create(&w->thread, NULL, thread_main, w) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

sgd_ckpt_writer_t *sgd_ckpt_writer_create(void)
{
    sgd_ckpt_writer_t *w = sgd_xcalloc(1, sizeof *w);
    atomic_init(&w->ended, true);
    return w;
}

void sgd_ckpt_writer_start(sgd_ckpt_writer_t *w, const char *path, const sgd_ckpt_meta_t *m,
                           void *payload, size_t n)
{
    SGD_ASSERT(!w->busy);
    free(w->spare); /* not reclaimed: the caller serialised into another buffer */
    w->spare = NULL;
    w->spare_n = 0;
    w->job = (job_t){.path = sgd_xstrdup(path), .meta = *m, .payload = payload, .n = n};
    atomic_store_explicit(&w->ended, false, memory_order_relaxed);
    w->busy = true;
    w->threaded = start_thread(w);
    if (!w->threaded) run_job(w); /* no thread to be had: the write costs the run, as before */
}

bool sgd_ckpt_writer_busy(const sgd_ckpt_writer_t *w) { return w->busy; }

bool sgd_ckpt_writer_ended(const sgd_ckpt_writer_t *w)
{
    return atomic_load_explicit(&w->ended, memory_order_acquire);
}

int sgd_ckpt_writer_wait(sgd_ckpt_writer_t *w, sgd_err_t *err)
{
    if (!w->busy) return 0;
    if (w->threaded) pthread_join(w->thread, NULL);
    w->busy = false;
    job_t *j = &w->job;
    free(j->path);
    j->path = NULL;
    w->spare = j->payload;
    w->spare_n = j->n;
    j->payload = NULL;
    w->last_seconds = j->seconds;
    if (j->rc == 0) return 0;
    *err = j->err;
    return -1;
}

void *sgd_ckpt_writer_reclaim(sgd_ckpt_writer_t *w, size_t *n)
{
    void *p = w->busy ? NULL : w->spare;
    *n = p ? w->spare_n : 0;
    if (p) w->spare = NULL, w->spare_n = 0;
    return p;
}

double sgd_ckpt_writer_last_seconds(const sgd_ckpt_writer_t *w) { return w->last_seconds; }

void sgd_ckpt_writer_destroy(sgd_ckpt_writer_t *w)
{
    if (!w) return;
    sgd_err_t ignored = {{0}};
    sgd_ckpt_writer_wait(w, &ignored);
    free(w->spare);
    free(w);
}
