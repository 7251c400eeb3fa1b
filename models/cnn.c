/* Convolutional networks on the CPU (see cnn.h for the layers, the NHWC layout and the
 * parameter layout).  Every product is one cblas_sgemm per layer and direction over the whole
 * batch, except those of one-channel stride-1 convolutions, which cnn_direct.c computes
 * without an im2col matrix; im2col, col2im, pooling and ReLU are plain loops in a fixed order,
 * written so that their hot loops have no branch on the data and the ReLU mask below a max
 * pool costs no pass of its own (docs/performance.md, "CNN gradient on the CPU", has the
 * profile they answer).  They do the arithmetic the straightforward loops do, in the same
 * order: the same bits.  Shapes come from cnn_geom.c. */
#include "models/cnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "models/cnn_direct.h"
#include "models/cnn_internal.h"
#include "models/softmax.h"

static size_t bsz(const cnn_t *c, int64_t per_sample)
{
    return (size_t)c->max_batch * (size_t)per_sample;
}

/* Whether conv layer g goes through an im2col matrix (kept for dW); cnn_direct.c's layers
 * need none. */
static bool has_col(const cnn_geom_t *g)
{
    return g->op == CNN_CONV && !cnn_direct_applies(g);
}

/* Carves the workspace out of one block: doubles first so they stay aligned, then floats,
 * then ints. */
static void allocate(cnn_t *c)
{
    size_t widest = 0, dcol = 0, floats = 0, maxoc = 0, pool_row = 0, sources = 0, padded = 0;
    size_t direct = 0;
    for (int i = 0; i < c->n; i++) {
        const cnn_geom_t *g = &c->g[i];
        floats += bsz(c, g->out_size);
        if (has_col(g)) floats += bsz(c, g->rows * g->kdim);
        if (cnn_direct_applies(g)) direct += cnn_direct_workspace_floats(g, c->max_batch);
        if (g->op == CNN_CONV && i > 0 && bsz(c, g->rows * g->kdim) > dcol)
            dcol = bsz(c, g->rows * g->kdim);
        if (bsz(c, g->out_size) > widest) widest = bsz(c, g->out_size);
        if (bsz(c, g->in_size) > widest) widest = bsz(c, g->in_size);
        if ((size_t)g->oc > maxoc) maxoc = (size_t)g->oc;
        if (g->op == CNN_POOL_MAX && (size_t)g->ow * (size_t)g->oc > pool_row)
            pool_row = (size_t)g->ow * (size_t)g->oc;
        if (g->op == CNN_POOL_MAX) sources += bsz(c, g->out_size);
        size_t pimg = (size_t)(g->ih + 2 * g->pad) * (size_t)(g->iw + 2 * g->pad) * (size_t)g->ic;
        if (has_col(g) && g->pad > 0 && pimg > padded) padded = pimg;
    }
    floats += 2 * widest + dcol + padded + direct;
    c->block = sgd_xmalloc(maxoc * sizeof(double) + floats * sizeof(float) +
                           pool_row * sizeof(int) + sources * sizeof(int32_t));
    c->colsum = c->block;
    float *f = (float *)(c->colsum + maxoc);
    for (int i = 0; i < c->n; i++) {
        const cnn_geom_t *g = &c->g[i];
        c->out[i] = f;
        f += bsz(c, g->out_size);
        if (has_col(g)) {
            c->col[i] = f;
            f += bsz(c, g->rows * g->kdim);
        }
    }
    c->delta[0] = f;
    c->delta[1] = f + widest;
    c->dcol = f + 2 * widest;
    c->padded = c->dcol + dcol;
    float *dws = c->padded + padded;
    for (int i = 0; i < c->n; i++)
        if (cnn_direct_applies(&c->g[i])) {
            c->direct[i] = dws;
            dws += cnn_direct_workspace_floats(&c->g[i], c->max_batch);
        }
    c->pool.win = (int *)dws;
    int32_t *src = (int32_t *)(c->pool.win + pool_row);
    for (int i = 0; i < c->n; i++)
        if (c->g[i].op == CNN_POOL_MAX) {
            c->src[i] = src;
            src += bsz(c, c->g[i].out_size);
        }
}

