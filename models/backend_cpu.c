/* The "cpu" backend (backend_cpu.h): models/model.h (every kind) and models/optim.c on the host.
 *
 * It makes exactly the calls the algorithms made before backends existed, in the same order,
 * so every digest of a CPU run is unchanged by routing through it (tests/cli/golden.txt,
 * tests/models/test_models_backend_cpu_matches_model_calls.c).  With several threads it runs
 * independent requests and evaluation chunks on a worker pool (common/pool.h), and the
 * background requests of async_open on a task queue (common/taskq.h), each worker with a
 * model_t of its own, and still gives the same bits
 * (tests/models/test_models_backend_cpu_threads_give_the_same_bits.c).  Background requests
 * compute on workers[1 ..]; a call that needs those workspaces lets them finish first. */
#include "models/backend_cpu.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/pool.h"
#include "common/taskq.h"

/* The backend's own allocations return a status (backend.h), not the abort of sgd_xmalloc:
 * what they hold grows with the batch and the model, so running out is the run's failure,
 * told in its status detail.  *p = a block of n x size bytes (zeroed when zero), or -1 with
 * err naming what it was for. */
static int cpu_alloc(void **p, size_t n, size_t size, bool zero, const char *what,
                     sgd_err_t *err)
{
    *p = n && size ? (zero ? calloc(n, size) : malloc(n * size)) : NULL;
    if (*p || !n || !size) return 0;
    return sgd_errf(err, "out of memory: %.3g MiB for %s", (double)n * (double)size / 1048576.0,
                    what);
}

typedef struct async_req {  /* one background request's arguments and result */
    const float *params, *x;
    const int32_t *y;
    float *grad;
    sgd_job_fn job;         /* a job instead of one gradient (async_submit_job), or NULL */
    void *job_arg;
    int status;             /* the job's */
    sgd_err_t err;
    double loss;
} async_req_t;

typedef struct cpu_backend {
    model_t *model;         /* borrowed: worker 0's workspace */
    /* Host threads (sgd_backend_set_threads): a pool, and a model_t of the same spec and
     * max_batch for each worker; workers[0] is `model`, the others are owned.  With one
     * thread there is no pool and everything runs on `model`, in order. */
    sgd_pool_t *pool;
    model_t **workers;
    int threads;
    double *row_loss;       /* evaluate: one loss per row, row_loss_cap of them */
    int64_t row_loss_cap;
    float *shard_grad;      /* a sharded gradient's shards, nparams each (max_shards) */
    int max_shards;
    /* Background requests (async_open): a task queue on threads - 1 background threads,
     * worker w computing on workers[w], and each slot's request.  NULL until opened. */
    sgd_taskq_t *async;
    async_req_t *req;
    int async_slots, async_batch;
    /* resident synchronous training */
    const sgd_dataset_t *train;
    optim_sgd_t opt;
    float *grad, *velocity; /* nparams each */
    float *batch_x;         /* max_batch x dim, the gathered stacked batch */
    int32_t *batch_y;
} cpu_backend_t;

/* ---- gradients of large batches: shards ---------------------------------------------------
 * A batch of more than SHARD_ROWS rows is split into shards of shard_rows(batch) rows (the
 * last one shorter) whose boundaries depend on the batch size only -- never on the thread
 * count.  Each shard's mean gradient is computed on its own (on the pool's workers when
 * there are several), weighted by its share of the rows, and the shards are added in a fixed
 * pairwise tree, element by element; the loss is the shards' losses weighted the same way,
 * added in shard order.  A batch of up to SHARD_ROWS rows is one model_loss_grad call, as
 * before shards existed, so small runs keep their digests. */
#define SHARD_ROWS 128
#define MAX_SHARDS 64
#define COMBINE_CHUNK 16384 /* parameters per task of the pairwise sum */

static int shard_rows(int batch)
{
    int fewest = (batch + MAX_SHARDS - 1) / MAX_SHARDS;
    return fewest > SHARD_ROWS ? fewest : SHARD_ROWS;
}

typedef struct shard_call { /* one sharded gradient */
    cpu_backend_t *c;
    const float *params, *x;
    const int32_t *y;
    /* Unless NULL: the training rows of the batch, which each shard first gathers into its
     * part of into_x and into_y, the arrays x and y then point to (so the gathering runs in
     * parallel too). */
    const int64_t *gather;
    float *into_x;
    int32_t *into_y;
    int batch, rows, nshards; /* rows: per shard (the last may have fewer) */
    double loss[MAX_SHARDS];
    float *out;               /* the combined gradient */
} shard_call_t;

