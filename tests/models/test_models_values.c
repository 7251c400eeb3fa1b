/* Model values that can be worked out by hand, determinism and the batch-stacking property
 * the simulator relies on, initialisation statistics, FLOP counts, and a short end-to-end
 * training run (model + optimizer) on synthetic data. */
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/model.h"
#include "models/optim.h"
#include "models/model_kind.h"
#include "tests/check.h"

/* Softmax 2 -> 2 with W = identity, b = 0: logits equal the inputs. */
static model_t *identity_softmax(int max_batch, float *params)
{
    model_spec_t s = {.kind = model_kind_find("softmax"), .ninputs = 2, .nclasses = 2};
    model_t *m = model_create(&s, max_batch);
    CHECK_INT_EQ(model_nparams(m), 6);
    const float p[6] = {1, 0, 0, 1, 0, 0};
    memcpy(params, p, sizeof p);
    return m;
}

static void test_hand_loss_and_grad(void)
{
    float params[6], grad[6];
    model_t *m = identity_softmax(4, params);
    /* Sample 1: x = (1, 0), y = 0 -> logits (1, 0), loss log(1 + e^-1).
     * Sample 2: x = (0, 2), y = 1 -> logits (0, 2), loss log(1 + e^-2). */
    const float x[4] = {1, 0, 0, 2};
    const int32_t y[2] = {0, 1};
    double loss = model_loss_grad(m, params, x, y, 2, grad);
    double l1 = log1p(exp(-1.0)), l2 = log1p(exp(-2.0));
    CHECK_NEAR(loss, (l1 + l2) / 2, 1e-6);
    /* delta_i = (softmax - onehot) / 2. */
    double s1 = 1 / (1 + exp(-1.0));  /* p(class 0 | sample 1) */
    double s2 = 1 / (1 + exp(-2.0));  /* p(class 1 | sample 2) */
    double d1[2] = {(s1 - 1) / 2, (1 - s1) / 2}, d2[2] = {(1 - s2) / 2, (s2 - 1) / 2};
    /* dW[i][j] = sum_n x_n[i] d_n[j]; db = sum_n d_n. */
    CHECK_NEAR(grad[0], 1 * d1[0], 1e-6);
    CHECK_NEAR(grad[1], 1 * d1[1], 1e-6);
    CHECK_NEAR(grad[2], 2 * d2[0], 1e-6);
    CHECK_NEAR(grad[3], 2 * d2[1], 1e-6);
    CHECK_NEAR(grad[4], d1[0] + d2[0], 1e-6);
    CHECK_NEAR(grad[5], d1[1] + d2[1], 1e-6);

    /* A predicted probability of e^-400 underflows in float and double; the loss must still be
     * the exact 400 and the gradient finite. */
    const float big[6] = {200, -200, 0, 0, 0, 0};
    const float xb[2] = {1, 0};
    const int32_t yb[1] = {1};
    loss = model_loss_grad(m, big, xb, yb, 1, grad);
    CHECK(isfinite(loss));
    CHECK_NEAR(loss, 400.0, 1e-9);
    for (int k = 0; k < 6; k++) CHECK(isfinite(grad[k]));
    CHECK_NEAR(grad[0], 1.0, 1e-9);
    CHECK_NEAR(grad[1], -1.0, 1e-9);

    /* Divergence is reported, not hidden. */
    const float nanp[6] = {NAN, 0, 0, 1, 0, 0};
    loss = model_loss_grad(m, nanp, xb, yb, 1, grad);
    CHECK(isnan(loss));
    model_destroy(m);
}

static void test_evaluate_hand_case(void)
{
    float params[6];
    /* max_batch 3 so the 4 samples are processed as chunks of 3 + 1. */
    model_t *m = identity_softmax(3, params);
    const float x[8] = {1, 0, 0, 1, 1, 0, 2, 3};
    const int32_t y[4] = {0, 1, 1, 0}; /* right, right, wrong, wrong */
    sgd_dataset_t d = {.n = 4, .dim = 2, .classes = 2, .x = (float *)x, .y = (int32_t *)y};
    double loss, errs;
    model_evaluate(m, params, &d, &loss, &errs);
    CHECK_NEAR(errs, 0.5, 0);
    double right = log1p(exp(-1.0)), wrong = log1p(exp(1.0));
    CHECK_NEAR(loss, (2 * right + 2 * wrong) / 4, 1e-6);

    /* Ties go to the first class: logits (0, 0) predict class 0. */
    const float xt[2] = {0, 0};
    const int32_t yt0[1] = {0}, yt1[1] = {1};
    sgd_dataset_t t0 = {.n = 1, .dim = 2, .classes = 2, .x = (float *)xt, .y = (int32_t *)yt0};
    sgd_dataset_t t1 = {.n = 1, .dim = 2, .classes = 2, .x = (float *)xt, .y = (int32_t *)yt1};
    model_evaluate(m, params, &t0, &loss, &errs);
    CHECK_NEAR(errs, 0.0, 0);
    CHECK_NEAR(loss, log(2.0), 1e-7);
    model_evaluate(m, params, &t1, &loss, &errs);
    CHECK_NEAR(errs, 1.0, 0);
    model_destroy(m);
}

