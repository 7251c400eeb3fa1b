/* The "cuda" backend: model.c's softmax/MLP forward and backward, and optim.c's SGD step, on
 * one GPU with cuBLAS and a few kernels, written to mirror the CPU reference line by line.
 *
 * Layout.  Everything works on k independent "requests" of `batch` rows each (k = 1 for one
 * gradient and for the synchronous path, whose P workers' minibatches are ONE stacked batch):
 *   params  k x nparams  (request i's flat parameter array at i * nparams, model.h's layout)
 *   x       k*batch x n_0, row-major; request i's rows are rows [i*batch, (i+1)*batch)
 *   act[l]  k*batch x n_l; delta[0/1] k*batch x max width
 *   grad    k x nparams
 * so every GEMM of a layer is one cublasSgemmStridedBatched over the k requests, and every
 * element-wise kernel runs over all k*batch rows at once.
 *
 * Row-major GEMMs through column-major cuBLAS: a row-major r x c matrix is, to cuBLAS, its
 * c x r transpose; so C = A B (row-major) is computed as C^T = B^T A^T with the operands
 * swapped (the usual trick; each call below says which product it is).
 *
 * Determinism (docs/architecture.md): one stream and one cuBLAS handle per backend, pointer
 * mode host, atomics not allowed, CUBLAS_DEFAULT_MATH (no TF32: FP32 products keep FP32
 * inputs).  No kernel uses atomics: per-row reductions (softmax, loss) are one block per row
 * with a fixed-order tree in shared memory; the bias gradient is a column reduction in which
 * each thread adds a fixed stride of rows in order and a fixed tree joins the partial sums;
 * the batch loss adds per-row losses with the same kind of tree.  So the same inputs give the
 * same bits on the same GPU, cuBLAS and driver.  Against the CPU the differences are the
 * GEMMs' summation orders and the reductions' trees: see
 * tests/models/test_models_backend_cuda_matches_cpu.c for the tolerance.  The SGD step uses
 * __fmul_rn/__fadd_rn so that nvcc cannot contract it into FMAs: given the same gradient it
 * produces the CPU's parameters bit for bit.
 *
 * Errors: cudaCheck/cublasCheck abort with file:line (a failing CUDA call mid-run is a broken
 * invariant or out-of-memory, STYLE.md §4); only "no usable device" at creation is an
 * environment error returned to the caller.
 *
 * Built as the shared library libsgd_cuda.so, loaded by backend.c on first use (see
 * backend_cuda.h for why); it calls nothing in the executable. */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <stdarg.h>
#include <stdlib.h>

/* common/error.h is C17 (_Noreturn); give C++ the same meaning.  Only types and macros of
 * these headers are used: the plugin calls nothing in the executable (backend_cuda.h). */
#define _Noreturn __attribute__((noreturn))
extern "C" {
#include "models/backend.h"
#include "models/backend_cuda.h"
}
#undef _Noreturn

/* ---- error checking ---------------------------------------------------------------------- */

/* The plugin's own copy of common/error.h's abort tier: file:line and the message. */
__attribute__((noreturn, format(printf, 3, 4))) static void cu_die(const char *file, int line,
                                                                   const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

#define CU_ASSERT(cond)                                                                   \
    do {                                                                                  \
        if (!(cond)) cu_die(__FILE__, __LINE__, "assertion failed: %s", #cond);           \
    } while (0)

static void cuda_check(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaSuccess) cu_die(file, line, "CUDA error: %s: %s", what, cudaGetErrorString(e));
}

static void cublas_check(cublasStatus_t s, const char *what, const char *file, int line)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        cu_die(file, line, "cuBLAS error: %s: %s", what, cublasGetStatusString(s));
}

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
#define cublasCheck(call) cublas_check((call), #call, __FILE__, __LINE__)
#define cudaCheckLaunch() cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/* ---- kernels ------------------------------------------------------------------------------ */

static unsigned blocks_for(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    CU_ASSERT(b <= 0x7fffffffu);
    return (unsigned)b;
}

/* out[r, j] = b_i[j] for every row r of request i = r / batch (forward's bias, which the GEMM
 * then accumulates onto with beta = 1, as model.c does). */
__global__ void k_bias_fill(float *out, const float *params, size_t nparams, size_t boff,
                            int batch, int nout, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    size_t r = idx / (size_t)nout, j = idx % (size_t)nout;
    out[idx] = params[(r / (size_t)batch) * nparams + boff + j];
}

/* ReLU in place; NaN becomes 0 as in model.c (`if (!(v > 0)) v = 0`). */
__global__ void k_relu(float *a, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n && !(a[idx] > 0.0f)) a[idx] = 0.0f;
}

/* d *= ReLU'(pre-activation): the post-ReLU activation is > 0 exactly where it is. */
__global__ void k_relu_mask(float *d, const float *a, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n && !(a[idx] > 0.0f)) d[idx] = 0.0f;
}

