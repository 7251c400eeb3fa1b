/* Direct convolution of one input channel at stride 1: see cnn_direct.h for why and how. */
#include "models/cnn_direct.h"

#include <stdint.h>
#include <string.h>

#include "common/error.h"

bool cnn_direct_applies(const cnn_geom_t *g)
{
    return g->op == CNN_CONV && g->ic == 1 && g->stride == 1;
}

/* The kernels' blocks: 64 floats, four vectors of the widest instruction set. */
#define BLOCK 64

/* n rounded up to 16 floats: so the workspace's parts, laid end to end from a 64-byte
 * boundary, all start on one. */
static size_t whole_vectors(size_t n) { return (n + 15) / 16 * 16; }

/* Floats of one output row (ow pixels of oc channels); of a row rounded up to whole blocks
 * (the kernels' rows: what lies past the output row is computed and thrown away); of one
 * replicated padded input row; and of the replicated sample, with the slack that the last
 * rows' blocks read past its end. */
static size_t out_row(const cnn_geom_t *g) { return (size_t)g->ow * (size_t)g->oc; }
static size_t block_row(const cnn_geom_t *g) { return (out_row(g) + BLOCK - 1) / BLOCK * BLOCK; }
static size_t rep_row(const cnn_geom_t *g)
{
    return ((size_t)g->iw + 2 * (size_t)g->pad) * (size_t)g->oc;
}
static size_t rep_floats(const cnn_geom_t *g)
{
    return whole_vectors(((size_t)g->ih + 2 * (size_t)g->pad) * rep_row(g) + block_row(g) +
                         (size_t)g->k * (size_t)g->oc);
}
static size_t taps(const cnn_geom_t *g) { return (size_t)g->k * (size_t)g->k; }

/* One sample's output gradient as dsrc writes it (oh rows of ow*oc floats), with the slack
 * that the last row's blocks read past its end. */
static size_t dsample_floats(const cnn_geom_t *g)
{
    return whole_vectors((size_t)g->oh * out_row(g) + block_row(g));
}

/* Workspace, from its first 64-byte boundary (aligned): k*k + 1 block rows (forward: the
 * tiled weights, one row per tap, and the tiled bias; backward: the accumulators of the
 * weights and the bias); one sample's output gradient (backward); then the replicated batch,
 * which forward writes and backward reads. */
size_t cnn_direct_workspace_floats(const cnn_geom_t *g, int max_batch)
{
    return 16 + (taps(g) + 1) * block_row(g) + dsample_floats(g) +
           (size_t)max_batch * rep_floats(g);
}

static float *aligned(float *ws)
{
    return (float *)(((uintptr_t)ws + 63) & ~(uintptr_t)63);
}

static float *replicated_batch(const cnn_geom_t *g, float *ws)
{
    return aligned(ws) + (taps(g) + 1) * block_row(g) + dsample_floats(g);
}

/* Block row t of tile (t < rows) is row t of v (oc floats) repeated ow times, then zeros. */
static void tile_rows(const float *restrict v, size_t rows, const cnn_geom_t *g,
                      float *restrict tile)
{
    const size_t oc = (size_t)g->oc, n = out_row(g), nb = block_row(g);
    for (size_t t = 0; t < rows; t++) {
        for (size_t j = 0; j < n; j++) tile[t * nb + j] = v[t * oc + j % oc];
        for (size_t j = n; j < nb; j++) tile[t * nb + j] = 0.0f;
    }
}

/* The row kernels (cnn_direct_rows.h) for AVX-512, AVX2 and SSE2 on x86-64, the best the CPU
 * runs chosen at each call (a cpuid bit read: no state); elsewhere one generic instance. */
typedef void forward_rows_fn(const float *restrict, size_t, int, size_t, const float *restrict,
                             const float *restrict, size_t, bool, bool, float *restrict,
                             size_t);
typedef void grad_acc_taps_fn(const float *restrict, size_t, int, size_t, const float *restrict,
                              size_t, int, size_t, float *restrict);