static void random_problem(const model_spec_t *s, int n, gsl_rng *r, float *x, int32_t *y)
{
    for (int i = 0; i < n * s->ninputs; i++) x[i] = (float)gsl_ran_gaussian(r, 1.0);
    for (int i = 0; i < n; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, (unsigned long)s->nclasses);
}

static void test_determinism_and_stacking(void)
{
    model_spec_t s = {.kind = model_kind_find("mlp"), .ninputs = 20, .nclasses = 5, .nhidden = 2,
                      .hidden = {16, 12}};
    enum { NA = 7, NB = 5, N = NA + NB };
    model_t *m = model_create(&s, 64);
    model_t *m_small = model_create(&s, N);
    size_t np = model_nparams(m);
    float *p = malloc(np * sizeof *p);
    float *g1 = malloc(np * sizeof *g1), *g2 = malloc(np * sizeof *g2);
    float *ga = malloc(np * sizeof *ga), *gb = malloc(np * sizeof *gb);
    float x[N * 20];
    int32_t y[N];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    model_init_params(m, p, MODEL_INIT_HE, r);
    random_problem(&s, N, r, x, y);

    /* Same call twice, with a different-sized call in between, and on a model with a different
     * max_batch: bit-identical loss and gradient. */
    double l1 = model_loss_grad(m, p, x, y, N, g1);
    model_loss_grad(m, p, x + 3 * 20, y + 3, 4, g2);
    double l2 = model_loss_grad(m, p, x, y, N, g2);
    CHECK(l1 == l2);
    CHECK(memcmp(g1, g2, np * sizeof *g1) == 0);
    double l3 = model_loss_grad(m_small, p, x, y, N, g2);
    CHECK(l1 == l3);
    CHECK(memcmp(g1, g2, np * sizeof *g1) == 0);

    /* Stacking: the mean gradient of A ++ B is the size-weighted mean of the two (up to float
     * rounding), so a stacked call can stand in for separate workers' calls. */
    double la = model_loss_grad(m, p, x, y, NA, ga);
    double lb = model_loss_grad(m, p, x + NA * 20, y + NA, NB, gb);
    CHECK_NEAR(l1, (NA * la + NB * lb) / N, 1e-6);
    double maxdiff = 0, maxg = 0;
    for (size_t k = 0; k < np; k++) {
        double want = (NA * (double)ga[k] + NB * (double)gb[k]) / N;
        maxdiff = fmax(maxdiff, fabs(g1[k] - want));
        maxg = fmax(maxg, fabs(want));
    }
    CHECK(maxdiff <= 1e-5 * maxg);

    /* One sample repeated k times has the same mean gradient as the sample alone. */
    float xr[6 * 20];
    int32_t yr[6];
    for (int i = 0; i < 6; i++) {
        memcpy(xr + i * 20, x, 20 * sizeof(float));
        yr[i] = y[0];
    }
    double lone = model_loss_grad(m, p, x, y, 1, ga);
    double lrep = model_loss_grad(m, p, xr, yr, 6, gb);
    CHECK_NEAR(lrep, lone, 1e-6 * fabs(lone));
    maxdiff = maxg = 0;
    for (size_t k = 0; k < np; k++) {
        maxdiff = fmax(maxdiff, fabs(ga[k] - gb[k]));
        maxg = fmax(maxg, fabs(ga[k]));
    }
    CHECK(maxdiff <= 1e-5 * maxg);

    gsl_rng_free(r);
    free(p);
    free(g1);
    free(g2);
    free(ga);
    free(gb);
    model_destroy(m);
    model_destroy(m_small);
}

static void check_init(model_t *m, const float *p, int l, double want_var, const char *name)
{
    size_t n = (size_t)model_layer_fan_in(m, l) * (size_t)model_layer_fan_out(m, l);
    const float *w = p + model_layer_offset(m, l, false);
    double s = 0, s2 = 0;
    for (size_t k = 0; k < n; k++) {
        s += w[k];
        s2 += (double)w[k] * w[k];
    }
    const double dn = (double)n;
    double mean = s / dn, var = s2 / dn - mean * mean;
    /* Sample variance of n normals has relative s.d. sqrt(2/n) (<= 0.6% here): allow 5 s.d.;
     * the mean has s.d. sqrt(var/n). */
    printf("init %s layer %d: n %zu var %.6g (want %.6g) mean %.3g\n", name, l, n, var, want_var,
           mean);
    CHECK_NEAR(var, want_var, 5 * sqrt(2.0 / dn) * want_var);
    CHECK_NEAR(mean, 0.0, 5 * sqrt(want_var / dn));
    const float *b = p + model_layer_offset(m, l, true);
    for (int j = 0; j < model_layer_fan_out(m, l); j++) CHECK(b[j] == 0.0f);
}

