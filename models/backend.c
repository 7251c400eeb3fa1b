/* The backend registry, the loader of the CUDA plugin and the "cpu" backend (see backend.h).
 *
 * The CPU backend is a thin wrapper over models/model.c and models/optim.c that makes exactly
 * the calls the algorithms made before backends existed, in the same order, so every digest
 * of a CPU run is unchanged (tests/cli/golden.txt,
 * tests/models/test_models_backend_cpu_matches_model_calls.c).  With several threads it runs
 * independent requests and evaluation chunks on a worker pool (common/pool.h), each worker
 * with a model_t of its own, and still gives the same bits
 * (tests/models/test_models_backend_cpu_threads_give_the_same_bits.c). */
#include "models/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SGDSIM_HAVE_CUDA
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <unistd.h>
#endif

#include "common/pool.h"
#include "models/backend_cuda.h"

const char *const sgd_backend_names[] = {"cpu", "cuda", NULL};

int sgd_backend_have_cuda(void)
{
#ifdef SGDSIM_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

/* ---- the CUDA plugin --------------------------------------------------------------------- */

#ifdef SGDSIM_HAVE_CUDA
/* libsgd_cuda.so's entry points, resolved once per process and never unloaded (backends'
 * iface tables live in it). */
static struct {
    pthread_once_t once;
    char error[1024]; /* why loading failed; empty when it worked */
    int (*device_count)(void);
    void (*device_name)(char *, size_t);
    int (*create)(const model_layout_t *, sgd_backend_t *, sgd_err_t *);
    int (*bench)(const model_layout_t *, int, int, int, double *, double *, sgd_err_t *);
} plugin = {.once = PTHREAD_ONCE_INIT};

/* dlsym() returns a data pointer, and ISO C has no conversion from it to a function pointer;
 * POSIX gives both one representation, so the bytes are copied. */
#define PLUGIN_SYM(h, name, fn)                                                                \
    do {                                                                                       \
        void *sym_ = dlsym(h, name);                                                           \
        _Static_assert(sizeof sym_ == sizeof(fn), "function and data pointers differ in size"); \
        memcpy(&(fn), &sym_, sizeof sym_);                                                     \
    } while (0)

/* Records why loading failed (a message cut short is still a message). */
__attribute__((format(printf, 1, 2))) static void plugin_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plugin.error, sizeof plugin.error, fmt, ap);
    va_end(ap);
}

/* out = a + b, or "" when that does not fit. */
static void path_join(char *out, size_t size, const char *a, const char *b)
{
    int n = snprintf(out, size, "%s%s", a, b);
    if (n < 0 || (size_t)n >= size) out[0] = '\0';
}

/* The directory of the running executable, with a trailing '/', or "" when /proc is absent. */
static void exe_dir(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0 || (size_t)n >= size - 1) n = 0;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash) slash[1] = '\0';
    else buf[0] = '\0';
}