typedef void bias_acc_row_fn(const float *restrict, size_t, int, float *restrict);
typedef void replicate_row_fn(const float *restrict, int, size_t, float *restrict);
typedef struct {
    const char *isa;
    forward_rows_fn *forward_rows;
    grad_acc_taps_fn *grad_acc_taps;
    bias_acc_row_fn *bias_acc_row;
    replicate_row_fn *replicate_row;
} row_kernels_t;

/* Taps per pass of the weight-gradient kernel (grad_acc_taps, whose switch covers 1 .. 5):
 * LeNet's kernel rows whole. */
#define TAP_GROUP 5
_Static_assert(TAP_GROUP >= 1 && TAP_GROUP <= 5, "grad_acc_taps covers 1 .. 5 taps a pass");

#if defined(__x86_64__) && defined(__GNUC__)
typedef float vec16 __attribute__((vector_size(64)));
typedef float vec8 __attribute__((vector_size(32)));
typedef float vec4 __attribute__((vector_size(16)));
#define ROWS_VEC vec16
#define ROWS_VLEN 16
#define ROWS_TARGET __attribute__((target("avx512f")))
#define ROWS_NAME(f) f##_avx512
#include "models/cnn_direct_rows.h"
#define ROWS_VEC vec8
#define ROWS_VLEN 8
#define ROWS_TARGET __attribute__((target("avx2")))
#define ROWS_NAME(f) f##_avx2
#include "models/cnn_direct_rows.h"
#define ROWS_VEC vec4
#define ROWS_VLEN 4
#define ROWS_TARGET
#define ROWS_NAME(f) f##_sse2
#include "models/cnn_direct_rows.h"

/* The kernels this CPU runs, best first: into set, returning how many (at most 3). */
static int available_kernels(row_kernels_t set[3])
{
    int n = 0; /* the cpuid bits are read before main (libgcc's constructor) */
    if (__builtin_cpu_supports("avx512f"))
        set[n++] = (row_kernels_t){"avx512f", forward_rows_avx512, grad_acc_taps_avx512,
                                   bias_acc_row_avx512, replicate_row_avx512};
    if (__builtin_cpu_supports("avx2"))
        set[n++] = (row_kernels_t){"avx2", forward_rows_avx2, grad_acc_taps_avx2,
                                   bias_acc_row_avx2, replicate_row_avx2};
    set[n++] = (row_kernels_t){"sse2", forward_rows_sse2, grad_acc_taps_sse2, bias_acc_row_sse2,
                               replicate_row_sse2};
    return n;
}
#else
typedef float vec4 __attribute__((vector_size(16)));
#define ROWS_VEC vec4
#define ROWS_VLEN 4
#define ROWS_TARGET
#define ROWS_NAME(f) f##_generic
#include "models/cnn_direct_rows.h"

static int available_kernels(row_kernels_t set[3])
{
    set[0] = (row_kernels_t){"generic", forward_rows_generic, grad_acc_taps_generic,
                             bias_acc_row_generic, replicate_row_generic};
    return 1;
}
#endif

const char *cnn_direct_isa(int i)
{
    row_kernels_t set[3];
    return i >= 0 && i < available_kernels(set) ? set[i].isa : NULL;
}

/* Kernel set i of available_kernels (0: the best); i must be valid. */
static row_kernels_t kernels(int i)
{
    row_kernels_t set[3];
    SGD_ASSERT(i >= 0 && i < available_kernels(set));
    return set[i];
}

void cnn_direct_forward(const cnn_geom_t *g, const float *W, const float *b, bool relu,
                        const float *in, int batch, float *ws, float *out)
{
    cnn_direct_forward_isa(0, g, W, b, relu, in, batch, ws, out);
}

void cnn_direct_weight_grad(const cnn_geom_t *g, cnn_direct_dsrc_fn *dsrc, void *ctx, int batch,
                            float *ws, float *dW, float *db)
{
    cnn_direct_weight_grad_isa(0, g, dsrc, ctx, batch, ws, dW, db);
}

