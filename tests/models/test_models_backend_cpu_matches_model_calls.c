/* The "cpu" backend is the reference: every callback must give exactly (memcmp) what the
 * direct models/ calls give -- loss_grad, loss_grad_batched request by request, evaluate,
 * and sync_step against a hand-written gather + model_loss_grad + optim_sgd_step -- so that
 * routing the algorithms through backends changed no CPU digest.  Also: unknown backend
 * names and "cuda" where it cannot run are refused with a message, not an abort; in a CUDA
 * build the plugin loads, GPU or not. */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/backend.h"
#include "models/model_kind.h"
#include "tests/check.h"

#define DIM 12
#define CLASSES 5
#define BATCH 24
#define K 3

static void fill(float *a, size_t n, gsl_rng *r)
{
    for (size_t i = 0; i < n; i++) a[i] = (float)gsl_ran_gaussian(r, 1.0);
}

static void test_callbacks_equal_model_calls(const model_spec_t *spec, gsl_rng *r)
{
    model_t *m = model_create(spec, BATCH);
    model_t *ref = model_create(spec, BATCH);
    sgd_backend_t be;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sgd_backend_create("cpu", m, &be, &err), 0);
    CHECK(strcmp(be.iface->name, "cpu") == 0);
    size_t np = model_nparams(m);

    float *p = malloc(K * np * sizeof *p), *g = malloc(K * np * sizeof *g);
    float *gref = malloc(np * sizeof *gref), *x = malloc(K * BATCH * DIM * sizeof *x);
    int32_t y[K * BATCH];
    for (int k = 0; k < K; k++) model_init_params(m, p + (size_t)k * np, MODEL_INIT_HE, r);
    fill(x, K * BATCH * DIM, r);
    for (int i = 0; i < K * BATCH; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, CLASSES);

    /* one gradient */
    double l;
    CHECK_INT_EQ(sgd_backend_loss_grad(&be, p, x, y, BATCH, g, &l, &err), 0);
    double lref = model_loss_grad(ref, p, x, y, BATCH, gref);
    CHECK(l == lref);
    CHECK(memcmp(g, gref, np * sizeof *g) == 0);

    /* k gradients at once, each its own params and minibatch */
    const float *pp[K], *xp[K];
    const int32_t *yp[K];
    float *gp[K];
    double loss[K];
    for (int k = 0; k < K; k++) {
        pp[k] = p + (size_t)k * np;
        xp[k] = x + k * BATCH * DIM;
        yp[k] = y + k * BATCH;
        gp[k] = g + (size_t)k * np;
    }
    CHECK_INT_EQ(be.iface->loss_grad_batched(be.ctx, K, pp, xp, yp, BATCH, gp, loss, &err), 0);
    for (int k = 0; k < K; k++) {
        lref = model_loss_grad(ref, pp[k], xp[k], yp[k], BATCH, gref);
        CHECK(loss[k] == lref);
        CHECK(memcmp(gp[k], gref, np * sizeof *gref) == 0);
    }

    /* evaluate over a dataset of more rows than max_batch (several chunks) */
    sgd_dataset_t d = {.n = K * BATCH, .dim = DIM, .classes = CLASSES, .x = x, .y = y};
    double el, ee, rl, re;
    CHECK_INT_EQ(sgd_backend_evaluate(&be, p, &d, &el, &ee, &err), 0);
    model_evaluate(ref, p, &d, &rl, &re);
    CHECK(el == rl && ee == re);

    /* resident synchronous training: 5 steps with momentum, Nesterov and weight decay */
    optim_sgd_t opt = {.momentum = 0.9, .weight_decay = 1e-3, .nesterov = true};
    float *ps = malloc(np * sizeof *ps), *pr = malloc(np * sizeof *pr);
    float *vel = calloc(np, sizeof *vel), *bx = malloc(BATCH * DIM * sizeof *bx);
    int32_t by[BATCH];
    memcpy(ps, p, np * sizeof *ps);
    memcpy(pr, p, np * sizeof *pr);
    CHECK_INT_EQ(sgd_backend_sync_begin(&be, &d, &opt, ps, &err), 0);
    int64_t rows[BATCH];
    for (int step = 0; step < 5; step++) {
        for (int i = 0; i < BATCH; i++) rows[i] = (int64_t)gsl_rng_uniform_int(r, (unsigned long)d.n);
        double ls;
        CHECK_INT_EQ(sgd_backend_sync_step(&be, rows, BATCH, 0.05f, ps, &ls, &err), 0);
        for (int i = 0; i < BATCH; i++) {
            memcpy(bx + i * DIM, x + rows[i] * DIM, DIM * sizeof *bx);
            by[i] = y[rows[i]];
        }
        lref = model_loss_grad(ref, pr, bx, by, BATCH, gref);
        optim_sgd_step(&opt, pr, vel, gref, np, 0.05f);
        CHECK(ls == lref);
        CHECK(memcmp(ps, pr, np * sizeof *ps) == 0);
    }

    sgd_backend_destroy(&be);
    CHECK(be.iface == NULL);
    free(p), free(g), free(gref), free(x), free(ps), free(pr), free(vel), free(bx);
    model_destroy(m);
    model_destroy(ref);
}

static void test_refusals_are_messages(void)
{
    model_spec_t spec = {.kind = model_kind_find("softmax"), .ninputs = 3, .nclasses = 2};
    model_t *m = model_create(&spec, 4);
    sgd_backend_t be;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sgd_backend_create("gpu", m, &be, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "backend: unknown backend \"gpu\" (known: cpu, cuda)");
    CHECK(be.iface == NULL);
    sgd_backend_destroy(&be); /* safe on a zeroed backend */
    memset(&err, 0, sizeof err);
    if (!sgd_backend_have_cuda()) {
        CHECK_INT_EQ(sgd_backend_cuda_load(&err), -1);
        CHECK_STR_CONTAINS(err.msg, "built without CUDA");
        memset(&err, 0, sizeof err);
        CHECK_INT_EQ(sgd_backend_cuda_devices(), 0);
        CHECK_INT_EQ(sgd_backend_create("cuda", m, &be, &err), -1);
        CHECK_STR_CONTAINS(err.msg, "built without CUDA");
    } else if (sgd_backend_cuda_load(&err) != 0) {
        /* The plugin loads with or without a GPU: failing to is a broken build. */
        fprintf(stderr, "this build has the CUDA backend, but: %s\n", err.msg);
        check_failures++;
    } else if (sgd_backend_cuda_devices() == 0) {
        CHECK_INT_EQ(sgd_backend_create("cuda", m, &be, &err), -1);
        CHECK_STR_CONTAINS(err.msg, "backend: \"cuda\"");
        CHECK_STR_CONTAINS(err.msg, "use \"backend\": \"cpu\"");
    }
    model_destroy(m);
}

int main(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    model_spec_t softmax = {.kind = model_kind_find("softmax"), .ninputs = DIM,
                            .nclasses = CLASSES};
    model_spec_t mlp = {.kind = model_kind_find("mlp"), .ninputs = DIM, .nclasses = CLASSES,
                        .nhidden = 2, .hidden = {16, 9}};
    test_callbacks_equal_model_calls(&softmax, r);
    test_callbacks_equal_model_calls(&mlp, r);
    test_refusals_are_messages();
    gsl_rng_free(r);
    return check_exit();
}
