/* The CUDA backend's convolutional networks: cnn.c's layers on the GPU, with the same NHWC
 * activations, im2col order and flat parameter layout (models/cnn.h), over k stacked
 * requests of `batch` samples each, as cuda_dense.cu does for MLPs.
 *
 * Every conv and fc layer is one cublasSgemmStridedBatched per direction over the k requests
 * (a conv's GEMM rows are its batch's oh*ow output pixels, as on the CPU): forward
 * Y = col W, then bias and ReLU in one kernel; backward dW = col^T dY, dcol = dY W^T.  The
 * rest are kernels of one thread per output element that gather what they need, so nothing
 * is added by two threads and no atomics are needed:
 *   im2col    one thread per matrix entry (zeros where the window covers padding);
 *   col2im    one thread per input element, adding the matrix entries that came from it in
 *             the order cnn.c's col2im adds them (output pixels in row order): the same bits;
 *   pooling   forward one thread per output (max: the first largest in (ky, kx) order, its
 *             index kept); backward one thread per input, adding the outputs whose window
 *             holds it (max: those that took it) in output order, as cnn.c does;
 *   bias      the column sums of dY in double, in two fixed-order steps: chunks of
 *             CHUNK_ROWS rows or more (each a fixed stride pattern and tree, as k_bias_grad),
 *             then the chunks in order -- a conv's dY has batch*oh*ow rows but few columns.
 * Against the CPU the differences are the GEMMs' summation orders, the bias sums' grouping,
 * and the CPU's one-channel stride-1 convolutions (LeNet's first layer), which it computes
 * directly (models/cnn_direct.h) rather than through im2col and a GEMM: all within
 * tests/models/test_models_backend_cuda_matches_cpu.c's tolerance. */
#include "models/cuda_internal.cuh"

/* ---- kernels ------------------------------------------------------------------------------ */

/* col (n = samples*oh*ow x kdim) from in (samples x ih*iw*ic): row (b, oy, ox), column
 * (ky*k + kx)*ic + ch holds pixel (oy*stride - pad + ky, ox*stride - pad + kx), or 0. */
__global__ void k_im2col(const float *in, cnn_geom_t g, float *col, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    const size_t kdim = (size_t)g.kdim, r = idx / kdim;
    const int j = (int)(idx % kdim), ch = j % g.ic, kx = (j / g.ic) % g.k, ky = j / (g.ic * g.k);
    const int ox = (int)(r % (size_t)g.ow), oy = (int)(r / (size_t)g.ow % (size_t)g.oh);
    const size_t b = r / ((size_t)g.ow * (size_t)g.oh);
    const int iy = oy * g.stride - g.pad + ky, ix = ox * g.stride - g.pad + kx;
    col[idx] = iy >= 0 && iy < g.ih && ix >= 0 && ix < g.iw
                   ? in[b * (size_t)g.in_size + ((size_t)iy * g.iw + ix) * g.ic + ch]
                   : 0.0f;
}

/* Output positions [*lo, *hi] along one side whose window (side k, stride, pad) covers input
 * position i; empty when *lo > *hi. */
static __device__ void covering(int i, int k, int stride, int pad, int outs, int *lo, int *hi)
{
    const int top = i + pad; /* window start o*stride <= top < o*stride + k */
    *lo = top - k + 1 <= 0 ? 0 : (top - k + stride) / stride;
    *hi = top / stride < outs - 1 ? top / stride : outs - 1;
}

/* din (n = samples*ih*iw*ic) = the sum of the dcol entries im2col took from each element,
 * output pixels in row order (cnn.c's col2im order). */
__global__ void k_col2im(const float *dcol, cnn_geom_t g, float *din, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    const int ch = (int)(idx % (size_t)g.ic);
    const size_t p = idx / (size_t)g.ic;
    const int ix = (int)(p % (size_t)g.iw), iy = (int)(p / (size_t)g.iw % (size_t)g.ih);
    const size_t b = p / ((size_t)g.iw * (size_t)g.ih);
    int oy0, oy1, ox0, ox1;
    covering(iy, g.k, g.stride, g.pad, g.oh, &oy0, &oy1);
    covering(ix, g.k, g.stride, g.pad, g.ow, &ox0, &ox1);
    float acc = 0.0f;
    for (int oy = oy0; oy <= oy1; oy++)
        for (int ox = ox0; ox <= ox1; ox++) {
            const int ky = iy + g.pad - oy * g.stride, kx = ix + g.pad - ox * g.stride;
            const size_t row = (b * (size_t)g.oh + (size_t)oy) * (size_t)g.ow + (size_t)ox;
            acc += dcol[row * (size_t)g.kdim + (size_t)((ky * g.k + kx) * g.ic + ch)];
        }
    din[idx] = acc;
}

