/* The worker pool (pool.h): workers sleep on a condition variable between calls; a call
 * publishes its task function under a generation number, and every thread, the caller
 * included, takes task indices from one shared counter until none are left. */
#include "common/pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/fpenv.h"


typedef struct pool_worker {
    sgd_pool_t *pool;
    int index;
    pthread_t thread;
} pool_worker_t;

struct sgd_pool {
    int threads;
    pool_worker_t *workers;      /* threads - 1 of them; the caller is worker 0 */
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    unsigned long generation;    /* bumped by every call (and by destroy) */
    bool quit;
    int busy;                    /* workers still inside the current call */
    /* The current call, read by the workers after they see a new generation. */
    sgd_pool_task_fn fn;
    void *ctx;
    int ntasks;
    atomic_int next;             /* the next task index to take */
    sgd_fpenv_t env;             /* the caller's, for the workers */
};

static void take_tasks(sgd_pool_t *p, int worker)
{
    for (int t; (t = atomic_fetch_add(&p->next, 1)) < p->ntasks;) p->fn(p->ctx, t, worker);
}

static void *worker_main(void *arg)
{
    pool_worker_t *w = arg;
    sgd_pool_t *p = w->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->generation == seen && !p->quit) pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit) break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        sgd_fpenv_set(&p->env);
        take_tasks(p, w->index);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

sgd_pool_t *sgd_pool_create(int threads)
{
    SGD_ASSERT(threads >= 1);
    sgd_pool_t *p = sgd_xcalloc(1, sizeof *p);
    p->threads = threads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->workers = sgd_xcalloc((size_t)threads, sizeof *p->workers);
    for (int i = 1; i < threads; i++) {
        pool_worker_t *w = &p->workers[i];
        w->pool = p;
        w->index = i;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            sgd_die(__FILE__, __LINE__, "cannot start worker thread %d of %d", i, threads);
    }
    return p;
}

void sgd_pool_destroy(sgd_pool_t *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->quit = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i < p->threads; i++) pthread_join(p->workers[i].thread, NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p->workers);
    free(p);
}

int sgd_pool_threads(const sgd_pool_t *p)
{
    return p->threads;
}

void sgd_pool_run(sgd_pool_t *p, int ntasks, sgd_pool_task_fn fn, void *ctx)
{
    if (ntasks <= 0) return;
    if (p->threads == 1 || ntasks == 1) { /* nothing to share: the caller runs them in order */
        for (int t = 0; t < ntasks; t++) fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->ntasks = ntasks;
    atomic_store(&p->next, 0);
    sgd_fpenv_get(&p->env);
    p->busy = p->threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    take_tasks(p, 0);
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