static int shard_len(const shard_call_t *s, int k)
{
    int left = s->batch - k * s->rows;
    return left < s->rows ? left : s->rows;
}

static float *shard_grad(const shard_call_t *s, int k)
{
    return s->c->shard_grad + (size_t)k * model_nparams(s->c->model);
}

/* Copies training rows rows[0 .. n) into x and y. */
static void gather_rows(const sgd_dataset_t *d, const int64_t *rows, int n, float *x,
                        int32_t *y)
{
    for (int k = 0; k < n; k++) {
        SGD_ASSERT(rows[k] >= 0 && rows[k] < d->n);
        memcpy(x + (size_t)k * (size_t)d->dim, d->x + rows[k] * d->dim,
               (size_t)d->dim * sizeof(float));
        y[k] = d->y[rows[k]];
    }
}

static void shard_task(void *arg, int k, int worker)
{
    shard_call_t *s = arg;
    model_t *m = s->c->workers ? s->c->workers[worker] : s->c->model;
    const size_t dim = (size_t)model_spec(m)->ninputs, first = (size_t)k * (size_t)s->rows;
    if (s->gather)
        gather_rows(s->c->train, s->gather + first, shard_len(s, k), s->into_x + first * dim,
                    s->into_y + first);
    s->loss[k] = model_loss_grad(m, s->params, s->x + first * dim, s->y + first,
                                 shard_len(s, k), shard_grad(s, k));
}

/* Parameters [task * COMBINE_CHUNK, ...) of sum_k (n_k / batch) g_k, added pairwise:
 * ((g0 + g1) + (g2 + g3)) + ...  Element-wise, so how the range is split changes nothing. */
static void combine_task(void *arg, int task, int worker)
{
    (void)worker;
    shard_call_t *s = arg;
    const size_t np = model_nparams(s->c->model), a = (size_t)task * COMBINE_CHUNK;
    const size_t b = a + COMBINE_CHUNK < np ? a + COMBINE_CHUNK : np;
    for (int k = 0; k < s->nshards; k++) {
        const float w = (float)((double)shard_len(s, k) / (double)s->batch);
        float *g = shard_grad(s, k);
        for (size_t i = a; i < b; i++) g[i] *= w;
    }
    for (int step = 1; step < s->nshards; step *= 2)
        for (int k = 0; k + step < s->nshards; k += 2 * step) {
            float *restrict g = shard_grad(s, k);
            const float *restrict h = shard_grad(s, k + step);
            for (size_t i = a; i < b; i++) g[i] += h[i];
        }
    memcpy(s->out + a, shard_grad(s, 0) + a, (b - a) * sizeof *s->out);
}

/* Background requests compute on workers[1 ..]: let them finish before a call that needs
 * those workspaces. */
static void quiesce(cpu_backend_t *c)
{
    if (c->async) sgd_taskq_quiesce(c->async);
}

static void run_tasks(cpu_backend_t *c, int n, sgd_pool_task_fn fn, void *arg)
{
    quiesce(c);
    if (c->pool) {
        sgd_pool_run(c->pool, n, fn, arg);
        return;
    }
    for (int i = 0; i < n; i++) fn(arg, i, 0);
}

/* Room for n shards' gradients (sizes only grow). */
static int reserve_shards(cpu_backend_t *c, int n, sgd_err_t *err)
{
    if (n <= c->max_shards) return 0;
    free(c->shard_grad);
    c->shard_grad = NULL;
    c->max_shards = 0;
    if (cpu_alloc((void **)&c->shard_grad, (size_t)n * model_nparams(c->model), sizeof(float),
                  false, "the gradients of a large batch's shards", err))
        return -1;
    c->max_shards = n;
    return 0;
}

/* The mean loss and gradient of a batch of more than SHARD_ROWS rows, in shards (s: the
 * batch's rows, given or to gather). */
