/* CSGD — conventional synchronous data-parallel SGD.
 *
 * P workers; iteration t of worker i: load its minibatch (I/O time) -> forward/backward
 * (compute time x its time factor) -> ring allreduce of the gradient over the network ->
 * optimizer step (update time) -> next iteration.  No overlap of any of these.
 *
 * Numerics vs time.  The global minibatch of update t is drawn by one sampler (a permutation
 * per epoch, as a distributed sampler does) and worker i owns rows [i*b, (i+1)*b) of it.
 * When the last worker's gradient is ready, the mean gradient over all P*b rows is computed
 * once, as one stacked batch in worker order: that is the canonical summation order.  So
 * CSGD with P x b is bit-identical to single-worker SGD with batch P*b, and any other
 * synchronous algorithm that draws the same batches produces the same parameters — the
 * allreduce only costs time.
 *
 * The allreduce is either simulated message by message over a star network (ring: 2(P-1)
 * steps of ceil(n/P) elements, each message serialised on the sender's uplink and the
 * receiver's downlink), or charged with the alpha-beta formula (network.fidelity). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "models/optim.h"
#include "sim/network.h"
#include "sim/rng.h"

typedef struct csgd_worker {
    gsl_rng *compute_rng; /* compute- and update-time draws */
    gsl_rng *io_rng;      /* storage-load draws */
    double time_factor;   /* drawn once: this worker's compute-time multiplier */
    int64_t t_reduce_ns;  /* when it entered the current allreduce (for the timeline) */
} csgd_worker_t;

typedef struct csgd {
    alg_ctx_t *ctx;
    const scn_t *s;
    int p;                 /* workers */
    int b;                 /* rows per worker */
    csgd_worker_t *workers;

    /* event types */
    uint32_t ev_io_done, ev_compute_done, ev_allreduce_done, ev_step_done;

    /* network */
    sim_net_t *net;
    sim_star_t star;
    sim_ring_t *ring;       /* message fidelity */
    int64_t allreduce_ns;   /* analytic fidelity: cost of one allreduce */
    uint64_t analytic_allreduces;

    /* iteration bookkeeping */
    int nready;             /* workers whose gradient is ready in this iteration */
    int nstepped;           /* workers that applied this iteration's update */
    double pending_loss, pending_lr;

    /* numerics */
    float *grad, *velocity; /* nparams each */
    float *batch_x;         /* P*b x dim, stacked worker minibatches */
    int32_t *batch_y;
    uint32_t *order;        /* sampler: permutation of training rows */
    int64_t order_pos;
    gsl_rng *order_rng;
} csgd_t;

/* Fills the stacked global batch of the next update (P*b rows in worker order). */
static void draw_global_batch(csgd_t *c)
{
    const sgd_dataset_t *d = c->ctx->train;
    int64_t n = d->n, B = (int64_t)c->p * c->b;
    if (c->s->sampling == SCN_SAMPLING_SHUFFLE && c->order_pos + B > n) {
        /* New epoch; the incomplete tail of the old permutation is dropped (drop_last). */
        gsl_ran_shuffle(c->order_rng, c->order, (size_t)n, sizeof *c->order);
        c->order_pos = 0;
    }
    for (int64_t k = 0; k < B; k++) {
        int64_t row = c->s->sampling == SCN_SAMPLING_SHUFFLE ? c->order[c->order_pos + k]
                                                             : (c->order_pos + k) % n;
        memcpy(c->batch_x + k * d->dim, d->x + row * d->dim, (size_t)d->dim * sizeof(float));
        c->batch_y[k] = d->y[row];
    }
    c->order_pos = c->s->sampling == SCN_SAMPLING_SHUFFLE ? c->order_pos + B
                                                          : (c->order_pos + B) % n;
}

static int64_t draw_ns(const sim_dist_t *dist, gsl_rng *r, double factor)
{
    return sim_seconds_to_ns(sim_dist_sample(dist, r) * factor);
}

static int64_t compute_ns(csgd_t *c, int i)
{
    csgd_worker_t *w = &c->workers[i];
    if (c->s->compute_kind == SCN_COMPUTE_FLOPS) {
        double flops = model_flops_per_sample(c->ctx->model) * c->b;
        return sim_seconds_to_ns(flops / (c->s->device_gflops * 1e9) * w->time_factor);
    }
    return draw_ns(&c->s->compute_time_s, w->compute_rng, w->time_factor);
}

