/* CSGD — conventional synchronous data-parallel SGD.
 *
 * P workers; iteration t of worker i: load its minibatch (I/O time) -> forward/backward
 * (compute time x its time factor) -> allreduce of the gradient over all P workers ->
 * optimizer step (update time) -> next iteration.  No overlap of any of these
 * (docs/papers.md §1, the LSGD paper's baseline).
 *
 * Numerics vs time (sync.h).  When the last worker's gradient of an update is ready, the
 * mean gradient over the stacked global batch is computed once and the step applied: the
 * allreduce only costs time.  So CSGD with P x b is bit-identical to single-worker SGD with
 * batch P*b, and to LSGD under the same seed.
 *
 * The allreduce runs over the scenario's topology -- the flat star of the network section,
 * or the cluster of N nodes x G GPUs, where it is one global collective over all P workers
 * that knows nothing of the hierarchy (ranks in node-major order) -- as the scenario's
 * algorithm (network.allreduce), once per tensor or per bucket (network.granularity),
 * either message by message or charged in closed form (network.fidelity).
 *
 * Timeline (sim/trace.h): per worker io, compute, wait (from its gradient being ready until
 * the last worker's is: the allreduce cannot finish before), allreduce (from then until its
 * part is done) and update, each with the update it belongs to; the links' messages, each
 * tagged with its update, call, step and workers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"
#include "algorithms/sync.h"

typedef struct csgd {
    alg_ctx_t *ctx;
    alg_sync_t y;
    int p;

    /* event types */
    uint32_t ev_io_done, ev_compute_done, ev_allreduce_done, ev_step_done;

    sim_sched_t *sched;     /* the allreduce over ranks 0..P-1 = workers */
    sim_coll_t *coll;       /* message fidelity */
    int64_t allreduce_ns;   /* analytic fidelity: cost of one exchange */
    uint64_t analytic_exchanges;

    int64_t *t_reduce_ns;   /* per worker: when it entered the current allreduce (timeline) */
    int64_t *applied;       /* per worker: updates it applied so far (timeline) */
    int64_t t_all_in_ns;    /* when the last worker entered the current allreduce (timeline) */
    int nready;             /* workers whose gradient is ready in this iteration */
    int nstepped;           /* workers that applied this iteration's update */
    int *ck_events;         /* a restore's check: per worker, its events found pending */
} csgd_t;

/* Worker i's span of the update it works towards (1-based), with extra args. */
static void span(csgd_t *c, int i, const char *name, int64_t t0, int64_t t1, uint64_t bytes)
{
    if (!c->ctx->trace) return;
    const sim_trace_arg_t args[] = {SIM_TRACE_I("update", c->applied[i] + 1),
                                    SIM_TRACE_I("bytes", bytes)};
    sim_trace_span_args(c->ctx->trace, SIM_TRACK_WORKER, (uint32_t)i, name, t0, t1, args,
                        bytes ? 2 : 1);
}

static void start_iteration(csgd_t *c, int i, int64_t now)
{
    int64_t done = now + alg_sync_io_ns(&c->y, i);
    span(c, i, "io", now, done, 0);
    sim_engine_schedule(c->ctx->engine, done, c->ev_io_done, (uint32_t)i, 0, NULL);
}

static void on_io_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    csgd_t *c = arg;
    int64_t done = ev->t_ns + alg_sync_compute_ns(&c->y, (int)ev->entity);
    span(c, (int)ev->entity, "compute", ev->t_ns, done, 0);
    sim_engine_schedule(e, done, c->ev_compute_done, ev->entity, 0, NULL);
}

static void on_compute_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    csgd_t *c = arg;
    c->t_reduce_ns[ev->entity] = ev->t_ns;
    if (c->nready + 1 == c->p) c->t_all_in_ns = ev->t_ns;
    if (++c->nready == c->p) {
        /* Every gradient of this update exists now; its numeric value does not depend on
         * when the allreduce delivers it, so the step is computed here, once. */
        if (alg_sync_update(&c->y, c->ctx->updates)) return; /* the run failed */
        c->nready = 0;
        if (c->p > 1 && c->ctx->scn->fidelity == SCN_FIDELITY_ANALYTIC) {
            c->analytic_exchanges++;
            for (int i = 0; i < c->p; i++)
                sim_engine_schedule(e, ev->t_ns + c->allreduce_ns, c->ev_allreduce_done,
                                    (uint32_t)i, 0, NULL);
        }
    }
    if (c->p == 1)
        sim_engine_schedule(e, ev->t_ns, c->ev_allreduce_done, ev->entity, 0, NULL);
    else if (c->coll)
        sim_coll_enter(c->coll, (int)ev->entity, ev->t_ns);
}

static void on_coll_done(void *arg, int rank, int64_t t_ns)
{
    csgd_t *c = arg;
    sim_engine_schedule(c->ctx->engine, t_ns, c->ev_allreduce_done, (uint32_t)rank, 0, NULL);
}

