/* Convolutional networks on the CPU: 2-D convolution, max and average pooling, ReLU, fully
 * connected layers and a softmax output with the mean negative log-likelihood loss, every
 * product one cblas_sgemm per layer and direction over the whole minibatch -- but for
 * one-channel convolutions at stride 1 (the first layer on greyscale images), computed
 * directly by models/cnn_direct.h, whose header says why.
 *
 * models/model.h is the API everyone calls: a model_spec_t of kind "cnn" carries a
 * cnn_spec_t, and that kind's table (model_cnn.c) hands every model_* call of such a model to
 * this module.  Callers
 * outside models/ use cnn.h only for the plain data below (the spec, and a layer's resolved
 * geometry for benchmarks and tests).
 *
 * Layers.  spec.layer[0 .. nlayers) in order, then an implied fully connected output layer
 * of nclasses units.  ReLU follows every conv and fc layer except the output layer; a pool
 * layer has none (its input is already >= 0 after a conv).  Flattening is implicit: a fc
 * layer reads each sample's activations as one row.
 *
 * Activations are NHWC: a sample is h x w x c floats, channel fastest, so the data's rows
 * (28 x 28 greyscale pixels, row-major) are already an image of 1 channel, and flattening
 * needs no copy.  A convolution is a fully connected layer over patches: im2col turns the
 * batch into one matrix of B*oh*ow rows of kdim = k*k*c values (index (ky*k + kx)*c + ch,
 * zeros where the window covers padding), and Y (B*oh*ow x out) = col * W + b is one sgemm.
 * Backward: dW = col^T dY and dcol = dY W^T, one sgemm each, and col2im adds dcol back into
 * the input's gradient in row order (no input gradient for the first layer: it is data).
 * A direct convolution gives the same products without the matrix; its input gradient, where
 * one is needed, is still dY W^T and col2im.
 *
 * Parameters, in the one flat array, weight layer by weight layer (conv and fc layers in
 * order, then the output layer; pools have none):
 *     W: kdim x out floats, row-major (conv: kdim = k*k*c_in in the im2col order above;
 *        fc: kdim = the input's h*w*c in NHWC order);
 *     b: out floats.
 * cnn_offset gives the exact positions.
 *
 * Output sizes: conv oh = (h + 2 pad - k) / stride + 1 (floor), pool oh = (h - k) / stride
 * + 1 without padding; the same for widths.  Max pooling takes the first largest value of
 * each window in (ky, kx) order and sends the gradient there; average pooling divides by
 * k*k.
 *
 * Determinism: as model.h's.  Every loop has a fixed order; column sums (bias gradients)
 * are added in double in row order (a direct convolution's as cnn_direct.h says); the matrices' leading dimensions do not depend on
 * max_batch, so the gradient of a batch depends only on its samples and the parameters.
 * A cnn_t holds its workspace: one thread at a time. */
#ifndef SGDSIM_MODELS_CNN_H
#define SGDSIM_MODELS_CNN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Layers the scenario lists (the output layer excluded); with the output layer at most 16
 * weight layers, MODEL_MAX_LAYERS of model.h. */
#define CNN_MAX_LAYERS 15

typedef enum { CNN_CONV, CNN_POOL_MAX, CNN_POOL_AVG, CNN_FC } cnn_op_t;

typedef struct cnn_layer_spec {
    cnn_op_t op;
    int out;    /* conv: output channels; fc: units; pool: unused (0) */
    int k;      /* conv: kernel side; pool: window side; fc: unused (0) */
    int stride; /* conv, pool: >= 1 */
    int pad;    /* conv: zeros on each side, >= 0; pool, fc: 0 */
} cnn_layer_spec_t;

typedef struct cnn_spec {
    int in_h, in_w, in_c; /* a sample's shape; in_h * in_w * in_c = the data's values */
    int nlayers;          /* 1 .. CNN_MAX_LAYERS, at least one conv or fc */
    cnn_layer_spec_t layer[CNN_MAX_LAYERS];
} cnn_spec_t;

