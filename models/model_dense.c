/* Model kinds "softmax" (softmax regression) and "mlp" (multilayer perceptrons: ReLU hidden
 * layers, softmax output), on the CPU through OpenBLAS: their scenario keys, checks, layout
 * and numerics (model_kind.h).  The two share everything but their keys' rules: softmax
 * regression is the network without hidden layers.  Every matrix product goes through
 * cblas_sgemm (row-major); the small per-element loops around them have fixed orders.  The
 * layout and the arithmetic are model.h's: layer l maps n_l inputs to n_{l+1} outputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "models/model_kind.h"
#include "models/softmax.h"

typedef struct dense {
    const model_layout_t *lay;           /* the model's (model_kind.h) */
    int max_width;                       /* largest of width[1..nlayers] */
    /* Workspace, one allocation: act[l] (l = 1..nlayers) is max_batch x width[l], the output
     * of layer l-1 after ReLU (for l = nlayers: the logits); act[0] is the caller's input. */
    float *act[MODEL_MAX_LAYERS + 1];
    float *delta[2];                     /* max_batch x max_width each, ping-pong in backward */
    double *colsum;                      /* max_width, bias-gradient accumulator */
    void *block;
} dense_t;

/* ---- the scenario's keys ----------------------------------------------------------------- */

static const char *const dense_keys[] = {"hidden", NULL};

/* The widths of an MLP's model.hidden (at path): an array of 1..MODEL_MAX_LAYERS - 1
 * integers >= 1. */
static int parse_hidden_widths(const cJSON *h, const char *path, model_spec_t *spec,
                               sgd_err_t *err)
{
    char desc[96];
    if (!cJSON_IsArray(h) || cJSON_GetArraySize(h) < 1 ||
        cJSON_GetArraySize(h) > MODEL_MAX_LAYERS - 1) {
        sgd_json_describe(h, desc, sizeof desc);
        return sgd_errf(err, "%s: expected an array of 1..%d layer widths, got %s", path,
                        MODEL_MAX_LAYERS - 1, desc);
    }
    int i = 0;
    for (const cJSON *e = h->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) ||
            e->valuedouble < 1 || e->valuedouble > INT32_MAX) {
            sgd_json_describe(e, desc, sizeof desc);
            return sgd_errf(err, "%s[%d]: expected integer >= 1, got %s", path, i, desc);
        }
        spec->hidden[i] = (int)e->valuedouble;
    }
    spec->nhidden = i;
    return 0;
}

/* model.hidden of a softmax regression (none, or an empty array) or an MLP (default: one
 * layer of 200, the FASGD experiments' 784-200-10 MLP); the resolved list goes to the
 * resolved configuration. */
static int parse_hidden(const sgd_jobj_t *m, bool mlp, model_spec_t *spec, sgd_err_t *err)
{
    char path[SGD_JPATH_MAX];
    sgd_jpath_join(path, sizeof path, m->path, "hidden");
    const cJSON *h = m->in ? cJSON_GetObjectItemCaseSensitive(m->in, "hidden") : NULL;
    spec->nhidden = 0;
    if (!mlp) {
        if (h && !(cJSON_IsArray(h) && cJSON_GetArraySize(h) == 0))
            return sgd_errf(err, "%s: softmax regression has no hidden layers", path);
    } else if (!h) {
        spec->hidden[0] = 200;
        spec->nhidden = 1;
    } else if (parse_hidden_widths(h, path, spec, err)) {
        return -1;
    }
    if (!m->out) return 0;
    cJSON *resolved = cJSON_CreateArray();
    for (int i = 0; i < spec->nhidden; i++)
        cJSON_AddItemToArray(resolved, cJSON_CreateNumber(spec->hidden[i]));
    cJSON_AddItemToObject(m->out, "hidden", resolved);
    return 0;
}

static int parse_softmax(const sgd_jobj_t *m, const model_data_shape_t *data,
                         model_spec_t *spec, sgd_err_t *err)
{
    (void)data;
    return parse_hidden(m, false, spec, err);
}

static int parse_mlp(const sgd_jobj_t *m, const model_data_shape_t *data, model_spec_t *spec,
                     sgd_err_t *err)
{
    (void)data;
    return parse_hidden(m, true, spec, err);
}

/* ---- checks and estimates ---------------------------------------------------------------- */

/* Parameter counts are size_t, but BLAS dimensions are int: keep every layer's weight matrix
 * below 2^31 elements. */
static int check_widths(const model_spec_t *spec, sgd_err_t *err)
{
    int64_t prev = spec->ninputs;
    for (int i = 0; i <= spec->nhidden; i++) {
        int64_t w = i < spec->nhidden ? spec->hidden[i] : spec->nclasses;
        if (i < spec->nhidden && w < 1)
            return sgd_errf(err, "hidden[%d]: must be >= 1, got %lld", i, (long long)w);
        if (prev * w > INT32_MAX)
            return sgd_errf(err, "layer %d: %lld x %lld weights is too many", i, (long long)prev,
                            (long long)w);
        prev = w;
    }
    return 0;
}

