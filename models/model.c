/* Softmax regression and MLPs on the CPU (see model.h).  Every matrix product goes through
 * cblas_sgemm (row-major); the small per-element loops around them have fixed orders.
 * Initialisation lives in model_init.c (see there why).  A model of kind MODEL_CNN holds a
 * cnn_t (models/cnn.c) and every call below that computes goes to it; "cnn:" marks those
 * branches, which leave the softmax/MLP paths as they were. */
#include "models/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "models/softmax.h"

struct model {
    model_spec_t spec;
    model_layout_t lay;
    int max_width;                       /* largest of width[1..nlayers] */
    /* Workspace, one allocation: act[l] (l = 1..nlayers) is max_batch x width[l], the output
     * of layer l-1 after ReLU (for l = nlayers: the logits); act[0] is the caller's input. */
    float *act[MODEL_MAX_LAYERS + 1];
    float *delta[2];                     /* max_batch x max_width each, ping-pong in backward */
    double *colsum;                      /* max_width, bias-gradient accumulator */
    double *row_loss;                    /* max_batch, one evaluation chunk's row losses */
    void *block;
    cnn_t *cnn;                          /* kind MODEL_CNN, else NULL */
};

/* cnn: the spec's shape checks, with cnn_geometry's messages. */
static int cnn_spec_check(const model_spec_t *spec, sgd_err_t *err)
{
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n;
    if (spec->nhidden != 0)
        return sgd_errf(err, "hidden: a CNN lists its layers in layers, got %d hidden widths",
                        spec->nhidden);
    if (cnn_geometry(&spec->cnn, spec->nclasses, g, &n, err)) return -1;
    if ((int64_t)spec->cnn.in_h * spec->cnn.in_w * spec->cnn.in_c != spec->ninputs)
        return sgd_errf(err, "input: %d x %d x %d values per sample, but ninputs = %d",
                        spec->cnn.in_h, spec->cnn.in_w, spec->cnn.in_c, spec->ninputs);
    return 0;
}

int model_cnn_fit_input(model_spec_t *spec, int dim, sgd_err_t *err)
{
    cnn_spec_t *c = &spec->cnn;
    spec->ninputs = dim;
    if (c->in_h > 0 || c->in_w > 0 || c->in_c > 0) {
        if ((int64_t)c->in_h * c->in_w * c->in_c != dim)
            return sgd_errf(err, "input: %d x %d x %d = %lld values per sample, the data has %d",
                            c->in_h, c->in_w, c->in_c, (long long)c->in_h * c->in_w * c->in_c,
                            dim);
        return 0;
    }
    int side = (int)lround(sqrt((double)dim));
    if (side * side == dim) {
        c->in_h = c->in_w = side;
        c->in_c = 1;
    } else {
        c->in_h = c->in_w = 1;
        c->in_c = dim;
    }
    return 0;
}

double model_workspace_bytes(const model_spec_t *spec, int64_t max_batch)
{
    if (spec->kind == MODEL_CNN) {
        cnn_geom_t g[CNN_MAX_GEOMS];
        int n;
        sgd_err_t err = {{0}};
        SGD_ASSERT(cnn_geometry(&spec->cnn, spec->nclasses, g, &n, &err) == 0);
        return 4.0 * (double)max_batch * (cnn_workspace_floats_per_sample(g, n) + 2.0);
    }
    double acts = 0.0, widest = spec->nclasses;
    for (int i = 0; i <= spec->nhidden; i++) {
        double w = i < spec->nhidden ? spec->hidden[i] : spec->nclasses;
        acts += w;
        if (w > widest) widest = w;
    }
    return 4.0 * (double)max_batch * (acts + 2.0 * widest + 2.0);
}