static void test_init_schemes(void)
{
    model_spec_t s = {.kind = model_kind_find("mlp"), .ninputs = 400, .nclasses = 10, .nhidden = 1,
                      .hidden = {300}};
    model_t *m = model_create(&s, 1);
    CHECK_INT_EQ(model_nlayers(m), 2);
    CHECK_INT_EQ(model_nparams(m), 400 * 300 + 300 + 300 * 10 + 10);
    CHECK_INT_EQ(model_layer_offset(m, 0, false), 0);
    CHECK_INT_EQ(model_layer_offset(m, 0, true), 120000);
    CHECK_INT_EQ(model_layer_offset(m, 1, false), 120300);
    CHECK_INT_EQ(model_layer_offset(m, 1, true), 123300);
    size_t np = model_nparams(m);
    float *p = malloc(np * sizeof *p);
    for (size_t k = 0; k < np; k++) p[k] = 7.0f; /* biases must be overwritten with 0 */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    model_init_params(m, p, MODEL_INIT_HE, r);
    check_init(m, p, 0, 2.0 / 400, "he");
    model_init_params(m, p, MODEL_INIT_GLOROT, r);
    check_init(m, p, 0, 2.0 / 700, "glorot");
    model_init_params(m, p, MODEL_INIT_NORMAL01, r);
    check_init(m, p, 0, 1.0, "normal01");

    /* Same seed, same parameters. */
    float *q = malloc(np * sizeof *q);
    gsl_rng_set(r, 9);
    model_init_params(m, p, MODEL_INIT_HE, r);
    gsl_rng_set(r, 9);
    model_init_params(m, q, MODEL_INIT_HE, r);
    CHECK(memcmp(p, q, np * sizeof *p) == 0);
    gsl_rng_free(r);
    free(p);
    free(q);
    model_destroy(m);
}

static void test_flops_and_spec_check(void)
{
    model_spec_t s = {.kind = model_kind_find("mlp"), .ninputs = 784, .nclasses = 10, .nhidden = 1,
                      .hidden = {200}};
    model_t *m = model_create(&s, 8);
    /* Layer 0: forward + weight grad; layer 1: forward + weight grad + input grad. */
    CHECK_NEAR(model_flops_per_sample(m), 2.0 * (2 * 784 * 200 + 3 * 200 * 10), 0);
    model_destroy(m);

    sgd_err_t err = {{0}};
    model_spec_t bad = s;
    bad.hidden[0] = 0;
    CHECK_INT_EQ(model_spec_check(&bad, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "hidden[0]: must be >= 1, got 0");
    bad = s;
    bad.kind = model_kind_find("softmax");
    CHECK_INT_EQ(model_spec_check(&bad, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "softmax model has no hidden layers");
    bad = s;
    bad.nhidden = MODEL_MAX_LAYERS;
    CHECK_INT_EQ(model_spec_check(&bad, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "nhidden");
    bad = s;
    bad.nclasses = 1;
    CHECK_INT_EQ(model_spec_check(&bad, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "nclasses: must be >= 2, got 1");
    CHECK_INT_EQ(model_spec_check(&s, &err), 0);
}

/* End to end: plain SGD on well-separated synthetic clusters must learn them. */
static void test_training_learns(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2024);
    sgd_dataset_t d;
    dataset_synthetic(2000, 10, 4, 1.5, r, &d);
    model_spec_t s = {.kind = model_kind_find("mlp"), .ninputs = 10, .nclasses = 4, .nhidden = 1,
                      .hidden = {32}};
    model_t *m = model_create(&s, 50);
    size_t np = model_nparams(m);
    float *p = malloc(np * sizeof *p), *g = malloc(np * sizeof *g);
    float *v = calloc(np, sizeof *v);
    model_init_params(m, p, MODEL_INIT_HE, r);
    double loss0, err0, loss1, err1;
    model_evaluate(m, p, &d, &loss0, &err0);
    optim_sgd_t o = {.momentum = 0.9};
    for (int step = 0; step < 200; step++) {
        int64_t first = (step * 50) % d.n;
        model_loss_grad(m, p, d.x + first * d.dim, d.y + first, 50, g);
        optim_sgd_step(&o, p, v, g, np, 0.05f);
    }
    model_evaluate(m, p, &d, &loss1, &err1);
    printf("training: loss %.4f -> %.4f, error %.3f -> %.3f\n", loss0, loss1, err0, err1);
    CHECK(loss1 < 0.5 * loss0);
    CHECK(err1 < 0.1);
    free(p);
    free(g);
    free(v);
    dataset_free(&d);
    model_destroy(m);
    gsl_rng_free(r);
}

int main(void)
{
    test_hand_loss_and_grad();
    test_evaluate_hand_case();
    test_determinism_and_stacking();
    test_init_schemes();
    test_flops_and_spec_check();
    test_training_learns();
    return check_exit();
}