static void start_iteration(csgd_t *c, int i, int64_t now)
{
    int64_t done = now + draw_ns(&c->s->io_time_s, c->workers[i].io_rng, 1.0);
    sim_trace_span(c->ctx->trace, SIM_TRACK_WORKER, (uint32_t)i, "io", now, done);
    sim_engine_schedule(c->ctx->engine, done, c->ev_io_done, (uint32_t)i, 0, NULL);
}

static void on_io_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    csgd_t *c = arg;
    int64_t done = ev->t_ns + compute_ns(c, (int)ev->entity);
    sim_trace_span(c->ctx->trace, SIM_TRACK_WORKER, ev->entity, "compute", ev->t_ns, done);
    sim_engine_schedule(e, done, c->ev_compute_done, ev->entity, 0, NULL);
}

/* The mean gradient of this update, computed once over the stacked batch, and the step. */
static void apply_update(csgd_t *c)
{
    alg_ctx_t *ctx = c->ctx;
    draw_global_batch(c);
    c->pending_loss = model_loss_grad(ctx->model, ctx->params, c->batch_x, c->batch_y,
                                      c->p * c->b, c->grad);
    c->pending_lr = lr_at(&c->s->lr, ctx->updates, (int64_t)c->p * c->b);
    optim_sgd_step(&c->s->sgd, ctx->params, c->velocity, c->grad, ctx->nparams,
                   (float)c->pending_lr);
}

static void on_compute_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    csgd_t *c = arg;
    c->workers[ev->entity].t_reduce_ns = ev->t_ns;
    if (++c->nready == c->p) {
        /* Every gradient of this update exists now; its numeric value does not depend on
         * when the allreduce delivers it, so the step is computed here, once. */
        apply_update(c);
        c->nready = 0;
        if (c->p > 1 && c->s->fidelity == SCN_FIDELITY_ANALYTIC) {
            c->analytic_allreduces++;
            for (int i = 0; i < c->p; i++)
                sim_engine_schedule(e, ev->t_ns + c->allreduce_ns, c->ev_allreduce_done,
                                    (uint32_t)i, 0, NULL);
        }
    }
    if (c->p == 1)
        sim_engine_schedule(e, ev->t_ns, c->ev_allreduce_done, ev->entity, 0, NULL);
    else if (c->s->fidelity == SCN_FIDELITY_MESSAGE)
        sim_ring_enter(c->ring, (int)ev->entity, ev->t_ns);
}

static void on_ring_done(void *arg, int rank, int64_t t_ns)
{
    csgd_t *c = arg;
    sim_engine_schedule(c->ctx->engine, t_ns, c->ev_allreduce_done, (uint32_t)rank, 0, NULL);
}

static void on_allreduce_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    csgd_t *c = arg;
    csgd_worker_t *w = &c->workers[ev->entity];
    int64_t done = ev->t_ns + draw_ns(&c->s->update_time_s, w->compute_rng, 1.0);
    if (c->p > 1)
        sim_trace_span(c->ctx->trace, SIM_TRACK_WORKER, ev->entity, "allreduce",
                       w->t_reduce_ns, ev->t_ns);
    sim_trace_span(c->ctx->trace, SIM_TRACK_WORKER, ev->entity, "update", ev->t_ns, done);
    sim_engine_schedule(e, done, c->ev_step_done, ev->entity, 0, NULL);
}

static void on_step_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    csgd_t *c = arg;
    (void)e;
    if (++c->nstepped == c->p) {
        /* The update counts as done when the last worker holds the new parameters. */
        c->nstepped = 0;
        if (!alg_update_done(c->ctx, ev->t_ns, c->pending_loss, c->pending_lr)) return;
    }
    start_iteration(c, (int)ev->entity, ev->t_ns);
}

