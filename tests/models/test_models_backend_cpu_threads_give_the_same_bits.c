/* The "cpu" backend on several threads (sgd_backend_set_threads) gives exactly (memcmp) what
 * it gives on one: loss_grad_batched request by request, evaluate over a dataset of many
 * chunks (the row losses added in row order), and the gradient of a batch large enough to be
 * split into shards (loss_grad and sync_step) -- which also agrees with one unsharded
 * model_loss_grad within float rounding.  Repeated many times with 1, 2, 3 and 8
 * threads, this is also the check that OpenBLAS 0.3.21 (Debian's pthread build, pinned to
 * one thread per call) gives bit-identical sgemm results when several threads call it at
 * once on the model's shapes -- the property sgdsim's threads rely on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <gsl/gsl_rng.h>

#include "models/backend.h"
#include "models/model_kind.h"
#include "tests/check.h"

#define DIM 784
#define CLASSES 10
#define BATCH 32
#define K 24
#define ROUNDS 6

typedef struct {
    float *params, *x, *grad;
    int32_t *y;
    double loss[K];
    double eval_loss, eval_error;
} results_t;

static void fill(float *a, size_t n, gsl_rng *r, double sd)
{
    for (size_t i = 0; i < n; i++) a[i] = (float)(sd * (2.0 * gsl_rng_uniform(r) - 1.0));
}

static void run_backend(model_t *m, int threads, const results_t *in, results_t *out,
                        const sgd_dataset_t *d)
{
    sgd_backend_t be;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sgd_backend_create("cpu", m, &be, &err), 0);
    sgd_backend_set_threads(&be, threads);
    const size_t np = model_nparams(m);
    const float *params[K], *x[K];
    const int32_t *y[K];
    float *grad[K];
    for (int i = 0; i < K; i++) {
        params[i] = in->params + (size_t)i * np;
        x[i] = in->x + (size_t)i * BATCH * DIM;
        y[i] = in->y + (size_t)i * BATCH;
        grad[i] = out->grad + (size_t)i * np;
    }
    for (int round = 0; round < ROUNDS; round++) {
        CHECK_INT_EQ(sgd_backend_loss_grad_batched(&be, K, params, x, y, BATCH, grad, out->loss,
                                                   &err), 0);
        CHECK_INT_EQ(sgd_backend_evaluate(&be, in->params, d, &out->eval_loss, &out->eval_error,
                                          &err), 0);
    }
    sgd_backend_destroy(&be);
}

#define BIG 777 /* rows of the sharded batch: 6 shards of 128 and one of 9 */

/* loss_grad and one sync_step on a batch of BIG rows, on `threads` threads. */
static void run_sharded(model_t *m, int threads, const sgd_dataset_t *d, const float *params,
                        float *grad, double *loss, float *after_step)
{
    sgd_backend_t be;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sgd_backend_create("cpu", m, &be, &err), 0);
    sgd_backend_set_threads(&be, threads);
    const size_t np = model_nparams(m);
    CHECK_INT_EQ(sgd_backend_loss_grad(&be, params, d->x, d->y, BIG, grad, loss, &err), 0);
    int64_t rows[BIG];
    for (int i = 0; i < BIG; i++) rows[i] = (i * 7) % d->n;
    const optim_sgd_t opt = {.momentum = 0.9};
    memcpy(after_step, params, np * sizeof *after_step);
    double step_loss;
    CHECK_INT_EQ(sgd_backend_sync_begin(&be, d, &opt, after_step, &err), 0);
    CHECK_INT_EQ(sgd_backend_sync_step(&be, rows, BIG, 0.1f, after_step, &step_loss, &err), 0);
    sgd_backend_destroy(&be);
}