/* One block per row of logits z (C columns), blockDim a power of two:
 *   lse = max + log(sum_j exp(z_j - max)) in double (max, then sum, each a fixed tree);
 *   rowloss[row] = lse - z[y]                                  (if rowloss)
 *   delta[row, j] = (exp(z_j - lse) - [j == y]) * inv_b         (if delta)
 *   wrong[row] = (first index of the largest logit) != y         (if wrong; model_evaluate)
 * The max starts from an element of the row (never a sentinel), as model.c's does. */
__global__ void k_softmax_rows(const float *z, const int32_t *y, int C, double inv_b,
                               float *delta, double *rowloss, int *wrong)
{
    extern __shared__ double sh[];
    const int t = threadIdx.x, T = blockDim.x;
    const size_t row = blockIdx.x;
    const float *zr = z + row * (size_t)C;

    float m = zr[t < C ? t : 0];
    for (int j = t + T; j < C; j += T)
        if (zr[j] > m) m = zr[j];
    sh[t] = (double)m;
    __syncthreads();
    for (int s = T / 2; s > 0; s >>= 1) {
        if (t < s && sh[t + s] > sh[t]) sh[t] = sh[t + s];
        __syncthreads();
    }
    const double mx = sh[0];
    __syncthreads();

    double acc = 0.0;
    for (int j = t; j < C; j += T) acc += exp((double)zr[j] - mx);
    sh[t] = acc;
    __syncthreads();
    for (int s = T / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    const double lse = mx + log(sh[0]);
    const int label = y[row];

    if (t == 0 && rowloss) rowloss[row] = lse - (double)zr[label];
    if (delta) {
        float *dr = delta + row * (size_t)C;
        for (int j = t; j < C; j += T) {
            double p = exp((double)zr[j] - lse);
            dr[j] = (float)((p - (j == label ? 1.0 : 0.0)) * inv_b);
        }
    }
    if (t == 0 && wrong) {
        int best = 0;
        for (int j = 1; j < C; j++)
            if (zr[j] > zr[best]) best = j;
        wrong[row] = best != label;
    }
}

/* loss[i] = inv_b * sum of rowloss over request i's batch rows: one block per request, each
 * thread a fixed stride of rows in order, then a fixed tree. */
__global__ void k_loss_reduce(const double *rowloss, int batch, double inv_b, double *loss)
{
    extern __shared__ double sh[];
    const int t = threadIdx.x, T = blockDim.x;
    const double *r = rowloss + (size_t)blockIdx.x * (size_t)batch;
    double acc = 0.0;
    for (int i = t; i < batch; i += T) acc += r[i];
    sh[t] = acc;
    __syncthreads();
    for (int s = T / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) loss[blockIdx.x] = sh[0] * inv_b;
}

#define COLSUM_X 32 /* columns per block */
#define COLSUM_Y 16 /* row strides per column; a power of two */

/* Bias gradient: grad_i[boff + j] = sum over request i's rows of delta[r, j], in double.
 * Block (COLSUM_X, COLSUM_Y), grid (column tiles, k): thread (x, y) adds rows y, y+16, ... in
 * order; a fixed tree over y joins them.  Reads are coalesced along the row. */
__global__ void k_bias_grad(const float *delta, int batch, int nout, float *grad, size_t nparams,
                            size_t boff)
{
    __shared__ double sh[COLSUM_Y][COLSUM_X];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int j = blockIdx.x * COLSUM_X + tx;
    const size_t req = blockIdx.y;
    const float *d = delta + req * (size_t)batch * (size_t)nout;
    double acc = 0.0;
    if (j < nout)
        for (int r = ty; r < batch; r += COLSUM_Y) acc += d[(size_t)r * nout + j];
    sh[ty][tx] = acc;
    __syncthreads();
    for (int s = COLSUM_Y / 2; s > 0; s >>= 1) {
        if (ty < s) sh[ty][tx] += sh[ty + s][tx];
        __syncthreads();
    }
    if (ty == 0 && j < nout) grad[req * nparams + boff + j] = (float)sh[0][tx];
}

/* Copies training rows rows[r] of the resident dataset into the stacked batch: one block per
 * batch row. */
__global__ void k_gather(const float *data_x, const int32_t *data_y, int dim, const int64_t *rows,
                         float *x, int32_t *y)
{
    const size_t r = blockIdx.x;
    const int64_t src = rows[r];
    const float *s = data_x + (size_t)src * (size_t)dim;
    float *o = x + r * (size_t)dim;
    for (int j = threadIdx.x; j < dim; j += blockDim.x) o[j] = s[j];
    if (threadIdx.x == 0) y[r] = data_y[src];
}

/* optim_sgd_step, element by element, in float with no contraction into FMA (the CPU build
 * has none either), so the same gradient gives the same parameters bit for bit. */
__global__ void k_sgd_step(float *p, float *v, const float *g, size_t n, float lr, float mu,
                           float wd, int momentum, int nesterov)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gi = __fadd_rn(g[i], __fmul_rn(wd, p[i]));
    if (!momentum) {
        p[i] = __fsub_rn(p[i], __fmul_rn(lr, gi));
        return;
    }
    float vi = __fadd_rn(__fmul_rn(mu, v[i]), gi);
    v[i] = vi;
    float step = nesterov ? __fadd_rn(gi, __fmul_rn(mu, vi)) : vi;
    p[i] = __fsub_rn(p[i], __fmul_rn(lr, step));
}

