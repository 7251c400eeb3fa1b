/* The background task queue (taskq.h): one mutex guards every slot's state and a FIFO of
 * queued slots, a doubly linked list threaded through the slots, so that a collect which
 * takes a queued task for itself unlinks it in O(1). */
#include "common/taskq.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/fpenv.h"


typedef enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE } slot_state_t;

typedef struct slot {
    slot_state_t state;
    int prev, next;   /* the FIFO of queued slots; -1 ends it */
    sgd_fpenv_t env;     /* the submitter's, for a background thread */
} slot_t;

typedef struct taskq_worker {
    sgd_taskq_t *q;
    int index;        /* 1 .. workers */
    pthread_t thread;
} taskq_worker_t;

struct sgd_taskq {
    sgd_taskq_fn fn;
    void *ctx;
    int nslots, nworkers;
    slot_t *slot;
    int head, tail;   /* the FIFO, -1 when empty */
    int running;      /* tasks background threads are running */
    bool quit;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    taskq_worker_t *workers;
};

/* ---- the FIFO (lock held) ------------------------------------------------------------- */

static void fifo_push(sgd_taskq_t *q, int s)
{
    q->slot[s].prev = q->tail;
    q->slot[s].next = -1;
    if (q->tail >= 0)
        q->slot[q->tail].next = s;
    else
        q->head = s;
    q->tail = s;
}

static void fifo_unlink(sgd_taskq_t *q, int s)
{
    slot_t *e = &q->slot[s];
    if (e->prev >= 0)
        q->slot[e->prev].next = e->next;
    else
        q->head = e->next;
    if (e->next >= 0)
        q->slot[e->next].prev = e->prev;
    else
        q->tail = e->prev;
    e->prev = e->next = -1;
}

/* ---- background threads ----------------------------------------------------------------- */

static void *worker_main(void *arg)
{
    taskq_worker_t *w = arg;
    sgd_taskq_t *q = w->q;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (q->head < 0 && !q->quit) pthread_cond_wait(&q->work, &q->lock);
        if (q->quit) break;
        const int s = q->head;
        fifo_unlink(q, s);
        q->slot[s].state = SLOT_RUNNING;
        q->running++;
        const sgd_fpenv_t env = q->slot[s].env;
        pthread_mutex_unlock(&q->lock);
        sgd_fpenv_set(&env);
        q->fn(q->ctx, s, w->index);
        pthread_mutex_lock(&q->lock);
        q->slot[s].state = SLOT_DONE;
        q->running--;
        pthread_cond_broadcast(&q->done);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

sgd_taskq_t *sgd_taskq_create(int workers, int slots, sgd_taskq_fn fn, void *ctx)
{
    SGD_ASSERT(workers >= 0 && slots >= 1 && fn);
    sgd_taskq_t *q = sgd_xcalloc(1, sizeof *q);
    q->fn = fn;
    q->ctx = ctx;
    q->nslots = slots;
    q->nworkers = workers;
    q->head = q->tail = -1;
    q->slot = sgd_xcalloc((size_t)slots, sizeof *q->slot);
    for (int s = 0; s < slots; s++)
        q->slot[s] = (slot_t){.state = SLOT_FREE, .prev = -1, .next = -1};
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->done, NULL);
    q->workers = sgd_xcalloc((size_t)workers + 1, sizeof *q->workers);
    for (int i = 1; i <= workers; i++) {
        taskq_worker_t *w = &q->workers[i];
        w->q = q;
        w->index = i;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            sgd_die(__FILE__, __LINE__, "cannot start background thread %d of %d", i, workers);
    }
    return q;
}

void sgd_taskq_destroy(sgd_taskq_t *q)
{
    if (!q) return;
    pthread_mutex_lock(&q->lock);
    q->quit = true;
    pthread_cond_broadcast(&q->work);
    pthread_mutex_unlock(&q->lock);
    for (int i = 1; i <= q->nworkers; i++) pthread_join(q->workers[i].thread, NULL);
    pthread_cond_destroy(&q->done);
    pthread_cond_destroy(&q->work);
    pthread_mutex_destroy(&q->lock);
    free(q->workers);
    free(q->slot);
    free(q);
}

/* ---- the owner's side ------------------------------------------------------------------- */

void sgd_taskq_submit(sgd_taskq_t *q, int slot)
{
    SGD_ASSERT(slot >= 0 && slot < q->nslots);
    pthread_mutex_lock(&q->lock);
    slot_t *e = &q->slot[slot];
    SGD_ASSERT(e->state == SLOT_FREE);
    e->state = SLOT_QUEUED;
    sgd_fpenv_get(&e->env);
    fifo_push(q, slot);
    if (q->nworkers > 0) pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->lock);
}

/* Runs a queued slot's task on the calling thread (lock held on entry and on return). */
static void run_here(sgd_taskq_t *q, int slot)
{
    fifo_unlink(q, slot);
    q->slot[slot].state = SLOT_RUNNING;
    pthread_mutex_unlock(&q->lock);
    q->fn(q->ctx, slot, 0);
    pthread_mutex_lock(&q->lock);
    q->slot[slot].state = SLOT_DONE;
}

void sgd_taskq_collect(sgd_taskq_t *q, int slot)
{
    SGD_ASSERT(slot >= 0 && slot < q->nslots);
    pthread_mutex_lock(&q->lock);
    slot_t *e = &q->slot[slot];
    SGD_ASSERT(e->state != SLOT_FREE);
    if (e->state == SLOT_QUEUED) run_here(q, slot);
    /* Running elsewhere: rather than wait idle, take the earliest queued task, which is the
     * one the caller will most likely collect next. */
    while (e->state == SLOT_RUNNING) {
        if (q->head >= 0)
            run_here(q, q->head);
        else
            pthread_cond_wait(&q->done, &q->lock);
    }
    e->state = SLOT_FREE;
    pthread_mutex_unlock(&q->lock);
}

void sgd_taskq_quiesce(sgd_taskq_t *q)
{
    pthread_mutex_lock(&q->lock);
    while (q->head >= 0) run_here(q, q->head);
    while (q->running > 0) pthread_cond_wait(&q->done, &q->lock);
    pthread_mutex_unlock(&q->lock);
}
