/* The CUDA backend's softmax and MLP numerics (cuda_internal.cuh has the layout, the GEMM
 * convention and the determinism rules): the element-wise and reduction kernels, and the
 * forward and backward passes over k stacked requests. */
#include "models/cuda_internal.cuh"

/* ---- kernels ------------------------------------------------------------------------------ */

/* out[r, j] = b_i[j] for every row r of request i = r / batch (forward's bias, which the GEMM
 * then accumulates onto with beta = 1, as model_dense.c does). */
__global__ void k_bias_fill(float *out, const float *params, size_t nparams, size_t boff,
                            int batch, int nout, size_t n)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    size_t r = idx / (size_t)nout, j = idx % (size_t)nout;
    out[idx] = params[(r / (size_t)batch) * nparams + boff + j];
}

/* ReLU in place; NaN becomes 0 as in model_dense.c (`if (!(v > 0)) v = 0`). */
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
 * The max starts from an element of the row (never a sentinel), as softmax.c's does. */
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

/* Threads per softmax row: a power of two from 32 to 256, about the row's width. */
static unsigned row_threads(int C)
{
    unsigned t = 32;
    while (t < (unsigned)C && t < 256) t *= 2;
    return t;
}

/* k_softmax_rows over `rows` rows of logits (C columns): delta, rowloss and wrong as there,
 * each skipped when NULL. */
void cu_softmax_rows(cuda_backend_t *c, size_t rows, const float *logits,
                            const int32_t *y, double inv_b, float *delta, double *rowloss,
                            int *wrong)
{
    const unsigned T = row_threads(c->C);
    k_softmax_rows<<<(unsigned)rows, T, T * sizeof(double), c->stream>>>(logits, y, c->C, inv_b,
                                                                         delta, rowloss, wrong);
    cudaCheckLaunch();
}

void cu_softmax_loss(cuda_backend_t *c, int k, int batch, const float *logits, const int32_t *Y,
                     float *delta)
{
    const double inv_b = 1.0 / batch;
    cu_softmax_rows(c, (size_t)k * (size_t)batch, logits, Y, inv_b, delta, c->rowloss, NULL);
    k_loss_reduce<<<(unsigned)k, 256, 256 * sizeof(double), c->stream>>>(c->rowloss, batch,
                                                                         inv_b, c->loss);
    cudaCheckLaunch();
}

void cu_relu_mask(cuda_backend_t *c, float *d, const float *a, size_t n)
{
    k_relu_mask<<<blocks_for(n, 256), 256, 0, c->stream>>>(d, a, n);
    cudaCheckLaunch();
}

/* Forward pass of k requests of `batch` rows: params P (k x nparams), input X (k*batch x n_0);
 * act[L] receives the logits. */
void cu_forward(cuda_backend_t *c, int k, int batch, const float *P, const float *X)
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
void cu_loss_grad_device(cuda_backend_t *c, int k, int batch, const float *P,
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

/* Only the cuBLAS calls of loss_grad_device, same shapes, operands and order. */
void cu_gemms_only(cuda_backend_t *c, int k, int batch, const float *P, const float *X,
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