/* Pooling forward, one thread per output (n = samples*out_size): max keeps the first
 * largest value of the window in (ky, kx) order and its in-sample input index; avg adds
 * the window in that order and multiplies by 1/k^2, as cnn.c. */
__global__ void k_pool_forward(const float *in, cnn_geom_t g, float *out, int32_t *arg,
                               size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    const int C = g.ic, ch = (int)(idx % (size_t)C);
    const size_t p = idx / (size_t)C;
    const int ox = (int)(p % (size_t)g.ow), oy = (int)(p / (size_t)g.ow % (size_t)g.oh);
    const size_t b = p / ((size_t)g.ow * (size_t)g.oh);
    const float *img = in + b * (size_t)g.in_size;
    const int32_t at0 = (int32_t)((oy * g.stride * g.iw + ox * g.stride) * C + ch);
    if (g.op == CNN_POOL_MAX) {
        float best = img[at0];
        int32_t where = at0;
        for (int ky = 0; ky < g.k; ky++)
            for (int kx = ky == 0 ? 1 : 0; kx < g.k; kx++) {
                const int32_t at = at0 + (ky * g.iw + kx) * C;
                if (img[at] > best) best = img[at], where = at; /* strict: first largest */
            }
        out[idx] = best;
        arg[idx] = where;
        return;
    }
    float acc = 0.0f;
    for (int ky = 0; ky < g.k; ky++)
        for (int kx = 0; kx < g.k; kx++) acc += img[at0 + (ky * g.iw + kx) * C];
    out[idx] = __fmul_rn(acc, 1.0f / (float)(g.k * g.k));
}

/* Pooling backward, one thread per input element (n = samples*in_size): the sum, in output
 * order, of d over the outputs whose window holds it (max: only those that took it; avg:
 * each times 1/k^2, rounded as cnn.c's `dst += d * inv`, no FMA). */
__global__ void k_pool_backward(const float *d, cnn_geom_t g, const int32_t *arg, float *din,
                                size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    const int C = g.ic;
    const size_t b = idx / (size_t)g.in_size;
    const int32_t me = (int32_t)(idx % (size_t)g.in_size);
    const int ch = me % C, ix = me / C % g.iw, iy = me / C / g.iw;
    int oy0, oy1, ox0, ox1;
    covering(iy, g.k, g.stride, 0, g.oh, &oy0, &oy1);
    covering(ix, g.k, g.stride, 0, g.ow, &ox0, &ox1);
    const float inv = 1.0f / (float)(g.k * g.k);
    const size_t base = b * (size_t)g.out_size;
    float acc = 0.0f;
    for (int oy = oy0; oy <= oy1; oy++)
        for (int ox = ox0; ox <= ox1; ox++) {
            const size_t o = base + ((size_t)oy * (size_t)g.ow + (size_t)ox) * (size_t)C + ch;
            if (g.op == CNN_POOL_MAX) {
                if (arg[o] == me) acc += d[o];
            } else {
                acc = __fadd_rn(acc, __fmul_rn(d[o], inv));
            }
        }
    din[idx] = acc;
}

/* out[r, j] += b_i[j] for request i = r / rows_per_req, then ReLU (NaN -> 0) if relu: cnn.c's
 * dense_forward after its product. */
__global__ void k_bias_relu(float *out, const float *params, size_t nparams, size_t boff,
                            size_t rows_per_req, int oc, int relu, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    const size_t r = idx / (size_t)oc, j = idx % (size_t)oc;
    const float v = out[idx] + params[(r / rows_per_req) * nparams + boff + j];
    out[idx] = !relu || v > 0.0f ? v : 0.0f;
}

#define CHUNK_X 32         /* columns per block */
#define CHUNK_Y 16         /* row strides per column; a power of two */
#define CHUNK_ROWS 1024    /* rows per chunk, at least */
#define MAX_CHUNKS 65535   /* a grid's limit in y */

/* Step 1 of the bias gradient: part[(req * chunks + ch) * oc + j] = the sum in double of
 * column j over rows [ch*chunk, (ch+1)*chunk) of request req's `rows` rows.  Block (CHUNK_X,
 * CHUNK_Y), grid (column tiles, chunks, k): thread (x, y) adds rows y, y + 16, ... of the
 * chunk in order, a fixed tree over y joins them. */
