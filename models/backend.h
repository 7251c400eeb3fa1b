/* Numerics backends: where the gradients of the simulator are computed.
 *
 * A backend is a const table of callbacks (sgd_backend_iface_t) plus a context pointer, as in
 * ggml: the "cpu" backend wraps models/model.h (every kind) and is the reference; the "cuda"
 * backend (backend_cuda.cu, built when CUDA is found into the plugin libsgd_cuda.so, which
 * backend.c loads on first use; backend_cuda.h) computes the same mathematics with cuBLAS and
 * a few deterministic kernels.  Algorithms ask a backend for gradients and never learn which
 * one they got.
 *
 * Three ways to ask, from the simplest to the most resident:
 *   loss_grad          one gradient, host pointers in and out (model_loss_grad's contract);
 *   loss_grad_batched  k independent gradients of the same model at the same batch size,
 *                      each with its own parameters, minibatch and output: the CPU backend
 *                      loops over them in order; the CUDA backend runs every layer's GEMMs
 *                      for all k at once (cublasSgemmStridedBatched).  This is how an
 *                      asynchronous algorithm batches its clients: collect the scheduled
 *                      gradient requests whose parameter versions are already fixed (with
 *                      staleness tau ~ lambda that is most of them), make ONE call with those
 *                      k, and apply each gradient in its turn (algorithms/ps_ledger.h).
 *                      The result of request i depends only on (params[i], x[i], y[i]), never on
 *                      which other requests shared the call -- on the CPU bit for bit; on the
 *                      GPU cuBLAS may pick another kernel for another k, so grouping must be
 *                      decided by the (deterministic) schedule, never by wall-clock timing;
 *   sync_begin/step    synchronous training with everything resident: sync_begin binds the
 *                      training set, the initial parameters and the optimizer; each sync_step
 *                      receives only the row indices of the stacked global batch and the
 *                      learning rate, computes the mean gradient over those rows in ONE
 *                      stacked pass, applies the optimizer step and returns the batch loss.
 *                      The CUDA backend keeps parameters, gradient, velocity and the training
 *                      set on the device: per update it uploads the row indices and
 *                      downloads the loss and the new parameters (the runner's divergence
 *                      check, evaluation and digest read the host copy; see
 *                      docs/performance.md for what that costs).
 *
 * Determinism: every backend gives the same bits for the same inputs on the same machine
 * (the CPU backend on the same OpenBLAS core and thread count; the CUDA backend on the same
 * GPU model, driver and cuBLAS: one stream per context, no atomics, no TF32).  CPU and CUDA
 * agree within a tolerance, not bitwise: tests/models/test_models_backend_cuda_matches_cpu.c
 * states it.
 *
 * Ownership: sgd_backend_create fills a caller-allocated sgd_backend_t that borrows `model`
 * (which must outlive it); sgd_backend_destroy releases what create allocated.  A backend,
 * like a model_t, is used by one thread at a time. */
#ifndef SGDSIM_MODELS_BACKEND_H
#define SGDSIM_MODELS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "models/dataset.h"
#include "models/model.h"
#include "models/optim.h"

/* A gradient as a background job computes one: loss_grad's contract, on the workspace of the
 * thread that runs the job (oracle). */
typedef int (*sgd_grad_fn)(void *oracle, const float *params, const float *x, const int32_t *y,
                           int batch, float *grad, double *loss, sgd_err_t *err);
/* A background job of the caller's (async_submit_job): computes with grad(oracle, ...) only,
 * at the batch size async_open was given, reads only inputs that stay unchanged until it is
 * collected and writes only its own outputs, so its result is the same bits on any thread.
 * Returns 0 with *loss, or -1 with err. */
typedef int (*sgd_job_fn)(void *arg, sgd_grad_fn grad, void *oracle, double *loss,
                          sgd_err_t *err);

/* Status: every call that can fail -- an allocation, a CUDA or cuBLAS error -- returns 0, or
 * -1 with err->msg saying what failed ("out of memory: 2.1 GiB for ...", "CUDA error:
 * cudaMalloc(...): out of memory").  A failure is not an input error and not a broken
 * invariant (those still abort: a caller's rows out of range, labels out of the model's
 * classes): the algorithm ends the run `failed` with the message (alg_backend_failed) and
 * the rows already written stay.  After a failed call the backend's state is undefined: the
 * caller makes no call but destroy. */
