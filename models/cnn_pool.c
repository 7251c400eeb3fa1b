/* Pooling of the convolutional networks (cnn.h): max and average pooling forward, and their
 * gradients routed back, the ReLU mask of the layer below applied on the way where a max
 * pool can (cnn_internal.h's cnn_masks_layer_below).  Moved out of cnn.c, which holds the
 * network, im2col and the dense products. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cnn.h"
#include "models/cnn_internal.h"

/* ---- pooling ---------------------------------------------------------------------------- */

/* Max pooling works an output row at a time: element e = ox * C + ch of the row reads its
 * window through win[e] = ox * stride * C + ch (cnn_pool_row_windows), the window's first input
 * relative to the row's, so every loop runs over the whole row (LeNet's pools: 84 and 80
 * elements) instead of over a window's few channels. */
void cnn_pool_row_windows(const cnn_geom_t *g, int *restrict win)
{
    for (int ox = 0, e = 0; ox < g->ow; ox++)
        for (int ch = 0; ch < g->ic; ch++, e++) win[e] = ox * g->stride * g->ic + ch;
}

/* Each output is its window's first largest value: `v > o` replaces it only by a larger one,
 * so the earlier of equal values stays and a later NaN never comes in (MAXPS's rule; a NaN
 * at the first position stays), and no branch depends on the data.  src records where each
 * output came from, as the offset of its input from the window's first input, for the
 * backward pass (max_pool_route), which so needs neither the pool's input nor a search.
 * relu_below: the input is a ReLU's output, and an output that is not > 0 gets source -1,
 * "none": the ReLU's mask (input > 0) holds the same at the output's source, which equals it,
 * so the gradient it would route is masked to 0 anyway. */
static void max_pool(const float *restrict img, const cnn_geom_t *g, const int *restrict win,
                     bool relu_below, float *restrict out, int32_t *restrict src)
{
    const int n = g->ow * g->ic;
    for (int oy = 0; oy < g->oh; oy++) {
        const float *restrict row = img + (size_t)oy * (size_t)g->stride * (size_t)g->iw *
                                              (size_t)g->ic;
        float *restrict o = out + (size_t)oy * (size_t)n;
        int32_t *restrict s = src + (size_t)oy * (size_t)n;
        for (int e = 0; e < n; e++) o[e] = row[win[e]], s[e] = 0;
        for (int ky = 0; ky < g->k; ky++)
            for (int kx = ky == 0 ? 1 : 0; kx < g->k; kx++) {
                const int32_t off = (ky * g->iw + kx) * g->ic;
                const float *restrict v = row + off;
                for (int e = 0; e < n; e++) {
                    const float x = v[win[e]];
                    const int32_t up = -(int32_t)(x > o[e]); /* all ones where x wins */
                    s[e] ^= (s[e] ^ off) & up;
                    o[e] = x > o[e] ? x : o[e];
                }
            }
        if (relu_below)
            for (int e = 0; e < n; e++) s[e] |= -(int32_t)!(o[e] > 0.0f);
    }
}

static void avg_pool(const float *restrict img, const cnn_geom_t *g, float *restrict out)
{
    const int C = g->ic;
    const float inv = 1.0f / (float)(g->k * g->k);
    for (int oy = 0; oy < g->oh; oy++)
        for (int ox = 0; ox < g->ow; ox++) {
            float *o = out + ((size_t)oy * (size_t)g->ow + (size_t)ox) * (size_t)C;
            const float *w0 = img + (size_t)((oy * g->stride * g->iw + ox * g->stride) * C);
            for (int ch = 0; ch < C; ch++) o[ch] = 0.0f;
            for (int ky = 0; ky < g->k; ky++)
                for (int kx = 0; kx < g->k; kx++) {
                    const float *v = w0 + (size_t)((ky * g->iw + kx) * C);
                    for (int ch = 0; ch < C; ch++) o[ch] += v[ch];
                }
            for (int ch = 0; ch < C; ch++) o[ch] *= inv;
        }
}

