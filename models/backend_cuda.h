/* The CUDA backend's plugin interface: a plain C header, compiled both by the C side
 * (backend.c) and by nvcc (backend_cuda.cu), with extern "C" guards as ggml does for its CUDA
 * backend.
 *
 * Why a plugin.  backend_cuda.cu is built into its own shared library, libsgd_cuda.so, which
 * alone links the CUDA runtime and cuBLAS; backend.c dlopen()s it the first time "cuda" is
 * asked for.  Linking cuBLAS into sgdsim itself made every start of the program (every CLI
 * call, every sweep point) take 0.17 s instead of 0.01 s, loading libraries a CPU run never
 * uses.  The plugin does not call back into the executable: it gets the model's layout as
 * plain data (model_layout_t of model.h) and reports errors in the caller's sgd_err_t.
 *
 * Callers use models/backend.h; only backend.c and backend_cuda.cu include this header. */
#ifndef SGDSIM_MODELS_BACKEND_CUDA_H
#define SGDSIM_MODELS_BACKEND_CUDA_H

#include <stddef.h>

#include "common/error.h"
#include "models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sgd_backend;

/* Bumped when anything below changes; backend.c refuses a plugin of another version. */
#define SGD_CUDA_PLUGIN_VERSION 5

/* The plugin's exported functions (looked up with dlsym by these names). */
int sgd_cuda_plugin_version(void);

/* Number of CUDA devices the runtime sees: 0 when there is none or no usable driver. */
int sgd_cuda_device_count(void);

/* The device's name, e.g. "NVIDIA H200 (sm_90, 132 SMs)", into buf; "none" without one. */
void sgd_cuda_device_name(char *buf, size_t size);

/* Creates the CUDA backend on device 0: one stream and one cuBLAS handle, math mode
 * CUBLAS_DEFAULT_MATH (no TF32).  Models whose layout asks for a network the plugin has
 * kernels for (layout->cuda: MODEL_CUDA_DENSE, or MODEL_CUDA_LAYERS with the layers in
 * layout->geom).  Returns -1 with err for any other layout and when no device is usable. */
int sgd_cuda_backend_create(const model_layout_t *layout, struct sgd_backend *out,
                            sgd_err_t *err);

/* Benchmark hook, see sgd_backend_cuda_bench_grad in backend.h. */
int sgd_cuda_bench_grad(const model_layout_t *layout, int k, int batch, int reps,
                        double *grad_s, double *sgemm_s, sgd_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
