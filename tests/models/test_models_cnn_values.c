/* Convolutional networks (models/cnn.h) against numbers worked out by hand: a convolution
 * without and with padding and stride, two channels in and out, max and average pooling; the
 * parameter layout, tensor sizes and FLOPs of LeNet-5; the shape checks' messages; and the
 * determinism contract -- a batch's loss and gradient are the same bits whatever max_batch
 * is and whatever was computed before, and evaluation agrees with the training loss. */
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "models/model.h"
#include "models/model_kind.h"
#include "tests/check.h"

static cnn_spec_t one_layer(int h, int w, int c, cnn_layer_spec_t l)
{
    return (cnn_spec_t){.in_h = h, .in_w = w, .in_c = c, .nlayers = 1, .layer = {l}};
}

/* The first layer's output for input x and first-layer parameters w, b. */
static void first_output(const cnn_spec_t *s, const float *x, const float *w, int nw,
                         const float *b, int nb, float *out, int nout)
{
    cnn_t *c = cnn_create(s, 2, 1);
    float *p = calloc(cnn_nparams(c), sizeof *p);
    if (nw) memcpy(p + cnn_offset(c, 0, false), w, (size_t)nw * sizeof *p);
    if (nb) memcpy(p + cnn_offset(c, 0, true), b, (size_t)nb * sizeof *p);
    const float *o = cnn_forward(c, p, x, 1, 0);
    memcpy(out, o, (size_t)nout * sizeof *out);
    free(p);
    cnn_destroy(c);
}

static void hand_convolutions(void)
{
    const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}; /* 3 x 3, one channel */
    const float w[4] = {1, 2, 3, 4};                /* 2 x 2 kernel, (ky, kx) order */
    float o[4];
    /* valid: out(0,0) = 1*1 + 2*2 + 4*3 + 5*4 = 37, then 47, 67, 77 */
    cnn_spec_t s = one_layer(3, 3, 1, (cnn_layer_spec_t){CNN_CONV, 1, 2, 1, 0});
    first_output(&s, x, w, 4, NULL, 0, o, 4);
    CHECK_NEAR(o[0], 37, 0); CHECK_NEAR(o[1], 47, 0); CHECK_NEAR(o[2], 67, 0);
    CHECK_NEAR(o[3], 77, 0);
    /* pad 1, stride 2: windows at (-1,-1): 4*1; (-1,1): 3*2 + 4*3 = 18;
     * (1,-1): 2*4 + 4*7 = 36; (1,1): 5 + 12 + 24 + 36 = 77 */
    s = one_layer(3, 3, 1, (cnn_layer_spec_t){CNN_CONV, 1, 2, 2, 1});
    first_output(&s, x, w, 4, NULL, 0, o, 4);
    CHECK_NEAR(o[0], 4, 0); CHECK_NEAR(o[1], 18, 0); CHECK_NEAR(o[2], 36, 0);
    CHECK_NEAR(o[3], 77, 0);
    /* bias and ReLU: w = (-1, 0, 0, 0), b = 2 on the valid windows: 2-1, 2-2, 2-4 -> 0, 2-5 */
    const float wn[4] = {-1, 0, 0, 0}, b2 = 2;
    s = one_layer(3, 3, 1, (cnn_layer_spec_t){CNN_CONV, 1, 2, 1, 0});
    first_output(&s, x, wn, 4, &b2, 1, o, 4);
    CHECK_NEAR(o[0], 1, 0); CHECK_NEAR(o[1], 0, 0); CHECK_NEAR(o[2], 0, 0);
    CHECK_NEAR(o[3], 0, 0);
    /* 2 x 2 x 2 input (NHWC), 2 output channels, one window: W row (pixel*2 + c), column o;
     * o = 0 sums everything: 1-1+2+0+0+3+1+1 = 7; o = 1 sums channel 0: 1+2+0+1 = 4 (+0.5) */
    const float x2[8] = {1, -1, 2, 0, 0, 3, 1, 1};
    float w2[16], b22[2] = {0, 0.5f}, o2[2];
    for (int r = 0; r < 8; r++) {
        w2[r * 2] = 1;
        w2[r * 2 + 1] = r % 2 == 0 ? 1.0f : 0.0f;
    }
    s = one_layer(2, 2, 2, (cnn_layer_spec_t){CNN_CONV, 2, 2, 1, 0});
    first_output(&s, x2, w2, 16, b22, 2, o2, 2);
    CHECK_NEAR(o2[0], 7, 0); CHECK_NEAR(o2[1], 4.5, 0);
}

