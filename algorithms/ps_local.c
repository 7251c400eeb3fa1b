/* Local training (ps_local.h): algorithm.local's options and the evaluation of one task. */
#include "algorithms/ps_local.h"

#include <math.h>
#include <string.h>

#include "sim/rng.h"

int ps_local_parse(const sgd_jobj_t *a, const scn_t *s, bool fl_default, ps_local_opts_t *o,
                   sgd_err_t *err)
{
    static const char *const keys[] = {"steps", "epochs", "lr", "momentum", NULL};
    *o = (ps_local_opts_t){0};
    const bool given = sgd_jobj_has(a, "local");
    if (!given && !fl_default) return 0; /* nothing written: runs without it keep their keys */
    sgd_jobj_t l;
    if (sgd_jobj_child(a, "local", &l, err) || sgd_jobj_check_keys(&l, keys, err)) return -1;
    const bool steps = sgd_jobj_has(&l, "steps"), epochs = sgd_jobj_has(&l, "epochs");
    if (steps && epochs)
        return sgd_errf(err, "%s: give steps or epochs, not both", l.path);
    if (given && !steps && !epochs)
        return sgd_errf(err, "%s: needs steps (local SGD steps per task) or epochs (passes "
                             "over the client's own samples per task)", l.path);
    o->epochs = !steps;
    if (o->epochs ? sgd_jobj_int(&l, "epochs", 1, 1, PS_LOCAL_MAX_EPOCHS, &o->count, err)
                  : sgd_jobj_int(&l, "steps", 1, 1, PS_LOCAL_MAX_STEPS, &o->count, err))
        return -1;
    if (sgd_jobj_num(&l, "lr", s->lr.base_lr, 0.0, true, HUGE_VAL, &o->lr, err) ||
        sgd_jobj_num(&l, "momentum", 0.0, 0.0, false, 0.999999, &o->momentum, err))
        return -1;
    o->on = true;
    return 0;
}

int64_t ps_local_steps(const ps_local_opts_t *o, int64_t samples, int64_t mu)
{
    if (!o->epochs) return o->count;
    const int64_t per_epoch = samples > 0 ? (samples + mu - 1) / mu : 1;
    return o->count * per_epoch;
}

void ps_task_stream(gsl_rng *r, uint64_t seed, uint32_t kind, int64_t client, int64_t task)
{
    sim_rng_reseed(r, sim_rng_mix(seed, kind, (uint64_t)client), kind, (uint64_t)task);
}

size_t ps_local_work_floats(const ps_local_data_t *d)
{
    const size_t np = d->nparams, rows = (size_t)d->mu;
    return 3 * np + rows * (size_t)d->train->dim + rows; /* theta, grad, velocity, x, y */
}

void ps_local_work_bind(ps_local_work_t *w, const ps_local_data_t *d, float *floats)
{
    const size_t np = d->nparams, rows = (size_t)d->mu;
    w->theta = floats;
    w->grad = floats + np;
    w->velocity = floats + 2 * np;
    w->x = floats + 3 * np;
    w->y = (int32_t *)(void *)(w->x + rows * (size_t)d->train->dim);
    w->rows = gsl_rng_alloc(sim_rng_xoshiro256ss);
}

void ps_local_work_free(ps_local_work_t *w)
{
    if (w->rows) gsl_rng_free(w->rows);
    w->rows = NULL;
}

/* Step j's minibatch of task t into w->x, w->y. */
static void gather_step(const ps_local_data_t *d, const ps_task_t *t, int64_t j,
                        ps_local_work_t *w)
{
    const sgd_dataset_t *ds = d->train;
    const size_t dim = (size_t)ds->dim;
    const int32_t *own = d->part ? partition_indices(d->part, t->client) : NULL;
    const int64_t nown = d->part ? partition_size(d->part, t->client) : 0;
    const int64_t ncyc = ds->n / d->mu;
    for (int64_t r = 0; r < d->mu; r++) {
        int64_t row;
        if (d->cyclic)
            row = ((t->t + j) % ncyc) * d->mu + r;
        else if (own && nown > 0)
            row = own[gsl_rng_uniform_int(w->rows, (unsigned long)nown)];
        else
            row = (int64_t)gsl_rng_uniform_int(w->rows, (unsigned long)ds->n);
        memcpy(w->x + (size_t)r * dim, ds->x + (size_t)row * dim, dim * sizeof(float));
        w->y[r] = ds->y[row];
    }
}

int ps_local_run(const ps_local_data_t *d, const ps_task_t *t, const float *start, float *out,
                 double *loss, ps_local_work_t *w, sgd_grad_fn grad, void *oracle,
                 sgd_err_t *err)
{
    const size_t np = d->nparams;
    memcpy(w->theta, start, np * sizeof *w->theta);
    if (d->opt.momentum != 0.0) memset(w->velocity, 0, np * sizeof *w->velocity);
    if (!d->cyclic) ps_task_stream(w->rows, d->seed, SIM_STREAM_DATA_ORDER, t->client, t->task);
    double sum = 0.0;
    for (int64_t j = 0; j < t->steps; j++) {
        double l;
        gather_step(d, t, j, w);
        if (grad(oracle, w->theta, w->x, w->y, (int)d->mu, w->grad, &l, err)) return -1;
        sum += l;
        optim_sgd_step(&d->opt, w->theta, w->velocity, w->grad, np, d->lr);
    }
    *loss = sum / (double)t->steps;
    const float *restrict s = start, *restrict th = w->theta;
    float *restrict o = out;
    if (d->delta) {
        for (size_t i = 0; i < np; i++) o[i] = s[i] - th[i];
    } else {
        const float lr = d->lr;
        for (size_t i = 0; i < np; i++) o[i] = (s[i] - th[i]) / lr;
    }
    return 0;
}
