/* The "cuda" backend's plugin: its exported entry points, the device, the workspace and the
 * resident datasets, and the backend's callbacks (backend.h), which hand the numerics to
 * cuda_dense.cu.  cuda_internal.cuh describes the layout, the GEMM convention, determinism
 * and errors. */
#include "models/cuda_internal.cuh"

/* ---- error checking ---------------------------------------------------------------------- */

void cu_die(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

thread_local cu_guard_t *cu_active_guard = NULL;

void cu_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[SGD_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cu_guard_t *g = cu_active_guard;
    if (!g) cu_die(file, line, "%s", msg);
    if (g->err) snprintf(g->err->msg, sizeof g->err->msg, "%s", msg);
    longjmp(g->jump, 1);
}

/* ---- kernels ------------------------------------------------------------------------------ */

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

/* ---- the backend ------------------------------------------------------------------------ */

/* cudaFreeHost(*p) and *p = NULL, its error ignored (as cu_release). */
template <typename T> static void release_host(T **p)
{
    (void)cudaFreeHost(*p);
    *p = NULL;
}

/* Every pointer released and set to NULL, so that a failed cu_ensure leaves nothing that
 * cu_destroy would free twice. */
static void free_workspace(cuda_backend_t *c)
{
    cu_release(&c->params);
    cu_release(&c->grad);
    cu_release(&c->x);
    cu_release(&c->y);
    cu_release(&c->rows);
    cu_release(&c->act_block);
    cu_cnn_free(c);
    cu_release(&c->delta[0]);
    cu_release(&c->delta[1]);
    cu_release(&c->rowloss);
    cu_release(&c->wrong);
    cu_release(&c->loss);
    release_host(&c->h_rowloss);
    release_host(&c->h_loss);
    release_host(&c->h_wrong);
}

/* A softmax or MLP model's act[l], l >= 1, for rows_cap rows. */
static void alloc_activations(cuda_backend_t *c)
{
    const size_t R = (size_t)c->rows_cap;
    size_t acts = 0;
    for (int l = 1; l <= c->L; l++) acts += R * (size_t)c->width[l];
    cudaCheck(cudaMalloc(&c->act_block, acts * sizeof(float)));
    float *f = c->act_block;
    for (int l = 1; l <= c->L; l++) {
        c->act[l] = f;
        f += R * (size_t)c->width[l];
    }
}

/* Makes room for k requests of `rows` stacked rows in all (sizes only grow). */
void cu_ensure(cuda_backend_t *c, int k, int rows)
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
    if (c->ngeoms) cu_cnn_alloc(c);
    else alloc_activations(c);
    cudaCheck(cudaMalloc(&c->delta[0], R * (size_t)c->max_width * sizeof(float)));
    cudaCheck(cudaMalloc(&c->delta[1], R * (size_t)c->max_width * sizeof(float)));
    cudaCheck(cudaMalloc(&c->rowloss, R * sizeof(double)));
    cudaCheck(cudaMalloc(&c->wrong, R * sizeof(int)));
    cudaCheck(cudaMalloc(&c->loss, K * sizeof(double)));
    cudaCheck(cudaMallocHost(&c->h_rowloss, R * sizeof(double)));
    cudaCheck(cudaMallocHost(&c->h_loss, K * sizeof(double)));
    cudaCheck(cudaMallocHost(&c->h_wrong, R * sizeof(int)));
}

static void check_labels(const int32_t *y, size_t n, int C)
{
    for (size_t i = 0; i < n; i++) CU_ASSERT(y[i] >= 0 && y[i] < C);
}

/* The bodies of the callbacks: a failing CUDA or cuBLAS call in them returns from the
 * callback that runs them (CU_GUARDED, cuda_internal.cuh). */
