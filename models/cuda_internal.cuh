/* What the CUDA backend's files share (backend_cuda.cu: the plugin's entry points, device and
 * workspace management and the backend's callbacks; cuda_dense.cu: softmax and MLP kernels and
 * passes; cuda_cnn.cu: convolutional networks; cuda_bench.cu: the benchmark hook): the error
 * checks, the backend's context and the functions one file calls in another.  Included by the
 * plugin's .cu files only.
 *
 * The "cuda" backend: model_dense.c's softmax/MLP and cnn.c's forward and backward, and
 * optim.c's SGD step, on one GPU with cuBLAS and a few kernels, written to mirror the CPU
 * reference line by line.  It computes the networks a model's layout names
 * (model_layout_t.cuda), never a kind: a layout it has no kernels for is refused.
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
 * Errors (backend.h: every callback returns a status).  A failing CUDA or cuBLAS call --
 * out of device memory, a launch that failed, a sticky error of the device -- is the run's
 * failure, not an abort: each callback runs its body under CU_GUARDED, and cudaCheck /
 * cublasCheck, however deep below it, record "CUDA error: <the call>: <cudaGetErrorString>"
 * in the callback's err and jump back to its entry (longjmp over plain C frames, which hold
 * nothing to clean up), which returns -1.  The backend is then only destroyed, and
 * cu_destroy releases what it holds ignoring further errors (a device with a sticky error
 * refuses every call).  CU_ASSERT -- a broken invariant of the caller -- still aborts with
 * file:line.  "No usable device" at creation is an environment error returned as before.
 *
 * Built as the shared library libsgd_cuda.so, loaded by backend.c on first use (see
 * backend_cuda.h for why); it calls nothing in the executable. */
#ifndef SGDSIM_MODELS_CUDA_INTERNAL_CUH
#define SGDSIM_MODELS_CUDA_INTERNAL_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
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
__attribute__((noreturn, format(printf, 3, 4))) void cu_die(const char *file, int line,
                                                            const char *fmt, ...);

#define CU_ASSERT(cond)                                                                   \
    do {                                                                                  \
        if (!(cond)) cu_die(__FILE__, __LINE__, "assertion failed: %s", #cond);           \
    } while (0)

/* The callback a failing call returns from: where to jump and where its message goes.
 * One per thread (a backend is used by one thread at a time); guards nest. */
typedef struct cu_guard {
    jmp_buf jump;
    sgd_err_t *err;
    struct cu_guard *outer;
} cu_guard_t;

extern thread_local cu_guard_t *cu_active_guard;

/* A failed CUDA or cuBLAS call: into the active guard's err and back to its callback; with
 * no guard active (a caller outside the backend's callbacks) the abort of cu_die. */
__attribute__((noreturn, format(printf, 3, 4))) void cu_fail(const char *file, int line,
                                                             const char *fmt, ...);

/* Runs `body` (a statement) as a callback's whole work and returns from the callback: 0 when
 * it completed, -1 with errp filled when a CUDA or cuBLAS call in it failed.  Nothing the
 * jump crosses may own a resource (no C++ destructors). */
#define CU_GUARDED(errp, body)                                                            \
    do {                                                                                  \
        cu_guard_t guard_;                                                                \
        guard_.err = (errp);                                                              \
        guard_.outer = cu_active_guard;                                                   \
        cu_active_guard = &guard_;                                                        \
        if (setjmp(guard_.jump) != 0) {                                                   \
            cu_active_guard = guard_.outer;                                               \
            return -1;                                                                    \
        }                                                                                 \
        body;                                                                             \
        cu_active_guard = guard_.outer;                                                   \
        return 0;                                                                         \
    } while (0)

static inline void cuda_check(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaSuccess) cu_fail(file, line, "CUDA error: %s: %s", what, cudaGetErrorString(e));
}

static inline void cublas_check(cublasStatus_t s, const char *what, const char *file, int line)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        cu_fail(file, line, "cuBLAS error: %s: %s", what, cublasGetStatusString(s));
}

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
#define cublasCheck(call) cublas_check((call), #call, __FILE__, __LINE__)
#define cudaCheckLaunch() cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