static int sharded_loss_grad(cpu_backend_t *c, shard_call_t s, int batch, float *grad,
                             double *loss, sgd_err_t *err)
{
    s.c = c;
    s.batch = batch;
    s.rows = shard_rows(batch);
    s.out = grad;
    s.nshards = (batch + s.rows - 1) / s.rows;
    if (reserve_shards(c, s.nshards, err)) return -1;
    run_tasks(c, s.nshards, shard_task, &s);
    const size_t np = model_nparams(c->model);
    run_tasks(c, (int)((np + COMBINE_CHUNK - 1) / COMBINE_CHUNK), combine_task, &s);
    *loss = 0.0;
    for (int k = 0; k < s.nshards; k++)
        *loss += s.loss[k] * ((double)shard_len(&s, k) / (double)batch);
    return 0;
}

/* The mean loss and gradient of a batch on `params` (model_loss_grad's contract), in shards
 * when the batch is large.  Not to be called from inside a pool task. */
static int stacked_loss_grad(cpu_backend_t *c, const float *params, const float *x,
                             const int32_t *y, int batch, float *grad, double *loss,
                             sgd_err_t *err)
{
    if (batch <= SHARD_ROWS) {
        *loss = model_loss_grad(c->model, params, x, y, batch, grad);
        return 0;
    }
    return sharded_loss_grad(c, (shard_call_t){.params = params, .x = x, .y = y}, batch, grad,
                             loss, err);
}

/* ---- the interface ---------------------------------------------------------------------- */

static int cpu_loss_grad(void *ctx, const float *params, const float *x, const int32_t *y,
                         int batch, float *grad, double *loss, sgd_err_t *err)
{
    return stacked_loss_grad(ctx, params, x, y, batch, grad, loss, err);
}

typedef struct batched_call { /* the arguments of one loss_grad_batched call */
    cpu_backend_t *c;
    const float *const *params, *const *x;
    const int32_t *const *y;
    int batch;
    float *const *grad;
    double *loss;
} batched_call_t;

static void batched_task(void *arg, int i, int worker)
{
    const batched_call_t *b = arg;
    b->loss[i] = model_loss_grad(b->c->workers[worker], b->params[i], b->x[i], b->y[i],
                                 b->batch, b->grad[i]);
}

static int cpu_loss_grad_batched(void *ctx, int k, const float *const *params,
                                 const float *const *x, const int32_t *const *y, int batch,
                                 float *const *grad, double *loss, sgd_err_t *err)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(k >= 1);
    /* Each result depends only on its own inputs (model.h), so the requests may run on any
     * worker in any order.  Sharded requests (batch > SHARD_ROWS) use the pool themselves,
     * so they run one after another. */
    if (!c->pool || batch > SHARD_ROWS) {
        for (int i = 0; i < k; i++)
            if (stacked_loss_grad(c, params[i], x[i], y[i], batch, grad[i], &loss[i], err))
                return -1;
        return 0;
    }
    batched_call_t call = {c, params, x, y, batch, grad, loss};
    quiesce(c);
    sgd_pool_run(c->pool, k, batched_task, &call);
    return 0;
}

typedef struct eval_call { /* one evaluate call, split into chunks of max_batch rows */
    cpu_backend_t *c;
    const float *params;
    const sgd_dataset_t *d;
    int64_t *errors;       /* one count per chunk */
} eval_call_t;

static void eval_task(void *arg, int chunk, int worker)
{
    const eval_call_t *e = arg;
    model_t *m = e->c->workers[worker];
    const int64_t mb = model_max_batch(m), first = (int64_t)chunk * mb;
    const int64_t left = e->d->n - first;
    const int rows = left < mb ? (int)left : (int)mb;
    e->errors[chunk] = model_evaluate_rows(m, e->params, e->d->x + first * e->d->dim,
                                           e->d->y + first, rows, e->c->row_loss + first);
}

/* Room for one loss per row of an n-row evaluation (sizes only grow). */
static int reserve_row_loss(cpu_backend_t *c, int64_t n, sgd_err_t *err)
{
    if (n <= c->row_loss_cap) return 0;
    free(c->row_loss);
    c->row_loss = NULL;
    c->row_loss_cap = 0;
    if (cpu_alloc((void **)&c->row_loss, (size_t)n, sizeof *c->row_loss, false,
                  "the evaluation's row losses", err))
        return -1;
    c->row_loss_cap = n;
    return 0;
}