cnn_t *cnn_create(const cnn_spec_t *spec, int nclasses, int max_batch)
{
    sgd_err_t err = {{0}};
    SGD_ASSERT(max_batch >= 1 && nclasses >= 2);
    cnn_t *c = sgd_xcalloc(1, sizeof *c);
    if (cnn_geometry(spec, nclasses, c->g, &c->n, &err) != 0)
        sgd_die(__FILE__, __LINE__, "cnn_create: %s", err.msg);
    c->nclasses = nclasses;
    c->max_batch = max_batch;
    size_t off = 0;
    for (int i = 0; i < c->n; i++) {
        const cnn_geom_t *g = &c->g[i];
        if (g->wl < 0) continue;
        c->wgeom[g->wl] = i;
        c->woff[g->wl] = off;
        off += (size_t)g->kdim * (size_t)g->oc;
        c->boff[g->wl] = off;
        off += (size_t)g->oc;
        c->nweights = g->wl + 1;
    }
    c->nparams = off;
    allocate(c);
    return c;
}

void cnn_destroy(cnn_t *c)
{
    if (!c) return;
    free(c->block);
    free(c);
}

size_t cnn_nparams(const cnn_t *c) { return c->nparams; }
int cnn_nweight_layers(const cnn_t *c) { return c->nweights; }

size_t cnn_offset(const cnn_t *c, int l, bool bias)
{
    SGD_ASSERT(l >= 0 && l < c->nweights);
    return bias ? c->boff[l] : c->woff[l];
}

int cnn_fan_in(const cnn_t *c, int l)
{
    SGD_ASSERT(l >= 0 && l < c->nweights);
    return (int)c->g[c->wgeom[l]].kdim;
}

int cnn_fan_out(const cnn_t *c, int l)
{
    SGD_ASSERT(l >= 0 && l < c->nweights);
    return c->g[c->wgeom[l]].oc;
}

int cnn_kernel_area(const cnn_t *c, int l)
{
    SGD_ASSERT(l >= 0 && l < c->nweights);
    const cnn_geom_t *g = &c->g[c->wgeom[l]];
    return g->op == CNN_CONV ? g->k * g->k : 1;
}

const cnn_geom_t *cnn_layers(const cnn_t *c, int *n)
{
    *n = c->n;
    return c->g;
}

/* ---- im2col / col2im --------------------------------------------------------------------
 * Row (b, oy, ox) of the matrix holds the window at (oy*stride - pad, ox*stride - pad), ky
 * by ky; within a window row the k pixels are adjacent in NHWC memory, so each (row, ky) is
 * zeros (padding), one contiguous run of the image, zeros.  Window columns [kx0, kx1) are
 * inside the image (col2im's bounds; im2col reads a padded copy instead). */
static void window_cols(const cnn_geom_t *g, int ox, int *kx0, int *kx1, int *ix0)
{
    *ix0 = ox * g->stride - g->pad;
    *kx0 = *ix0 < 0 ? -*ix0 : 0;
    int end = g->iw - *ix0;
    *kx1 = end < g->k ? end : g->k;
    if (*kx1 < *kx0) *kx1 = *kx0;
}

/* One sample with `pad` zeros on every side (pad > 0; else the sample itself), so that every
 * window lies inside it and im2col needs no bounds: ih + 2 pad rows of (iw + 2 pad) * ic
 * floats in buf.  The zeros are the +0 the matrix had where a window covered padding. */
static const float *padded_image(const float *restrict img, const cnn_geom_t *g,
                                 float *restrict buf)
{
    if (g->pad == 0) return img;
    const size_t ic = (size_t)g->ic, side = (size_t)g->pad * ic, row = (size_t)g->iw * ic;
    const size_t prow = row + 2 * side, top = (size_t)g->pad * prow;
    memset(buf, 0, top * sizeof *buf);
    float *dst = buf + top;
    for (int y = 0; y < g->ih; y++, dst += prow) {
        const float *restrict src = img + (size_t)y * row;
        for (size_t j = 0; j < side; j++) dst[j] = 0.0f;
        for (size_t j = 0; j < row; j++) dst[side + j] = src[j];
        for (size_t j = side + row; j < prow; j++) dst[j] = 0.0f;
    }
    memset(dst, 0, top * sizeof *buf);
    return buf;
}

/* n floats from s to d, four at a time and then one by one: a window row is a short run (5
 * floats for LeNet's first layer, 30 for its second), too short for a memcpy call to pay,
 * which is what a plain loop (the tail's too) becomes. */
