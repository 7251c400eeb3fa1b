/* The model API (model.h) over the kinds' tables (model_kind.h): checks and estimates of a
 * spec, the model_t with its layout and the kind's state, and model_evaluate's loop, the same
 * for every kind.  Initialisation lives in model_init.c (see there why). */
#include "models/model.h"

#include <stdio.h>
#include <stdlib.h>

#include "models/model_kind.h"

struct model {
    model_spec_t spec;
    model_layout_t lay;
    void *state;       /* the kind's (create) */
    double *row_loss;  /* max_batch: one evaluation chunk's row losses */
};

int model_spec_check(const model_spec_t *spec, sgd_err_t *err)
{
    if (!spec->kind) return sgd_errf(err, "kind: no model kind");
    if (spec->ninputs < 1) return sgd_errf(err, "ninputs: must be >= 1, got %d", spec->ninputs);
    if (spec->nclasses < 2)
        return sgd_errf(err, "nclasses: must be >= 2, got %d", spec->nclasses);
    return spec->kind->check(spec, err);
}

int model_fit_input(model_spec_t *spec, int dim, sgd_err_t *err)
{
    SGD_ASSERT(spec->kind);
    spec->ninputs = dim;
    return spec->kind->fit_input ? spec->kind->fit_input(spec, err) : 0;
}

double model_spec_nparams(const model_spec_t *spec) { return spec->kind->nparams(spec); }

double model_workspace_bytes(const model_spec_t *spec, int64_t max_batch)
{
    /* The row losses of an evaluation chunk, then the kind's own. */
    return 8.0 * (double)max_batch + spec->kind->workspace_bytes(spec, max_batch);
}

void model_describe(const model_spec_t *spec, char *buf, size_t size)
{
    char what[512];
    spec->kind->describe(spec, what, sizeof what);
    snprintf(buf, size, "%s, %.0f parameters", what, model_spec_nparams(spec));
}

model_t *model_create(const model_spec_t *spec, int max_batch)
{
    sgd_err_t err = {{0}};
    if (model_spec_check(spec, &err) != 0) sgd_die(__FILE__, __LINE__, "model_create: %s", err.msg);
    SGD_ASSERT(max_batch >= 1);

    model_t *m = sgd_xcalloc(1, sizeof *m);
    m->spec = *spec;
    m->lay.max_batch = max_batch;
    m->lay.cuda = spec->kind->cuda;
    m->state = spec->kind->create(&m->spec, max_batch, &m->lay);
    /* The count the estimates used is the count the model has. */
    SGD_ASSERT((double)m->lay.nparams == model_spec_nparams(&m->spec));
    SGD_ASSERT(m->lay.nlayers >= 1 && m->lay.nlayers <= MODEL_MAX_LAYERS);
    m->row_loss = sgd_xmalloc((size_t)max_batch * sizeof *m->row_loss);
    return m;
}

void model_destroy(model_t *m)
{
    if (!m) return;
    m->spec.kind->destroy(m->state);
    free(m->row_loss);
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
    return m->lay.fan_out[l];
}

int model_layer_kernel_area(const model_t *m, int l)
{
    SGD_ASSERT(l >= 0 && l < m->lay.nlayers);
    return m->lay.kernel_area[l];
}

double model_loss_grad(model_t *m, const float *params, const float *x, const int32_t *y,
                       int batch, float *grad)
{
    SGD_ASSERT(batch >= 1 && batch <= m->lay.max_batch);
    return m->spec.kind->loss_grad(m->state, params, x, y, batch, grad);
}

int64_t model_evaluate_rows(model_t *m, const float *params, const float *x, const int32_t *y,
                            int rows, double *row_loss)
{
    SGD_ASSERT(rows >= 1 && rows <= m->lay.max_batch);
    return m->spec.kind->evaluate_rows(m->state, params, x, y, rows, row_loss);
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
    return m->spec.kind->flops_per_sample(&m->spec, &m->lay);
}
