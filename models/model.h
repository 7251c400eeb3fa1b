/* The models the simulator trains, behind one API: a model_t computes the mean negative
 * log-likelihood of a batch and its gradient, and evaluates loss and error rate, on the CPU.
 * What a model IS -- its scenario keys, its checks, its layers and its numerics -- is its
 * kind's: a const table of callbacks (model_kind_t, models/model_kind.h), one file per kind
 * and one line of the registry (models/model_registry.c, the only list of kinds).  This
 * module dispatches to the table and holds what every kind shares: the spec, the layout, the
 * evaluation loop and the initialisation (model_init.c).  The kinds of this build:
 * softmax regression and MLPs (model_dense.c), convolutional networks (model_cnn.c, on
 * models/cnn.c).
 *
 * Parameters live in ONE flat float array owned by the caller, so that algorithms can keep
 * versioned snapshots, sum gradients and apply updates with single loops.  Every kind lays
 * it out as weight layers l = 0 .. nlayers-1, each a weight matrix W_l of fan_in x fan_out
 * floats (row-major) followed by its bias b_l of fan_out floats, at the offsets the layout
 * (model_layout_t) states; model_layer_offset gives the exact positions.  For softmax
 * regression and MLPs layer l maps n_l inputs to n_{l+1} outputs (n_0 = ninputs, then the
 * hidden sizes, then nclasses), so a batch X (b x n_l) times W_l is (b x n_{l+1}).
 *
 * Determinism (every kind's contract): every loop has a fixed order, reductions that matter
 * are done in double, and no kind starts threads (the caller pins OpenBLAS's thread count).
 * The gradient for a batch of B samples depends only on those B samples in that order and on
 * the parameters, not on max_batch or on earlier calls: the simulator relies on this to
 * stack several workers' minibatches into one call.
 *
 * A model_t is opaque: it holds the layout and the kind's scratch workspace for batches of up
 * to max_batch samples.  Because of that workspace one model_t must not be used by two
 * threads at once; create one per thread. */
#ifndef SGDSIM_MODELS_MODEL_H
#define SGDSIM_MODELS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "common/error.h"
#include "models/cnn.h"
#include "models/dataset.h"

#define MODEL_MAX_LAYERS 16 /* weight layers, hidden + output */

/* A kind's table (models/model_kind.h). */
typedef struct model_kind model_kind_t;

/* Weight initialisation; biases are always zero.
 *   MODEL_INIT_NORMAL01: W ~ N(0, 1), as in the FASGD authors' code (needed to reproduce it);
 *   MODEL_INIT_HE:       W ~ N(0, 2 / fan_in);
 *   MODEL_INIT_GLOROT:   W ~ N(0, 2 / (fan_in + fan_out)) (Glorot/Xavier normal). */
typedef enum { MODEL_INIT_NORMAL01, MODEL_INIT_HE, MODEL_INIT_GLOROT } model_init_t;

/* Bytes of a kind's own spec in model_spec_t.payload. */
#define MODEL_SPEC_PAYLOAD 320

/* A model as plain data: its kind (a pointer to the kind's static table), the data's shape
 * and the kind's own settings, so a spec is copied with = and compared or hashed byte for
 * byte within a process (an initialiser that names no kind-specific field zeroes them all).
 * The built-in kinds' settings have named fields, for their code and tests; any other kind
 * keeps a struct of its own in `payload` (copied in and out with memcpy, model_kind.h). */
typedef struct model_spec {
    const model_kind_t *kind;     /* a registered kind (model_kind_find); NULL: none */
    int ninputs;                  /* features per sample, >= 1 (CNN: in_h * in_w * in_c) */
    int nclasses;                 /* outputs, >= 2 */
    union {
        /* Any other kind's own settings.  First, so that an initialiser that names none of
         * these fields zeroes them all. */
        unsigned char payload[MODEL_SPEC_PAYLOAD];
        struct {                  /* kinds "softmax" (nhidden 0) and "mlp" (model_dense.c) */
            int nhidden;          /* mlp: 1 .. MODEL_MAX_LAYERS-1 */
            int hidden[MODEL_MAX_LAYERS]; /* hidden[0 .. nhidden-1]: widths, each >= 1 */
        };
        cnn_spec_t cnn;           /* kind "cnn" (model_cnn.c): input shape and layers */
    };
} model_spec_t;

