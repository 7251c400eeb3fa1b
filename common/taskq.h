/* A queue of independent tasks that background threads run while their submitter goes on,
 * each task collected by the submitter when it needs the result.
 *
 * common/pool.h runs the tasks of one call and returns when all are done, so the caller
 * cannot do anything else meanwhile.  A taskq lets the caller hand over work it knows it will
 * need later (the parameter-server family's gradients, scheduled ahead of the updates that
 * apply them) and keep doing what only it can do (applying updates in order).  Tasks live in
 * `slots` slots 0 .. slots - 1 that the caller chooses: submit queues a slot's task, collect
 * waits for it -- or, when no background thread has started it yet, runs it on the calling
 * thread, and while a background thread runs it, runs the earliest queued tasks meanwhile: the
 * caller never waits idle while there is work queued.
 *
 * Determinism: a task must write only its own outputs and use only the scratch of the worker
 * that runs it (0 is the collecting thread, 1 .. workers the background threads); which
 * worker runs a task, and when, is not fixed.  Under that rule the results are the same bits
 * whoever runs them.  Background threads start queued tasks in submission order and run
 * with the floating-point environment (on x86 the MXCSR) the submitter had at submit.
 *
 * Threads: one thread (the owner) calls everything; with workers = 0 there are no background
 * threads and collect runs every task itself.
 *
 * Ownership: sgd_taskq_create/sgd_taskq_destroy; destroy waits for running tasks, drops
 * queued ones and joins the threads. */
#ifndef SGDSIM_COMMON_TASKQ_H
#define SGDSIM_COMMON_TASKQ_H

/* Runs the task of slot `slot` on worker `worker`. */
typedef void (*sgd_taskq_fn)(void *ctx, int slot, int worker);

typedef struct sgd_taskq sgd_taskq_t;

/* workers >= 0 background threads, slots >= 1 (asserted). */
sgd_taskq_t *sgd_taskq_create(int workers, int slots, sgd_taskq_fn fn, void *ctx);
void sgd_taskq_destroy(sgd_taskq_t *q);

/* Queues slot's task; the slot must be free (never submitted, or collected since). */
void sgd_taskq_submit(sgd_taskq_t *q, int slot);
/* Returns once slot's task is done (running it here if nobody started it, and other queued
 * tasks here while a background thread finishes it); the slot is free again.  The slot must
 * have been submitted. */
void sgd_taskq_collect(sgd_taskq_t *q, int slot);
/* Returns once no task is running or queued; submitted slots stay to be collected (a queued
 * one is run here). */
void sgd_taskq_quiesce(sgd_taskq_t *q);

#endif
