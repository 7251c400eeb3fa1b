/* The backend registry and the loader of the CUDA plugin (see backend.h); the "cpu" backend
 * itself is backend_cpu.c.
 *
 * The CUDA backend is a plugin, libsgd_cuda.so next to sgdsim (backend_cuda.cu, cuda_dense.cu,
 * cuda_cnn.cu, cuda_bench.cu), the only thing that links the CUDA runtime and cuBLAS, opened
 * here the first time "cuda" is asked for: linked into sgdsim directly, those libraries made
 * every start of the program 0.17 s instead of 0.01 s -- every command, every sweep point --
 * for CPU runs that never use them. */
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

#include "models/backend_cpu.h"
#include "models/backend_cuda.h"
#include "models/model_kind.h"

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

/* What a test executable's sgd_backend_test_wrap makes of a new backend (backend.h). */
static int test_wrap(sgd_backend_t *b, sgd_err_t *err)
{
    if (!sgd_backend_test_wrap || sgd_backend_test_wrap(b, err) == 0) return 0;
    sgd_backend_destroy(b);
    return -1;
}

int sgd_backend_create(const char *name, model_t *model, sgd_backend_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (strcmp(name, "cpu") == 0) {
        sgd_backend_cpu_create(model, out);
        return test_wrap(out, err);
    }
    if (strcmp(name, "cuda") == 0) {
        if (model_layout(model)->cuda == MODEL_CUDA_NONE)
            return sgd_errf(err, "backend: \"cuda\" has no kernels for model kind \"%s\" "
                                 "(use backend \"cpu\")", model_spec(model)->kind->name);
#ifdef SGDSIM_HAVE_CUDA
        if (need_plugin(err) || plugin.create(model_layout(model), out, err)) return -1;
        return test_wrap(out, err);
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