typedef struct model model_t;

/* Which of the CUDA plugin's networks computes a model (model_layout_t.cuda): the plugin
 * knows these shapes of computation, never the kinds, and refuses a layout it has no kernels
 * for.
 *   MODEL_CUDA_NONE    no CUDA kernels: the "cuda" backend refuses the model;
 *   MODEL_CUDA_DENSE   fully connected layers width[0] -> ... -> width[nlayers], ReLU
 *                      between them, softmax output (softmax regression, MLPs);
 *   MODEL_CUDA_LAYERS  the layers in geom[0 .. ngeoms) (conv, pool, fc, each with its ReLU
 *                      flag), softmax output (convolutional networks). */
typedef enum { MODEL_CUDA_NONE, MODEL_CUDA_DENSE, MODEL_CUDA_LAYERS } model_cuda_net_t;

/* Where a model's layers are: their shapes and their offsets in the parameter array, plain
 * data (the CUDA plugin, backend_cuda.h, gets a model in this form).  width[l] is weight
 * layer l's fan-in (width[nlayers] = nclasses); for softmax regression and MLPs, whose
 * layers chain, fan_out[l] = width[l + 1]. */
typedef struct model_layout {
    int nlayers;                       /* weight layers */
    int width[MODEL_MAX_LAYERS + 1];   /* width[0] = ninputs ... width[nlayers] = nclasses */
    int fan_out[MODEL_MAX_LAYERS];     /* W_l is width[l] x fan_out[l], b_l fan_out[l] */
    int kernel_area[MODEL_MAX_LAYERS]; /* k * k of a convolution's W_l, else 1 (Glorot) */
    size_t woff[MODEL_MAX_LAYERS];     /* offset of W_l in the parameter array */
    size_t boff[MODEL_MAX_LAYERS];     /* offset of b_l */
    size_t nparams;
    int max_batch;
    model_cuda_net_t cuda;             /* the kind's: what the CUDA plugin computes it as */
    /* MODEL_CUDA_LAYERS: every layer's resolved shape, the output layer last, so the CUDA
     * plugin computes the network without calling into cnn.c; ngeoms = 0 else. */
    int ngeoms;
    cnn_geom_t geom[CNN_MAX_GEOMS];
} model_layout_t;

/* Checks a spec that came from user input: a kind, ninputs >= 1, nclasses >= 2, then the
 * kind's own conditions.  Returns 0, or -1 with a message naming the field as a path in the
 * model object, such as "hidden[1]: must be >= 1, got 0" or "layers[2].conv.k: ...".
 * model_create asserts the same conditions. */
int model_spec_check(const model_spec_t *spec, sgd_err_t *err);

/* Fits the spec to the data's `dim` values per sample once the data is read (ninputs = dim;
 * a CNN also takes its input shape from it where the scenario gave none) and checks what
 * depends on it; spec->nclasses must be set.  Returns -1 with a message naming the path in
 * the model object ("input: ...", "layers[2].conv.k: ...").  Afterwards the estimates below
 * may be asked for even before model_spec_check. */
int model_fit_input(model_spec_t *spec, int dim, sgd_err_t *err);

/* Parameters of a model of this spec, and bytes model_create(spec, max_batch) allocates
 * (its workspace, not the parameters): for memory estimates before anything is allocated.
 * The spec must have passed model_fit_input (not necessarily model_spec_check: the count is a
 * double so that an oversized spec gets an estimate, not an overflow). */
double model_spec_nparams(const model_spec_t *spec);
double model_workspace_bytes(const model_spec_t *spec, int64_t max_batch);