int model_spec_check(const model_spec_t *spec, sgd_err_t *err)
{
    if (spec->kind != MODEL_SOFTMAX && spec->kind != MODEL_MLP && spec->kind != MODEL_CNN)
        return sgd_errf(err, "kind: unknown model kind %d", (int)spec->kind);
    if (spec->ninputs < 1) return sgd_errf(err, "ninputs: must be >= 1, got %d", spec->ninputs);
    if (spec->nclasses < 2)
        return sgd_errf(err, "nclasses: must be >= 2, got %d", spec->nclasses);
    if (spec->kind == MODEL_CNN) return cnn_spec_check(spec, err);
    if (spec->kind == MODEL_SOFTMAX && spec->nhidden != 0)
        return sgd_errf(err, "nhidden: a softmax model has no hidden layers, got %d",
                        spec->nhidden);
    if (spec->kind == MODEL_MLP && (spec->nhidden < 1 || spec->nhidden > MODEL_MAX_LAYERS - 1))
        return sgd_errf(err, "nhidden: an MLP needs 1 to %d hidden layers, got %d",
                        MODEL_MAX_LAYERS - 1, spec->nhidden);
    /* Parameter counts are size_t, but BLAS dimensions are int: keep every layer's weight
     * matrix below 2^31 elements. */
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

/* cnn: the layout from the network's weight layers, and only the row-loss buffer here. */
static model_t *create_cnn(model_t *m, int max_batch)
{
    m->cnn = cnn_create(&m->spec.cnn, m->spec.nclasses, max_batch);
    m->lay.kind = MODEL_CNN;
    m->lay.max_batch = max_batch;
    m->lay.nlayers = cnn_nweight_layers(m->cnn);
    for (int l = 0; l < m->lay.nlayers; l++) {
        m->lay.width[l] = cnn_fan_in(m->cnn, l);
        m->lay.woff[l] = cnn_offset(m->cnn, l, false);
        m->lay.boff[l] = cnn_offset(m->cnn, l, true);
    }
    m->lay.width[m->lay.nlayers] = m->spec.nclasses;
    m->lay.nparams = cnn_nparams(m->cnn);
    const cnn_geom_t *g = cnn_layers(m->cnn, &m->lay.ngeoms);
    memcpy(m->lay.geom, g, (size_t)m->lay.ngeoms * sizeof *g);
    m->block = sgd_xmalloc((size_t)max_batch * sizeof(double));
    m->row_loss = m->block;
    return m;
}

model_t *model_create(const model_spec_t *spec, int max_batch)
{
    sgd_err_t err = {{0}};
    if (model_spec_check(spec, &err) != 0) sgd_die(__FILE__, __LINE__, "model_create: %s", err.msg);
    SGD_ASSERT(max_batch >= 1);

    model_t *m = sgd_xcalloc(1, sizeof *m);
    m->spec = *spec;
    if (spec->kind == MODEL_CNN) return create_cnn(m, max_batch);
    m->lay.nlayers = spec->nhidden + 1;
    m->lay.kind = spec->kind;
    m->lay.max_batch = max_batch;
    m->lay.width[0] = spec->ninputs;
    for (int i = 0; i < spec->nhidden; i++) m->lay.width[i + 1] = spec->hidden[i];
    m->lay.width[m->lay.nlayers] = spec->nclasses;

    size_t off = 0, acts = 0;
    m->max_width = 0;
    for (int l = 0; l < m->lay.nlayers; l++) {
        size_t in = (size_t)m->lay.width[l], out = (size_t)m->lay.width[l + 1];
        m->lay.woff[l] = off;
        off += in * out;
        m->lay.boff[l] = off;
        off += out;
        acts += (size_t)max_batch * out;
        if (m->lay.width[l + 1] > m->max_width) m->max_width = m->lay.width[l + 1];
    }
    m->lay.nparams = off;

    size_t mb = (size_t)max_batch, mw = (size_t)m->max_width;
    /* Doubles first so they stay aligned; then the float buffers. */
    m->block = sgd_xmalloc((mw + mb) * sizeof(double) + (acts + 2 * mb * mw) * sizeof(float));
    m->colsum = m->block;
    m->row_loss = m->colsum + mw;
    float *f = (float *)(m->row_loss + mb);
    m->act[0] = NULL;
    for (int l = 1; l <= m->lay.nlayers; l++) {
        m->act[l] = f;
        f += mb * (size_t)m->lay.width[l];
    }
    m->delta[0] = f;
    m->delta[1] = f + mb * mw;
    return m;
}

void model_destroy(model_t *m)
{
    if (!m) return;
    cnn_destroy(m->cnn);
    free(m->block);
    free(m);
}

const model_spec_t *model_spec(const model_t *m) { return &m->spec; }
const model_layout_t *model_layout(const model_t *m) { return &m->lay; }
int model_max_batch(const model_t *m) { return m->lay.max_batch; }
size_t model_nparams(const model_t *m) { return m->lay.nparams; }
int model_nlayers(const model_t *m) { return m->lay.nlayers; }

size_t model_layer_offset(const model_t *m, int l, bool bias)
{
    SGD_ASSERT(l >= 0 && l < m->lay.nlayers);
    return bias ? m->lay.boff[l] : m->lay.woff[l];
}

int model_layer_fan_in(const model_t *m, int l)
{
    SGD_ASSERT(l >= 0 && l < m->lay.nlayers);
    return m->lay.width[l];
}

int model_layer_fan_out(const model_t *m, int l)
{
    SGD_ASSERT(l >= 0 && l < m->lay.nlayers);
    if (m->cnn) return cnn_fan_out(m->cnn, l);
    return m->lay.width[l + 1];
}

int model_layer_kernel_area(const model_t *m, int l)
{
    SGD_ASSERT(l >= 0 && l < m->lay.nlayers);
    return m->cnn ? cnn_kernel_area(m->cnn, l) : 1;
}

const cnn_t *model_cnn(const model_t *m) { return m->cnn; }

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
static void forward(model_t *m, const float *params, const float *x, int batch)
{
    const float *in = x;
    for (int l = 0; l < m->lay.nlayers; l++) {
        int nin = m->lay.width[l], nout = m->lay.width[l + 1];
        float *out = m->act[l + 1];
        const float *b = params + m->lay.boff[l];
        /* Start from the bias and let sgemm accumulate onto it (beta = 1). */
        for (int i = 0; i < batch; i++)
            memcpy(out + (size_t)i * (size_t)nout, b, (size_t)nout * sizeof(float));
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, nout, nin, 1.0f, in, nin,
                    params + m->lay.woff[l], nout, 1.0f, out, nout);
        if (l + 1 < m->lay.nlayers) relu(out, (size_t)batch * (size_t)nout);
        in = out;
    }
}


