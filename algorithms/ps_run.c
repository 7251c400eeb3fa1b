/* The parameter-server family's alg_ops_t (ps_rule.h): creating a run's state -- sizes
 * checked, the clients, the rule's state, the ledger, the driver -- starting, reporting and
 * destroying it.  The clients' life cycle and the drivers' events are in ps.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "algorithms/ps_state.h"
#include "common/fpenv.h"
#include "sim/rng.h"

/* Rows of the model workspace at least, so validation runs in large chunks even when each
 * gradient is over a single sample. */
#define PS_MIN_MODEL_BATCH 1024

int64_t ps_model_batch(const scn_t *s)
{
    int64_t rows = ps_rows(s->alg_opts, s->batch_per_worker);
    return rows > PS_MIN_MODEL_BATCH ? rows : PS_MIN_MODEL_BATCH;
}

/* ---- alg_ops_t ------------------------------------------------------------------------- */

/* Input errors create() can find: a stacked evaluation larger than the training set, and
 * snapshots or gradient_batch slots that would not fit in memory.  (A cost-only model, with
 * no training set, is refused when the scenario is loaded: ps_opts.c.) */
static int check_sizes(const alg_ctx_t *ctx, const ps_opts_t *o, sgd_err_t *err)
{
    const scn_t *s = ctx->scn;
    const sgd_dataset_t *d = ctx->train;
    SGD_ASSERT(ctx->numerics);
    int64_t rows = ps_rows(o, s->batch_per_worker);
    if (rows > d->n)
        return sgd_errf(err, "batch.per_worker: %lld rows per gradient evaluation (%s, lambda = "
                             "%lld, mu = %lld) exceed the %lld training rows",
                        (long long)rows, ps_name(o), (long long)s->workers,
                        (long long)s->batch_per_worker, (long long)d->n);
    /* the snapshots; gradient_batch slots of one gradient each, and their minibatches (a
     * local task's scratch: two more copies of the parameters) */
    const double slots = (double)o->gradient_batch, np = (double)ctx->nparams;
    const double slot_floats = (o->local.on ? 3.0 : 1.0) * np +
                               (double)s->batch_per_worker * (d->dim + 1);
    return alg_check_memory("cluster.workers: parameter snapshots",
                            ps_snapshot_versions(s, o) * 4.0 * np, err) ||
                   (slots > 1 &&
                    alg_check_memory("algorithm.gradient_batch", slots * 4.0 * slot_floats, err))
               ? -1
               : 0;
}

/* Every slot starts on version 0.  Fixed: client i in slot i with its own random streams
 * (one per entity, so adding a client changes no other client's draws).  Sampling: no client
 * yet; its generators are reseeded for every task (ps_slots.c), and minibatch rows come from
 * each request's task stream (ps_ledger.c). */
static void init_clients(ps_t *p)
{
    const scn_t *s = p->s;
    const ps_opts_t *o = p->o;
    const bool sampling = p->pop.sampling;
    p->cl = SGD_ARENA_NEW(&p->arena, p->nslots, ps_client_t);
    ps_snap_t *initial = ps_server_snapshot(&p->srv);
    for (int64_t k = 0; k < p->nslots; k++) {
        ps_client_t *c = &p->cl[k];
        c->id = sampling ? -1 : k;
        c->snap = k == 0 ? initial : ps_snap_ref(initial);
        c->push.reqs = SGD_ARENA_NEW(&p->arena, o->k_push, ps_req_t);
        c->slot = UINT32_MAX;
        if (o->minibatch == PS_MB_RANDOM && !sampling)
            c->sample_rng = sim_rng_create(s->seed, SIM_STREAM_DATA_ORDER, (uint64_t)k);
        if (o->rule->gated)
            c->last.rng = sim_rng_create(s->seed, SIM_STREAM_GATING, (uint64_t)k);
        if (o->rule->gated && o->c_push > 0)
            c->last.grad = SGD_ARENA_NEW(&p->arena, p->ctx->nparams, float);
        if (o->driver == PS_DRIVER_TIMED) {
            c->timed.compute_rng = sim_rng_create(s->seed, SIM_STREAM_COMPUTE, (uint64_t)k);
            c->timed.io_rng = sim_rng_create(s->seed, SIM_STREAM_IO, (uint64_t)k);
            gsl_rng *speed = sim_rng_create(s->seed, SIM_STREAM_SPEED, (uint64_t)k);
            c->timed.time_factor = sim_dist_sample(&s->time_factor, speed);
            gsl_rng_free(speed);
        }
    }
}

/* The rule's state, zeroed, from the run's arena, laid out by its init. */
static void init_rule(ps_t *p)
{
    const ps_rule_t *r = p->o->rule;
    const size_t bytes = r->state_bytes ? r->state_bytes(p->o, p->ctx->nparams) : 0;
    p->rule_state = sgd_arena_alloc(&p->arena, bytes, 1);
    if (r->init) r->init(p->rule_state, p->o, p->ctx->nparams);
}