/* Deterministic pseudo-random fill for the benchmark: values in [lo, hi). */
__global__ void k_fill_hash(float *a, size_t n, uint32_t seed, float lo, float hi)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    a[i] = lo + (hi - lo) * (float)(h >> 8) * (1.0f / 16777216.0f);
}

__global__ void k_fill_labels(int32_t *y, size_t n, int C)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (int32_t)((i * 7u + 3u) % (size_t)C);
}

/* ---- the backend ------------------------------------------------------------------------ */

/* A dataset copied to the device once and kept there (training set, validation set). */
typedef struct resident {
    const float *host_x; /* identity of the host dataset: its arrays and size */
    const int32_t *host_y;
    int64_t n;
    int dim;
    float *x;   /* device, n x dim */
    int32_t *y; /* device, n */
} resident_t;

#define NRESIDENT 2

typedef struct cuda_backend {
    int L, C, max_batch, max_width;
    int width[MODEL_MAX_LAYERS + 1];
    size_t woff[MODEL_MAX_LAYERS], boff[MODEL_MAX_LAYERS], nparams;

    cudaStream_t stream;
    cublasHandle_t blas;

    /* Workspace for k_cap requests of rows_cap stacked rows in all; grown on demand. */
    int k_cap, rows_cap;
    float *params, *grad;        /* k_cap x nparams */
    float *x;                    /* rows_cap x n_0 */
    int32_t *y;                  /* rows_cap */
    int64_t *rows;               /* rows_cap, batch row indices (synchronous path) */
    float *act[MODEL_MAX_LAYERS + 1]; /* act[l], l >= 1: rows_cap x width[l] */
    float *act_block;
    float *delta[2];             /* rows_cap x max_width each */
    double *rowloss;             /* rows_cap */
    int *wrong;                  /* rows_cap */
    double *loss;                /* k_cap */
    double *h_rowloss, *h_loss;  /* pinned host copies */
    int *h_wrong;

    resident_t res[NRESIDENT];

    /* resident synchronous training */
    int sync_on;
    int train_slot;               /* res[] slot of the training set */
    const sgd_dataset_t *train;
    float *s_params, *s_velocity; /* nparams each, device */
    optim_sgd_t opt;
    void *pinned;                 /* the caller's params, page-locked for faster downloads */
} cuda_backend_t;

static void free_workspace(cuda_backend_t *c)
{
    cudaCheck(cudaFree(c->params));
    cudaCheck(cudaFree(c->grad));
    cudaCheck(cudaFree(c->x));
    cudaCheck(cudaFree(c->y));
    cudaCheck(cudaFree(c->rows));
    cudaCheck(cudaFree(c->act_block));
    cudaCheck(cudaFree(c->delta[0]));
    cudaCheck(cudaFree(c->delta[1]));
    cudaCheck(cudaFree(c->rowloss));
    cudaCheck(cudaFree(c->wrong));
    cudaCheck(cudaFree(c->loss));
    cudaCheck(cudaFreeHost(c->h_rowloss));
    cudaCheck(cudaFreeHost(c->h_loss));
    cudaCheck(cudaFreeHost(c->h_wrong));
}

/* Makes room for k requests of `rows` stacked rows in all (sizes only grow). */
static void cu_ensure(cuda_backend_t *c, int k, int rows)
{
    if (k <= c->k_cap && rows <= c->rows_cap) return;
    cudaCheck(cudaStreamSynchronize(c->stream));
    free_workspace(c);
    if (k > c->k_cap) c->k_cap = k;
    if (rows > c->rows_cap) c->rows_cap = rows;
    const size_t K = (size_t)c->k_cap, R = (size_t)c->rows_cap;
    cudaCheck(cudaMalloc(&c->params, K * c->nparams * sizeof(float)));
    cudaCheck(cudaMalloc(&c->grad, K * c->nparams * sizeof(float)));
    cudaCheck(cudaMalloc(&c->x, R * (size_t)c->width[0] * sizeof(float)));
    cudaCheck(cudaMalloc(&c->y, R * sizeof(int32_t)));
    cudaCheck(cudaMalloc(&c->rows, R * sizeof(int64_t)));
    size_t acts = 0;
    for (int l = 1; l <= c->L; l++) acts += R * (size_t)c->width[l];
    cudaCheck(cudaMalloc(&c->act_block, acts * sizeof(float)));
    float *f = c->act_block;
    for (int l = 1; l <= c->L; l++) {
        c->act[l] = f;
        f += R * (size_t)c->width[l];
    }
    cudaCheck(cudaMalloc(&c->delta[0], R * (size_t)c->max_width * sizeof(float)));
    cudaCheck(cudaMalloc(&c->delta[1], R * (size_t)c->max_width * sizeof(float)));
    cudaCheck(cudaMalloc(&c->rowloss, R * sizeof(double)));
    cudaCheck(cudaMalloc(&c->wrong, R * sizeof(int)));
    cudaCheck(cudaMalloc(&c->loss, K * sizeof(double)));
    cudaCheck(cudaMallocHost(&c->h_rowloss, R * sizeof(double)));
    cudaCheck(cudaMallocHost(&c->h_loss, K * sizeof(double)));
    cudaCheck(cudaMallocHost(&c->h_wrong, R * sizeof(int)));
}