double model_loss_grad(model_t *m, const float *params, const float *x, const int32_t *y,
                       int batch, float *grad)
{
    SGD_ASSERT(batch >= 1 && batch <= m->lay.max_batch);
    if (m->cnn) return cnn_loss_grad(m->cnn, params, x, y, batch, grad);
    const int L = m->lay.nlayers, C = m->spec.nclasses;
    forward(m, params, x, batch);

    /* Output layer: loss_i = lse(z_i) - z_i[y_i]; dLoss/dz_i = (softmax(z_i) - onehot(y_i)) / B
     * because the loss is the batch mean. */
    const double inv_b = 1.0 / batch;
    double loss = softmax_nll_grad(m->act[L], y, batch, C, m->delta[0]);

    int cur = 0;
    for (int l = L - 1; l >= 0; l--) {
        int nin = m->lay.width[l], nout = m->lay.width[l + 1];
        const float *a_in = l == 0 ? x : m->act[l];
        const float *dl = m->delta[cur];
        /* dW_l = a_in^T (nin x B) * delta (B x nout). */
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nin, nout, batch, 1.0f, a_in, nin,
                    dl, nout, 0.0f, grad + m->lay.woff[l], nout);
        /* db_l = column sums of delta, rows added in order. */
        double *cs = m->colsum;
        for (int j = 0; j < nout; j++) cs[j] = 0.0;
        for (int i = 0; i < batch; i++) {
            const float *row = dl + (size_t)i * (size_t)nout;
            for (int j = 0; j < nout; j++) cs[j] += row[j];
        }
        float *gb = grad + m->lay.boff[l];
        for (int j = 0; j < nout; j++) gb[j] = (float)cs[j];

        if (l > 0) {
            /* delta_prev = (delta W_l^T) masked by ReLU'(pre-activation of layer l-1). */
            float *dp = m->delta[1 - cur];
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, nin, nout, 1.0f, dl, nout,
                        params + m->lay.woff[l], nout, 0.0f, dp, nin);
            relu_mask(dp, m->act[l], (size_t)batch * (size_t)nin);
            cur = 1 - cur;
        }
    }
    return loss * inv_b;
}

int64_t model_evaluate_rows(model_t *m, const float *params, const float *x, const int32_t *y,
                            int rows, double *row_loss)
{
    SGD_ASSERT(rows >= 1 && rows <= m->lay.max_batch);
    if (m->cnn) return cnn_evaluate_rows(m->cnn, params, x, y, rows, row_loss);
    const int C = m->spec.nclasses;
    forward(m, params, x, rows);
    return softmax_nll_rows(m->act[m->lay.nlayers], y, rows, C, row_loss);
}

void model_evaluate(model_t *m, const float *params, const sgd_dataset_t *d, double *mean_loss,
                    double *error_rate)
{
    SGD_ASSERT(d->n >= 1 && d->dim == m->spec.ninputs);
    double loss = 0.0;
    int64_t errors = 0;
    for (int64_t first = 0; first < d->n; first += m->lay.max_batch) {
        int64_t left = d->n - first;
        int b = left < m->lay.max_batch ? (int)left : m->lay.max_batch;
        errors += model_evaluate_rows(m, params, d->x + (size_t)first * (size_t)d->dim,
                                      d->y + first, b, m->row_loss);
        for (int i = 0; i < b; i++) loss += m->row_loss[i];
    }
    *mean_loss = loss / (double)d->n;
    *error_rate = (double)errors / (double)d->n;
}

double model_flops_per_sample(const model_t *m)
{
    if (m->cnn) {
        int n;
        const cnn_geom_t *g = cnn_layers(m->cnn, &n);
        return cnn_flops_per_sample(g, n);
    }
    double f = 0.0;
    for (int l = 0; l < m->lay.nlayers; l++) {
        double mac = (double)m->lay.width[l] * (double)m->lay.width[l + 1];
        f += 2.0 * mac;           /* forward */
        f += 2.0 * mac;           /* weight gradient */
        if (l > 0) f += 2.0 * mac; /* gradient w.r.t. the layer's input */
    }
    return f;
}