/* Local training: what every task reads. */
static void init_local(ps_t *p)
{
    const ps_opts_t *o = p->o;
    if (!o->local.on) return;
    p->local = (ps_local_data_t){
        .train = p->ctx->train, .part = p->pop.part, .seed = p->s->seed, .mu = p->mu,
        .cyclic = o->minibatch == PS_MB_CYCLIC, .lr = (float)o->local.lr,
        .opt = {.momentum = o->local.momentum}, .delta = o->rule->federated,
        .nparams = p->ctx->nparams};
}

/* With every client always in flight, each must hold data to compute on. */
static int check_partition(const ps_t *p, sgd_err_t *err)
{
    if (!p->pop.part || p->pop.sampling) return 0;
    for (int64_t i = 0; i < p->lambda; i++)
        if (partition_size(p->pop.part, i) == 0)
            return sgd_errf(err, "data.partition: client %lld holds no sample, and with every "
                                 "client always in flight (algorithm.concurrency = "
                                 "cluster.workers, no FL rule) each computes on its own data: "
                                 "set min_samples >= 1, or a lower algorithm.concurrency",
                            (long long)i);
    return 0;
}

void *ps_create(alg_ctx_t *ctx, sgd_err_t *err)
{
    const scn_t *s = ctx->scn;
    const ps_opts_t *o = s->alg_opts;
    SGD_ASSERT(o);
    if (check_sizes(ctx, o, err)) return NULL;
    ps_t *p = sgd_xcalloc(1, sizeof *p);
    p->ctx = ctx;
    p->s = s;
    p->o = o;
    p->lambda = s->workers;
    p->nslots = o->concurrency;
    p->mu = s->batch_per_worker;
    p->c = o->c;
    p->msg_bytes = ctx->nparams * sizeof(float);
    p->counts_emitted_at = -1;
    sgd_arena_init(&p->arena);
    ps_server_init(&p->srv, ctx->params, ctx->nparams);
    if (ps_pop_init(&p->pop, s, o, ctx->train, &p->arena, err) || check_partition(p, err)) {
        ps_pop_free(&p->pop);
        ps_server_free(&p->srv);
        sgd_arena_free(&p->arena);
        free(p);
        return NULL;
    }
    init_rule(p);
    init_clients(p);
    p->sched.buf = SGD_ARENA_NEW(&p->arena, p->c, ps_buffered_t);
    for (int64_t b = 0; b < p->c; b++)
        p->sched.buf[b].push.reqs = SGD_ARENA_NEW(&p->arena, o->k_push, ps_req_t);
    p->sched.applied = SGD_ARENA_NEW(&p->arena, p->c, int32_t);
    p->sched.pushes = SGD_ARENA_NEW(&p->arena, p->c, ps_push_t);
    p->step = SGD_ARENA_NEW(&p->arena, ctx->nparams, float);
    if (o->rule->step && p->c * o->k_push > 1)
        p->term_step = SGD_ARENA_NEW(&p->arena, ctx->nparams, float);
    init_local(p);
    const ps_ledger_cfg_t lc = {
        .srv = &p->srv, .train = ctx->train, .backend = ctx->backend,
        .nparams = ctx->nparams, .mu = p->mu, .cyclic = o->minibatch == PS_MB_CYCLIC,
        .merge = o->merge, .max_reqs = p->c * o->k_push,
        .max_rows = ps_rows(o, p->mu), .gradient_batch = o->gradient_batch,
        .local = o->local.on ? &p->local : NULL, .part = p->pop.part, .seed = s->seed};
    ps_ledger_init(&p->ledger, &lc, &p->arena);
#if PS_HAVE_MXCSR
    /* Flush-to-zero (bit 15) and denormals-are-zero (bit 6) for the rest of this run --
     * evaluation included -- on this thread, which is the only one (BLAS is pinned to one
     * thread); restored in destroy so other runs in the same process are unaffected. */
    sgd_fpenv_get(&p->saved_csr);
    if (o->flush_denormals) {
        const sgd_fpenv_t flushing = sgd_fpenv_flushing(p->saved_csr);
        sgd_fpenv_set(&flushing);
    }
#endif
    ps_init_driver(p);
    ps_set_checks(p);
    ps_trace_tracks(p);
    return p;
}

void ps_start(void *state)
{
    ps_start_clients(state);
}

void ps_finish(void *state)
{
    ps_drain(state); /* a virtual-time limit stopped the engine with updates scheduled */
}

static int report_tables(const ps_t *p, const alg_sink_t *sink, sgd_err_t *err)
{
    const ps_traffic_t *f = &p->srv.fetch, *u = &p->srv.push;
    if (sink->traffic &&
        (sink->traffic(sink->ctx, "fetch", f->sent_msgs, f->sent_bytes, f->skipped_msgs,
                       f->skipped_bytes, err) ||
         sink->traffic(sink->ctx, "push", u->sent_msgs, u->sent_bytes, u->skipped_msgs,
                       u->skipped_bytes, err)))
        return -1;
    const ps_hist_t *tau = &p->srv.tau, *age = &p->srv.age;
    if (sink->staleness)
        for (int64_t t = 0; t < tau->len; t++)
            if (tau->bins[t] && sink->staleness(sink->ctx, t, tau->bins[t], err)) return -1;
    if (sink->version_age)
        for (int64_t a = 0; a < age->len; a++)
            if (age->bins[a] && sink->version_age(sink->ctx, a, age->bins[a], err)) return -1;
    return 0;
}