static int check_softmax(const model_spec_t *spec, sgd_err_t *err)
{
    if (spec->nhidden != 0)
        return sgd_errf(err, "nhidden: a softmax model has no hidden layers, got %d",
                        spec->nhidden);
    return check_widths(spec, err);
}

static int check_mlp(const model_spec_t *spec, sgd_err_t *err)
{
    if (spec->nhidden < 1 || spec->nhidden > MODEL_MAX_LAYERS - 1)
        return sgd_errf(err, "nhidden: an MLP needs 1 to %d hidden layers, got %d",
                        MODEL_MAX_LAYERS - 1, spec->nhidden);
    return check_widths(spec, err);
}

/* Width of layer l's output: hidden[l], the classes for the output layer. */
static double out_width(const model_spec_t *spec, int l)
{
    return l < spec->nhidden ? spec->hidden[l] : spec->nclasses;
}

static double dense_nparams(const model_spec_t *spec)
{
    double n = 0.0, prev = spec->ninputs;
    for (int l = 0; l <= spec->nhidden; l++) {
        n += prev * out_width(spec, l) + out_width(spec, l);
        prev = out_width(spec, l);
    }
    return n;
}

/* create's block: the activations, two gradient buffers of the widest layer and the bias
 * accumulator (its doubles counted as two floats each). */
static double dense_workspace_bytes(const model_spec_t *spec, int64_t max_batch)
{
    double acts = 0.0, widest = spec->nclasses;
    for (int l = 0; l <= spec->nhidden; l++) {
        acts += out_width(spec, l);
        if (out_width(spec, l) > widest) widest = out_width(spec, l);
    }
    return 4.0 * (double)max_batch * (acts + 2.0 * widest);
}

static double dense_flops_per_sample(const model_spec_t *spec, const model_layout_t *lay)
{
    (void)spec;
    double f = 0.0;
    for (int l = 0; l < lay->nlayers; l++) {
        double mac = (double)lay->width[l] * (double)lay->width[l + 1];
        f += 2.0 * mac;           /* forward */
        f += 2.0 * mac;           /* weight gradient */
        if (l > 0) f += 2.0 * mac; /* gradient w.r.t. the layer's input */
    }
    return f;
}

/* "softmax 784-10", "mlp 784-200-10". */
static void dense_describe(const model_spec_t *spec, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s %d", spec->kind->name, spec->ninputs);
    for (int l = 0; l <= spec->nhidden && n > 0 && (size_t)n < size; l++)
        n += snprintf(buf + n, size - (size_t)n, "-%.0f", out_width(spec, l));
}

/* ---- the model ---------------------------------------------------------------------------- */

static void *dense_create(const model_spec_t *spec, int max_batch, model_layout_t *lay)
{
    dense_t *d = sgd_xcalloc(1, sizeof *d);
    d->lay = lay;
    lay->nlayers = spec->nhidden + 1;
    lay->width[0] = spec->ninputs;
    for (int i = 0; i < spec->nhidden; i++) lay->width[i + 1] = spec->hidden[i];
    lay->width[lay->nlayers] = spec->nclasses;

    size_t off = 0, acts = 0;
    d->max_width = 0;
    for (int l = 0; l < lay->nlayers; l++) {
        size_t in = (size_t)lay->width[l], out = (size_t)lay->width[l + 1];
        lay->fan_out[l] = lay->width[l + 1];
        lay->kernel_area[l] = 1;
        lay->woff[l] = off;
        off += in * out;
        lay->boff[l] = off;
        off += out;
        acts += (size_t)max_batch * out;
        if (lay->width[l + 1] > d->max_width) d->max_width = lay->width[l + 1];
    }
    lay->nparams = off;

    size_t mb = (size_t)max_batch, mw = (size_t)d->max_width;
    /* Doubles first so they stay aligned; then the float buffers. */
    d->block = sgd_xmalloc(mw * sizeof(double) + (acts + 2 * mb * mw) * sizeof(float));
    d->colsum = d->block;
    float *f = (float *)(d->colsum + mw);
    d->act[0] = NULL;
    for (int l = 1; l <= lay->nlayers; l++) {
        d->act[l] = f;
        f += mb * (size_t)lay->width[l];
    }
    d->delta[0] = f;
    d->delta[1] = f + mb * mw;
    return d;
}

static void dense_destroy(void *state)
{
    dense_t *d = state;
    if (!d) return;
    free(d->block);
    free(d);
}

/* ReLU in select form, x > 0 ? x : 0, which compiles to vector compare-and-blend; the
 * branch form `if (!(x > 0)) x = 0` stays a scalar compare-and-branch (measured: 30% of a
 * gradient's time on the SkylakeX kernel).  Both give the same bits for every input: NaN and
 * -0 become +0. */
