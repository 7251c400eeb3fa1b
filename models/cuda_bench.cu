/* The CUDA backend's benchmark hook (sgd_cuda_bench_grad, for bench/bench_cuda_grad.c):
 * gradients of made-up data already on the device, timed with CUDA events. */
#include "models/cuda_internal.cuh"

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

/* ---- benchmark hook ---------------------------------------------------------------------- */

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

static void bench(cuda_backend_t *c, int k, int batch, int reps, double *grad_s,
                  double *sgemm_s)
{
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
        c, [&] { cu_model_loss_grad(c, k, batch, c->params, c->x, c->y, c->grad); }, reps);
    *sgemm_s = best_time(
        c, [&] { cu_model_gemms_only(c, k, batch, c->params, c->x, c->grad); }, reps);
}

/* 0, or -1 with err when a CUDA or cuBLAS call failed (cuda_internal.cuh, "Errors"). */
static int bench_guarded(cuda_backend_t *c, int k, int batch, int reps, double *grad_s,
                         double *sgemm_s, sgd_err_t *err)
{
    CU_GUARDED(err, bench(c, k, batch, reps, grad_s, sgemm_s));
}

extern "C" int sgd_cuda_bench_grad(const model_layout_t *layout, int k, int batch, int reps,
                                   double *grad_s, double *sgemm_s, sgd_err_t *err)
{
    cuda_backend_t *c = cu_create_ctx(layout, err);
    if (!c) return -1;
    CU_ASSERT(k >= 1 && batch >= 1 && reps >= 1 && (int64_t)k * batch <= INT32_MAX);
    int rc = bench_guarded(c, k, batch, reps, grad_s, sgemm_s, err);
    cu_destroy(c);
    return rc;
}