/* A layer with its shapes resolved (the output layer included, op CNN_FC, relu false). */
typedef struct cnn_geom {
    cnn_op_t op;
    int k, stride, pad;
    int ih, iw, ic;  /* input shape */
    int oh, ow, oc;  /* output shape */
    bool relu;
    int wl;          /* weight layer index (model_layer_offset's l), -1 for a pool */
    int64_t in_size, out_size; /* floats per sample: ih*iw*ic, oh*ow*oc */
    int64_t kdim;    /* conv: k*k*ic; fc: in_size; pool: 0 */
    int64_t rows;    /* GEMM rows per sample: conv oh*ow, fc 1, pool 0 */
} cnn_geom_t;

#define CNN_MAX_GEOMS (CNN_MAX_LAYERS + 1)

/* LeNet-5 on a 28 x 28 x 1 input, the network the scenario's "layers": "lenet5" names
 * (models/model_cnn.c): conv 6@5x5 pad 2, max pool 2, conv 16@5x5, max pool 2, fc 120,
 * fc 84 (the output layer is the data's classes). */
cnn_spec_t cnn_lenet5(void);

/* Resolves the shapes of spec's layers and the output layer of `nclasses` units into
 * g[0 .. *n).  Returns 0, or -1 with a message naming the layer by its scenario path,
 * "layers[2].conv.k: a 5 x 5 kernel does not fit the 4 x 4 input (pad 0)"; also refuses
 * a list without conv or fc, bad values (k, stride < 1, pad < 0, out < 1) and any weight
 * matrix, per-sample activation or parameter total of 2^31 floats or more. */
int cnn_geometry(const cnn_spec_t *spec, int nclasses, cnn_geom_t *g, int *n, sgd_err_t *err);

typedef struct cnn cnn_t;

/* Creates a network (spec must pass cnn_geometry; asserted) with workspace for up to
 * max_batch samples.  The caller owns it and frees it with cnn_destroy. */
cnn_t *cnn_create(const cnn_spec_t *spec, int nclasses, int max_batch);
void cnn_destroy(cnn_t *c);

size_t cnn_nparams(const cnn_t *c);
int cnn_nweight_layers(const cnn_t *c);
/* Offset of weight layer l's W (bias = false) or b (bias = true). */
size_t cnn_offset(const cnn_t *c, int l, bool bias);
/* Weight layer l's W is fan_in x fan_out (conv: k*k*c_in x out); area = k*k (1 for fc). */
int cnn_fan_in(const cnn_t *c, int l);
int cnn_fan_out(const cnn_t *c, int l);
int cnn_kernel_area(const cnn_t *c, int l);
/* All layers, the output layer last (valid while c lives). */
const cnn_geom_t *cnn_layers(const cnn_t *c, int *n);

/* model_loss_grad's and model_evaluate_rows's contracts (model.h): x is batch x
 * in_h*in_w*in_c, NHWC per sample. */
double cnn_loss_grad(cnn_t *c, const float *params, const float *x, const int32_t *y,
                     int batch, float *grad);
int64_t cnn_evaluate_rows(cnn_t *c, const float *params, const float *x, const int32_t *y,
                          int rows, double *row_loss);
/* Forward pass only; returns layer i's output (batch x out_size, after its ReLU), valid
 * until the next call.  For tests: i = n - 1 gives the logits. */
const float *cnn_forward(cnn_t *c, const float *params, const float *x, int batch, int i);

/* GEMM FLOPs of one sample's forward + backward pass, as model_flops_per_sample counts
 * them: per conv or fc layer 2 * rows * kdim * out forward, the same for the weight
 * gradient and for the input gradient unless the layer is the first one. */
double cnn_flops_per_sample(const cnn_geom_t *g, int n);

/* Workspace floats per sample that cnn_create allocates (activations, im2col matrices or a
 * direct convolution's replicated input, gradient buffers, the max pools' sources), for
 * memory estimates. */
double cnn_workspace_floats_per_sample(const cnn_geom_t *g, int n);

#endif