static int cpu_evaluate(void *ctx, const float *params, const sgd_dataset_t *d,
                        double *mean_loss, double *error_rate, sgd_err_t *err)
{
    cpu_backend_t *c = ctx;
    const int64_t mb = model_max_batch(c->model), nchunks = (d->n + mb - 1) / mb;
    if (!c->pool || nchunks < 2) {
        model_evaluate(c->model, params, d, mean_loss, error_rate);
        return 0;
    }
    SGD_ASSERT(d->n >= 1 && nchunks <= INT32_MAX);
    int64_t *errors;
    if (reserve_row_loss(c, d->n, err) ||
        cpu_alloc((void **)&errors, (size_t)nchunks, sizeof *errors, false,
                  "the evaluation's error counts", err))
        return -1;
    eval_call_t call = {c, params, d, errors};
    quiesce(c);
    sgd_pool_run(c->pool, (int)nchunks, eval_task, &call);
    /* model_evaluate's sum: the row losses in row order. */
    double loss = 0.0;
    int64_t wrong = 0;
    for (int64_t i = 0; i < d->n; i++) loss += c->row_loss[i];
    for (int64_t k = 0; k < nchunks; k++) wrong += errors[k];
    free(errors);
    *mean_loss = loss / (double)d->n;
    *error_rate = (double)wrong / (double)d->n;
    return 0;
}

/* ---- background requests ---------------------------------------------------------------- */

/* A job's gradient on a worker's workspace: one model_loss_grad call, as loss_grad's for the
 * batches that run in the background (at most SHARD_ROWS rows). */
static int worker_grad(void *oracle, const float *params, const float *x, const int32_t *y,
                       int batch, float *grad, double *loss, sgd_err_t *err)
{
    (void)err;
    *loss = model_loss_grad(oracle, params, x, y, batch, grad);
    return 0;
}

static void async_task(void *ctx, int slot, int worker)
{
    cpu_backend_t *c = ctx;
    async_req_t *r = &c->req[slot];
    model_t *m = worker == 0 ? c->model : c->workers[worker];
    if (r->job) {
        r->status = r->job(r->job_arg, worker_grad, m, &r->loss, &r->err);
        return;
    }
    r->loss = model_loss_grad(m, r->params, r->x, r->y, c->async_batch, r->grad);
}

static void async_close(cpu_backend_t *c)
{
    sgd_taskq_destroy(c->async);
    free(c->req);
    c->async = NULL;
    c->req = NULL;
}

/* A request of more than SHARD_ROWS rows is computed in shards on the pool itself, so only
 * smaller ones run in the background. */
static int cpu_async_open(void *ctx, int slots, int batch)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(slots >= 1 && batch >= 1 && batch <= model_max_batch(c->model));
    async_close(c);
    if (batch > SHARD_ROWS) return 0;
    c->req = sgd_xcalloc((size_t)slots, sizeof *c->req);
    c->async_slots = slots;
    c->async_batch = batch;
    c->async = sgd_taskq_create(c->threads - 1, slots, async_task, c);
    return 1;
}

static void cpu_async_submit(void *ctx, int slot, const float *params, const float *x,
                             const int32_t *y, float *grad)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(c->async && slot >= 0 && slot < c->async_slots);
    c->req[slot] = (async_req_t){.params = params, .x = x, .y = y, .grad = grad};
    sgd_taskq_submit(c->async, slot);
}

static void cpu_async_submit_job(void *ctx, int slot, sgd_job_fn job, void *arg)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(c->async && slot >= 0 && slot < c->async_slots);
    c->req[slot] = (async_req_t){.job = job, .job_arg = arg};
    sgd_taskq_submit(c->async, slot);
}

/* A background request computes with the model's workspace only, which cannot fail; a job
 * says how it ended. */
static int cpu_async_collect(void *ctx, int slot, double *loss, sgd_err_t *err)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(c->async && slot >= 0 && slot < c->async_slots);
    sgd_taskq_collect(c->async, slot);
    const async_req_t *r = &c->req[slot];
    *loss = r->loss;
    if (r->job && r->status) {
        *err = r->err;
        return -1;
    }
    return 0;
}

static void free_workers(cpu_backend_t *c)
{
    sgd_pool_destroy(c->pool);
    for (int w = 1; w < c->threads; w++) model_destroy(c->workers[w]);
    free(c->workers);
    c->pool = NULL;
    c->workers = NULL;
    c->threads = 1;
}

static void cpu_set_threads(void *ctx, int threads)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(threads >= 1);
    if (threads == c->threads) return;
    SGD_ASSERT(!c->async); /* async_open comes after set_threads */
    free_workers(c);
    if (threads == 1) return;
    c->threads = threads;
    c->workers = sgd_xmalloc((size_t)threads * sizeof *c->workers);
    c->workers[0] = c->model;
    for (int w = 1; w < threads; w++)
        c->workers[w] = model_create(model_spec(c->model), model_max_batch(c->model));
    c->pool = sgd_pool_create(threads);
}