/* Threads per softmax row: a power of two from 32 to 256, about the row's width. */
static unsigned row_threads(int C)
{
    unsigned t = 32;
    while (t < (unsigned)C && t < 256) t *= 2;
    return t;
}

/* k_softmax_rows over `rows` rows of logits (C columns): delta, rowloss and wrong as there,
 * each skipped when NULL. */
static void cu_softmax_rows(cuda_backend_t *c, size_t rows, const float *logits,
                            const int32_t *y, double inv_b, float *delta, double *rowloss,
                            int *wrong)
{
    const unsigned T = row_threads(c->C);
    k_softmax_rows<<<(unsigned)rows, T, T * sizeof(double), c->stream>>>(logits, y, c->C, inv_b,
                                                                         delta, rowloss, wrong);
    cudaCheckLaunch();
}

/* The output layer of k requests of `batch` rows: delta = dLoss/dlogits (the mean over each
 * request's rows) and c->loss[i] = request i's mean loss (device). */
static void cu_softmax_loss(cuda_backend_t *c, int k, int batch, const float *logits,
                            const int32_t *Y, float *delta)
{
    const double inv_b = 1.0 / batch;
    cu_softmax_rows(c, (size_t)k * (size_t)batch, logits, Y, inv_b, delta, c->rowloss, NULL);
    k_loss_reduce<<<(unsigned)k, 256, 256 * sizeof(double), c->stream>>>(c->rowloss, batch,
                                                                         inv_b, c->loss);
    cudaCheckLaunch();
}

/* Forward pass of k requests of `batch` rows: params P (k x nparams), input X (k*batch x n_0);
 * act[L] receives the logits. */
static void cu_forward(cuda_backend_t *c, int k, int batch, const float *P, const float *X)
{
    const float one = 1.0f;
    const float *in = X;
    for (int l = 0; l < c->L; l++) {
        const int nin = c->width[l], nout = c->width[l + 1];
        float *out = c->act[l + 1];
        const size_t n = (size_t)k * (size_t)batch * (size_t)nout;
        k_bias_fill<<<blocks_for(n, 256), 256, 0, c->stream>>>(out, P, c->nparams, c->boff[l],
                                                                batch, nout, n);
        cudaCheckLaunch();
        /* out (batch x nout) += in (batch x nin) * W_l (nin x nout), row-major:
         * out^T = W_l^T in^T in cuBLAS's column-major view. */
        cublasCheck(cublasSgemmStridedBatched(
            c->blas, CUBLAS_OP_N, CUBLAS_OP_N, nout, batch, nin, &one, P + c->woff[l], nout,
            (long long)c->nparams, in, nin, (long long)batch * nin, &one, out, nout,
            (long long)batch * nout, k));
        if (l + 1 < c->L) {
            k_relu<<<blocks_for(n, 256), 256, 0, c->stream>>>(out, n);
            cudaCheckLaunch();
        }
        in = out;
    }
}

