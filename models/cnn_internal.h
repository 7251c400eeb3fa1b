/* What cnn.c and cnn_pool.c share, private to models/cnn*.c: the network's state (struct
 * cnn, whose layers, parameters' offsets and workspace cnn.c lays out), and the pooling
 * cnn.c's forward and backward passes call (cnn_pool.c). */
#ifndef SGDSIM_MODELS_CNN_INTERNAL_H
#define SGDSIM_MODELS_CNN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/cnn.h"

/* One output row of max pooling (the widest max pool's ow * C): window offsets (max_pool,
 * max_pool_route). */
typedef struct {
    int *win;
} pool_rows_t;

struct cnn {
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n, nclasses, max_batch, nweights;
    int wgeom[CNN_MAX_GEOMS];           /* layer index of weight layer l */
    size_t woff[CNN_MAX_GEOMS], boff[CNN_MAX_GEOMS], nparams;
    /* Workspace, one allocation, all for max_batch samples: */
    float *out[CNN_MAX_GEOMS];          /* layer i's output, after its ReLU */
    float *col[CNN_MAX_GEOMS];          /* conv i's im2col matrix, kept for dW (NULL: direct) */
    float *delta[2];                    /* gradients w.r.t. activations, ping-pong */
    float *dcol;                        /* dY W^T of a conv, before col2im */
    float *padded;                      /* one sample of a padded conv's input (im2col) */
    float *direct[CNN_MAX_GEOMS];       /* direct conv i's workspace (cnn_direct.c) */
    int32_t *src[CNN_MAX_GEOMS];        /* max pool i: each output's source (max_pool) */
    double *colsum;                     /* bias-gradient accumulator, widest output */
    pool_rows_t pool;
    void *block;
};

/* Whether layer i's input gradient leaves with the ReLU mask of the layer below applied: max
 * pooling applies it while routing (max_pool_route), so that layer skips its own pass. */
static inline bool cnn_masks_layer_below(const cnn_t *c, int i)
{
    return i > 0 && c->g[i].op == CNN_POOL_MAX && c->g[i - 1].relu;
}

/* ---- pooling (cnn_pool.c) ----------------------------------------------------------- */

/* The window offsets of one output row of max pool g into win (ow * C of them). */
void cnn_pool_row_windows(const cnn_geom_t *g, int *restrict win);

/* Layer i, a pool, over the batch (max pools also record their sources in c->src[i]). */
void cnn_pool_forward(const cnn_t *c, int i, const float *restrict in, int batch,
                      float *restrict out);

/* Sample b's share of layer i's (a pool's) din from d, din zeroed. */
void cnn_pool_backward_sample(const cnn_t *c, int i, const float *restrict d, int b,
                              float *restrict din_b);

/* Layer i's (a pool's) din from d, the whole batch. */
void cnn_pool_backward(const cnn_t *c, int i, const float *restrict d, int batch,
                       float *restrict din);

#endif