static void load_plugin(void)
{
    /* Where the plugin is looked for, first match wins (docs/architecture.md, "Build"):
     *   1. $SGDSIM_CUDA_PLUGIN, the plugin file itself: when set, only there;
     *   2. next to the executable: the build tree, where sgdsim and the plugin share a folder;
     *   3. <exe dir>/SGDSIM_CUDA_PLUGIN_RELDIR (../lib/sgdsim by default): an installation;
     *   4. the dynamic loader's search path (LD_LIBRARY_PATH, ld.so.cache).
     * A candidate file that exists but does not load is an error, not a reason to try the next
     * one: another copy would hide why this one is broken.  No build-tree path is compiled
     * in, so an installed or moved tree finds its own plugin. */
    enum { PATH_LEN = 4096 };
    char dir[PATH_LEN] = "", cand[2][PATH_LEN] = {"", ""}, path[PATH_LEN] = "";
    const char *env = getenv("SGDSIM_CUDA_PLUGIN");
    if (env && env[0]) {
        path_join(path, sizeof path, env, "");
    } else {
        exe_dir(dir, sizeof dir);
        if (dir[0]) {
            path_join(cand[0], sizeof cand[0], dir, SGDSIM_CUDA_PLUGIN_NAME);
            path_join(cand[1], sizeof cand[1], dir,
                      SGDSIM_CUDA_PLUGIN_RELDIR "/" SGDSIM_CUDA_PLUGIN_NAME);
        }
        for (int i = 0; i < 2 && !path[0]; i++)
            if (cand[i][0] && access(cand[i], F_OK) == 0) path_join(path, sizeof path, cand[i], "");
        if (!path[0]) path_join(path, sizeof path, SGDSIM_CUDA_PLUGIN_NAME, "");
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        if (!e) e = "unknown error";
        if (env && env[0])
            plugin_fail("cannot load the CUDA plugin %s (named by SGDSIM_CUDA_PLUGIN): %s", env, e);
        else if (strchr(path, '/'))
            plugin_fail("cannot load the CUDA plugin %s: %s", path, e);
        else
            plugin_fail("cannot load the CUDA plugin %s: it is neither at %s nor at %s, and the "
                        "loader's search path gave: %s (SGDSIM_CUDA_PLUGIN may name the file)",
                        path, cand[0][0] ? cand[0] : "(no /proc/self/exe)",
                        cand[1][0] ? cand[1] : "(no /proc/self/exe)", e);
        return;
    }
    int (*version)(void) = NULL;
    PLUGIN_SYM(h, "sgd_cuda_plugin_version", version);
    PLUGIN_SYM(h, "sgd_cuda_device_count", plugin.device_count);
    PLUGIN_SYM(h, "sgd_cuda_device_name", plugin.device_name);
    PLUGIN_SYM(h, "sgd_cuda_backend_create", plugin.create);
    PLUGIN_SYM(h, "sgd_cuda_bench_grad", plugin.bench);
    if (!version || !plugin.device_count || !plugin.device_name || !plugin.create ||
        !plugin.bench || version() != SGD_CUDA_PLUGIN_VERSION) {
        plugin_fail("the CUDA plugin %s is not the one this sgdsim was built with (rebuild)", path);
        plugin.device_count = NULL;
    }
}

/* 0 when the plugin is usable, else -1 with err. */
static int need_plugin(sgd_err_t *err)
{
    pthread_once(&plugin.once, load_plugin);
    if (plugin.error[0]) return sgd_errf(err, "backend: \"cuda\": %s", plugin.error);
    return 0;
}

#endif

int sgd_backend_cuda_load(sgd_err_t *err)
{
#ifdef SGDSIM_HAVE_CUDA
    return need_plugin(err);
#else
    return sgd_errf(err, "this sgdsim was built without CUDA");
#endif
}

int sgd_backend_cuda_devices(void)
{
#ifdef SGDSIM_HAVE_CUDA
    if (need_plugin(NULL)) return 0;
    return plugin.device_count();
#else
    return 0;
#endif
}

void sgd_backend_cuda_device_name(char *buf, size_t size)
{
#ifdef SGDSIM_HAVE_CUDA
    if (!need_plugin(NULL)) {
        plugin.device_name(buf, size);
        return;
    }
#endif
    snprintf(buf, size, "none");
}

int sgd_backend_cuda_bench_grad(model_t *model, int k, int batch, int reps, double *grad_s,
                                double *sgemm_s, sgd_err_t *err)
{
#ifdef SGDSIM_HAVE_CUDA
    if (need_plugin(err)) return -1;
    return plugin.bench(model_layout(model), k, batch, reps, grad_s, sgemm_s, err);
#else
    (void)model, (void)k, (void)batch, (void)reps, (void)grad_s, (void)sgemm_s;
    return sgd_errf(err, "this sgdsim was built without CUDA");
#endif
}

/* ---- the CPU backend ---------------------------------------------------------------------- */

typedef struct cpu_backend {
    model_t *model;         /* borrowed: worker 0's workspace */
    /* Host threads (sgd_backend_set_threads): a pool, and a model_t of the same spec and
     * max_batch for each worker; workers[0] is `model`, the others are owned.  With one
     * thread there is no pool and everything runs on `model`, in order. */
    sgd_pool_t *pool;
    model_t **workers;
    int threads;
    double *row_loss;       /* evaluate: one loss per row, row_loss_cap of them */
    int64_t row_loss_cap;
    /* resident synchronous training */
    const sgd_dataset_t *train;
    optim_sgd_t opt;
    float *grad, *velocity; /* nparams each */
    float *batch_x;         /* max_batch x dim, the gathered stacked batch */
    int32_t *batch_y;
} cpu_backend_t;