static int cpu_sync_begin(void *ctx, const sgd_dataset_t *train, const optim_sgd_t *opt,
                          const float *params, sgd_err_t *err)
{
    cpu_backend_t *c = ctx;
    (void)params; /* the caller's array is the state: sync_step updates it in place */
    SGD_ASSERT(train->dim == model_spec(c->model)->ninputs && !c->train);
    size_t np = model_nparams(c->model), mb = (size_t)model_max_batch(c->model);
    c->train = train;
    c->opt = *opt;
    /* What fails to be allocated stays NULL, which cpu_destroy frees. */
    if (cpu_alloc((void **)&c->grad, np, sizeof *c->grad, false, "the gradient", err) ||
        cpu_alloc((void **)&c->velocity, np, sizeof *c->velocity, true, "the velocity", err) ||
        cpu_alloc((void **)&c->batch_x, mb * (size_t)train->dim, sizeof *c->batch_x, false,
                  "the stacked batch's inputs", err) ||
        cpu_alloc((void **)&c->batch_y, mb, sizeof *c->batch_y, false,
                  "the stacked batch's labels", err))
        return -1;
    return 0;
}

static int cpu_sync_step(void *ctx, const int64_t *rows, int nrows, float lr, float *params,
                         double *loss, sgd_err_t *err)
{
    cpu_backend_t *c = ctx;
    const sgd_dataset_t *d = c->train;
    SGD_ASSERT(d && nrows >= 1 && nrows <= model_max_batch(c->model));
    if (nrows <= SHARD_ROWS) {
        gather_rows(d, rows, nrows, c->batch_x, c->batch_y);
        *loss = model_loss_grad(c->model, params, c->batch_x, c->batch_y, nrows, c->grad);
    } else {
        shard_call_t s = {.params = params, .x = c->batch_x, .y = c->batch_y, .gather = rows,
                          .into_x = c->batch_x, .into_y = c->batch_y};
        if (sharded_loss_grad(c, s, nrows, c->grad, loss, err)) return -1;
    }
    optim_sgd_step(&c->opt, params, c->velocity, c->grad, model_nparams(c->model), lr);
    return 0;
}

/* Copies between host arrays: they cannot fail. */
static int cpu_sync_export(void *ctx, float *velocity, sgd_err_t *err)
{
    (void)err;
    cpu_backend_t *c = ctx;
    SGD_ASSERT(c->velocity);
    memcpy(velocity, c->velocity, model_nparams(c->model) * sizeof *velocity);
    return 0;
}

static int cpu_sync_import(void *ctx, const float *params, const float *velocity,
                           sgd_err_t *err)
{
    (void)err;
    cpu_backend_t *c = ctx;
    (void)params; /* the caller's array is the state (cpu_sync_begin) */
    SGD_ASSERT(c->velocity);
    memcpy(c->velocity, velocity, model_nparams(c->model) * sizeof *velocity);
    return 0;
}

static void cpu_destroy(void *ctx)
{
    cpu_backend_t *c = ctx;
    async_close(c);
    free_workers(c);
    free(c->row_loss);
    free(c->shard_grad);
    free(c->grad);
    free(c->velocity);
    free(c->batch_x);
    free(c->batch_y);
    free(c);
}

static const sgd_backend_iface_t cpu_iface = {
    .name = "cpu",
    .loss_grad = cpu_loss_grad,
    .loss_grad_batched = cpu_loss_grad_batched,
    .evaluate = cpu_evaluate,
    .sync_begin = cpu_sync_begin,
    .sync_step = cpu_sync_step,
    .sync_export = cpu_sync_export,
    .sync_import = cpu_sync_import,
    .destroy = cpu_destroy,
    .set_threads = cpu_set_threads,
    .async_open = cpu_async_open,
    .async_submit = cpu_async_submit,
    .async_collect = cpu_async_collect,
    .async_submit_job = cpu_async_submit_job,
};

void sgd_backend_cpu_create(model_t *model, sgd_backend_t *out)
{
    cpu_backend_t *c = sgd_xcalloc(1, sizeof *c);
    c->model = model;
    c->threads = 1;
    out->iface = &cpu_iface;
    out->ctx = c;
}