/* One line saying what the model is, e.g. "mlp 784-200-10, 159010 parameters" (the kind's
 * description and the parameter count), into buf.  The spec must pass model_spec_check. */
void model_describe(const model_spec_t *spec, char *buf, size_t size);

/* Creates a model for `spec` (copied) with workspace for batches of up to max_batch >= 1
 * samples.  The caller owns the result and releases it with model_destroy.  An invalid spec is
 * a programming error (validate input with model_spec_check first) and aborts. */
model_t *model_create(const model_spec_t *spec, int max_batch);
void model_destroy(model_t *m);

const model_spec_t *model_spec(const model_t *m);
/* The model's layout, valid while m lives. */
const model_layout_t *model_layout(const model_t *m);
int model_max_batch(const model_t *m);
size_t model_nparams(const model_t *m);

/* Number of weight layers, and the offset in the parameter array of layer l's weights
 * (bias = false) or biases (bias = true). */
int model_nlayers(const model_t *m);
size_t model_layer_offset(const model_t *m, int l, bool bias);
/* W_l is fan_in x fan_out (softmax, MLP: layer l's inputs n_l and outputs n_{l+1}). */
int model_layer_fan_in(const model_t *m, int l);
int model_layer_fan_out(const model_t *m, int l);
/* k * k for a convolution's weight layer, 1 for the others: a conv's W is
 * (k*k*c_in) x c_out, and Glorot initialisation counts fan-out as k*k*c_out. */
int model_layer_kernel_area(const model_t *m, int l);

/* Fills params (model_nparams floats) layer by layer, weights in row-major order, drawing
 * one gsl_ran_gaussian per weight from r in that order; biases are set to zero. */
void model_init_params(const model_t *m, float *params, model_init_t scheme, gsl_rng *r);

/* Forward and backward pass over `batch` samples (1 <= batch <= max_batch, asserted): x is
 * batch x ninputs row-major, y holds batch labels in [0, nclasses) (asserted).  Returns the
 * mean negative log-likelihood over the batch, and overwrites grad (model_nparams floats) with
 * the gradient of that mean.  The loss uses the log-sum-exp form, so it stays finite when a
 * predicted probability underflows; NaN or Inf parameters give a NaN/Inf loss, returned as is
 * (the caller decides what divergence means). */
double model_loss_grad(model_t *m, const float *params, const float *x, const int32_t *y,
                       int batch, float *grad);

/* Mean loss and error rate (fraction of samples whose highest logit -- the first one on ties --
 * is not the label) of params over all of d, processed in chunks of max_batch rows in order
 * and accumulated in double, so the result does not depend on anything but d and params.
 * d->dim must equal ninputs and d->n >= 1 (asserted). */
void model_evaluate(model_t *m, const float *params, const sgd_dataset_t *d, double *mean_loss,
                    double *error_rate);

/* One chunk of model_evaluate: the loss of each of rows (1 <= rows <= max_batch) samples x
 * (rows x ninputs) with labels y into row_loss[0 .. rows), and the number of them whose
 * highest logit is not the label.  model_evaluate adds the row losses in row order, so a
 * caller that evaluates chunks [k max_batch, (k + 1) max_batch) in any order -- on several
 * threads, each with its own model_t of the same max_batch -- and then adds the row losses
 * in row order gets model_evaluate's bits. */
int64_t model_evaluate_rows(model_t *m, const float *params, const float *x, const int32_t *y,
                            int rows, double *row_loss);

/* FLOPs of one sample's forward + backward pass, counting a multiply-add as 2, for the matrix
 * products only, as the kind counts them (a CNN: cnn_flops_per_sample, convolutions as their
 * im2col products; softmax regression and MLPs):
 * forward 2*n_l*n_{l+1} per layer, weight gradient the same, and the gradient
 * with respect to the layer's input for every layer but the first (the data needs none).
 * Bias, ReLU and softmax work is linear in the layer widths and left out (under 1% for the
 * MLPs we run); leaving it out makes the count comparable with a pure-sgemm baseline. */
double model_flops_per_sample(const model_t *m);

#endif