static void relu(float *restrict x, size_t n)
{
    for (size_t k = 0; k < n; k++) x[k] = x[k] > 0.0f ? x[k] : 0.0f;
}

/* d *= ReLU'(pre-activation), read from the post-ReLU activation a: it is > 0 exactly where
 * the pre-activation is. */
static void relu_mask(float *restrict d, const float *restrict a, size_t n)
{
    for (size_t k = 0; k < n; k++) d[k] = a[k] > 0.0f ? d[k] : 0.0f;
}

/* Forward pass: act[nlayers] receives the logits of the batch. */
static void forward(dense_t *d, const float *params, const float *x, int batch)
{
    const model_layout_t *lay = d->lay;
    const float *in = x;
    for (int l = 0; l < lay->nlayers; l++) {
        int nin = lay->width[l], nout = lay->width[l + 1];
        float *out = d->act[l + 1];
        const float *b = params + lay->boff[l];
        /* Start from the bias and let sgemm accumulate onto it (beta = 1). */
        for (int i = 0; i < batch; i++)
            memcpy(out + (size_t)i * (size_t)nout, b, (size_t)nout * sizeof(float));
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, nout, nin, 1.0f, in, nin,
                    params + lay->woff[l], nout, 1.0f, out, nout);
        if (l + 1 < lay->nlayers) relu(out, (size_t)batch * (size_t)nout);
        in = out;
    }
}

/* db_l = column sums of delta (batch x nout), rows added in order, in double. */
static void bias_grad(dense_t *d, const float *dl, int batch, int nout, float *gb)
{
    double *cs = d->colsum;
    for (int j = 0; j < nout; j++) cs[j] = 0.0;
    for (int i = 0; i < batch; i++) {
        const float *row = dl + (size_t)i * (size_t)nout;
        for (int j = 0; j < nout; j++) cs[j] += row[j];
    }
    for (int j = 0; j < nout; j++) gb[j] = (float)cs[j];
}

static double dense_loss_grad(void *state, const float *params, const float *x,
                              const int32_t *y, int batch, float *grad)
{
    dense_t *d = state;
    const model_layout_t *lay = d->lay;
    const int L = lay->nlayers, C = lay->width[L];
    forward(d, params, x, batch);

    /* Output layer: loss_i = lse(z_i) - z_i[y_i]; dLoss/dz_i = (softmax(z_i) - onehot(y_i)) / B
     * because the loss is the batch mean. */
    const double inv_b = 1.0 / batch;
    double loss = softmax_nll_grad(d->act[L], y, batch, C, d->delta[0]);

    int cur = 0;
    for (int l = L - 1; l >= 0; l--) {
        int nin = lay->width[l], nout = lay->width[l + 1];
        const float *a_in = l == 0 ? x : d->act[l];
        const float *dl = d->delta[cur];
        /* dW_l = a_in^T (nin x B) * delta (B x nout). */
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nin, nout, batch, 1.0f, a_in, nin,
                    dl, nout, 0.0f, grad + lay->woff[l], nout);
        bias_grad(d, dl, batch, nout, grad + lay->boff[l]);
        if (l > 0) {
            /* delta_prev = (delta W_l^T) masked by ReLU'(pre-activation of layer l-1). */
            float *dp = d->delta[1 - cur];
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, nin, nout, 1.0f, dl, nout,
                        params + lay->woff[l], nout, 0.0f, dp, nin);
            relu_mask(dp, d->act[l], (size_t)batch * (size_t)nin);
            cur = 1 - cur;
        }
    }
    return loss * inv_b;
}

static int64_t dense_evaluate_rows(void *state, const float *params, const float *x,
                                   const int32_t *y, int rows, double *row_loss)
{
    dense_t *d = state;
    const int L = d->lay->nlayers;
    forward(d, params, x, rows);
    return softmax_nll_rows(d->act[L], y, rows, d->lay->width[L], row_loss);
}

#define DENSE_KIND(kname, kexample, kparse, kcheck)                                        \
    {.name = kname,                                                                        \
     .example = kexample,                                                                  \
     .keys = dense_keys,                                                                   \
     .parse = kparse,                                                                      \
     .check = kcheck,                                                                      \
     .nparams = dense_nparams,                                                             \
     .workspace_bytes = dense_workspace_bytes,                                             \
     .create = dense_create,                                                               \
     .destroy = dense_destroy,                                                             \
     .loss_grad = dense_loss_grad,                                                         \
     .evaluate_rows = dense_evaluate_rows,                                                 \
     .flops_per_sample = dense_flops_per_sample,                                           \
     .describe = dense_describe,                                                           \
     .cuda = MODEL_CUDA_DENSE}

const model_kind_t model_kind_softmax =
    DENSE_KIND("softmax", "{\"kind\": \"softmax\"}", parse_softmax, check_softmax);
const model_kind_t model_kind_mlp =
    DENSE_KIND("mlp", "{\"kind\": \"mlp\", \"hidden\": [9, 7]}", parse_mlp, check_mlp);
