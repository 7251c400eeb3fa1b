/* A backend that fails on its N-th call, for the tests of how a run ends when its backend
 * fails (tests/cli/test_cli_backend_failure.sh).  Linked into sgdsim_failing_backend, whose
 * sgd_backend_test_wrap (models/backend.h) wraps every backend sgd_backend_create makes when
 * the environment says so:
 *
 *     SGDSIM_TEST_BACKEND_FAIL=CALL:N
 *
 * CALL is one of the calls that return a status (loss_grad, loss_grad_batched, evaluate,
 * sync_begin, sync_step, async_collect, sync_export, sync_import) or "any"; the N-th such call
 * (N >= 1, counted from the backend's creation) returns -1 with the message
 * "injected failure (SGDSIM_TEST_BACKEND_FAIL=CALL:N)" instead of calling the real backend --
 * except async_collect, which lets the real request finish first (its slot must be free
 * again).  Every other call goes to the wrapped backend unchanged, so the run is the real
 * one up to the failure.  Unset or empty: nothing is wrapped, and the executable is sgdsim. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/number.h"
#include "models/backend.h"

#define FAIL_ENV "SGDSIM_TEST_BACKEND_FAIL"

typedef struct failing {
    sgd_backend_t inner;
    sgd_backend_iface_t iface; /* the inner one's, its fallible calls replaced */
    char call[32];             /* which calls are counted: a call's name or "any" */
    uint64_t fail_at, calls;
    char setting[64];          /* the environment's value, for the message */
} failing_t;

/* Counts a call of `name`; 1 (and err) when it is the one that fails. */
static int fails_now(failing_t *f, const char *name, sgd_err_t *err)
{
    if (strcmp(f->call, "any") != 0 && strcmp(f->call, name) != 0) return 0;
    if (++f->calls != f->fail_at) return 0;
    sgd_errf(err, "injected failure (" FAIL_ENV "=%s)", f->setting);
    return 1;
}

static int w_loss_grad(void *ctx, const float *params, const float *x, const int32_t *y,
                       int batch, float *grad, double *loss, sgd_err_t *err)
{
    failing_t *f = ctx;
    if (fails_now(f, "loss_grad", err)) return -1;
    return f->inner.iface->loss_grad(f->inner.ctx, params, x, y, batch, grad, loss, err);
}

static int w_loss_grad_batched(void *ctx, int k, const float *const *params,
                               const float *const *x, const int32_t *const *y, int batch,
                               float *const *grad, double *loss, sgd_err_t *err)
{
    failing_t *f = ctx;
    if (fails_now(f, "loss_grad_batched", err)) return -1;
    return f->inner.iface->loss_grad_batched(f->inner.ctx, k, params, x, y, batch, grad, loss,
                                             err);
}

static int w_evaluate(void *ctx, const float *params, const sgd_dataset_t *d, double *mean_loss,
                      double *error_rate, sgd_err_t *err)
{
    failing_t *f = ctx;
    if (fails_now(f, "evaluate", err)) return -1;
    return f->inner.iface->evaluate(f->inner.ctx, params, d, mean_loss, error_rate, err);
}

static int w_sync_begin(void *ctx, const sgd_dataset_t *train, const optim_sgd_t *opt,
                        const float *params, sgd_err_t *err)
{
    failing_t *f = ctx;
    if (fails_now(f, "sync_begin", err)) return -1;
    return f->inner.iface->sync_begin(f->inner.ctx, train, opt, params, err);
}

static int w_sync_step(void *ctx, const int64_t *rows, int nrows, float lr, float *params,
                       double *loss, sgd_err_t *err)
{
    failing_t *f = ctx;
    if (fails_now(f, "sync_step", err)) return -1;
    return f->inner.iface->sync_step(f->inner.ctx, rows, nrows, lr, params, loss, err);
}

static void w_set_threads(void *ctx, int threads)
{
    failing_t *f = ctx;
    f->inner.iface->set_threads(f->inner.ctx, threads);
}