static inline void copy_run(const float *restrict s, size_t n, float *restrict d)
{
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        d[j] = s[j];
        d[j + 1] = s[j + 1];
        d[j + 2] = s[j + 2];
        d[j + 3] = s[j + 3];
    }
    if (j < n) d[j] = s[j];
    if (j + 1 < n) d[j + 1] = s[j + 1];
    if (j + 2 < n) d[j + 2] = s[j + 2];
}

/* Row (b, oy, ox) of the matrix is the window at (oy*stride, ox*stride) of sample b's padded
 * image (padded_image, in buf), ky by ky: each window row is k * ic adjacent floats there. */
static void im2col(const float *restrict in, int batch, const cnn_geom_t *g,
                   float *restrict buf, float *restrict col)
{
    const size_t ic = (size_t)g->ic, krow = (size_t)g->k * ic;
    const size_t prow = ((size_t)g->iw + 2 * (size_t)g->pad) * ic;
    const size_t step = (size_t)g->stride * ic, row_step = (size_t)g->stride * prow;
    float *restrict dst = col;
    for (int b = 0; b < batch; b++) {
        const float *img = padded_image(in + (size_t)b * (size_t)g->in_size, g, buf);
        for (int oy = 0; oy < g->oh; oy++)
            for (int ox = 0; ox < g->ow; ox++) {
                const float *w = img + (size_t)oy * row_step + (size_t)ox * step;
                for (int ky = 0; ky < g->k; ky++, dst += krow, w += prow) copy_run(w, krow, dst);
            }
    }
}

/* din = 0, then every matrix entry added back where im2col took it from, rows in order. */
static void col2im(const float *restrict dcol, int batch, const cnn_geom_t *g,
                   float *restrict din)
{
    const size_t ic = (size_t)g->ic, krow = (size_t)g->k * ic;
    memset(din, 0, (size_t)batch * (size_t)g->in_size * sizeof *din);
    const float *srcrow = dcol;
    for (int b = 0; b < batch; b++) {
        float *img = din + (size_t)b * (size_t)g->in_size;
        for (int oy = 0; oy < g->oh; oy++)
            for (int ox = 0; ox < g->ow; ox++) {
                int kx0, kx1, ix0;
                window_cols(g, ox, &kx0, &kx1, &ix0);
                for (int ky = 0; ky < g->k; ky++, srcrow += krow) {
                    int iy = oy * g->stride - g->pad + ky;
                    if (iy < 0 || iy >= g->ih) continue;
                    size_t lo = (size_t)kx0 * ic, hi = (size_t)kx1 * ic;
                    float *dst = img + ((size_t)iy * (size_t)g->iw + (size_t)ix0) * ic;
                    for (size_t j = lo; j < hi; j++) dst[j] += srcrow[j];
                }
            }
    }
}

/* ---- dense products (fc layers, and convolutions over their im2col matrix) -------------- */

/* out (rows x oc) = in (rows x kdim) * W, then + b and ReLU (if the layer has one) in one
 * pass: a conv's rows are many and narrow (oc = 6 in LeNet-5), where copying the bias into
 * every row first costs as much as the product. */
static void dense_forward(const cnn_t *c, const cnn_geom_t *g, const float *params,
                          const float *in, int rows, float *restrict out)
{
    const int kdim = (int)g->kdim, oc = g->oc;
    const float *restrict b = params + c->boff[g->wl];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, oc, kdim, 1.0f, in, kdim,
                params + c->woff[g->wl], oc, 0.0f, out, oc);
    for (int i = 0; i < rows; i++) {
        float *restrict o = out + (size_t)i * (size_t)oc;
        if (g->relu)
            for (int j = 0; j < oc; j++) {
                float v = o[j] + b[j];
                o[j] = v > 0.0f ? v : 0.0f;
            }
        else
            for (int j = 0; j < oc; j++) o[j] += b[j];
    }
}