static double cpu_loss_grad(void *ctx, const float *params, const float *x, const int32_t *y,
                            int batch, float *grad)
{
    cpu_backend_t *c = ctx;
    return model_loss_grad(c->model, params, x, y, batch, grad);
}

typedef struct batched_call { /* the arguments of one loss_grad_batched call */
    cpu_backend_t *c;
    const float *const *params, *const *x;
    const int32_t *const *y;
    int batch;
    float *const *grad;
    double *loss;
} batched_call_t;

static void batched_task(void *arg, int i, int worker)
{
    const batched_call_t *b = arg;
    b->loss[i] = model_loss_grad(b->c->workers[worker], b->params[i], b->x[i], b->y[i],
                                 b->batch, b->grad[i]);
}

static void cpu_loss_grad_batched(void *ctx, int k, const float *const *params,
                                  const float *const *x, const int32_t *const *y, int batch,
                                  float *const *grad, double *loss)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(k >= 1);
    /* Each result depends only on its own inputs (model.h), so the requests may run on any
     * worker in any order. */
    if (!c->pool) {
        for (int i = 0; i < k; i++)
            loss[i] = model_loss_grad(c->model, params[i], x[i], y[i], batch, grad[i]);
        return;
    }
    batched_call_t call = {c, params, x, y, batch, grad, loss};
    sgd_pool_run(c->pool, k, batched_task, &call);
}

typedef struct eval_call { /* one evaluate call, split into chunks of max_batch rows */
    cpu_backend_t *c;
    const float *params;
    const sgd_dataset_t *d;
    int64_t *errors;       /* one count per chunk */
} eval_call_t;

static void eval_task(void *arg, int chunk, int worker)
{
    const eval_call_t *e = arg;
    model_t *m = e->c->workers[worker];
    const int64_t mb = model_max_batch(m), first = (int64_t)chunk * mb;
    const int64_t left = e->d->n - first;
    const int rows = left < mb ? (int)left : (int)mb;
    e->errors[chunk] = model_evaluate_rows(m, e->params, e->d->x + first * e->d->dim,
                                           e->d->y + first, rows, e->c->row_loss + first);
}

static void cpu_evaluate(void *ctx, const float *params, const sgd_dataset_t *d,
                         double *mean_loss, double *error_rate)
{
    cpu_backend_t *c = ctx;
    const int64_t mb = model_max_batch(c->model), nchunks = (d->n + mb - 1) / mb;
    if (!c->pool || nchunks < 2) {
        model_evaluate(c->model, params, d, mean_loss, error_rate);
        return;
    }
    SGD_ASSERT(d->n >= 1 && nchunks <= INT32_MAX);
    if (d->n > c->row_loss_cap) {
        free(c->row_loss);
        c->row_loss = sgd_xmalloc((size_t)d->n * sizeof *c->row_loss);
        c->row_loss_cap = d->n;
    }
    int64_t *errors = sgd_xmalloc((size_t)nchunks * sizeof *errors);
    eval_call_t call = {c, params, d, errors};
    sgd_pool_run(c->pool, (int)nchunks, eval_task, &call);
    /* model_evaluate's sum: the row losses in row order. */
    double loss = 0.0;
    int64_t wrong = 0;
    for (int64_t i = 0; i < d->n; i++) loss += c->row_loss[i];
    for (int64_t k = 0; k < nchunks; k++) wrong += errors[k];
    free(errors);
    *mean_loss = loss / (double)d->n;
    *error_rate = (double)wrong / (double)d->n;
}

static void free_workers(cpu_backend_t *c)
{
    sgd_pool_destroy(c->pool);
    for (int w = 1; w < c->threads; w++) model_destroy(c->workers[w]);
    free(c->workers);
    c->pool = NULL;
    c->workers = NULL;
    c->threads = 1;
}