static void *csgd_create(alg_ctx_t *ctx, sgd_err_t *err)
{
    (void)err;
    const scn_t *s = ctx->scn;
    csgd_t *c = sgd_xcalloc(1, sizeof *c);
    c->ctx = ctx;
    c->s = s;
    c->p = (int)s->workers;
    c->b = (int)s->batch_per_worker;
    c->workers = sgd_xcalloc((size_t)c->p, sizeof *c->workers);
    for (int i = 0; i < c->p; i++) {
        csgd_worker_t *w = &c->workers[i];
        w->compute_rng = sim_rng_create(s->seed, SIM_STREAM_COMPUTE, (uint64_t)i);
        w->io_rng = sim_rng_create(s->seed, SIM_STREAM_IO, (uint64_t)i);
        gsl_rng *speed = sim_rng_create(s->seed, SIM_STREAM_SPEED, (uint64_t)i);
        w->time_factor = sim_dist_sample(&s->time_factor, speed);
        gsl_rng_free(speed);
    }
    c->ev_io_done = sim_engine_register(ctx->engine, "csgd.io_done", on_io_done, c);
    c->ev_compute_done = sim_engine_register(ctx->engine, "csgd.compute_done", on_compute_done, c);
    c->ev_allreduce_done =
        sim_engine_register(ctx->engine, "csgd.allreduce_done", on_allreduce_done, c);
    c->ev_step_done = sim_engine_register(ctx->engine, "csgd.step_done", on_step_done, c);

    c->net = sim_net_create();
    sim_star_init(&c->star, c->net, c->p, s->bandwidth_Bps, s->latency_ns);
    sim_net_set_trace(c->net, ctx->trace);
    for (int i = 0; i < c->p && ctx->trace; i++) {
        char name[48];
        snprintf(name, sizeof name, "worker %d uplink", i);
        sim_trace_name_track(ctx->trace, SIM_TRACK_LINK, (uint32_t)(c->star.uplink0 + i), name);
        snprintf(name, sizeof name, "worker %d downlink", i);
        sim_trace_name_track(ctx->trace, SIM_TRACK_LINK, (uint32_t)(c->star.downlink0 + i), name);
    }
    if (s->fidelity == SCN_FIDELITY_MESSAGE && c->p > 1)
        c->ring = sim_ring_create(ctx->engine, c->net, &c->star, c->p, ctx->nparams,
                                  sizeof(float), on_ring_done, c);
    /* A ring message crosses the sender's uplink and the receiver's downlink. */
    c->allreduce_ns = sim_allreduce_ring_analytic_ns(c->p, ctx->nparams, sizeof(float),
                                                     2 * s->latency_ns, s->bandwidth_Bps);

    size_t B = (size_t)c->p * (size_t)c->b;
    c->grad = sgd_xmalloc(ctx->nparams * sizeof(float));
    c->velocity = sgd_xcalloc(ctx->nparams, sizeof(float));
    c->batch_x = sgd_xmalloc(B * (size_t)ctx->train->dim * sizeof(float));
    c->batch_y = sgd_xmalloc(B * sizeof(int32_t));
    c->order = sgd_xmalloc((size_t)ctx->train->n * sizeof(uint32_t));
    for (int64_t r = 0; r < ctx->train->n; r++) c->order[r] = (uint32_t)r;
    c->order_rng = sim_rng_create(s->seed, SIM_STREAM_DATA_ORDER, 0);
    /* Start with a fresh permutation for the first epoch. */
    c->order_pos = s->sampling == SCN_SAMPLING_SHUFFLE ? ctx->train->n : 0;
    return c;
}

static void csgd_start(void *state)
{
    csgd_t *c = state;
    for (int i = 0; i < c->p; i++) start_iteration(c, i, 0);
}

static int csgd_report(void *state, const alg_sink_t *sink, sgd_err_t *err)
{
    csgd_t *c = state;
    if (!sink || !sink->traffic || c->p == 1) return 0;
    uint64_t msgs, bytes;
    if (c->ring) {
        msgs = sim_ring_messages(c->ring);
        bytes = sim_ring_bytes(c->ring);
    } else {
        uint64_t chunk = (c->ctx->nparams + (uint64_t)c->p - 1) / (uint64_t)c->p * sizeof(float);
        msgs = c->analytic_allreduces * (uint64_t)c->p * 2u * (uint64_t)(c->p - 1);
        bytes = msgs * chunk;
    }
    return sink->traffic(sink->ctx, "allreduce", msgs, bytes, 0, 0, err);
}

static void csgd_destroy(void *state)
{
    csgd_t *c = state;
    for (int i = 0; i < c->p; i++) {
        gsl_rng_free(c->workers[i].compute_rng);
        gsl_rng_free(c->workers[i].io_rng);
    }
    free(c->workers);
    if (c->ring) sim_ring_destroy(c->ring);
    sim_net_destroy(c->net);
    gsl_rng_free(c->order_rng);
    free(c->grad);
    free(c->velocity);
    free(c->batch_x);
    free(c->batch_y);
    free(c->order);
    free(c);
}

const alg_ops_t alg_csgd = {
    .scenario = {.name = "csgd"},
    .create = csgd_create,
    .start = csgd_start,
    .report = csgd_report,
    .destroy = csgd_destroy,
};