__global__ void k_colsum_chunks(const float *d, size_t rows, int oc, size_t chunk, int chunks,
                                double *part)
{
    __shared__ double sh[CHUNK_Y][CHUNK_X];
    const int tx = threadIdx.x, ty = threadIdx.y, j = blockIdx.x * CHUNK_X + tx;
    const size_t req = blockIdx.z, first = (size_t)blockIdx.y * chunk;
    const size_t end = first + chunk < rows ? first + chunk : rows;
    const float *dr = d + req * rows * (size_t)oc;
    double acc = 0.0;
    if (j < oc)
        for (size_t r = first + (size_t)ty; r < end; r += CHUNK_Y) acc += dr[r * oc + j];
    sh[ty][tx] = acc;
    __syncthreads();
    for (int s = CHUNK_Y / 2; s > 0; s >>= 1) {
        if (ty < s) sh[ty][tx] += sh[ty + s][tx];
        __syncthreads();
    }
    if (ty == 0 && j < oc) part[(req * (size_t)chunks + blockIdx.y) * (size_t)oc + j] = sh[0][tx];
}

/* Step 2: grad_req[boff + j] = the chunks' sums of column j added in chunk order
 * (n = k * oc threads). */
__global__ void k_colsum_join(const double *part, int oc, int chunks, float *grad,
                              size_t nparams, size_t boff, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    const size_t req = idx / (size_t)oc, j = idx % (size_t)oc;
    const double *p = part + req * (size_t)chunks * (size_t)oc + j;
    double acc = 0.0;
    for (int ch = 0; ch < chunks; ch++) acc += p[(size_t)ch * (size_t)oc];
    grad[req * nparams + boff + j] = (float)acc;
}

/* ---- workspace ---------------------------------------------------------------------------- */

/* Rows per chunk of the bias sums: CHUNK_ROWS, or more where that would make over MAX_CHUNKS
 * chunks.  It depends on the rows alone, so the grouping of a sum is fixed. */
static size_t chunk_rows(size_t rows)
{
    const size_t c = (rows + MAX_CHUNKS - 1) / MAX_CHUNKS;
    return c > CHUNK_ROWS ? c : CHUNK_ROWS;
}

static int chunks_for(size_t rows)
{
    return (int)((rows + chunk_rows(rows) - 1) / chunk_rows(rows));
}

/* The CNN's buffers for rows_cap samples in k_cap requests, in one block: the partial sums
 * (doubles, first so they stay aligned), then the floats, then the int32 indices. */
void cu_cnn_alloc(cuda_backend_t *c)
{
    const size_t R = (size_t)c->rows_cap, K = (size_t)c->k_cap;
    size_t floats = 0, ints = 0, dcol = 0, parts = 0;
    for (int i = 0; i < c->ngeoms; i++) {
        const cnn_geom_t *g = &c->geom[i];
        floats += R * (size_t)g->out_size;
        const size_t colsize = R * (size_t)g->rows * (size_t)g->kdim;
        if (g->op == CNN_CONV) floats += colsize;
        if (g->op == CNN_CONV && i > 0 && colsize > dcol) dcol = colsize;
        if (g->op == CNN_POOL_MAX) ints += R * (size_t)g->out_size;
        /* chunks of all requests together: at most one partial chunk per request */
        const size_t p = (R * (size_t)g->rows / CHUNK_ROWS + K) * (size_t)g->oc;
        if (g->wl >= 0 && p > parts) parts = p;
    }
    char *m;
    cudaCheck(cudaMalloc(&m, parts * sizeof(double) + (floats + dcol) * sizeof(float) +
                                 ints * sizeof(int32_t)));
    c->cnn_block = m;
    c->colsum = (double *)m;
    float *f = (float *)(c->colsum + parts);
    for (int i = 0; i < c->ngeoms; i++) {
        const cnn_geom_t *g = &c->geom[i];
        c->out[i] = f;
        f += R * (size_t)g->out_size;
        if (g->op == CNN_CONV) {
            c->col[i] = f;
            f += R * (size_t)g->rows * (size_t)g->kdim;
        }
    }
    c->dcol = f;
    int32_t *a = (int32_t *)(f + dcol);
    for (int i = 0; i < c->ngeoms; i++)
        if (c->geom[i].op == CNN_POOL_MAX) {
            c->arg[i] = a;
            a += R * (size_t)c->geom[i].out_size;
        }
}

