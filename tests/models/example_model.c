/* A model kind that exists only in the test build (tests/models/model_registry_with_example.c):
 * the proof that adding a model takes this one file and one registry line -- the
 * conformance suite (tests/algorithms/test_model_conformance.c) runs it like every
 * registered kind, through the scenario loader, the runner, both backends and the CLI.
 *
 * "example-lowrank": a two-layer linear classifier, logits = (x U + c) V + b, with U of
 * ninputs x rank and no nonlinearity between the layers: softmax regression whose weight
 * matrix has rank at most `rank`.  Key model.rank: integer >= 1, default 2.  Parameters in
 * model.h's layout: U, c (layer 0), V, b (layer 1).  Plain loops in a fixed order, every sum
 * in double; the CUDA plugin has no kernels for it (MODEL_CUDA_NONE), so "cuda" refuses it. */
#include <stdio.h>
#include <stdlib.h>

#include "models/model_kind.h"
#include "models/softmax.h"

typedef struct lowrank_spec { /* the kind's own settings, in model_spec_t.payload */
    int rank;
} lowrank_spec_t;

typedef struct lowrank {
    const model_layout_t *lay;
    float *h, *z, *dz, *dh; /* max_batch x rank, x classes, x classes, x rank */
} lowrank_t;

static int rank_of(const model_spec_t *spec)
{
    lowrank_spec_t p;
    MODEL_PAYLOAD_GET(spec, &p);
    return p.rank;
}

static const char *const lowrank_keys[] = {"rank", NULL};

static int lowrank_parse(const sgd_jobj_t *m, const model_data_shape_t *data,
                         model_spec_t *spec, sgd_err_t *err)
{
    (void)data;
    int64_t rank;
    if (sgd_jobj_int(m, "rank", 2, 1, INT32_MAX, &rank, err)) return -1;
    lowrank_spec_t p = {.rank = (int)rank};
    MODEL_PAYLOAD_SET(spec, &p);
    return 0;
}

static int lowrank_check(const model_spec_t *spec, sgd_err_t *err)
{
    const int64_t r = rank_of(spec);
    if (r < 1) return sgd_errf(err, "rank: must be >= 1, got %lld", (long long)r);
    if (r * spec->ninputs > INT32_MAX || r * spec->nclasses > INT32_MAX)
        return sgd_errf(err, "rank: %lld x %d weights is too many", (long long)r,
                        spec->ninputs > spec->nclasses ? spec->ninputs : spec->nclasses);
    return 0;
}

static double lowrank_nparams(const model_spec_t *spec)
{
    const double r = rank_of(spec);
    return (double)spec->ninputs * r + r + r * spec->nclasses + spec->nclasses;
}

static double lowrank_workspace_bytes(const model_spec_t *spec, int64_t max_batch)
{
    return 4.0 * (double)max_batch * 2.0 * (rank_of(spec) + spec->nclasses);
}

static void *lowrank_create(const model_spec_t *spec, int max_batch, model_layout_t *lay)
{
    const int r = rank_of(spec), n = spec->ninputs, c = spec->nclasses;
    *lay = (model_layout_t){.nlayers = 2, .width = {n, r, c}, .fan_out = {r, c},
                            .kernel_area = {1, 1}, .max_batch = lay->max_batch,
                            .cuda = lay->cuda};
    lay->woff[0] = 0;
    lay->boff[0] = (size_t)n * (size_t)r;
    lay->woff[1] = lay->boff[0] + (size_t)r;
    lay->boff[1] = lay->woff[1] + (size_t)r * (size_t)c;
    lay->nparams = lay->boff[1] + (size_t)c;
    lowrank_t *m = sgd_xcalloc(1, sizeof *m);
    const size_t mb = (size_t)max_batch;
    m->lay = lay;
    m->h = sgd_xmalloc(mb * 2 * ((size_t)r + (size_t)c) * sizeof(float));
    m->z = m->h + mb * (size_t)r;
    m->dz = m->z + mb * (size_t)c;
    m->dh = m->dz + mb * (size_t)c;
    return m;
}

static void lowrank_destroy(void *state)
{
    lowrank_t *m = state;
    if (!m) return;
    free(m->h);
    free(m);
}