/* One sample replicated into rep (rep_floats): padded row y + pad, pixel x + pad holds
 * img[y][x] oc times; the padding and the slack are zeros.  Each row's zeros on the right
 * are written after its pixels, whose last vector store may run into them. */
static void replicate_sample(const row_kernels_t *kern, const float *restrict img,
                             const cnn_geom_t *g, float *restrict rep)
{
    const size_t oc = (size_t)g->oc, pad = (size_t)g->pad, prow = rep_row(g);
    const size_t side = pad * oc, pixels = (size_t)g->iw * oc;
    memset(rep, 0, pad * prow * sizeof *rep);
    for (int y = 0; y < g->ih; y++) {
        float *restrict dst = rep + ((size_t)y + pad) * prow;
        memset(dst, 0, side * sizeof *dst);
        kern->replicate_row(img + (size_t)y * (size_t)g->iw, g->iw, oc, dst + side);
        memset(dst + side + pixels, 0, side * sizeof *dst);
    }
    const size_t done = ((size_t)g->ih + pad) * prow;
    memset(rep + done, 0, (rep_floats(g) - done) * sizeof *rep);
}

void cnn_direct_forward_isa(int isa, const cnn_geom_t *g, const float *W, const float *b,
                            bool relu, const float *in, int batch, float *ws, float *out)
{
    const size_t n = out_row(g), nb = block_row(g), prow = rep_row(g), oc = (size_t)g->oc;
    float *wtile = aligned(ws), *btile = wtile + taps(g) * nb;
    const row_kernels_t kern = kernels(isa);
    tile_rows(W, taps(g), g, wtile);
    tile_rows(b, 1, g, btile);
    for (int s = 0; s < batch; s++) {
        float *rep = replicated_batch(g, ws) + (size_t)s * rep_floats(g);
        replicate_sample(&kern, in + (size_t)s * (size_t)g->in_size, g, rep);
        float *o = out + (size_t)s * (size_t)g->out_size;
        for (int oy = 0; oy < g->oh; oy += 2)
            kern.forward_rows(rep + (size_t)oy * prow, prow, g->k, oc, wtile, btile, nb, relu,
                              oy + 1 < g->oh, o + (size_t)oy * n, n);
    }
}

void cnn_direct_weight_grad_isa(int isa, const cnn_geom_t *g, cnn_direct_dsrc_fn *dsrc,
                                void *ctx, int batch, float *ws, float *dW, float *db)
{
    const size_t n = out_row(g), nb = block_row(g), prow = rep_row(g), oc = (size_t)g->oc;
    const int k = g->k;
    float *acc = aligned(ws), *dsample = acc + (taps(g) + 1) * nb;
    const row_kernels_t kern = kernels(isa);
    memset(acc, 0, (taps(g) + 1) * nb * sizeof *acc);
    memset(dsample, 0, dsample_floats(g) * sizeof *dsample);
    for (int s = 0; s < batch; s++) {
        const float *rep = replicated_batch(g, ws) + (size_t)s * rep_floats(g);
        dsrc(ctx, s, dsample);
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx += TAP_GROUP)
                kern.grad_acc_taps(rep + (size_t)ky * prow + (size_t)kx * oc, oc,
                                   k - kx < TAP_GROUP ? k - kx : TAP_GROUP, prow, dsample, n,
                                   g->oh, nb, acc + (size_t)(ky * k + kx) * nb);
        kern.bias_acc_row(dsample, n, g->oh, acc + taps(g) * nb);
    }
    for (size_t t = 0; t <= taps(g); t++)
        for (size_t ch = 0; ch < oc; ch++) {
            double total = 0.0;
            for (size_t j = ch; j < n; j += oc) total += acc[t * nb + j];
            (t < taps(g) ? dW + t * oc : db)[ch] = (float)total;
        }
}