void cu_cnn_free(cuda_backend_t *c)
{
    cu_release(&c->cnn_block);
}

/* ---- layers --------------------------------------------------------------------------------- */

/* out (rows x oc per request) = in (rows x kdim) * W, + b, ReLU if the layer has one. */
static void dense_forward(cuda_backend_t *c, const cnn_geom_t *g, int k, size_t rows,
                          const float *P, const float *in, float *out)
{
    const float one = 1.0f, zero = 0.0f;
    const int kdim = (int)g->kdim, oc = g->oc, wl = g->wl;
    /* out^T = W^T in^T in cuBLAS's column-major view (cuda_internal.cuh) */
    cublasCheck(cublasSgemmStridedBatched(
        c->blas, CUBLAS_OP_N, CUBLAS_OP_N, oc, (int)rows, kdim, &one, P + c->woff[wl], oc,
        (long long)c->nparams, in, kdim, (long long)(rows * kdim), &zero, out, oc,
        (long long)(rows * oc), k));
    const size_t n = (size_t)k * rows * (size_t)oc;
    k_bias_relu<<<blocks_for(n, 256), 256, 0, c->stream>>>(out, P, c->nparams, c->boff[wl],
                                                            rows, oc, g->relu, n);
    cudaCheckLaunch();
}

/* The bias gradient of k requests of `rows` rows of d (rows x oc each). */
static void bias_grad(cuda_backend_t *c, const cnn_geom_t *g, int k, size_t rows,
                      const float *d, float *G)
{
    const int chunks = chunks_for(rows), oc = g->oc;
    dim3 grid((unsigned)((oc + CHUNK_X - 1) / CHUNK_X), (unsigned)chunks, (unsigned)k);
    k_colsum_chunks<<<grid, dim3(CHUNK_X, CHUNK_Y), 0, c->stream>>>(d, rows, oc, chunk_rows(rows),
                                                                     chunks, c->colsum);
    cudaCheckLaunch();
    const size_t n = (size_t)k * (size_t)oc;
    k_colsum_join<<<blocks_for(n, 128), 128, 0, c->stream>>>(c->colsum, oc, chunks, G,
                                                             c->nparams, c->boff[g->wl], n);
    cudaCheckLaunch();
}

/* dW = in^T d, db = column sums of d, and dinput = d W^T unless dinput is NULL. */
static void dense_backward(cuda_backend_t *c, const cnn_geom_t *g, int k, size_t rows,
                           const float *P, const float *in, const float *d, float *G,
                           float *dinput)
{
    const float one = 1.0f, zero = 0.0f;
    const int kdim = (int)g->kdim, oc = g->oc, wl = g->wl;
    /* dW^T = d^T in in the column-major view */
    cublasCheck(cublasSgemmStridedBatched(
        c->blas, CUBLAS_OP_N, CUBLAS_OP_T, oc, kdim, (int)rows, &one, d, oc,
        (long long)(rows * oc), in, kdim, (long long)(rows * kdim), &zero, G + c->woff[wl], oc,
        (long long)c->nparams, k));
    bias_grad(c, g, k, rows, d, G);
    if (!dinput) return;
    /* dinput^T = W d^T in the column-major view */
    cublasCheck(cublasSgemmStridedBatched(
        c->blas, CUBLAS_OP_T, CUBLAS_OP_N, kdim, (int)rows, oc, &one, P + c->woff[wl], oc,
        (long long)c->nparams, d, oc, (long long)(rows * oc), &zero, dinput, kdim,
        (long long)(rows * kdim), k));
}

const float *cu_cnn_forward(cuda_backend_t *c, int k, int batch, const float *P, const float *X)
{
    const size_t samples = (size_t)k * (size_t)batch;
    const float *in = X;
    for (int i = 0; i < c->ngeoms; i++) {
        const cnn_geom_t *g = &c->geom[i];
        const size_t rows = (size_t)batch * (size_t)g->rows; /* GEMM rows per request */
        if (g->op == CNN_CONV) {
            const size_t n = samples * (size_t)g->rows * (size_t)g->kdim;
            k_im2col<<<blocks_for(n, 256), 256, 0, c->stream>>>(in, *g, c->col[i], n);
            cudaCheckLaunch();
            dense_forward(c, g, k, rows, P, c->col[i], c->out[i]);
        } else if (g->op == CNN_FC) {
            dense_forward(c, g, k, rows, P, in, c->out[i]);
        } else {
            const size_t n = samples * (size_t)g->out_size;
            k_pool_forward<<<blocks_for(n, 256), 256, 0, c->stream>>>(in, *g, c->out[i],
                                                                       c->arg[i], n);
            cudaCheckLaunch();
        }
        in = c->out[i];
    }
    return c->out[c->ngeoms - 1];
}