/* out (rows x nout) = in (rows x nin) W + b, each sum in double from the bias. */
static void affine(const float *in, int rows, int nin, const float *w, const float *b, int nout,
                   float *out)
{
    for (int i = 0; i < rows; i++)
        for (int o = 0; o < nout; o++) {
            double s = b[o];
            for (int j = 0; j < nin; j++)
                s += (double)in[(size_t)i * (size_t)nin + (size_t)j] *
                     (double)w[(size_t)j * (size_t)nout + (size_t)o];
            out[(size_t)i * (size_t)nout + (size_t)o] = (float)s;
        }
}

/* dW (nin x nout) = in^T d and db = the column sums of d (rows x nout), rows in order. */
static void weight_grad(const float *in, const float *d, int rows, int nin, int nout,
                        float *dw, float *db)
{
    for (int j = 0; j < nin; j++)
        for (int o = 0; o < nout; o++) {
            double s = 0.0;
            for (int i = 0; i < rows; i++)
                s += (double)in[(size_t)i * (size_t)nin + (size_t)j] *
                     (double)d[(size_t)i * (size_t)nout + (size_t)o];
            dw[(size_t)j * (size_t)nout + (size_t)o] = (float)s;
        }
    for (int o = 0; o < nout; o++) {
        double s = 0.0;
        for (int i = 0; i < rows; i++) s += (double)d[(size_t)i * (size_t)nout + (size_t)o];
        db[o] = (float)s;
    }
}

static void forward(lowrank_t *m, const float *params, const float *x, int rows)
{
    const model_layout_t *l = m->lay;
    affine(x, rows, l->width[0], params + l->woff[0], params + l->boff[0], l->width[1], m->h);
    affine(m->h, rows, l->width[1], params + l->woff[1], params + l->boff[1], l->width[2], m->z);
}

static double lowrank_loss_grad(void *state, const float *params, const float *x,
                                const int32_t *y, int batch, float *grad)
{
    lowrank_t *m = state;
    const model_layout_t *l = m->lay;
    const int n = l->width[0], r = l->width[1], c = l->width[2];
    forward(m, params, x, batch);
    double loss = softmax_nll_grad(m->z, y, batch, c, m->dz);
    weight_grad(m->h, m->dz, batch, r, c, grad + l->woff[1], grad + l->boff[1]);
    /* dh = dz V^T: no nonlinearity to mask */
    const float *v = params + l->woff[1];
    for (int i = 0; i < batch; i++)
        for (int k = 0; k < r; k++) {
            double s = 0.0;
            for (int o = 0; o < c; o++)
                s += (double)m->dz[(size_t)i * (size_t)c + (size_t)o] *
                     (double)v[(size_t)k * (size_t)c + (size_t)o];
            m->dh[(size_t)i * (size_t)r + (size_t)k] = (float)s;
        }
    weight_grad(x, m->dh, batch, n, r, grad + l->woff[0], grad + l->boff[0]);
    return loss / batch;
}

static int64_t lowrank_evaluate_rows(void *state, const float *params, const float *x,
                                     const int32_t *y, int rows, double *row_loss)
{
    lowrank_t *m = state;
    forward(m, params, x, rows);
    return softmax_nll_rows(m->z, y, rows, m->lay->width[2], row_loss);
}

/* Forward and weight gradient of both layers, and the second layer's input gradient. */
static double lowrank_flops(const model_spec_t *spec, const model_layout_t *lay)
{
    (void)spec;
    const double first = (double)lay->width[0] * lay->width[1];
    const double second = (double)lay->width[1] * lay->width[2];
    return 4.0 * first + 6.0 * second;
}

static void lowrank_describe(const model_spec_t *spec, char *buf, size_t size)
{
    snprintf(buf, size, "%s %d-%d-%d (linear)", spec->kind->name, spec->ninputs,
             rank_of(spec), spec->nclasses);
}

const model_kind_t model_kind_example = {
    .name = "example-lowrank",
    .example = "{\"kind\": \"example-lowrank\", \"rank\": 3}",
    .keys = lowrank_keys,
    .parse = lowrank_parse,
    .check = lowrank_check,
    .nparams = lowrank_nparams,
    .workspace_bytes = lowrank_workspace_bytes,
    .create = lowrank_create,
    .destroy = lowrank_destroy,
    .loss_grad = lowrank_loss_grad,
    .evaluate_rows = lowrank_evaluate_rows,
    .flops_per_sample = lowrank_flops,
    .describe = lowrank_describe,
    .cuda = MODEL_CUDA_NONE,
};