static void hand_pooling(void)
{
    /* 4 x 4, one channel, windows 2 x 2 stride 2 */
    const float x[16] = {1, 5, 2, 0, 3, 4, 8, 8, 0, -1, 6, 7, -2, -3, 9, 1};
    float o[4];
    cnn_spec_t s = one_layer(4, 4, 1, (cnn_layer_spec_t){.op = CNN_POOL_MAX, .k = 2, .stride = 2});
    s.layer[1] = (cnn_layer_spec_t){.op = CNN_FC, .out = 1}; /* a weight layer is required */
    s.nlayers = 2;
    first_output(&s, x, NULL, 0, NULL, 0, o, 4);
    CHECK_NEAR(o[0], 5, 0); CHECK_NEAR(o[1], 8, 0); CHECK_NEAR(o[2], 0, 0);
    CHECK_NEAR(o[3], 9, 0);
    s.layer[0].op = CNN_POOL_AVG; /* (1+5+3+4)/4, (2+0+8+8)/4, (0-1-2-3)/4, (6+7+9+1)/4 */
    first_output(&s, x, NULL, 0, NULL, 0, o, 4);
    CHECK_NEAR(o[0], 3.25, 0); CHECK_NEAR(o[1], 4.5, 0); CHECK_NEAR(o[2], -1.5, 0);
    CHECK_NEAR(o[3], 5.75, 0);
    /* window 3 stride 1 on 4 x 4: two by two overlapping windows; the 9 at (3, 2) is in
     * the lower two */
    s.layer[0] = (cnn_layer_spec_t){.op = CNN_POOL_MAX, .k = 3, .stride = 1};
    first_output(&s, x, NULL, 0, NULL, 0, o, 4);
    CHECK_NEAR(o[0], 8, 0); CHECK_NEAR(o[1], 8, 0); CHECK_NEAR(o[2], 9, 0);
    CHECK_NEAR(o[3], 9, 0);
}

/* Where max pooling sends the gradient: to each window's first largest value in (ky, kx)
 * order, ties included, and nowhere for a window whose winner a ReLU zeroed.  A 1 x 1 conv
 * passes channel 0 (weights 1, 0) and ignores channel 1, which marks each position with a
 * power of two; the output layer sums the pooled values into logit 0, so every window's
 * gradient is the same g, and conv's dW for the marker channel over db is the mean marker of
 * the positions the windows chose. */
static double routed_markers(int side, int k, int stride, const float *value, int *windows)
{
    cnn_spec_t s = one_layer(side, side, 2, (cnn_layer_spec_t){CNN_CONV, 1, 1, 1, 0});
    s.layer[1] = (cnn_layer_spec_t){.op = CNN_POOL_MAX, .k = k, .stride = stride};
    s.nlayers = 2;
    cnn_t *c = cnn_create(&s, 2, 1);
    float *p = calloc(cnn_nparams(c), sizeof *p), *grad = malloc(cnn_nparams(c) * sizeof *grad);
    float x[2 * 16];
    for (int i = 0; i < side * side; i++) x[2 * i] = value[i], x[2 * i + 1] = (float)(1 << i);
    p[cnn_offset(c, 0, false)] = 1.0f;
    int pooled = (side - k) / stride + 1;
    *windows = pooled * pooled;
    for (int j = 0; j < *windows; j++) p[cnn_offset(c, 1, false) + (size_t)(2 * j)] = 1.0f;
    const int32_t y = 1;
    cnn_loss_grad(c, p, x, &y, 1, grad);
    double marker = grad[cnn_offset(c, 0, false) + 1], db = grad[cnn_offset(c, 0, true)];
    CHECK(db > 0); /* label 1: the loss grows with logit 0 */
    free(p), free(grad);
    cnn_destroy(c);
    return marker / db;
}