typedef struct sgd_backend_iface {
    const char *name;
    /* model_loss_grad's contract: 1 <= batch <= model_max_batch; the loss into *loss. */
    int (*loss_grad)(void *ctx, const float *params, const float *x, const int32_t *y,
                     int batch, float *grad, double *loss, sgd_err_t *err);
    /* k >= 1 independent gradients: for i < k, loss[i] and grad[i] (nparams floats) are what
     * loss_grad(params[i], x[i], y[i], batch) gives.  1 <= batch <= model_max_batch. */
    int (*loss_grad_batched)(void *ctx, int k, const float *const *params,
                             const float *const *x, const int32_t *const *y, int batch,
                             float *const *grad, double *loss, sgd_err_t *err);
    /* model_evaluate's contract. */
    int (*evaluate)(void *ctx, const float *params, const sgd_dataset_t *d, double *mean_loss,
                    double *error_rate, sgd_err_t *err);
    /* Starts resident synchronous training: train (borrowed, must outlive the backend),
     * the optimizer (copied) and the initial parameters (copied; velocity starts at zero).
     * params must stay allocated until the backend is destroyed (the CUDA backend page-locks
     * it for the per-update download; pass the same array to sync_step). */
    int (*sync_begin)(void *ctx, const sgd_dataset_t *train, const optim_sgd_t *opt,
                      const float *params, sgd_err_t *err);
    /* One update over the nrows training rows `rows` (1 <= nrows <= model_max_batch, the
     * stacked batch in canonical worker order): mean gradient, optimizer step with rate lr.
     * Leaves the batch's mean loss in *loss and the new parameters in params (nparams).
     * The CPU backend updates params in place (it IS its state); the CUDA backend overwrites
     * it from the device, so between sync_begin and the end of the run params is a mirror
     * the caller must not modify. */
    int (*sync_step)(void *ctx, const int64_t *rows, int nrows, float lr, float *params,
                     double *loss, sgd_err_t *err);
    void (*destroy)(void *ctx);
    /* Optional: compute on `threads` host threads from now on (loss_grad_batched's requests
     * and evaluate's chunks in parallel, every result the same bits as on one thread).
     * NULL: the backend has its own parallelism (a GPU) and ignores the host's. */
    void (*set_threads)(void *ctx, int threads);
    /* Optional (NULL: none, e.g. a GPU, whose batched call is its parallelism): loss_grad
     * requests run in the background on the host threads of set_threads, while the caller
     * goes on (common/taskq.h).  async_open(slots, batch) returns 1 when requests of `batch`
     * rows can run so, in slots 0 .. slots - 1, and 0 when they cannot (then nothing is
     * open); call it after set_threads.  async_submit queues slot's request: its inputs must
     * stay valid and unchanged, and grad unread, until async_collect(slot) has returned (its
     * status, and its loss in *loss).  collect runs a request nobody started on the calling
     * thread.  Results are loss_grad's bits whichever thread computes them; every other call
     * waits for running requests first when it needs the threads' workspaces. */
    int (*async_open)(void *ctx, int slots, int batch);
    void (*async_submit)(void *ctx, int slot, const float *params, const float *x,
                         const int32_t *y, float *grad);
    int (*async_collect)(void *ctx, int slot, double *loss, sgd_err_t *err);
    /* Optional (NULL: this backend's synchronous training cannot be checkpointed): after
     * sync_begin, the optimizer's state -- the velocity, nparams floats -- copied out
     * (sync_export) or back in (sync_import, which also takes params, the caller's restored
     * parameters, as its own again).  A run resumed from them steps as the saved run would. */
    int (*sync_export)(void *ctx, float *velocity, sgd_err_t *err);
    int (*sync_import)(void *ctx, const float *params, const float *velocity, sgd_err_t *err);
    /* Optional, with async_open (NULL: none): queues a job of several gradients in slot's
     * place of one request (a local-training task of the parameter-server family, whose
     * steps must run in order); collected by async_collect like a request, which returns
     * the job's status and its loss.  The job's gradients are loss_grad's bits whichever
     * thread runs it. */
    void (*async_submit_job)(void *ctx, int slot, sgd_job_fn job, void *arg);
} sgd_backend_iface_t;