static int w_async_open(void *ctx, int slots, int batch)
{
    failing_t *f = ctx;
    return f->inner.iface->async_open(f->inner.ctx, slots, batch);
}

static void w_async_submit(void *ctx, int slot, const float *params, const float *x,
                           const int32_t *y, float *grad)
{
    failing_t *f = ctx;
    f->inner.iface->async_submit(f->inner.ctx, slot, params, x, y, grad);
}

static int w_async_collect(void *ctx, int slot, double *loss, sgd_err_t *err)
{
    failing_t *f = ctx;
    int rc = f->inner.iface->async_collect(f->inner.ctx, slot, loss, err);
    return fails_now(f, "async_collect", err) ? -1 : rc;
}

static int w_sync_export(void *ctx, float *velocity, sgd_err_t *err)
{
    failing_t *f = ctx;
    if (fails_now(f, "sync_export", err)) return -1;
    return f->inner.iface->sync_export(f->inner.ctx, velocity, err);
}

static int w_sync_import(void *ctx, const float *params, const float *velocity, sgd_err_t *err)
{
    failing_t *f = ctx;
    if (fails_now(f, "sync_import", err)) return -1;
    return f->inner.iface->sync_import(f->inner.ctx, params, velocity, err);
}

static void w_destroy(void *ctx)
{
    failing_t *f = ctx;
    sgd_backend_destroy(&f->inner);
    free(f);
}

/* The wrapper's table: the inner one's name and optional members, present where its are. */
static void build_iface(failing_t *f)
{
    const sgd_backend_iface_t *in = f->inner.iface;
    f->iface = (sgd_backend_iface_t){
        .name = in->name,
        .loss_grad = w_loss_grad,
        .loss_grad_batched = w_loss_grad_batched,
        .evaluate = w_evaluate,
        .sync_begin = w_sync_begin,
        .sync_step = w_sync_step,
        .destroy = w_destroy,
        .set_threads = in->set_threads ? w_set_threads : NULL,
        .async_open = in->async_open ? w_async_open : NULL,
        .async_submit = in->async_submit ? w_async_submit : NULL,
        .async_collect = in->async_collect ? w_async_collect : NULL,
        .sync_export = in->sync_export ? w_sync_export : NULL,
        .sync_import = in->sync_import ? w_sync_import : NULL,
    };
}

static const char *const counted_calls[] = {
    "any", "loss_grad", "loss_grad_batched", "evaluate", "sync_begin", "sync_step",
    "async_collect", "sync_export", "sync_import", NULL};

/* Reads CALL:N from the environment's value into f; -1 with err naming the variable. */
static int parse_setting(failing_t *f, const char *v, sgd_err_t *err)
{
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : 0;
    bool known = false;
    for (int i = 0; counted_calls[i] && colon; i++)
        known |= strlen(counted_calls[i]) == n && strncmp(counted_calls[i], v, n) == 0;
    if (!known || !sgd_parse_u64(colon + 1, &f->fail_at) || f->fail_at < 1 ||
        strlen(v) >= sizeof f->setting)
        return sgd_errf(err, FAIL_ENV ": \"%s\" is not CALL:N (CALL: any, loss_grad, "
                             "loss_grad_batched, evaluate, sync_begin, sync_step, "
                             "async_collect, sync_export or sync_import; N >= 1)", v);
    memcpy(f->call, v, n);
    f->call[n] = '\0';
    snprintf(f->setting, sizeof f->setting, "%s", v);
    return 0;
}

int sgd_backend_test_wrap(sgd_backend_t *b, sgd_err_t *err)
{
    const char *v = getenv(FAIL_ENV);
    if (!v || !v[0]) return 0;
    failing_t *f = sgd_xcalloc(1, sizeof *f);
    if (parse_setting(f, v, err)) {
        free(f);
        return -1;
    }
    f->inner = *b;
    build_iface(f);
    *b = (sgd_backend_t){.iface = &f->iface, .ctx = f};
    return 0;
}
