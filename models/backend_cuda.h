/* The CUDA backend (backend_cuda.cu): a plain C header, usable from C and from the CUDA
 * translation unit, as ggml does for its CUDA backend.  Everything here exists only in builds
 * with SGDSIM_HAVE_CUDA; callers go through models/backend.h and never include this header
 * except for the device query and the benchmark hook below. */
#ifndef SGDSIM_MODELS_BACKEND_CUDA_H
#define SGDSIM_MODELS_BACKEND_CUDA_H

#include "common/error.h"
#include "models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sgd_backend;

#ifdef SGDSIM_HAVE_CUDA
/* Number of CUDA devices the runtime sees: 0 when there is none or no usable driver (never
 * an error).  GPU tests exit 77 (skipped) when it is 0. */
int sgd_cuda_device_count(void);

/* The device's name, e.g. "NVIDIA H200", into buf; "none" without a device. */
void sgd_cuda_device_name(char *buf, size_t size);

/* Creates the CUDA backend for `model` on device 0: one stream and one cuBLAS handle, math
 * mode CUBLAS_DEFAULT_MATH (no TF32).  Returns -1 with err when no device is usable. */
int sgd_cuda_backend_create(model_t *model, struct sgd_backend *out, sgd_err_t *err);

/* Benchmark hook (bench/bench_cuda_grad.c): for k independent gradients of `batch` rows each,
 * with parameters, minibatches and outputs already on the device, measures in the same run
 *   *grad_s   seconds per call of the backend's forward + backward (every kernel),
 *   *sgemm_s  seconds per replay of only its cuBLAS GEMM calls, same shapes and order,
 * each the best of `reps` timed repetitions (CUDA events).  Returns -1 without a device. */
int sgd_cuda_bench_grad(model_t *model, int k, int batch, int reps, double *grad_s,
                        double *sgemm_s, sgd_err_t *err);
#endif

#ifdef __cplusplus
}
#endif

#endif