/* Layer i's backward step for k requests: d (w.r.t. its output after ReLU) -> its share of
 * G and, unless dprev is NULL, dprev w.r.t. its input. */
static void backward_layer(cuda_backend_t *c, int i, int k, int batch, const float *P,
                           const float *X, float *d, float *dprev, float *G)
{
    const cnn_geom_t *g = &c->geom[i];
    const size_t samples = (size_t)k * (size_t)batch, rows = (size_t)batch * (size_t)g->rows;
    const float *in = i == 0 ? X : c->out[i - 1];
    if (g->relu) cu_relu_mask(c, d, c->out[i], samples * (size_t)g->out_size);
    if (g->op == CNN_FC) {
        dense_backward(c, g, k, rows, P, in, d, G, dprev);
    } else if (g->op == CNN_CONV) {
        dense_backward(c, g, k, rows, P, c->col[i], d, G, dprev ? c->dcol : NULL);
        if (dprev) {
            const size_t n = samples * (size_t)g->in_size;
            k_col2im<<<blocks_for(n, 256), 256, 0, c->stream>>>(c->dcol, *g, dprev, n);
            cudaCheckLaunch();
        }
    } else if (dprev) {
        const size_t n = samples * (size_t)g->in_size;
        k_pool_backward<<<blocks_for(n, 256), 256, 0, c->stream>>>(d, *g, c->arg[i], dprev, n);
        cudaCheckLaunch();
    }
}

void cu_cnn_loss_grad_device(cuda_backend_t *c, int k, int batch, const float *P,
                             const float *X, const int32_t *Y, float *G)
{
    const float *logits = cu_cnn_forward(c, k, batch, P, X);
    cu_softmax_loss(c, k, batch, logits, Y, c->delta[0]);
    int cur = 0;
    for (int i = c->ngeoms - 1; i >= 0; i--) {
        float *dprev = i > 0 ? c->delta[1 - cur] : NULL;
        backward_layer(c, i, k, batch, P, X, c->delta[cur], dprev, G);
        cur = 1 - cur;
    }
}

/* ---- benchmark hook ---------------------------------------------------------------------- */

/* Only the cuBLAS calls of cu_cnn_loss_grad_device, same shapes, operands and order (the
 * matrices hold whatever they hold: the timing does not depend on the values). */
void cu_cnn_gemms_only(cuda_backend_t *c, int k, int batch, const float *P, const float *X,
                       float *G)
{
    const float one = 1.0f, zero = 0.0f;
    for (int pass = 0; pass < 2; pass++)
        for (int s = 0; s < c->ngeoms; s++) {
            const int i = pass == 0 ? s : c->ngeoms - 1 - s;
            const cnn_geom_t *g = &c->geom[i];
            if (g->wl < 0) continue;
            const int kdim = (int)g->kdim, oc = g->oc, wl = g->wl;
            const size_t rows = (size_t)batch * (size_t)g->rows;
            const float *in = g->op == CNN_CONV ? c->col[i] : i == 0 ? X : c->out[i - 1];
            if (pass == 0) {
                cublasCheck(cublasSgemmStridedBatched(
                    c->blas, CUBLAS_OP_N, CUBLAS_OP_N, oc, (int)rows, kdim, &one,
                    P + c->woff[wl], oc, (long long)c->nparams, in, kdim,
                    (long long)(rows * kdim), &zero, c->out[i], oc, (long long)(rows * oc), k));
                continue;
            }
            cublasCheck(cublasSgemmStridedBatched(
                c->blas, CUBLAS_OP_N, CUBLAS_OP_T, oc, kdim, (int)rows, &one, c->delta[0], oc,
                (long long)(rows * oc), in, kdim, (long long)(rows * kdim), &zero,
                G + c->woff[wl], oc, (long long)c->nparams, k));
            if (i > 0)
                cublasCheck(cublasSgemmStridedBatched(
                    c->blas, CUBLAS_OP_T, CUBLAS_OP_N, kdim, (int)rows, oc, &one,
                    P + c->woff[wl], oc, (long long)c->nparams, c->delta[0], oc,
                    (long long)(rows * oc), &zero, g->op == CNN_CONV ? c->dcol : c->delta[1],
                    kdim, (long long)(rows * kdim), k));
        }
}