/* db = column sums of d (rows x oc), rows in order, in double. */
static void bias_grad(cnn_t *c, const cnn_geom_t *g, const float *d, int rows, float *grad)
{
    const int oc = g->oc;
    double *cs = c->colsum;
    for (int j = 0; j < oc; j++) cs[j] = 0.0;
    for (int i = 0; i < rows; i++) {
        const float *row = d + (size_t)i * (size_t)oc;
        for (int j = 0; j < oc; j++) cs[j] += row[j];
    }
    float *gb = grad + c->boff[g->wl];
    for (int j = 0; j < oc; j++) gb[j] = (float)cs[j];
}

/* dinput (rows x kdim) = d W^T. */
static void input_grad(const cnn_t *c, const cnn_geom_t *g, const float *params, const float *d,
                       int rows, float *dinput)
{
    const int kdim = (int)g->kdim, oc = g->oc;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, kdim, oc, 1.0f, d, oc,
                params + c->woff[g->wl], oc, 0.0f, dinput, kdim);
}

/* dW = in^T d, db = bias_grad, and dinput = d W^T unless dinput is NULL. */
static void dense_backward(cnn_t *c, const cnn_geom_t *g, const float *params, const float *in,
                           const float *d, int rows, float *grad, float *dinput)
{
    const int kdim = (int)g->kdim, oc = g->oc;
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, kdim, oc, rows, 1.0f, in, kdim, d, oc,
                0.0f, grad + c->woff[g->wl], oc);
    bias_grad(c, g, d, rows, grad);
    if (dinput) input_grad(c, g, params, d, rows, dinput);
}

/* d_k = 0 where the ReLU's output a_k is not > 0: its mask on a gradient. */
static void relu_mask(float *restrict d, const float *restrict a, size_t n)
{
    for (size_t k = 0; k < n; k++) d[k] = a[k] > 0.0f ? d[k] : 0.0f;
}

/* Sources of a direct conv's output gradient, sample by sample (cnn_direct_dsrc_fn): a copy
 * of the batch's matrix d, or the routing of the pool above it (layer pool, gradient d). */
typedef struct {
    const cnn_t *c;
    int pool;
    const float *d;
    const float *relu_out; /* dsrc_pool: the conv's output where its ReLU's mask is still due */
    size_t size;           /* floats per sample of the direct conv's output */
} dsrc_t;

static void dsrc_copy(void *ctx, int b, float *dsample)
{
    const dsrc_t *src = ctx;
    memcpy(dsample, src->d + (size_t)b * src->size, src->size * sizeof *dsample);
}

static void dsrc_pool(void *ctx, int b, float *dsample)
{
    const dsrc_t *src = ctx;
    memset(dsample, 0, src->size * sizeof *dsample);
    cnn_pool_backward_sample(src->c, src->pool, src->d, b, dsample);
    if (src->relu_out) {
        const float *a = src->relu_out + (size_t)b * src->size;
        relu_mask(dsample, a, src->size);
    }
}

/* Whether the first layer's gradient goes straight from the pool above it into its weight
 * gradient (cnn_direct_dsrc_fn): a direct conv (which, first, needs no input gradient) under
 * a pool.  The pool's input gradient (LeNet-5: 1.2 MB at batch 64) is then
 * never written out, only one sample of it at a time. */
static bool first_layer_routes_from_pool(const cnn_t *c)
{
    return c->n > 1 && cnn_direct_applies(&c->g[0]) &&
           (c->g[1].op == CNN_POOL_MAX || c->g[1].op == CNN_POOL_AVG);
}

/* A conv layer's backward products: dW and db, and dprev (through dcol and col2im) unless
 * dprev is NULL; direct layers take dW and db from cnn_direct.c, the others from their
 * im2col matrix. */
static void conv_backward(cnn_t *c, int i, const float *params, const float *d, int batch,
                          float *grad, float *dprev)
{
    const cnn_geom_t *g = &c->g[i];
    const int rows = batch * (int)g->rows;
    if (cnn_direct_applies(g)) {
        dsrc_t src = {.c = c, .d = d, .size = (size_t)g->out_size};
        cnn_direct_weight_grad(g, dsrc_copy, &src, batch, c->direct[i], grad + c->woff[g->wl],
                               grad + c->boff[g->wl]);
        if (dprev) input_grad(c, g, params, d, rows, c->dcol);
    } else {
        dense_backward(c, g, params, c->col[i], d, rows, grad, dprev ? c->dcol : NULL);
    }
    if (dprev) col2im(c->dcol, batch, g, dprev);
}