static void on_allreduce_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    csgd_t *c = arg;
    int i = (int)ev->entity;
    int64_t done = ev->t_ns + alg_sync_step_ns(&c->y, i);
    if (c->p > 1) {
        /* Every worker's part ends after the last one entered (it needs that gradient). */
        int64_t in = c->t_reduce_ns[i], all = c->t_all_in_ns;
        if (all > in) span(c, i, "wait", in, all, 0);
        span(c, i, "allreduce", all > in ? all : in, ev->t_ns,
             c->ctx->cost_nparams * sizeof(float));
    }
    span(c, i, "update", ev->t_ns, done, 0);
    sim_engine_schedule(e, done, c->ev_step_done, ev->entity, 0, NULL);
}

static void on_step_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    csgd_t *c = arg;
    (void)e;
    c->applied[ev->entity]++;
    if (++c->nstepped == c->p) {
        /* The update counts as done when the last worker holds the new parameters. */
        c->nstepped = 0;
        if (!alg_update_done(c->ctx, ev->t_ns, c->y.loss, c->y.lr)) return;
    }
    start_iteration(c, (int)ev->entity, ev->t_ns);
}

/* ---- a restored run's pending events (alg.h, alg_ckpt_ops_t) -------------------------- */

/* A worker's load or computation: of a worker in range, its only event.  A checkpoint is
 * written right after an update was counted, when the last worker has just stepped: every
 * worker is loading or computing its next batch, or waits with its gradient in the next
 * allreduce. */
static bool check_own(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    csgd_t *c = arg;
    if (ev->entity < (uint32_t)c->p && ev->arg == 0 && c->ck_events[ev->entity]++ == 0)
        return true;
    snprintf(why, size, "worker %u of %d, or a worker with two events", ev->entity, c->p);
    return false;
}

/* Its allreduce done or its step under way: never right after an update was counted (the
 * next allreduce needs the gradient of the worker that made it, which has only begun). */
static bool check_late(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    (void)arg;
    (void)ev;
    snprintf(why, size, "no worker is past its gradient right after an update");
    return false;
}

static void set_checks(csgd_t *c)
{
    c->ck_events = sgd_xcalloc((size_t)c->p, sizeof *c->ck_events);
    sim_engine_t *e = c->ctx->engine;
    sim_engine_set_check(e, c->ev_io_done, check_own);
    sim_engine_set_check(e, c->ev_compute_done, check_own);
    sim_engine_set_check(e, c->ev_allreduce_done, check_late);
    sim_engine_set_check(e, c->ev_step_done, check_late);
}

static void *csgd_create(alg_ctx_t *ctx, sgd_err_t *err)
{
    if (alg_sync_check_allreduce(ctx->scn, (int)ctx->scn->workers, "cluster.workers", err)) return NULL;
    csgd_t *c = sgd_xcalloc(1, sizeof *c);
    c->ctx = ctx;
    alg_sync_init(&c->y, ctx);
    c->p = c->y.p;
    c->t_reduce_ns = sgd_xcalloc((size_t)c->p, sizeof *c->t_reduce_ns);
    c->applied = sgd_xcalloc((size_t)c->p, sizeof *c->applied);
    c->ev_io_done = sim_engine_register(ctx->engine, "csgd.io_done", on_io_done, c);
    c->ev_compute_done = sim_engine_register(ctx->engine, "csgd.compute_done", on_compute_done, c);
    c->ev_allreduce_done =
        sim_engine_register(ctx->engine, "csgd.allreduce_done", on_allreduce_done, c);
    c->ev_step_done = sim_engine_register(ctx->engine, "csgd.step_done", on_step_done, c);
    set_checks(c);

    if (c->p > 1) {
        c->sched = sim_sched_allreduce((sim_allreduce_alg_t)ctx->scn->allreduce_alg, c->p);
        int *eps = sgd_xmalloc((size_t)c->p * sizeof *eps);
        for (int i = 0; i < c->p; i++) eps[i] = i;
        if (ctx->scn->fidelity == SCN_FIDELITY_MESSAGE) {
            c->coll = sim_coll_create(ctx->engine, c->y.net, &c->y.topo, c->sched, eps,
                                      c->y.call_elems, c->y.ncalls, sizeof(float), on_coll_done,
                                      c, "csgd.allreduce");
            alg_sync_trace_coll(&c->y, c->coll, "allreduce", c->p, 0, 0, 0);
        } else
            c->allreduce_ns = alg_sync_analytic_ns(&c->y, c->sched, eps);
        free(eps);
    }
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
    if (c->coll) {
        msgs = sim_coll_messages(c->coll);
        bytes = sim_coll_bytes(c->coll);
    } else {
        alg_sync_traffic(&c->y, c->sched, &msgs, &bytes);
        msgs *= c->analytic_exchanges;
        bytes *= c->analytic_exchanges;
    }
    return sink->traffic(sink->ctx, "allreduce", msgs, bytes, 0, 0, err);
}

/* ---- checkpoints (alg.h) ------------------------------------------------------------ */