int ps_report(void *state, const alg_sink_t *sink, sgd_err_t *err)
{
    ps_t *p = state;
    alg_ctx_t *ctx = p->ctx;
    if (p->stop.stopped) { /* the schedule may have run past the update the run stopped at */
        p->srv.fetch = p->stop.at.fetch;
        p->srv.push = p->stop.at.push;
        p->srv.peak_live = p->stop.at.peak_live;
        p->pop.stats = p->stop.at.pop;
    }
    if (sink && (report_tables(p, sink, err) || ps_pop_labels(&p->pop, sink, err))) return -1;

    const int64_t u = ctx->updates, v = p->last_vtime;
    const ps_server_t *sv = &p->srv;
    if (alg_metric(ctx, u, v, "staleness_mean", ps_hist_mean(&sv->tau)) ||
        alg_metric(ctx, u, v, "staleness_p50", (double)ps_hist_quantile(&sv->tau, 0.5)) ||
        alg_metric(ctx, u, v, "staleness_p99", (double)ps_hist_quantile(&sv->tau, 0.99)) ||
        alg_metric(ctx, u, v, "staleness_max", (double)ps_hist_quantile(&sv->tau, 1.0)) ||
        /* the parameters' true age, where FRED's counting makes it differ from tau */
        (p->o->fred_skip_tau &&
         (alg_metric(ctx, u, v, "version_age_mean", ps_hist_mean(&sv->age)) ||
          alg_metric(ctx, u, v, "version_age_max", (double)ps_hist_quantile(&sv->age, 1.0)))) ||
        alg_metric(ctx, u, v, "snapshots_peak", (double)sv->peak_live) ||
        (p->counts_emitted_at != u &&
         (alg_metric(ctx, u, v, "fetch_sent", (double)sv->fetch.sent_msgs) ||
          alg_metric(ctx, u, v, "fetch_skipped", (double)sv->fetch.skipped_msgs) ||
          alg_metric(ctx, u, v, "push_sent", (double)sv->push.sent_msgs) ||
          alg_metric(ctx, u, v, "push_skipped", (double)sv->push.skipped_msgs) ||
          (ps_pop_extended(&p->pop, p->o) &&
           ps_pop_metrics(&p->pop.stats, ctx, u, v, sv->push.sent_bytes, sv->fetch.sent_bytes,
                          p->o->rule->protocol == PS_PROTO_ROUNDS)))))
        return sgd_errf(err, "%s", ctx->detail);
    return 0;
}

static void free_client(ps_t *p, ps_client_t *c)
{
    for (int r = 0; r < c->push.nreq; r++) ps_snap_release(&p->srv, c->push.reqs[r].snap);
    if (c->snap) ps_snap_release(&p->srv, c->snap);
    if (c->timed.incoming) ps_snap_release(&p->srv, c->timed.incoming);
    if (c->sample_rng) gsl_rng_free(c->sample_rng);
    if (c->last.rng) gsl_rng_free(c->last.rng);
    if (c->timed.compute_rng) gsl_rng_free(c->timed.compute_rng);
    if (c->timed.io_rng) gsl_rng_free(c->timed.io_rng);
}

/* The pushes of an update never scheduled (a slot an update consumed holds none). */
static void free_buffer(ps_t *p)
{
    for (int64_t b = 0; b < p->c; b++) {
        ps_sent_t *push = &p->sched.buf[b].push;
        for (int r = 0; r < push->nreq; r++) ps_snap_release(&p->srv, push->reqs[r].snap);
        push->nreq = 0;
    }
}

void ps_destroy(void *state)
{
    ps_t *p = state;
    for (int64_t k = 0; k < p->nslots; k++) free_client(p, &p->cl[k]);
    free_buffer(p);
    ps_ledger_free(&p->ledger); /* pins of updates never applied */
    SGD_ASSERT(p->srv.live <= 1); /* every reference was returned */
#if PS_HAVE_MXCSR
    sgd_fpenv_set(&p->saved_csr);
#endif
    ps_server_free(&p->srv);
    if (p->uniform.pick_rng) gsl_rng_free(p->uniform.pick_rng);
    if (p->timed.net) sim_net_destroy(p->timed.net);
    if (p->timed.server_rng) gsl_rng_free(p->timed.server_rng);
    ps_pop_free(&p->pop);
    sgd_arena_free(&p->arena);
    free(p);
}

bool ps_is_rule(const alg_ops_t *ops)
{
    return ops->create == ps_create;
}

const ps_rule_t *ps_rule_of(const alg_ops_t *ops)
{
    SGD_ASSERT(ps_is_rule(ops));
    return (const ps_rule_t *)(const void *)ops; /* ops is its first member */
}