static void pool_gradient_routing(void)
{
    int windows;
    /* 2 x 2 windows tiling a 2 x 2 input: the tie 3, 3 goes to the first (marker 2) */
    const float tie[4] = {1, 3, 3, 2};
    CHECK_NEAR(routed_markers(2, 2, 2, tie, &windows), 2, 1e-6);
    CHECK_INT_EQ(windows, 1);
    /* overlapping 2 x 2 windows, stride 1, on 3 x 3: winners (0,0), (0,1), (1,0), (2,1), the
     * last a tie; markers 1 + 2 + 8 + 128, one window each */
    const float overlap[9] = {5, 5, 1, 5, 2, 1, 0.5f, 3, 3};
    CHECK_NEAR(routed_markers(3, 2, 1, overlap, &windows) * 4, 1 + 2 + 8 + 128, 1e-4);
    CHECK_INT_EQ(windows, 4);
    /* both windows of the top row take the 4 (marker 2); those of the bottom row hold only
     * negative values, a tie of zeros after the ReLU, and its mask sends nothing from them */
    const float dead[9] = {-1, 4, -3, -2, -1, -5, -1, -2, -3};
    CHECK_NEAR(routed_markers(3, 2, 1, dead, &windows), 2, 1e-6);
}

static model_spec_t lenet5(void)
{
    return (model_spec_t){.kind = model_kind_find("cnn"), .ninputs = 784, .nclasses = 10,
                          .cnn = cnn_lenet5()};
}

static void lenet5_layout_and_flops(void)
{
    model_spec_t s = lenet5();
    model_t *m = model_create(&s, 4);
    CHECK_INT_EQ(model_nlayers(m), 5);
    /* conv1 25x6+6, conv2 150x16+16, fc 400x120+120, 120x84+84, 84x10+10 */
    CHECK_INT_EQ(model_nparams(m), 156 + 2416 + 48120 + 10164 + 850);
    const int fan_in[5] = {25, 150, 400, 120, 84}, fan_out[5] = {6, 16, 120, 84, 10};
    const int area[5] = {25, 25, 1, 1, 1};
    const size_t woff[5] = {0, 156, 2572, 50692, 60856};
    for (int l = 0; l < 5; l++) {
        CHECK_INT_EQ(model_layer_fan_in(m, l), fan_in[l]);
        CHECK_INT_EQ(model_layer_fan_out(m, l), fan_out[l]);
        CHECK_INT_EQ(model_layer_kernel_area(m, l), area[l]);
        CHECK_INT_EQ(model_layer_offset(m, l, false), woff[l]);
        CHECK_INT_EQ(model_layer_offset(m, l, true), woff[l] + (size_t)(fan_in[l] * fan_out[l]));
    }
    /* MACs: 28*28*25*6, 10*10*150*16, 400*120, 120*84, 84*10; x2 forward, x2 weight
     * gradient, x2 input gradient except conv1 */
    double mac1 = 117600, rest = 240000 + 48000 + 10080 + 840;
    CHECK_NEAR(model_flops_per_sample(m), 4 * (mac1 + rest) + 2 * rest, 0);
    CHECK(model_layout(m)->cuda == MODEL_CUDA_LAYERS && model_layout(m)->ngeoms == 7);
    model_destroy(m);
}

static void expect_error(model_spec_t s, const char *needle)
{
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(model_spec_check(&s, &err), -1);
    CHECK_STR_CONTAINS(err.msg, needle);
}