static inline unsigned blocks_for(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    CU_ASSERT(b <= 0x7fffffffu);
    return (unsigned)b;
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

    /* MODEL_CUDA_LAYERS (cuda_cnn.cu): the layers, the output layer last, and their workspace
     * for rows_cap samples, allocated with the rest by cu_ensure.  width[0] is then the
     * input's values per sample and max_width the widest layer input or output, so that x
     * and delta[] hold a CNN's batch too; act[] is unused. */
    int ngeoms;                    /* 0 for MODEL_CUDA_DENSE */
    cnn_geom_t geom[CNN_MAX_GEOMS];
    float *out[CNN_MAX_GEOMS];     /* layer i's output after its ReLU, rows_cap x out_size */
    float *col[CNN_MAX_GEOMS];     /* conv i's im2col matrix, rows_cap*rows x kdim */
    int32_t *arg[CNN_MAX_GEOMS];   /* max pool i: the input index each output took */
    float *dcol;                   /* dY W^T of a conv, before col2im */
    double *colsum;                /* bias gradients' partial sums, per chunk of rows */
    void *cnn_block;
} cuda_backend_t;

/* backend_cuda.cu */
cuda_backend_t *cu_create_ctx(const model_layout_t *m, sgd_err_t *err);
/* Makes room for k requests of `rows` stacked rows in all (sizes only grow). */
void cu_ensure(cuda_backend_t *c, int k, int rows);
/* cudaFree(*p) and *p = NULL, its error ignored: releasing cannot be undone, and a device
 * with a sticky error refuses it too ("Errors" above). */
template <typename T> static inline void cu_release(T **p)
{
    (void)cudaFree(*p);
    *p = NULL;
}
void cu_destroy(void *ctx);

/* cuda_dense.cu */
/* k_softmax_rows over `rows` rows of logits (C columns): delta, rowloss and wrong as there,
 * each skipped when NULL. */
void cu_softmax_rows(cuda_backend_t *c, size_t rows, const float *logits, const int32_t *y,
                     double inv_b, float *delta, double *rowloss, int *wrong);
/* Forward pass of k requests of `batch` rows: params P (k x nparams), input X (k*batch x n_0);
 * act[L] receives the logits. */
void cu_forward(cuda_backend_t *c, int k, int batch, const float *P, const float *X);
/* Forward + backward of k requests: grad G (k x nparams), loss[i] into c->loss (device). */
void cu_loss_grad_device(cuda_backend_t *c, int k, int batch, const float *P, const float *X,
                         const int32_t *Y, float *G);
/* Only the cuBLAS calls of cu_loss_grad_device, same shapes, operands and order. */
void cu_gemms_only(cuda_backend_t *c, int k, int batch, const float *P, const float *X,
                   float *G);
/* The output layer of k requests of `batch` rows: delta = dLoss/dlogits (the mean over each
 * request's rows) and c->loss[i] = request i's mean loss (device). */
void cu_softmax_loss(cuda_backend_t *c, int k, int batch, const float *logits, const int32_t *Y,
                     float *delta);
/* d[i] = 0 where a[i] is not > 0 (ReLU's derivative; a is the activation after ReLU). */
void cu_relu_mask(cuda_backend_t *c, float *d, const float *a, size_t n);

/* cuda_cnn.cu: the same for a CNN (c->ngeoms > 0).  cu_cnn_forward returns the logits. */
void cu_cnn_alloc(cuda_backend_t *c);
void cu_cnn_free(cuda_backend_t *c);
const float *cu_cnn_forward(cuda_backend_t *c, int k, int batch, const float *P, const float *X);
void cu_cnn_loss_grad_device(cuda_backend_t *c, int k, int batch, const float *P,
                             const float *X, const int32_t *Y, float *G);
void cu_cnn_gemms_only(cuda_backend_t *c, int k, int batch, const float *P, const float *X,
                       float *G);

/* The model's passes, whichever kind it is: the forward pass returning the logits
 * (k*batch x C, device), the gradient, and the benchmark's GEMMs alone. */
static inline const float *cu_model_forward(cuda_backend_t *c, int k, int batch, const float *P,
                                            const float *X)
{
    if (c->ngeoms) return cu_cnn_forward(c, k, batch, P, X);
    cu_forward(c, k, batch, P, X);
    return c->act[c->L];
}

static inline void cu_model_loss_grad(cuda_backend_t *c, int k, int batch, const float *P,
                                      const float *X, const int32_t *Y, float *G)
{
    if (c->ngeoms) cu_cnn_loss_grad_device(c, k, batch, P, X, Y, G);
    else cu_loss_grad_device(c, k, batch, P, X, Y, G);
}

static inline void cu_model_gemms_only(cuda_backend_t *c, int k, int batch, const float *P,
                                       const float *X, float *G)
{
    if (c->ngeoms) cu_cnn_gemms_only(c, k, batch, P, X, G);
    else cu_gemms_only(c, k, batch, P, X, G);
}

#endif
