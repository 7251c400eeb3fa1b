/* Direct convolution of one input channel at stride 1 (LeNet's first layer on greyscale
 * images), for models/cnn.c.
 *
 * Why not im2col + sgemm there: the product is (B*oh*ow x k*k) * (k*k x oc) with k*k = 25 and
 * oc = 6 for LeNet-5, a shape OpenBLAS runs at a fraction of its speed (10-13 GFLOP/s where
 * conv2's runs at 40-45 on the same core), and the im2col matrix is k*k times the input
 * (5 MB at batch 64), written once and packed again by sgemm.  Together they were half of
 * LeNet-5's gradient time (docs/performance.md, "CNN gradient on the CPU").
 *
 * How: an output row (b, oy) is ow*oc adjacent floats (NHWC).  Tap (ky, kx) adds
 * rep[oy + ky][kx*oc + j] * wtile[tap][j] to its element j, where rep row r is the padded
 * input row r with every pixel repeated oc times and wtile[tap] is W's row `tap` repeated ow
 * times: each tap is one contiguous pass over the row, with no index arithmetic and no
 * branch (cnn_direct_rows.h).  Output rows are computed two at a time, in blocks of four
 * vectors per row held in registers across the taps: the two rows read k - 1 input rows in
 * common, loaded once, and their eight sums hide the adds' latency; the bias and the ReLU
 * are applied as the block is stored.  Rows are rounded up to whole blocks and what lies
 * past them is thrown away.  The weight gradient runs the same products with the output
 * gradient in place of the weights, into one accumulator row per tap (and one for the bias);
 * the taps of one kernel row are accumulated together, in registers across a sample's rows,
 * so that each load of the output gradient serves all of them.  At the end each
 * accumulator's ow pixels are folded per channel.  The forward pass keeps the replicated
 * batch in the workspace for the weight gradient.
 *
 * Arithmetic and determinism.  Forward: the taps are added in (ky, kx) order, then the bias,
 * then the ReLU.  Weight and bias gradients: per tap (and for the bias), element (ox, ch)
 * sums over (b, oy) in order in float (how rows and taps are grouped changes no element's
 * order); then ox = 0 .. ow-1 are added in double and rounded
 * once.  No operation depends on the instruction set (the kernels are built without
 * floating-point contraction), so every machine gives the same bits; they differ from
 * sgemm's, whose order of additions is its own.  The input gradient, where one is needed,
 * stays with cnn.c (dY W^T by sgemm, then col2im): this file replaces only the two products
 * that read the im2col matrix. */
#ifndef SGDSIM_MODELS_CNN_DIRECT_H
#define SGDSIM_MODELS_CNN_DIRECT_H

#include <stdbool.h>
#include <stddef.h>

#include "models/cnn.h"

/* Whether layer g is computed here: a conv with one input channel and stride 1. */
bool cnn_direct_applies(const cnn_geom_t *g);

/* Floats of workspace the two calls below need for layer g and batches up to max_batch. */
size_t cnn_direct_workspace_floats(const cnn_geom_t *g, int max_batch);

/* out (batch x oh*ow*oc, NHWC) = conv(in, W) + b, then max(., 0) if relu.  W: k*k x oc,
 * row-major (cnn.h's layout); ws: cnn_direct_workspace_floats(g, >= batch) floats, which
 * keep the replicated input for cnn_direct_weight_grad. */
void cnn_direct_forward(const cnn_geom_t *g, const float *W, const float *b, bool relu,
                        const float *in, int batch, float *ws, float *out);

/* Writes sample s's output gradient (oh*ow*oc floats, NHWC, the ReLU's mask applied) to
 * dsample: a copy of a batch's matrix, or (cnn.c) the max pool above routing its gradient
 * one sample at a time, so that the batch's gradient is never written out whole. */
typedef void cnn_direct_dsrc_fn(void *ctx, int s, float *dsample);

/* dW (k*k x oc) and db (oc): the weight and bias gradients, from the input of the last
 * cnn_direct_forward with this ws (the same batch) and the output gradient dsrc gives sample
 * by sample, in order. */
void cnn_direct_weight_grad(const cnn_geom_t *g, cnn_direct_dsrc_fn *dsrc, void *ctx, int batch,
                            float *ws, float *dW, float *db);

/* For tests: the instruction sets whose kernels this build has and this CPU runs, best first
 * ("avx512f", "avx2", "sse2"; "generic" off x86-64), NULL past the last; and the two calls
 * above with the kernels of cnn_direct_isa(isa) (the calls above use 0).  All give the same
 * bits. */
const char *cnn_direct_isa(int i);
void cnn_direct_forward_isa(int isa, const cnn_geom_t *g, const float *W, const float *b,
                            bool relu, const float *in, int batch, float *ws, float *out);
void cnn_direct_weight_grad_isa(int isa, const cnn_geom_t *g, cnn_direct_dsrc_fn *dsrc,
                                void *ctx, int batch, float *ws, float *dW, float *db);

#endif