typedef struct sgd_backend {
    const sgd_backend_iface_t *iface;
    void *ctx;
    /* Counted by the shorthands below: calls of loss_grad and loss_grad_batched, and the
     * gradients they computed (how well an algorithm batches). */
    uint64_t grad_calls, grads;
} sgd_backend_t;

/* Backend names the scenario loader and the CLI accept, NULL-terminated: "cpu", "cuda".
 * Whether "cuda" can run is only known at sgd_backend_create. */
extern const char *const sgd_backend_names[];

/* 1 when this build contains the CUDA backend. */
int sgd_backend_have_cuda(void);

/* Creates backend `name` for `model`.  Returns 0, or -1 with err saying why (unknown name,
 * "cuda" for a model whose kind it has no kernels for (model_layout_t.cuda), a build without
 * CUDA, no CUDA device): input/environment errors, exit 2 at the CLI. */
int sgd_backend_create(const char *name, model_t *model, sgd_backend_t *out, sgd_err_t *err);
void sgd_backend_destroy(sgd_backend_t *b);

/* Fault injection, in test executables only: an executable that defines this function
 * (tests/models/failing_backend.c, linked into sgdsim_failing_backend) gets every backend
 * sgd_backend_create made, to wrap; 0, or -1 with err (the backend is then destroyed and
 * creation fails).  sgdsim defines none, so the weak reference is NULL there. */
int sgd_backend_test_wrap(sgd_backend_t *b, sgd_err_t *err) __attribute__((weak));

/* Lets the backend use `threads` (>= 1) host threads (iface.set_threads; a no-op for a
 * backend without it).  Results do not change: the CPU backend evaluates loss_grad_batched's
 * requests and evaluate's chunks of max_batch rows in parallel, each on a model_t of its own
 * with OpenBLAS on one thread, and reduces nothing across threads (the row losses of an
 * evaluation are added in row order afterwards). */
void sgd_backend_set_threads(sgd_backend_t *b, int threads);

/* The CUDA side (libsgd_cuda.so, loaded on first use; backend_cuda.h):
 *   sgd_backend_cuda_load         0 when this build's CUDA plugin is loaded (loading it if it
 *                                 was not yet), else -1 with err saying why: a build without
 *                                 CUDA, a plugin that cannot be loaded or is of another
 *                                 version.  No device is not a load failure: the plugin
 *                                 loads without a GPU or driver (tests tell the two apart);
 *   sgd_backend_cuda_devices      devices the "cuda" backend can use: 0 in a build without
 *                                 CUDA, when the plugin or the driver cannot be loaded, or
 *                                 without a device (GPU tests exit 77 then);
 *   sgd_backend_cuda_device_name  "NVIDIA H200 (sm_90, 132 SMs)", or "none";
 *   sgd_backend_cuda_bench_grad   for bench/bench_cuda_grad.c: k independent gradients of
 *                                 `batch` rows, everything already on the device; *grad_s =
 *                                 seconds per forward + backward (every kernel), *sgemm_s =
 *                                 seconds per replay of only its cuBLAS calls (same shapes,
 *                                 order), each the best of `reps` timings with CUDA events.
 *                                 Returns -1 with err when "cuda" cannot run. */
int sgd_backend_cuda_load(sgd_err_t *err);
int sgd_backend_cuda_devices(void);
void sgd_backend_cuda_device_name(char *buf, size_t size);
int sgd_backend_cuda_bench_grad(model_t *model, int k, int batch, int reps, double *grad_s,
                                double *sgemm_s, sgd_err_t *err);

/* Shorthands for the callbacks.  Each returns the callback's status; a failure's message is
 * prefixed with the call's name ("sync_step: CUDA error: ..."), so that whoever stores it
 * can tell which call failed. */
static inline int sgd_backend_failed(sgd_err_t *err, const char *call)
{
    return sgd_err_prefix(err, call);
}

