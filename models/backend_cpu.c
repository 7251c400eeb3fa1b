/* The "cpu" backend (backend_cpu.h): models/model.c and models/optim.c on the host.
 *
 * It makes exactly the calls the algorithms made before backends existed, in the same order,
 * so every digest of a CPU run is unchanged by routing through it (tests/cli/golden.txt,
 * tests/models/test_models_backend_cpu_matches_model_calls.c).  With several threads it runs
 * independent requests and evaluation chunks on a worker pool (common/pool.h), each worker
 * with a model_t of its own, and still gives the same bits
 * (tests/models/test_models_backend_cpu_threads_give_the_same_bits.c). */
#include "models/backend_cpu.h"

#include <stdlib.h>
#include <string.h>

#include "common/pool.h"

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
    /* resident synchronous training */
    const sgd_dataset_t *train;
    optim_sgd_t opt;
    float *grad, *velocity; /* nparams each */
    float *batch_x;         /* max_batch x dim, the gathered stacked batch */
    int32_t *batch_y;
} cpu_backend_t;

static double cpu_loss_grad(void *ctx, const float *params, const float *x, const int32_t *y,
                            int batch, float *grad)
{
    cpu_backend_t *c = ctx;
    return model_loss_grad(c->model, params, x, y, batch, grad);
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

static void cpu_loss_grad_batched(void *ctx, int k, const float *const *params,
                                  const float *const *x, const int32_t *const *y, int batch,
                                  float *const *grad, double *loss)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(k >= 1);
    /* Each result depends only on its own inputs (model.h), so the requests may run on any
     * worker in any order. */
    if (!c->pool) {
        for (int i = 0; i < k; i++)
            loss[i] = model_loss_grad(c->model, params[i], x[i], y[i], batch, grad[i]);
        return;
    }
    batched_call_t call = {c, params, x, y, batch, grad, loss};
    sgd_pool_run(c->pool, k, batched_task, &call);
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

static void cpu_evaluate(void *ctx, const float *params, const sgd_dataset_t *d,
                         double *mean_loss, double *error_rate)
{
    cpu_backend_t *c = ctx;
    const int64_t mb = model_max_batch(c->model), nchunks = (d->n + mb - 1) / mb;
    if (!c->pool || nchunks < 2) {
        model_evaluate(c->model, params, d, mean_loss, error_rate);
        return;
    }
    SGD_ASSERT(d->n >= 1 && nchunks <= INT32_MAX);
    if (d->n > c->row_loss_cap) {
        free(c->row_loss);
        c->row_loss = sgd_xmalloc((size_t)d->n * sizeof *c->row_loss);
        c->row_loss_cap = d->n;
    }
    int64_t *errors = sgd_xmalloc((size_t)nchunks * sizeof *errors);
    eval_call_t call = {c, params, d, errors};
    sgd_pool_run(c->pool, (int)nchunks, eval_task, &call);
    /* model_evaluate's sum: the row losses in row order. */
    double loss = 0.0;
    int64_t wrong = 0;
    for (int64_t i = 0; i < d->n; i++) loss += c->row_loss[i];
    for (int64_t k = 0; k < nchunks; k++) wrong += errors[k];
    free(errors);
    *mean_loss = loss / (double)d->n;
    *error_rate = (double)wrong / (double)d->n;
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
    free_workers(c);
    if (threads == 1) return;
    c->threads = threads;
    c->workers = sgd_xmalloc((size_t)threads * sizeof *c->workers);
    c->workers[0] = c->model;
    for (int w = 1; w < threads; w++)
        c->workers[w] = model_create(model_spec(c->model), model_max_batch(c->model));
    c->pool = sgd_pool_create(threads);
}

static void cpu_sync_begin(void *ctx, const sgd_dataset_t *train, const optim_sgd_t *opt,
                           const float *params)
{
    cpu_backend_t *c = ctx;
    (void)params; /* the caller's array is the state: sync_step updates it in place */
    SGD_ASSERT(train->dim == model_spec(c->model)->ninputs && !c->train);
    size_t np = model_nparams(c->model), mb = (size_t)model_max_batch(c->model);
    c->train = train;
    c->opt = *opt;
    c->grad = sgd_xmalloc(np * sizeof *c->grad);
    c->velocity = sgd_xcalloc(np, sizeof *c->velocity);
    c->batch_x = sgd_xmalloc(mb * (size_t)train->dim * sizeof *c->batch_x);
    c->batch_y = sgd_xmalloc(mb * sizeof *c->batch_y);
}

static double cpu_sync_step(void *ctx, const int64_t *rows, int nrows, float lr, float *params)
{
    cpu_backend_t *c = ctx;
    const sgd_dataset_t *d = c->train;
    SGD_ASSERT(d && nrows >= 1 && nrows <= model_max_batch(c->model));
    for (int k = 0; k < nrows; k++) {
        SGD_ASSERT(rows[k] >= 0 && rows[k] < d->n);
        memcpy(c->batch_x + (size_t)k * (size_t)d->dim, d->x + rows[k] * d->dim,
               (size_t)d->dim * sizeof(float));
        c->batch_y[k] = d->y[rows[k]];
    }
    double loss = model_loss_grad(c->model, params, c->batch_x, c->batch_y, nrows, c->grad);
    optim_sgd_step(&c->opt, params, c->velocity, c->grad, model_nparams(c->model), lr);
    return loss;
}

static void cpu_destroy(void *ctx)
{
    cpu_backend_t *c = ctx;
    free_workers(c);
    free(c->row_loss);
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
    .destroy = cpu_destroy,
    .set_threads = cpu_set_threads,
};

void sgd_backend_cpu_create(model_t *model, sgd_backend_t *out)
{
    cpu_backend_t *c = sgd_xcalloc(1, sizeof *c);
    c->model = model;
    c->threads = 1;
    out->iface = &cpu_iface;
    out->ctx = c;
}