/* Forward + backward of k requests: grad G (k x nparams), loss[i] into c->loss (device). */
static void cu_loss_grad_device(cuda_backend_t *c, int k, int batch, const float *P,
                                const float *X, const int32_t *Y, float *G)
{
    const float one = 1.0f, zero = 0.0f;
    const int L = c->L;
    const size_t rows = (size_t)k * (size_t)batch;
    cu_forward(c, k, batch, P, X);
    cu_softmax_loss(c, k, batch, c->act[L], Y, c->delta[0]);

    int cur = 0;
    for (int l = L - 1; l >= 0; l--) {
        const int nin = c->width[l], nout = c->width[l + 1];
        const float *a_in = l == 0 ? X : c->act[l];
        const float *dl = c->delta[cur];
        /* dW_l (nin x nout) = a_in^T (nin x batch) * delta (batch x nout), row-major:
         * dW_l^T = delta^T a_in in the column-major view. */
        cublasCheck(cublasSgemmStridedBatched(
            c->blas, CUBLAS_OP_N, CUBLAS_OP_T, nout, nin, batch, &one, dl, nout,
            (long long)batch * nout, a_in, nin, (long long)batch * nin, &zero, G + c->woff[l],
            nout, (long long)c->nparams, k));
        dim3 grid((unsigned)((nout + COLSUM_X - 1) / COLSUM_X), (unsigned)k);
        k_bias_grad<<<grid, dim3(COLSUM_X, COLSUM_Y), 0, c->stream>>>(dl, batch, nout, G,
                                                                     c->nparams, c->boff[l]);
        cudaCheckLaunch();
        if (l > 0) {
            /* delta_prev (batch x nin) = delta (batch x nout) * W_l^T, row-major:
             * delta_prev^T = W_l delta^T in the column-major view. */
            float *dp = c->delta[1 - cur];
            cublasCheck(cublasSgemmStridedBatched(
                c->blas, CUBLAS_OP_T, CUBLAS_OP_N, nin, batch, nout, &one, P + c->woff[l], nout,
                (long long)c->nparams, dl, nout, (long long)batch * nout, &zero, dp, nin,
                (long long)batch * nin, k));
            const size_t n = rows * (size_t)nin;
            k_relu_mask<<<blocks_for(n, 256), 256, 0, c->stream>>>(dp, c->act[l], n);
            cudaCheckLaunch();
            cur = 1 - cur;
        }
    }
}

static void check_labels(const int32_t *y, size_t n, int C)
{
    for (size_t i = 0; i < n; i++) CU_ASSERT(y[i] >= 0 && y[i] < C);
}

static void cu_loss_grad_batched(void *ctx, int k, const float *const *params,
                                 const float *const *x, const int32_t *const *y, int batch,
                                 float *const *grad, double *loss)
{
    cuda_backend_t *c = (cuda_backend_t *)ctx;
    CU_ASSERT(k >= 1 && batch >= 1 && batch <= c->max_batch);
    CU_ASSERT((int64_t)k * batch <= INT32_MAX);
    cu_ensure(c, k, k * batch);
    const size_t np = c->nparams, xs = (size_t)batch * (size_t)c->width[0];
    for (int i = 0; i < k; i++) {
        check_labels(y[i], (size_t)batch, c->C);
        /* Requests on the same parameter version (the same host array) cross the bus once;
         * a device-to-device copy lays out the strided batch. */
        int same = i - 1;
        while (same >= 0 && params[same] != params[i]) same--;
        if (same >= 0)
            cudaCheck(cudaMemcpyAsync(c->params + (size_t)i * np, c->params + (size_t)same * np,
                                      np * sizeof(float), cudaMemcpyDeviceToDevice, c->stream));
        else
            cudaCheck(cudaMemcpyAsync(c->params + (size_t)i * np, params[i],
                                      np * sizeof(float), cudaMemcpyHostToDevice, c->stream));
        cudaCheck(cudaMemcpyAsync(c->x + (size_t)i * xs, x[i], xs * sizeof(float),
                                  cudaMemcpyHostToDevice, c->stream));
        cudaCheck(cudaMemcpyAsync(c->y + (size_t)i * batch, y[i], (size_t)batch * sizeof(int32_t),
                                  cudaMemcpyHostToDevice, c->stream));
    }
    cu_loss_grad_device(c, k, batch, c->params, c->x, c->y, c->grad);
    for (int i = 0; i < k; i++)
        cudaCheck(cudaMemcpyAsync(grad[i], c->grad + (size_t)i * np, np * sizeof(float),
                                  cudaMemcpyDeviceToHost, c->stream));
    cudaCheck(cudaMemcpyAsync(c->h_loss, c->loss, (size_t)k * sizeof(double),
                              cudaMemcpyDeviceToHost, c->stream));
    cudaCheck(cudaStreamSynchronize(c->stream));
    memcpy(loss, c->h_loss, (size_t)k * sizeof(double));
}

static double cu_loss_grad(void *ctx, const float *params, const float *x, const int32_t *y,
                           int batch, float *grad)
{
    double loss;
    cu_loss_grad_batched(ctx, 1, &params, &x, &y, batch, &grad, &loss);
    return loss;
}

/* The slot holding the device copy of host dataset d, uploaded into slot `slot_hint` on first
 * use.  Datasets do not change during a run, so (arrays, size) identify one. */