static inline int sgd_backend_loss_grad(sgd_backend_t *b, const float *params, const float *x,
                                        const int32_t *y, int batch, float *grad, double *loss,
                                        sgd_err_t *err)
{
    b->grad_calls++;
    b->grads++;
    if (b->iface->loss_grad(b->ctx, params, x, y, batch, grad, loss, err))
        return sgd_backend_failed(err, "loss_grad");
    return 0;
}

static inline int sgd_backend_loss_grad_batched(sgd_backend_t *b, int k,
                                                const float *const *params,
                                                const float *const *x,
                                                const int32_t *const *y, int batch,
                                                float *const *grad, double *loss,
                                                sgd_err_t *err)
{
    b->grad_calls++;
    b->grads += (uint64_t)k;
    if (b->iface->loss_grad_batched(b->ctx, k, params, x, y, batch, grad, loss, err))
        return sgd_backend_failed(err, "loss_grad_batched");
    return 0;
}

/* 1 when the backend runs requests of `batch` rows in the background (iface.async_open),
 * 0 when it has no such path; then the caller uses loss_grad or loss_grad_batched. */
static inline int sgd_backend_async_open(sgd_backend_t *b, int slots, int batch)
{
    return b->iface->async_open ? b->iface->async_open(b->ctx, slots, batch) : 0;
}
/* Counted as one call of one gradient, when submitted. */
static inline void sgd_backend_async_submit(sgd_backend_t *b, int slot, const float *params,
                                            const float *x, const int32_t *y, float *grad)
{
    b->grad_calls++;
    b->grads++;
    b->iface->async_submit(b->ctx, slot, params, x, y, grad);
}
/* 1 when the backend runs jobs in the background (after async_open succeeded). */
static inline int sgd_backend_async_jobs(const sgd_backend_t *b)
{
    return b->iface->async_submit_job != NULL;
}
/* Counted as one call of `grads` gradients, when submitted. */
static inline void sgd_backend_async_submit_job(sgd_backend_t *b, int slot, sgd_job_fn job,
                                                void *arg, uint64_t grads)
{
    b->grad_calls++;
    b->grads += grads;
    b->iface->async_submit_job(b->ctx, slot, job, arg);
}
static inline int sgd_backend_async_collect(sgd_backend_t *b, int slot, double *loss,
                                            sgd_err_t *err)
{
    if (b->iface->async_collect(b->ctx, slot, loss, err))
        return sgd_backend_failed(err, "async_collect");
    return 0;
}
static inline int sgd_backend_evaluate(sgd_backend_t *b, const float *params,
                                       const sgd_dataset_t *d, double *mean_loss,
                                       double *error_rate, sgd_err_t *err)
{
    if (b->iface->evaluate(b->ctx, params, d, mean_loss, error_rate, err))
        return sgd_backend_failed(err, "evaluate");
    return 0;
}
static inline int sgd_backend_sync_begin(sgd_backend_t *b, const sgd_dataset_t *train,
                                         const optim_sgd_t *opt, const float *params,
                                         sgd_err_t *err)
{
    if (b->iface->sync_begin(b->ctx, train, opt, params, err))
        return sgd_backend_failed(err, "sync_begin");
    return 0;
}
static inline int sgd_backend_sync_step(sgd_backend_t *b, const int64_t *rows, int nrows,
                                        float lr, float *params, double *loss, sgd_err_t *err)
{
    if (b->iface->sync_step(b->ctx, rows, nrows, lr, params, loss, err))
        return sgd_backend_failed(err, "sync_step");
    return 0;
}
/* sync_export/sync_import: the caller checks that the backend has them. */
static inline int sgd_backend_sync_export(sgd_backend_t *b, float *velocity, sgd_err_t *err)
{
    if (b->iface->sync_export(b->ctx, velocity, err))
        return sgd_backend_failed(err, "sync_export");
    return 0;
}
static inline int sgd_backend_sync_import(sgd_backend_t *b, const float *params,
                                          const float *velocity, sgd_err_t *err)
{
    if (b->iface->sync_import(b->ctx, params, velocity, err))
        return sgd_backend_failed(err, "sync_import");
    return 0;
}

#endif