/* Layer i, a pool, over the batch (max pools also record their sources in c->src[i]). */
void cnn_pool_forward(const cnn_t *c, int i, const float *restrict in, int batch,
                      float *restrict out)
{
    const cnn_geom_t *g = &c->g[i];
    const bool relu_below = cnn_masks_layer_below(c, i);
    if (g->op == CNN_POOL_MAX) cnn_pool_row_windows(g, c->pool.win);
    for (int b = 0; b < batch; b++) {
        const size_t ii = (size_t)b * (size_t)g->in_size, o = (size_t)b * (size_t)g->out_size;
        if (g->op == CNN_POOL_MAX)
            max_pool(in + ii, g, c->pool.win, relu_below, out + o, c->src[i] + o);
        else avg_pool(in + ii, g, out + o);
    }
}

/* v if keep, else +0: by its bits, since GCC compiles `keep ? v : 0.0f` here to a branch,
 * which the data (one window position in k * k) mispredicts. */
static inline float keep_if(float v, bool keep)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u &= 0u - (uint32_t)keep;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* One sample's max-pool input gradient, din zeroed: each output's gradient is added to the
 * input it came from (src, max_pool's record), outputs in order (where windows overlap, their
 * gradients add up in that order; where they tile the input, each input gets at most one).
 * An output without a source (masked by the ReLU below) adds +0, which is what the ReLU's
 * mask made of it, at its window's first input: no change, as din is never -0.  0.0f + d is
 * what the first addition to a zeroed din gives (+0 for -0). */
static void max_pool_route(const int32_t *restrict src, const float *restrict d,
                           const cnn_geom_t *g, const pool_rows_t *s, float *restrict din)
{
    const int n = g->ow * g->ic;
    const size_t row_in = (size_t)g->stride * (size_t)g->iw * (size_t)g->ic;
    const int *restrict win = s->win;
    for (int oy = 0; oy < g->oh; oy++) {
        const int32_t *restrict sr = src + (size_t)oy * (size_t)n;
        const float *restrict dr = d + (size_t)oy * (size_t)n;
        float *restrict drow = din + (size_t)oy * row_in;
        for (int e = 0; e < n; e++) {
            const int32_t from = sr[e] & ~(sr[e] >> 31); /* -1, none: 0 */
            drow[win[e] + from] += keep_if(dr[e], sr[e] >= 0);
        }
    }
}

static void avg_pool_backward(const float *restrict d, const cnn_geom_t *g, float *restrict img)
{
    const int C = g->ic;
    const float inv = 1.0f / (float)(g->k * g->k);
    for (int oy = 0; oy < g->oh; oy++)
        for (int ox = 0; ox < g->ow; ox++) {
            const float *dr = d + ((size_t)oy * (size_t)g->ow + (size_t)ox) * (size_t)C;
            for (int ky = 0; ky < g->k; ky++)
                for (int kx = 0; kx < g->k; kx++) {
                    float *dst = img + ((size_t)(oy * g->stride + ky) * (size_t)g->iw +
                                        (size_t)(ox * g->stride + kx)) * (size_t)C;
                    for (int ch = 0; ch < C; ch++) dst[ch] += dr[ch] * inv;
                }
        }
}

/* Sample b's share of layer i's (a pool's) din from d, din zeroed; a max pool routes by the
 * sources of the forward pass (and so applies the ReLU mask below, cnn_masks_layer_below; its
 * windows' offsets in c->pool, cnn_pool_row_windows), average pooling leaves the mask to the
 * layer below. */
void cnn_pool_backward_sample(const cnn_t *c, int i, const float *restrict d, int b,
                              float *restrict din_b)
{
    const cnn_geom_t *g = &c->g[i];
    const size_t o = (size_t)b * (size_t)g->out_size;
    if (g->op == CNN_POOL_MAX) max_pool_route(c->src[i] + o, d + o, g, &c->pool, din_b);
    else avg_pool_backward(d + o, g, din_b);
}

/* Layer i's (a pool's) din from d, the whole batch. */
void cnn_pool_backward(const cnn_t *c, int i, const float *restrict d, int batch,
                       float *restrict din)
{
    const cnn_geom_t *g = &c->g[i];
    memset(din, 0, (size_t)batch * (size_t)g->in_size * sizeof *din);
    if (g->op == CNN_POOL_MAX) cnn_pool_row_windows(g, c->pool.win);
    for (int b = 0; b < batch; b++)
        cnn_pool_backward_sample(c, i, d, b, din + (size_t)b * (size_t)g->in_size);
}