static int resident_slot(cuda_backend_t *c, const sgd_dataset_t *d, int slot_hint)
{
    for (int i = 0; i < NRESIDENT; i++) {
        const resident_t *r = &c->res[i];
        if (r->x && r->host_x == d->x && r->host_y == d->y && r->n == d->n && r->dim == d->dim)
            return i;
    }
    resident_t *r = &c->res[slot_hint];
    cudaCheck(cudaStreamSynchronize(c->stream));
    cudaCheck(cudaFree(r->x));
    cudaCheck(cudaFree(r->y));
    check_labels(d->y, (size_t)d->n, c->C);
    r->host_x = d->x;
    r->host_y = d->y;
    r->n = d->n;
    r->dim = d->dim;
    cudaCheck(cudaMalloc(&r->x, (size_t)d->n * (size_t)d->dim * sizeof(float)));
    cudaCheck(cudaMalloc(&r->y, (size_t)d->n * sizeof(int32_t)));
    /* On the backend's stream, like every transfer, so kernels queued after it see it. */
    cudaCheck(cudaMemcpyAsync(r->x, d->x, (size_t)d->n * (size_t)d->dim * sizeof(float),
                              cudaMemcpyHostToDevice, c->stream));
    cudaCheck(cudaMemcpyAsync(r->y, d->y, (size_t)d->n * sizeof(int32_t), cudaMemcpyHostToDevice,
                              c->stream));
    return slot_hint;
}

static void cu_evaluate(void *ctx, const float *params, const sgd_dataset_t *d,
                        double *mean_loss, double *error_rate)
{
    cuda_backend_t *c = (cuda_backend_t *)ctx;
    CU_ASSERT(d->n >= 1 && d->dim == c->width[0]);
    /* Never evict the training set of the synchronous path. */
    const resident_t *r = &c->res[resident_slot(c, d, c->sync_on ? 1 - c->train_slot : 0)];
    cu_ensure(c, 1, c->max_batch);
    cudaCheck(cudaMemcpyAsync(c->params, params, c->nparams * sizeof(float),
                              cudaMemcpyHostToDevice, c->stream));
    double loss = 0.0;
    int64_t errors = 0;
    /* The same chunks as model_evaluate; per-row values added on the host in row order. */
    for (int64_t first = 0; first < d->n; first += c->max_batch) {
        int64_t left = d->n - first;
        int b = left < c->max_batch ? (int)left : c->max_batch;
        cu_forward(c, 1, b, c->params, r->x + (size_t)first * (size_t)d->dim);
        cu_softmax_rows(c, (size_t)b, c->act[c->L], r->y + first, 1.0, NULL, c->rowloss,
                        c->wrong);
        cudaCheck(cudaMemcpyAsync(c->h_rowloss, c->rowloss, (size_t)b * sizeof(double),
                                  cudaMemcpyDeviceToHost, c->stream));
        cudaCheck(cudaMemcpyAsync(c->h_wrong, c->wrong, (size_t)b * sizeof(int),
                                  cudaMemcpyDeviceToHost, c->stream));
        cudaCheck(cudaStreamSynchronize(c->stream));
        for (int i = 0; i < b; i++) {
            loss += c->h_rowloss[i];
            errors += c->h_wrong[i];
        }
    }
    *mean_loss = loss / (double)d->n;
    *error_rate = (double)errors / (double)d->n;
}

static void cu_sync_begin(void *ctx, const sgd_dataset_t *train, const optim_sgd_t *opt,
                          const float *params)
{
    cuda_backend_t *c = (cuda_backend_t *)ctx;
    CU_ASSERT(!c->sync_on && train->dim == c->width[0]);
    c->sync_on = 1;
    c->train = train;
    c->opt = *opt;
    c->train_slot = resident_slot(c, train, 0);
    cudaCheck(cudaMalloc(&c->s_params, c->nparams * sizeof(float)));
    cudaCheck(cudaMalloc(&c->s_velocity, c->nparams * sizeof(float)));
    cudaCheck(cudaMemcpyAsync(c->s_params, params, c->nparams * sizeof(float),
                              cudaMemcpyHostToDevice, c->stream));
    cudaCheck(cudaMemsetAsync(c->s_velocity, 0, c->nparams * sizeof(float), c->stream));
    cudaCheck(cudaStreamSynchronize(c->stream)); /* params may change once we return */
    /* sync_step downloads the parameters into this array after every update: page-locking
     * it roughly doubles that copy's bandwidth.  Optional: on failure (e.g. a locked-memory
     * limit) the copies just stay pageable. */
    if (cudaHostRegister((void *)params, c->nparams * sizeof(float), cudaHostRegisterDefault) ==
        cudaSuccess)
        c->pinned = (void *)params;
    else
        (void)cudaGetLastError();
}