static void shape_checks(void)
{
    model_spec_t s = lenet5();
    s.cnn.layer[2].k = 11; /* 14 x 14 after the first pool: 11 fits, 15 does not */
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(model_spec_check(&s, &err), 0);
    s.cnn.layer[2].k = 15;
    expect_error(s, "layers[2].conv.k: a 15 x 15 kernel does not fit the 14 x 14 input");
    s = lenet5();
    s.cnn.layer[1].stride = 0;
    expect_error(s, "layers[1].pool.max.stride: must be >= 1, got 0");
    s = lenet5();
    s.cnn.layer[0].out = 0;
    expect_error(s, "layers[0].conv.out: must be >= 1");
    s = lenet5();
    s.cnn.layer[3].k = 6; /* 10 x 10 -> pool 6/2 gives 3 x 3; a window of 11 does not fit */
    s.cnn.layer[3].k = 11;
    expect_error(s, "layers[3].pool.max: a 11 x 11 window does not fit the 10 x 10 input");
    s = lenet5();
    s.cnn.nlayers = 2;
    s.cnn.layer[0] = s.cnn.layer[1];
    expect_error(s, "layers: needs at least one conv or fc layer");
    s = lenet5();
    s.cnn.layer[4].out = 1 << 30; /* 400 x 2^30 weights */
    expect_error(s, "layers[4].fc: 400 x 1073741824 weights");
    s = lenet5();
    s.ninputs = 783;
    expect_error(s, "input: 28 x 28 x 1 values per sample, but ninputs = 783");
    s = lenet5();
    CHECK_INT_EQ(model_fit_input(&s, 785, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "input: 28 x 28 x 1 = 784 values per sample, the data has 785");
    s.cnn.in_h = s.cnn.in_w = s.cnn.in_c = 0;
    CHECK_INT_EQ(model_fit_input(&s, 784, &err), 0); /* a square image of one channel */
    CHECK(s.cnn.in_h == 28 && s.cnn.in_w == 28 && s.cnn.in_c == 1 && s.ninputs == 784);
    s.cnn.in_h = s.cnn.in_w = s.cnn.in_c = 0;
    /* not square: 1 x 1 x dim, on which the fit checks the layers: the padded 5 x 5 kernel
     * fits 1 x 1 (one output), the pool after it does not */
    CHECK_INT_EQ(model_fit_input(&s, 12, &err), -1);
    CHECK(s.cnn.in_h == 1 && s.cnn.in_w == 1 && s.cnn.in_c == 12);
    CHECK_STR_CONTAINS(err.msg, "layers[1].pool.max: a 2 x 2 window does not fit the 1 x 1 input");
    expect_error(s, "layers[1].pool.max: a 2 x 2 window does not fit the 1 x 1 input");
}

static void fill(gsl_rng *r, float *v, size_t n, double scale)
{
    for (size_t k = 0; k < n; k++) v[k] = (float)((gsl_rng_uniform(r) - 0.5) * scale);
}

/* Same batch, different max_batch and history: same bits; evaluation = training loss. */
static void determinism(void)
{
    model_spec_t s = lenet5();
    model_t *a = model_create(&s, 7), *b = model_create(&s, 40);
    size_t np = model_nparams(a);
    float *p = malloc(np * sizeof *p), *ga = malloc(np * sizeof *ga), *gb = malloc(np * sizeof *gb);
    float *x = malloc(40 * 784 * sizeof *x);
    int32_t y[40];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    model_init_params(a, p, MODEL_INIT_HE, r);
    fill(r, x, 40 * 784, 2.0);
    for (int i = 0; i < 40; i++) y[i] = i % 10;
    double la = model_loss_grad(a, p, x, y, 7, ga);
    model_loss_grad(b, p, x + 7 * 784, y + 7, 33, gb); /* something else first */
    double lb = model_loss_grad(b, p, x, y, 7, gb);
    CHECK(la == lb);
    CHECK(memcmp(ga, gb, np * sizeof *ga) == 0);
    double row_loss[7], sum = 0;
    int64_t wrong = model_evaluate_rows(b, p, x, y, 7, row_loss);
    for (int i = 0; i < 7; i++) sum += row_loss[i];
    CHECK_NEAR(sum / 7, la, 1e-12);
    CHECK(wrong >= 0 && wrong <= 7);
    gsl_rng_free(r);
    free(p), free(ga), free(gb), free(x);
    model_destroy(a);
    model_destroy(b);
}

int main(void)
{
    hand_convolutions();
    hand_pooling();
    pool_gradient_routing();
    lenet5_layout_and_flops();
    shape_checks();
    determinism();
    return check_exit();
}