static void loss_grad_batched(cuda_backend_t *c, int k, const float *const *params,
                              const float *const *x, const int32_t *const *y, int batch,
                              float *const *grad, double *loss)
{
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
    cu_model_loss_grad(c, k, batch, c->params, c->x, c->y, c->grad);
    for (int i = 0; i < k; i++)
        cudaCheck(cudaMemcpyAsync(grad[i], c->grad + (size_t)i * np, np * sizeof(float),
                                  cudaMemcpyDeviceToHost, c->stream));
    cudaCheck(cudaMemcpyAsync(c->h_loss, c->loss, (size_t)k * sizeof(double),
                              cudaMemcpyDeviceToHost, c->stream));
    cudaCheck(cudaStreamSynchronize(c->stream));
    memcpy(loss, c->h_loss, (size_t)k * sizeof(double));
}

static int cu_loss_grad_batched(void *ctx, int k, const float *const *params,
                                const float *const *x, const int32_t *const *y, int batch,
                                float *const *grad, double *loss, sgd_err_t *err)
{
    CU_GUARDED(err,
               loss_grad_batched((cuda_backend_t *)ctx, k, params, x, y, batch, grad, loss));
}

static int cu_loss_grad(void *ctx, const float *params, const float *x, const int32_t *y,
                        int batch, float *grad, double *loss, sgd_err_t *err)
{
    CU_GUARDED(err, loss_grad_batched((cuda_backend_t *)ctx, 1, &params, &x, &y, batch, &grad,
                                      loss));
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
    cu_release(&r->x); /* NULL until allocated again, whatever fails below */
    cu_release(&r->y);
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

static void evaluate(cuda_backend_t *c, const float *params, const sgd_dataset_t *d,
                     double *mean_loss, double *error_rate)
{
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
        const float *xs = r->x + (size_t)first * (size_t)d->dim;
        const float *z = cu_model_forward(c, 1, b, c->params, xs);
        cu_softmax_rows(c, (size_t)b, z, r->y + first, 1.0, NULL, c->rowloss, c->wrong);
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

static int cu_evaluate(void *ctx, const float *params, const sgd_dataset_t *d,
                       double *mean_loss, double *error_rate, sgd_err_t *err)
{
    CU_GUARDED(err, evaluate((cuda_backend_t *)ctx, params, d, mean_loss, error_rate));
}

static void sync_begin(cuda_backend_t *c, const sgd_dataset_t *train, const optim_sgd_t *opt,
                       const float *params)
{
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

static int cu_sync_begin(void *ctx, const sgd_dataset_t *train, const optim_sgd_t *opt,
                         const float *params, sgd_err_t *err)
{
    CU_GUARDED(err, sync_begin((cuda_backend_t *)ctx, train, opt, params));
}

static void sync_step(cuda_backend_t *c, const int64_t *rows, int nrows, float lr,
                      float *params, double *loss)
{
    CU_ASSERT(c->sync_on && nrows >= 1 && nrows <= c->max_batch);
    const resident_t *r = &c->res[c->train_slot];
    for (int i = 0; i < nrows; i++) CU_ASSERT(rows[i] >= 0 && rows[i] < r->n);
    cu_ensure(c, 1, nrows);
    cudaCheck(cudaMemcpyAsync(c->rows, rows, (size_t)nrows * sizeof(int64_t),
                              cudaMemcpyHostToDevice, c->stream));
    k_gather<<<(unsigned)nrows, 128, 0, c->stream>>>(r->x, r->y, r->dim, c->rows, c->x, c->y);
    cudaCheckLaunch();
    cu_model_loss_grad(c, 1, nrows, c->s_params, c->x, c->y, c->grad);
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
    *loss = c->h_loss[0];
}

static int cu_sync_step(void *ctx, const int64_t *rows, int nrows, float lr, float *params,
                        double *loss, sgd_err_t *err)
{
    CU_GUARDED(err, sync_step((cuda_backend_t *)ctx, rows, nrows, lr, params, loss));
}

/* Releases everything, each call's error ignored: destroy also ends a run whose backend
 * failed, on a device that may refuse every call since (cuda_internal.cuh, "Errors"). */
void cu_destroy(void *ctx)
{
    cuda_backend_t *c = (cuda_backend_t *)ctx;
    if (!c) return;
    if (c->stream) (void)cudaStreamSynchronize(c->stream);
    free_workspace(c);
    for (int i = 0; i < NRESIDENT; i++) {
        cu_release(&c->res[i].x);
        cu_release(&c->res[i].y);
    }
    cu_release(&c->s_params);
    cu_release(&c->s_velocity);
    if (c->pinned) (void)cudaHostUnregister(c->pinned);
    if (c->blas) (void)cublasDestroy(c->blas);
    if (c->stream) (void)cudaStreamDestroy(c->stream);
    (void)cudaGetLastError(); /* leave no error behind for another backend of the process */
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
    NULL, /* async_open: its batched call is how it overlaps clients' gradients */
    NULL, /* async_submit */
    NULL, /* async_collect */
    NULL, /* sync_export: checkpoints of a run on the GPU are not supported yet */
    NULL, /* sync_import */
    NULL, /* async_submit_job: no background path (above) */
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

/* A CNN's layers (cuda_cnn.cu), its input's values per sample as width[0] and its widest
 * layer input or output as max_width (cuda_internal.cuh). */
static void copy_cnn_layers(cuda_backend_t *c, const model_layout_t *m)
{
    CU_ASSERT(m->ngeoms >= 1 && m->ngeoms <= CNN_MAX_GEOMS);
    c->ngeoms = m->ngeoms;
    memcpy(c->geom, m->geom, (size_t)m->ngeoms * sizeof *m->geom);
    c->width[0] = (int)m->geom[0].in_size;
    c->max_width = 0;
    for (int i = 0; i < m->ngeoms; i++) {
        const cnn_geom_t *g = &m->geom[i];
        if (g->in_size > c->max_width) c->max_width = (int)g->in_size;
        if (g->out_size > c->max_width) c->max_width = (int)g->out_size;
    }
    CU_ASSERT(c->geom[m->ngeoms - 1].oc == c->C);
}

/* The stream and the cuBLAS handle, set for determinism (cuda_internal.cuh). */
static void stream_and_handle(cuda_backend_t *c)
{
    cudaCheck(cudaSetDevice(0));
    cudaCheck(cudaStreamCreate(&c->stream));
    cublasCheck(cublasCreate(&c->blas));
    cublasCheck(cublasSetStream(c->blas, c->stream));
    cublasCheck(cublasSetPointerMode(c->blas, CUBLAS_POINTER_MODE_HOST));
    cublasCheck(cublasSetAtomicsMode(c->blas, CUBLAS_ATOMICS_NOT_ALLOWED));
    cublasCheck(cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH));
}

static int open_stream(cuda_backend_t *c, sgd_err_t *err)
{
    CU_GUARDED(err, stream_and_handle(c));
}

cuda_backend_t *cu_create_ctx(const model_layout_t *m, sgd_err_t *err)
{
    /* The plugin computes networks (model.h, model_cuda_net_t), not kinds: a layout it has no
     * kernels for is refused, never computed as something else. */
    if (m->cuda != MODEL_CUDA_DENSE && m->cuda != MODEL_CUDA_LAYERS) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "backend: \"cuda\" has no kernels for this model (its layout asks for "
                     "network %d); use \"backend\": \"cpu\"", (int)m->cuda);
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
    if (m->cuda == MODEL_CUDA_LAYERS) copy_cnn_layers(c, m);
    sgd_err_t why = {{0}};
    if (open_stream(c, &why)) {
        if (err && snprintf(err->msg, sizeof err->msg, "backend: \"cuda\": %s", why.msg) < 0)
            err->msg[0] = '\0';
        cu_destroy(c);
        return NULL;
    }
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