/* Layers 1 (a pool, gradient d) and 0 (a direct conv) together, where
 * first_layer_routes_from_pool.  The pool masks by the ReLU below it where it is a max pool;
 * an average pool does not, and then the mask is applied here, per sample, as backward_layer
 * would have to the whole batch. */
static void pool_into_direct_backward(cnn_t *c, const float *d, int batch, float *grad)
{
    const cnn_geom_t *g = &c->g[0];
    if (c->g[1].op == CNN_POOL_MAX) cnn_pool_row_windows(&c->g[1], c->pool.win);
    dsrc_t src = {.c = c, .pool = 1, .d = d, .size = (size_t)g->out_size,
                  .relu_out = g->relu && !cnn_masks_layer_below(c, 1) ? c->out[0] : NULL};
    cnn_direct_weight_grad(g, dsrc_pool, &src, batch, c->direct[0], grad + c->woff[g->wl],
                           grad + c->boff[g->wl]);
}

static void forward(cnn_t *c, const float *params, const float *x, int batch, int upto)
{
    SGD_ASSERT(batch >= 1 && batch <= c->max_batch);
    const float *in = x;
    for (int i = 0; i <= upto; i++) {
        const cnn_geom_t *g = &c->g[i];
        if (g->op == CNN_CONV && cnn_direct_applies(g)) {
            cnn_direct_forward(g, params + c->woff[g->wl], params + c->boff[g->wl], g->relu, in,
                               batch, c->direct[i], c->out[i]);
        } else if (g->op == CNN_CONV) {
            im2col(in, batch, g, c->padded, c->col[i]);
            dense_forward(c, g, params, c->col[i], batch * (int)g->rows, c->out[i]);
        } else if (g->op == CNN_FC) {
            dense_forward(c, g, params, in, batch, c->out[i]);
        } else {
            cnn_pool_forward(c, i, in, batch, c->out[i]);
        }
        in = c->out[i];
    }
}

const float *cnn_forward(cnn_t *c, const float *params, const float *x, int batch, int i)
{
    SGD_ASSERT(i >= 0 && i < c->n);
    forward(c, params, x, batch, i);
    return c->out[i];
}


/* Layer i's backward step: d (batch x out_size, w.r.t. its output after ReLU; masked: with
 * the ReLU's mask already applied) -> grad's share and, for i > 0, dprev w.r.t. its input. */
static void backward_layer(cnn_t *c, int i, const float *params, const float *x, int batch,
                           float *d, bool masked, float *dprev, float *grad)
{
    const cnn_geom_t *g = &c->g[i];
    const float *in = i == 0 ? x : c->out[i - 1];
    if (g->relu && !masked) {
        relu_mask(d, c->out[i], (size_t)batch * (size_t)g->out_size);
    }
    if (g->op == CNN_FC) {
        dense_backward(c, g, params, in, d, batch, grad, dprev);
    } else if (g->op == CNN_CONV) {
        conv_backward(c, i, params, d, batch, grad, dprev);
    } else if (dprev) {
        cnn_pool_backward(c, i, d, batch, dprev);
    }
}

double cnn_loss_grad(cnn_t *c, const float *params, const float *x, const int32_t *y,
                     int batch, float *grad)
{
    const int C = c->nclasses, last = c->n - 1;
    forward(c, params, x, batch, last);
    const double inv_b = 1.0 / batch;
    double loss = softmax_nll_grad(c->out[last], y, batch, C, c->delta[0]);
    int cur = 0;
    for (int i = last; i >= 0; i--) {
        if (i == 1 && first_layer_routes_from_pool(c)) {
            pool_into_direct_backward(c, c->delta[cur], batch, grad);
            break;
        }
        float *dprev = i > 0 ? c->delta[1 - cur] : NULL;
        bool masked = i < last && cnn_masks_layer_below(c, i + 1);
        backward_layer(c, i, params, x, batch, c->delta[cur], masked, dprev, grad);
        cur = 1 - cur;
    }
    return loss * inv_b;
}

int64_t cnn_evaluate_rows(cnn_t *c, const float *params, const float *x, const int32_t *y,
                          int rows, double *row_loss)
{
    const int C = c->nclasses;
    forward(c, params, x, rows, c->n - 1);
    return softmax_nll_rows(c->out[c->n - 1], y, rows, C, row_loss);
}