static double cu_sync_step(void *ctx, const int64_t *rows, int nrows, float lr, float *params)
{
    cuda_backend_t *c = (cuda_backend_t *)ctx;
    CU_ASSERT(c->sync_on && nrows >= 1 && nrows <= c->max_batch);
    const resident_t *r = &c->res[c->train_slot];
    for (int i = 0; i < nrows; i++) CU_ASSERT(rows[i] >= 0 && rows[i] < r->n);
    cu_ensure(c, 1, nrows);
    cudaCheck(cudaMemcpyAsync(c->rows, rows, (size_t)nrows * sizeof(int64_t),
                              cudaMemcpyHostToDevice, c->stream));
    k_gather<<<(unsigned)nrows, 128, 0, c->stream>>>(r->x, r->y, r->dim, c->rows, c->x, c->y);
    cudaCheckLaunch();
    cu_loss_grad_device(c, 1, nrows, c->s_params, c->x, c->y, c->grad);
    const optim_sgd_t *o = &c->opt;
    k_sgd_step<<<blocks_for(c->nparams, 256), 256, 0, c->stream>>>(
        c->s_params, c->s_velocity, c->grad, c->nparams, lr, (float)o->momentum,
        (float)o->weight_decay, o->momentum != 0.0, o->nesterov);
    cudaCheckLaunch();
    cudaCheck(cudaMemcpyAsync(c->h_loss, c->loss, sizeof(double), cudaMemcpyDeviceToHost,
                              c->stream));
    cudaCheck(cudaMemcpyAsync(params, c->s_params, c->nparams * sizeof(float),
                              cudaMemcpyDeviceToHost, c->stream));
    cudaCheck(cudaStreamSynchronize(c->stream));
    return c->h_loss[0];
}

static void cu_destroy(void *ctx)
{
    cuda_backend_t *c = (cuda_backend_t *)ctx;
    if (!c) return;
    cudaCheck(cudaStreamSynchronize(c->stream));
    free_workspace(c);
    for (int i = 0; i < NRESIDENT; i++) {
        cudaCheck(cudaFree(c->res[i].x));
        cudaCheck(cudaFree(c->res[i].y));
    }
    cudaCheck(cudaFree(c->s_params));
    cudaCheck(cudaFree(c->s_velocity));
    if (c->pinned) cudaCheck(cudaHostUnregister(c->pinned));
    cublasCheck(cublasDestroy(c->blas));
    cudaCheck(cudaStreamDestroy(c->stream));
    free(c);
}

static const sgd_backend_iface_t cuda_iface = {
    "cuda",
    cu_loss_grad,
    cu_loss_grad_batched,
    cu_evaluate,
    cu_sync_begin,
    cu_sync_step,
    cu_destroy,
    NULL, /* set_threads: the GPU's own parallelism, the host's threads are not used */
};

/* ---- creation, device query -------------------------------------------------------------- */

extern "C" int sgd_cuda_device_count(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" void sgd_cuda_device_name(char *buf, size_t size)
{
    cudaDeviceProp prop;
    if (sgd_cuda_device_count() < 1 || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        snprintf(buf, size, "none");
        return;
    }
    snprintf(buf, size, "%s (sm_%d%d, %d SMs)", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount);
}

static cuda_backend_t *cu_create_ctx(const model_layout_t *m, sgd_err_t *err)
{
    /* Convolutional networks (models/cnn.h) have no kernels here yet: refused rather than
     * computed as if their layout were an MLP's. */
    if (m->kind == MODEL_CNN) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "backend: \"cuda\" computes softmax and MLP models only; model.kind "
                     "\"cnn\" runs on \"backend\": \"cpu\"");
        return NULL;
    }
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < 1) {
        const char *why = e != cudaSuccess ? cudaGetErrorString(e) : "no device found";
        (void)cudaGetLastError();
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "backend: \"cuda\" needs a CUDA GPU, but none is usable here (%s); use "
                     "\"backend\": \"cpu\"", why);
        return NULL;
    }
    cuda_backend_t *c = (cuda_backend_t *)calloc(1, sizeof *c);
    if (!c) cu_die(__FILE__, __LINE__, "out of memory");
    CU_ASSERT(m->nlayers >= 1 && m->nlayers <= MODEL_MAX_LAYERS && m->max_batch >= 1);
    c->L = m->nlayers;
    c->C = m->width[m->nlayers];
    c->max_batch = m->max_batch;
    c->nparams = m->nparams;
    c->width[0] = m->width[0];
    c->max_width = 0;
    for (int l = 0; l < c->L; l++) {
        c->width[l + 1] = m->width[l + 1];
        c->woff[l] = m->woff[l];
        c->boff[l] = m->boff[l];
        if (c->width[l + 1] > c->max_width) c->max_width = c->width[l + 1];
    }
    cudaCheck(cudaSetDevice(0));
    cudaCheck(cudaStreamCreate(&c->stream));
    cublasCheck(cublasCreate(&c->blas));
    cublasCheck(cublasSetStream(c->blas, c->stream));
    cublasCheck(cublasSetPointerMode(c->blas, CUBLAS_POINTER_MODE_HOST));
    cublasCheck(cublasSetAtomicsMode(c->blas, CUBLAS_ATOMICS_NOT_ALLOWED));
    cublasCheck(cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH));
    return c;
}