static void cpu_set_threads(void *ctx, int threads)
{
    cpu_backend_t *c = ctx;
    SGD_ASSERT(threads >= 1);
    if (threads == c->threads) return;
    free_workers(c);
    if (threads == 1) return;
    c->threads = threads;
    c->workers = sgd_xmalloc((size_t)threads * sizeof *c->workers);
    c->workers[0] = c->model;
    for (int w = 1; w < threads; w++)
        c->workers[w] = model_create(model_spec(c->model), model_max_batch(c->model));
    c->pool = sgd_pool_create(threads);
}

static void cpu_sync_begin(void *ctx, const sgd_dataset_t *train, const optim_sgd_t *opt,
                           const float *params)
{
    cpu_backend_t *c = ctx;
    (void)params; /* the caller's array is the state: sync_step updates it in place */
    SGD_ASSERT(train->dim == model_spec(c->model)->ninputs && !c->train);
    size_t np = model_nparams(c->model), mb = (size_t)model_max_batch(c->model);
    c->train = train;
    c->opt = *opt;
    c->grad = sgd_xmalloc(np * sizeof *c->grad);
    c->velocity = sgd_xcalloc(np, sizeof *c->velocity);
    c->batch_x = sgd_xmalloc(mb * (size_t)train->dim * sizeof *c->batch_x);
    c->batch_y = sgd_xmalloc(mb * sizeof *c->batch_y);
}

static double cpu_sync_step(void *ctx, const int64_t *rows, int nrows, float lr, float *params)
{
    cpu_backend_t *c = ctx;
    const sgd_dataset_t *d = c->train;
    SGD_ASSERT(d && nrows >= 1 && nrows <= model_max_batch(c->model));
    for (int k = 0; k < nrows; k++) {
        SGD_ASSERT(rows[k] >= 0 && rows[k] < d->n);
        memcpy(c->batch_x + (size_t)k * (size_t)d->dim, d->x + rows[k] * d->dim,
               (size_t)d->dim * sizeof(float));
        c->batch_y[k] = d->y[rows[k]];
    }
    double loss = model_loss_grad(c->model, params, c->batch_x, c->batch_y, nrows, c->grad);
    optim_sgd_step(&c->opt, params, c->velocity, c->grad, model_nparams(c->model), lr);
    return loss;
}

static void cpu_destroy(void *ctx)
{
    cpu_backend_t *c = ctx;
    free_workers(c);
    free(c->row_loss);
    free(c->grad);
    free(c->velocity);
    free(c->batch_x);
    free(c->batch_y);
    free(c);
}

static const sgd_backend_iface_t cpu_iface = {
    .name = "cpu",
    .loss_grad = cpu_loss_grad,
    .loss_grad_batched = cpu_loss_grad_batched,
    .evaluate = cpu_evaluate,
    .sync_begin = cpu_sync_begin,
    .sync_step = cpu_sync_step,
    .destroy = cpu_destroy,
    .set_threads = cpu_set_threads,
};

int sgd_backend_create(const char *name, model_t *model, sgd_backend_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (strcmp(name, "cpu") == 0) {
        cpu_backend_t *c = sgd_xcalloc(1, sizeof *c);
        c->model = model;
        c->threads = 1;
        out->iface = &cpu_iface;
        out->ctx = c;
        return 0;
    }
    if (strcmp(name, "cuda") == 0) {
#ifdef SGDSIM_HAVE_CUDA
        if (need_plugin(err)) return -1;
        return plugin.create(model_layout(model), out, err);
#else
        return sgd_errf(err, "backend: \"cuda\" is not available: this sgdsim was built without "
                             "CUDA (sgdsim --version shows cuda_backend=0; rebuild with nvcc "
                             "installed, or -DSGDSIM_CUDA=ON)");
#endif
    }
    return sgd_errf(err, "backend: unknown backend \"%s\" (known: cpu, cuda)", name);
}

void sgd_backend_set_threads(sgd_backend_t *b, int threads)
{
    SGD_ASSERT(threads >= 1);
    if (b->iface->set_threads) b->iface->set_threads(b->ctx, threads);
}

void sgd_backend_destroy(sgd_backend_t *b)
{
    if (b->iface) b->iface->destroy(b->ctx);
    memset(b, 0, sizeof *b);
}
