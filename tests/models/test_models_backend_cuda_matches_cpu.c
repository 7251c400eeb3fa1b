/* The CUDA backend against the CPU reference, and against itself.
 *
 * Tolerance (stated once, used everywhere below).  The normalised error of a vector a against
 * the CPU's b is  max_i |a_i - b_i| / max_i |b_i|.  CPU and GPU do the same arithmetic in
 * different orders (GEMM blockings, tree reductions), so they differ by float rounding only:
 *   gradients:            normalised error <= 1e-4
 *   losses, eval loss:    |a - b| <= 1e-5 * max(1, |b|)
 *   error rate:           |a - b| <= 1% (a near-tie may flip a prediction)
 *   parameters after 20 SGD updates (momentum, Nesterov, weight decay): normalised error
 *                         <= 1e-3 (rounding differences compound a little per update)
 * Models: softmax, MLPs and CNNs (LeNet-5, and a small one of odd shapes: stride 2, padding,
 * average and overlapping max pooling).
 * Determinism: the same inputs twice give the same bits (memcmp), for single and batched
 * gradients and for 20 resident training steps on two fresh backends.
 *
 * Exits 77 (skipped) in a build without CUDA and where cudaGetDeviceCount finds no device.  In
 * a CUDA build whose plugin does not load it fails, GPU or not: that is a broken build, and a
 * skip would hide it on the very machines that should run this test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/backend.h"
#include "models/model_kind.h"
#include "tests/check.h"

#define TOL_GRAD 1e-4
#define TOL_LOSS 1e-5
#define TOL_ERR_RATE 0.01
#define TOL_TRAIN 1e-3

static double nerr(const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]), m = fabs((double)b[i]);
        if (!(d <= num)) num = d; /* NaN propagates */
        if (m > den) den = m;
    }
    return den > 0 ? num / den : num;
}

