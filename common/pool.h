/* A fixed pool of worker threads that runs the independent tasks of one call in parallel.
 *
 * Determinism: a task must write only its own outputs and use only the scratch of the worker
 * that runs it (worker index 0 .. threads - 1, passed to the task); which worker runs which
 * task, and in what order, is not fixed.  Under that rule the results are the same bits for
 * any thread count, which is how sgdsim uses more than one core without giving up its
 * determinism contract (docs/design.md).  Workers run with the caller's floating-point
 * environment (on x86 its MXCSR: flush-to-zero and denormals-are-zero), set at every call.
 *
 * The calling thread is worker 0 and works too, so a pool of 1 thread creates none and runs
 * every task in the caller, in order.  One call at a time per pool.
 *
 * Ownership: sgd_pool_create/sgd_pool_destroy; destroy joins the workers. */
#ifndef SGDSIM_COMMON_POOL_H
#define SGDSIM_COMMON_POOL_H

/* Runs task `task` (0 .. ntasks - 1) on worker `worker`. */
typedef void (*sgd_pool_task_fn)(void *ctx, int task, int worker);

typedef struct sgd_pool sgd_pool_t;

/* threads >= 1 (asserted): the caller plus threads - 1 workers. */
sgd_pool_t *sgd_pool_create(int threads);
void sgd_pool_destroy(sgd_pool_t *p);
int sgd_pool_threads(const sgd_pool_t *p);

/* Runs every task once and returns when all are done. */
void sgd_pool_run(sgd_pool_t *p, int ntasks, sgd_pool_task_fn fn, void *ctx);

#endif