static int csgd_save(const void *state, sgd_ckw_t *w, sgd_err_t *err)
{
    const csgd_t *c = state;
    if (alg_sync_save(&c->y, w, err)) return -1;
    sgd_ckw_tag(w, "csgd");
    sgd_ckw_u64(w, c->analytic_exchanges);
    sgd_ckw_i64(w, c->t_all_in_ns);
    sgd_ckw_i64(w, c->nready);
    sgd_ckw_i64(w, c->nstepped);
    sgd_ckw_bytes(w, c->t_reduce_ns, (size_t)c->p * sizeof *c->t_reduce_ns);
    sgd_ckw_bytes(w, c->applied, (size_t)c->p * sizeof *c->applied);
    if (c->coll) sim_coll_save(c->coll, w);
    return 0;
}

/* The books of the iteration right after an update: every worker has applied exactly the
 * updates counted, none has stepped in the next one, and the closed form has made one
 * exchange per update; the timeline's times are not in the future. */
static void check_books(const csgd_t *c, sgd_ckr_t *r)
{
    const alg_ctx_t *ctx = c->ctx;
    const int64_t now = sim_engine_now(ctx->engine);
    const bool analytic = c->p > 1 && !c->coll;
    if (r->failed) return;
    if (c->nstepped != 0 || c->analytic_exchanges != (analytic ? (uint64_t)ctx->updates : 0))
        sgd_ckr_fail(r, "%d workers stepped and %llu exchanges after %lld updates",
                     c->nstepped, (unsigned long long)c->analytic_exchanges,
                     (long long)ctx->updates);
    if (c->t_all_in_ns < 0 || c->t_all_in_ns > now)
        sgd_ckr_fail(r, "allreduce entered at %lld ns, the clock at %lld ns",
                     (long long)c->t_all_in_ns, (long long)now);
    for (int i = 0; i < c->p && !r->failed; i++) {
        if (c->applied[i] != ctx->updates)
            sgd_ckr_fail(r, "worker %d applied %lld updates of %lld", i,
                         (long long)c->applied[i], (long long)ctx->updates);
        else if (c->t_reduce_ns[i] < 0 || c->t_reduce_ns[i] > now)
            sgd_ckr_fail(r, "worker %d entered the allreduce at %lld ns", i,
                         (long long)c->t_reduce_ns[i]);
    }
}

static int csgd_restore(void *state, sgd_ckr_t *r, sgd_err_t *err)
{
    csgd_t *c = state;
    if (alg_sync_restore(&c->y, r, err)) return -1;
    sgd_ckr_tag(r, "csgd");
    c->analytic_exchanges = sgd_ckr_u64(r);
    c->t_all_in_ns = sgd_ckr_i64(r);
    c->nready = (int)sgd_ckr_count(r, (uint64_t)c->p - 1, "workers ready");
    c->nstepped = (int)sgd_ckr_count(r, (uint64_t)c->p - 1, "workers stepped");
    sgd_ckr_bytes(r, c->t_reduce_ns, (size_t)c->p * sizeof *c->t_reduce_ns, "reduce times");
    sgd_ckr_bytes(r, c->applied, (size_t)c->p * sizeof *c->applied, "updates applied");
    check_books(c, r);
    memset(c->ck_events, 0, (size_t)c->p * sizeof *c->ck_events);
    if (sgd_ckr_check(r, "csgd", err)) return -1;
    return c->coll ? sim_coll_restore(c->coll, r, err) : 0;
}

/* Each worker in one place: loading or computing (its event), or with its gradient in the
 * allreduce -- the nready workers without an event, which the message-level collective
 * holds. */
static int csgd_verify(void *state, sgd_err_t *err)
{
    const csgd_t *c = state;
    int waiting = 0;
    for (int i = 0; i < c->p; i++) {
        const bool idle = c->ck_events[i] == 0;
        waiting += idle;
        if (c->coll && idle != sim_coll_holds(c->coll, i))
            return sgd_errf(err, "csgd: worker %d is %s the allreduce and has %d events "
                                 "pending", i, idle ? "not in" : "in", c->ck_events[i]);
    }
    if (waiting != c->nready)
        return sgd_errf(err, "csgd: %d workers wait in the allreduce, %d gradients are ready",
                        waiting, c->nready);
    if (sim_net_check_times(c->y.net, sim_engine_latest(c->ctx->engine), err)) return -1;
    return c->coll ? sim_coll_verify(c->coll, err) : 0;
}

static size_t csgd_state_size(const void *state)
{
    const csgd_t *c = state;
    return alg_sync_state_size(&c->y) + (size_t)c->p * 16 + 64;
}

static const alg_ckpt_ops_t csgd_ckpt = {
    .state_size = csgd_state_size, .save = csgd_save, .restore = csgd_restore,
    .verify = csgd_verify, .backend_state = true};

static void csgd_destroy(void *state)
{
    csgd_t *c = state;
    sim_coll_destroy(c->coll);
    sim_sched_destroy(c->sched);
    alg_sync_free(&c->y);
    free(c->t_reduce_ns);
    free(c->applied);
    free(c->ck_events);
    free(c);
}

const alg_ops_t alg_csgd = {
    .scenario = {.name = "csgd"},
    .create = csgd_create,
    .start = csgd_start,
    .report = csgd_report,
    .destroy = csgd_destroy,
    .ckpt = &csgd_ckpt,
};