#define CHECK_NERR(a, b, n, tol)                                                          \
    do {                                                                                  \
        double e_ = nerr((a), (b), (n));                                                  \
        if (!(e_ <= (tol))) {                                                             \
            fprintf(stderr, "%s:%d: normalised error %.3g > %.3g (%s vs %s)\n", __FILE__, \
                    __LINE__, e_, (double)(tol), #a, #b);                                 \
            check_failures++;                                                             \
        }                                                                                 \
    } while (0)

#define CHECK_LOSS(a, b) CHECK_NEAR((a), (b), TOL_LOSS * fmax(1.0, fabs(b)))

typedef struct {
    const char *name;
    model_spec_t spec;
    int batch;
} case_t;

static void fill(float *a, size_t n, double sd, gsl_rng *r)
{
    for (size_t i = 0; i < n; i++) a[i] = (float)gsl_ran_gaussian(r, sd);
}

/* loss_grad, loss_grad_batched and evaluate against the CPU backend; each twice on the GPU. */
static void test_case(const case_t *c, gsl_rng *r)
{
    enum { K = 4 };
    const model_spec_t *s = &c->spec;
    const int B = c->batch, D = s->ninputs, C = s->nclasses;
    model_t *m = model_create(s, B);
    sgd_backend_t cpu, gpu;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sgd_backend_create("cpu", m, &cpu, &err), 0);
    if (sgd_backend_create("cuda", m, &gpu, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        check_failures++;
        return;
    }
    size_t np = model_nparams(m);
    float *p = malloc(K * np * sizeof *p);
    float *x = malloc((size_t)K * (size_t)B * (size_t)D * sizeof *x);
    float *gc = malloc(K * np * sizeof *gc), *gg = malloc(K * np * sizeof *gg);
    float *g2 = malloc(K * np * sizeof *g2);
    int32_t *y = malloc((size_t)K * (size_t)B * sizeof *y);
    for (int k = 0; k < K; k++) model_init_params(m, p + (size_t)k * np, MODEL_INIT_HE, r);
    /* non-zero biases, so the bias broadcast is exercised */
    for (int l = 0; l < model_nlayers(m); l++)
        for (int k = 0; k < K; k++)
            fill(p + (size_t)k * np + model_layer_offset(m, l, true),
                 (size_t)model_layer_fan_out(m, l), 0.1, r);
    fill(x, (size_t)K * (size_t)B * (size_t)D, 1.0, r);
    for (int i = 0; i < K * B; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, (unsigned long)C);

    double lc, lg, l2;
    CHECK_INT_EQ(sgd_backend_loss_grad(&cpu, p, x, y, B, gc, &lc, &err), 0);
    CHECK_INT_EQ(sgd_backend_loss_grad(&gpu, p, x, y, B, gg, &lg, &err), 0);
    CHECK_INT_EQ(sgd_backend_loss_grad(&gpu, p, x, y, B, g2, &l2, &err), 0);
    printf("%-28s loss cpu %.9f gpu %.9f  grad nerr %.3g\n", c->name, lc, lg, nerr(gg, gc, np));
    CHECK_LOSS(lg, lc);
    CHECK_NERR(gg, gc, np, TOL_GRAD);
    CHECK(lg == l2 && memcmp(gg, g2, np * sizeof *gg) == 0);

    const float *pp[K], *xp[K];
    const int32_t *yp[K];
    float *gcp[K], *ggp[K];
    double lcs[K], lgs[K], lgs2[K];
    for (int k = 0; k < K; k++) {
        pp[k] = p + (size_t)k * np;
        xp[k] = x + (size_t)k * (size_t)B * (size_t)D;
        yp[k] = y + (size_t)k * (size_t)B;
        gcp[k] = gc + (size_t)k * np;
        ggp[k] = gg + (size_t)k * np;
    }
    CHECK_INT_EQ(sgd_backend_loss_grad_batched(&cpu, K, pp, xp, yp, B, gcp, lcs, &err), 0);
    CHECK_INT_EQ(sgd_backend_loss_grad_batched(&gpu, K, pp, xp, yp, B, ggp, lgs, &err), 0);
    for (int k = 0; k < K; k++) {
        CHECK_LOSS(lgs[k], lcs[k]);
        CHECK_NERR(ggp[k], gcp[k], np, TOL_GRAD);
    }
    memcpy(g2, gg, K * np * sizeof *g2);
    CHECK_INT_EQ(sgd_backend_loss_grad_batched(&gpu, K, pp, xp, yp, B, ggp, lgs2, &err), 0);
    CHECK(memcmp(lgs, lgs2, sizeof lgs) == 0 && memcmp(g2, gg, K * np * sizeof *gg) == 0);
    /* Informational: whether cuBLAS gave request 0 the same bits batched as alone. */
    float *one = malloc(np * sizeof *one);
    double lone;
    CHECK_INT_EQ(sgd_backend_loss_grad(&gpu, pp[0], xp[0], yp[0], B, one, &lone, &err), 0);
    printf("%-28s batched k=%d == single, bit for bit: %s\n", c->name, K,
           memcmp(one, ggp[0], np * sizeof *one) == 0 ? "yes" : "no (within tolerance)");
    free(one);

    sgd_dataset_t d = {.n = (int64_t)K * B, .dim = D, .classes = C, .x = x, .y = y};
    double elc, eec, elg, eeg, elg2, eeg2;
    CHECK_INT_EQ(sgd_backend_evaluate(&cpu, p, &d, &elc, &eec, &err), 0);
    CHECK_INT_EQ(sgd_backend_evaluate(&gpu, p, &d, &elg, &eeg, &err), 0);
    CHECK_INT_EQ(sgd_backend_evaluate(&gpu, p, &d, &elg2, &eeg2, &err), 0);
    CHECK_LOSS(elg, elc);
    CHECK_NEAR(eeg, eec, TOL_ERR_RATE);
    CHECK(elg == elg2 && eeg == eeg2);

    sgd_backend_destroy(&gpu);
    sgd_backend_destroy(&cpu);
    free(p), free(x), free(gc), free(gg), free(g2), free(y);
    model_destroy(m);
}

/* 20 resident synchronous updates of batch B: CPU vs GPU within TOL_TRAIN, and two fresh GPU
 * backends bit for bit (parameters and every loss). */
static void test_training(const char *name, model_spec_t s, int B, gsl_rng *r)
{
    enum { STEPS = 20, MAX_B = 96 };
    CHECK(B <= MAX_B);
    model_t *m = model_create(&s, B);
    size_t np = model_nparams(m);
    sgd_dataset_t d;
    dataset_synthetic(1000, s.ninputs, s.nclasses, 1.0, r, &d);
    float *p0 = malloc(np * sizeof *p0);
    model_init_params(m, p0, MODEL_INIT_HE, r);
    int64_t rows[STEPS][MAX_B];
    for (int t = 0; t < STEPS; t++)
        for (int i = 0; i < B; i++) rows[t][i] = (int64_t)gsl_rng_uniform_int(r, (unsigned long)d.n);
    optim_sgd_t opt = {.momentum = 0.9, .weight_decay = 1e-4, .nesterov = true};

    float *pr[3];
    double losses[3][STEPS];
    const char *names[3] = {"cpu", "cuda", "cuda"};
    for (int run = 0; run < 3; run++) {
        sgd_backend_t be;
        sgd_err_t err = {{0}};
        pr[run] = malloc(np * sizeof *pr[run]);
        memcpy(pr[run], p0, np * sizeof *p0);
        CHECK_INT_EQ(sgd_backend_create(names[run], m, &be, &err), 0);
        CHECK_INT_EQ(sgd_backend_sync_begin(&be, &d, &opt, pr[run], &err), 0);
        for (int t = 0; t < STEPS; t++)
            CHECK_INT_EQ(sgd_backend_sync_step(&be, rows[t], B, 0.05f, pr[run], &losses[run][t],
                                               &err), 0);
        sgd_backend_destroy(&be);
    }
    printf("%s: training %d steps: final loss cpu %.9f gpu %.9f, params nerr %.3g\n", name,
           STEPS, losses[0][STEPS - 1], losses[1][STEPS - 1], nerr(pr[1], pr[0], np));
    CHECK_NERR(pr[1], pr[0], np, TOL_TRAIN);
    for (int t = 0; t < STEPS; t++) CHECK_NEAR(losses[1][t], losses[0][t], TOL_TRAIN);
    CHECK(memcmp(pr[1], pr[2], np * sizeof *pr[1]) == 0);
    CHECK(memcmp(losses[1], losses[2], sizeof losses[1]) == 0);
    for (int run = 0; run < 3; run++) free(pr[run]);
    free(p0);
    dataset_free(&d);
    model_destroy(m);
}

/* LeNet-5 as "layers": "lenet5" resolves it (models/model_cnn.c). */
static model_spec_t lenet5(void)
{
    return (model_spec_t){.kind = model_kind_find("cnn"), .ninputs = 784, .nclasses = 10,
                          .cnn = cnn_lenet5()};
}

/* Odd shapes: a non-square input of 2 channels; a strided, padded conv (9x7 -> 5x4); average
 * pooling with overlapping windows (-> 4x3); a padded 2x2 conv (-> 5x4); max pooling with
 * overlapping windows whose last row and column no window covers (k 3, stride 2 -> 2x1);
 * then fc and a 3-class output. */
static model_spec_t odd_cnn(void)
{
    return (model_spec_t){.kind = model_kind_find("cnn"), .ninputs = 9 * 7 * 2, .nclasses = 3,
                          .cnn = {.in_h = 9, .in_w = 7, .in_c = 2, .nlayers = 5,
                                  .layer = {{CNN_CONV, 3, 3, 2, 1}, {CNN_POOL_AVG, 0, 2, 1, 0},
                                            {CNN_CONV, 4, 2, 1, 1}, {CNN_POOL_MAX, 0, 3, 2, 0},
                                            {CNN_FC, 6, 0, 0, 0}}}};
}

int main(void)
{
    if (!sgd_backend_have_cuda()) {
        printf("built without CUDA: skipping\n");
        return 77;
    }
    sgd_err_t err = {{0}};
    if (sgd_backend_cuda_load(&err)) {
        fprintf(stderr, "this build has the CUDA backend, but: %s\n", err.msg);
        return 1;
    }
    if (sgd_backend_cuda_devices() == 0) {
        printf("no usable CUDA device: skipping\n");
        return check_failures ? check_exit() : 77;
    }
    char dev[256];
    sgd_backend_cuda_device_name(dev, sizeof dev);
    printf("device: %s\n", dev);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    const model_kind_t *softmax = model_kind_find("softmax"), *mlp = model_kind_find("mlp");
    const case_t cases[] = {
        {"softmax 20->4, batch 1", {.kind = softmax, .ninputs = 20, .nclasses = 4}, 1},
        {"softmax 784->10, batch 256", {.kind = softmax, .ninputs = 784, .nclasses = 10}, 256},
        {"mlp 784-200-10, batch 128", {.kind = mlp, .ninputs = 784, .nclasses = 10, .nhidden = 1, .hidden = {200}}, 128},
        {"mlp 50-64-33-300, batch 37", {.kind = mlp, .ninputs = 50, .nclasses = 300, .nhidden = 2, .hidden = {64, 33}}, 37},
        {"mlp 17-5-3-2, batch 257", {.kind = mlp, .ninputs = 17, .nclasses = 2, .nhidden = 2, .hidden = {5, 3}}, 257},
        {"cnn lenet5 28x28, batch 16", lenet5(), 16},
        {"cnn 9x7x2, batch 5", odd_cnn(), 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) test_case(&cases[i], r);
    const model_spec_t mlp3 = {.kind = mlp, .ninputs = 30, .nclasses = 7, .nhidden = 2,
                               .hidden = {64, 33}};
    test_training("mlp 30-64-33-7", mlp3, 96, r);
    test_training("cnn 9x7x2", odd_cnn(), 24, r);
    gsl_rng_free(r);
    return check_exit();
}