extern "C" int sgd_cuda_plugin_version(void) { return SGD_CUDA_PLUGIN_VERSION; }

extern "C" int sgd_cuda_backend_create(const model_layout_t *layout, sgd_backend_t *out,
                                       sgd_err_t *err)
{
    cuda_backend_t *c = cu_create_ctx(layout, err);
    if (!c) return -1;
    out->iface = &cuda_iface;
    out->ctx = c;
    return 0;
}

/* ---- benchmark hook ---------------------------------------------------------------------- */

/* Only the cuBLAS calls of loss_grad_device, same shapes, operands and order. */
static void cu_gemms_only(cuda_backend_t *c, int k, int batch, const float *P, const float *X,
                          float *G)
{
    const float one = 1.0f, zero = 0.0f;
    const float *in = X;
    for (int l = 0; l < c->L; l++) {
        const int nin = c->width[l], nout = c->width[l + 1];
        cublasCheck(cublasSgemmStridedBatched(
            c->blas, CUBLAS_OP_N, CUBLAS_OP_N, nout, batch, nin, &one, P + c->woff[l], nout,
            (long long)c->nparams, in, nin, (long long)batch * nin, &one, c->act[l + 1], nout,
            (long long)batch * nout, k));
        in = c->act[l + 1];
    }
    for (int l = c->L - 1; l >= 0; l--) {
        const int nin = c->width[l], nout = c->width[l + 1];
        const float *a_in = l == 0 ? X : c->act[l];
        cublasCheck(cublasSgemmStridedBatched(
            c->blas, CUBLAS_OP_N, CUBLAS_OP_T, nout, nin, batch, &one, c->delta[0], nout,
            (long long)batch * nout, a_in, nin, (long long)batch * nin, &zero, G + c->woff[l],
            nout, (long long)c->nparams, k));
        if (l > 0)
            cublasCheck(cublasSgemmStridedBatched(
                c->blas, CUBLAS_OP_T, CUBLAS_OP_N, nin, batch, nout, &one, P + c->woff[l], nout,
                (long long)c->nparams, c->delta[0], nout, (long long)batch * nout, &zero,
                c->delta[1], nin, (long long)batch * nin, k));
    }
}

/* Seconds per call of f over `calls` calls, timed with events on the backend's stream. */
template <typename F> static double time_calls(cuda_backend_t *c, F f, int calls)
{
    cudaEvent_t a, b;
    cudaCheck(cudaEventCreate(&a));
    cudaCheck(cudaEventCreate(&b));
    cudaCheck(cudaEventRecord(a, c->stream));
    for (int i = 0; i < calls; i++) f();
    cudaCheck(cudaEventRecord(b, c->stream));
    cudaCheck(cudaEventSynchronize(b));
    float ms = 0;
    cudaCheck(cudaEventElapsedTime(&ms, a, b));
    cudaCheck(cudaEventDestroy(a));
    cudaCheck(cudaEventDestroy(b));
    return (double)ms * 1e-3 / calls;
}

template <typename F> static double best_time(cuda_backend_t *c, F f, int reps)
{
    int calls = 1;
    while (calls < (1 << 20) && time_calls(c, f, calls) * calls < 0.02) calls *= 2;
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
        double t = time_calls(c, f, calls);
        if (t < best) best = t;
    }
    return best;
}

extern "C" int sgd_cuda_bench_grad(const model_layout_t *layout, int k, int batch, int reps,
                                   double *grad_s, double *sgemm_s, sgd_err_t *err)
{
    cuda_backend_t *c = cu_create_ctx(layout, err);
    if (!c) return -1;
    CU_ASSERT(k >= 1 && batch >= 1 && reps >= 1 && (int64_t)k * batch <= INT32_MAX);
    cu_ensure(c, k, k * batch);
    const size_t np = (size_t)k * c->nparams, nx = (size_t)k * batch * (size_t)c->width[0];
    k_fill_hash<<<blocks_for(np, 256), 256, 0, c->stream>>>(c->params, np, 1u, -0.05f, 0.05f);
    k_fill_hash<<<blocks_for(nx, 256), 256, 0, c->stream>>>(c->x, nx, 2u, 0.0f, 1.0f);
    k_fill_labels<<<blocks_for((size_t)k * batch, 256), 256, 0, c->stream>>>(
        c->y, (size_t)k * batch, c->C);
    cudaCheckLaunch();
    cudaCheck(cudaMemsetAsync(c->delta[0], 0, (size_t)c->rows_cap * c->max_width * sizeof(float),
                              c->stream));
    *grad_s = best_time(
        c, [&] { cu_loss_grad_device(c, k, batch, c->params, c->x, c->y, c->grad); }, reps);
    *sgemm_s = best_time(c, [&] { cu_gemms_only(c, k, batch, c->params, c->x, c->grad); }, reps);
    cu_destroy(c);
    return 0;
}