static void sharded_gradients_are_the_same_bits_on_any_thread_count(const float *params,
                                                                   gsl_rng *r)
{
    sgd_dataset_t data = {.n = BIG, .dim = DIM, .classes = CLASSES,
                          .x = malloc((size_t)BIG * DIM * sizeof(float)),
                          .y = malloc(BIG * sizeof(int32_t))};
    const sgd_dataset_t *d = &data;
    fill(data.x, (size_t)BIG * DIM, r, 1.0);
    for (int i = 0; i < BIG; i++) data.y[i] = (int32_t)gsl_rng_uniform_int(r, CLASSES);
    const model_spec_t spec = {.kind = model_kind_find("mlp"), .ninputs = DIM, .nclasses = CLASSES,
                               .nhidden = 1, .hidden = {200}};
    model_t *m = model_create(&spec, BIG);
    const size_t np = model_nparams(m);
    float *g1 = malloc(np * sizeof *g1), *s1 = malloc(np * sizeof *s1);
    float *gt = malloc(np * sizeof *gt), *st = malloc(np * sizeof *st);
    double l1, lt;
    run_sharded(m, 1, d, params, g1, &l1, s1);
    const int threads[] = {2, 3, 8};
    for (int t = 0; t < 3; t++) {
        run_sharded(m, threads[t], d, params, gt, &lt, st);
        CHECK(memcmp(g1, gt, np * sizeof *g1) == 0);
        CHECK(memcmp(s1, st, np * sizeof *s1) == 0);
        CHECK(l1 == lt);
    }
    /* The same mathematics as one model_loss_grad over all rows, up to float rounding. */
    double lref = model_loss_grad(m, params, d->x, d->y, BIG, gt);
    double worst = 0.0, scale = 0.0;
    for (size_t i = 0; i < np; i++) {
        double e = fabs((double)g1[i] - (double)gt[i]), a = fabs((double)gt[i]);
        if (e > worst) worst = e;
        if (a > scale) scale = a;
    }
    CHECK(scale > 0);
    CHECK_NEAR(worst / scale, 0.0, 1e-5);
    CHECK_NEAR(l1, lref, 1e-9 * fabs(lref));
    CHECK(memcmp(g1, gt, np * sizeof *g1) != 0); /* really sharded: other rounding */
    free(g1);
    free(s1);
    free(gt);
    free(st);
    free(data.x);
    free(data.y);
    model_destroy(m);
}

int main(void)
{
    openblas_set_num_threads(1); /* as the runner does */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    const model_spec_t spec = {.kind = model_kind_find("mlp"), .ninputs = DIM, .nclasses = CLASSES,
                               .nhidden = 1, .hidden = {200}};
    model_t *m = model_create(&spec, BATCH);
    const size_t np = model_nparams(m);
    results_t in = {.params = malloc(K * np * sizeof(float)),
                    .x = malloc(K * BATCH * DIM * sizeof(float)),
                    .y = malloc(K * BATCH * sizeof(int32_t))};
    for (int k = 0; k < K; k++) model_init_params(m, in.params + (size_t)k * np, MODEL_INIT_HE, r);
    fill(in.x, (size_t)K * BATCH * DIM, r, 1.0);
    for (int i = 0; i < K * BATCH; i++) in.y[i] = (int32_t)gsl_rng_uniform_int(r, CLASSES);
    /* An evaluation set of K * BATCH - 5 rows: 24 chunks, the last one short. */
    sgd_dataset_t d = {.n = K * BATCH - 5, .dim = DIM, .classes = CLASSES, .x = in.x,
                       .y = in.y};

    results_t one = {.grad = malloc(K * np * sizeof(float))};
    run_backend(m, 1, &in, &one, &d);
    double direct_loss, direct_error;
    model_evaluate(m, in.params, &d, &direct_loss, &direct_error);
    CHECK(direct_loss == one.eval_loss && direct_error == one.eval_error);

    const int threads[] = {2, 3, 8};
    for (int t = 0; t < 3; t++) {
        results_t many = {.grad = malloc(K * np * sizeof(float))};
        run_backend(m, threads[t], &in, &many, &d);
        CHECK(memcmp(one.grad, many.grad, K * np * sizeof(float)) == 0);
        CHECK(memcmp(one.loss, many.loss, sizeof one.loss) == 0);
        CHECK(one.eval_loss == many.eval_loss);
        CHECK(one.eval_error == many.eval_error);
        free(many.grad);
    }
    free(one.grad);
    sharded_gradients_are_the_same_bits_on_any_thread_count(in.params, r);
    free(in.params);
    free(in.x);
    free(in.y);
    model_destroy(m);
    gsl_rng_free(r);
    return check_exit();
}
