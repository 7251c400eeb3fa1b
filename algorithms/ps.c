/* The parameter-server family: SASGD, FASGD, B-FASGD, Downpour, hardsync, DC-ASGD, ...
 * (docs/papers.md §2-3), each a rule (ps_rule.h, one file under rules/) registered under its
 * own algorithm.name, sharing one implementation: the clients, the two drivers and the
 * update step.  Options: ps_opts.h; the deferred-update ledger and where gradients are
 * evaluated: ps_ledger.h; snapshots and staleness statistics: ps_server.h; the arithmetic
 * the scaled-step rules share: ps_rules.h.
 *
 * Clients.  lambda clients (cluster.workers) each hold a snapshot of the parameters they last
 * fetched (ps_server.h: shared, reference-counted) and compute gradients of minibatches of mu
 * rows (batch.per_worker) on it.  A push delivers a gradient to the server; the server applies
 * an update once it holds c gradients (n-softsync: c = lambda / n; hardsync: c = lambda;
 * Downpour: c = 1).  When a client that pushed gets its fetch opportunity is algorithm.fetch:
 * under "after_update" (the default) it waits for the update that applies its push
 * ("blocked"), as in the authors' simulator, and fetches the version that update made; under
 * "after_push" (the SASGD paper's Rudra) it fetches as soon as the server has taken its push
 * in, with the version current then, and computes on while its push waits in the server's
 * buffer -- so a fast client may push twice into one update.  Either way a push moves from
 * the client (ps_client_t.push) into the server's buffer (ps_t.sched.buf) when the server
 * takes it in, and the buffer holds it until the update that consumes it.
 *
 * Staleness, in one place each.  A client's `stamp` is the version its next gradient counts
 * from: set by hold_snapshot() when a fetched snapshot arrives, and by skip_fetch() under
 * skipped_fetch_tau "fred".  A push's version (push.version) is set by stage_push() from the
 * stamp (or, re-applying, from the version of the gradient re-applied), and with it the
 * version of the parameters its gradient was computed on (push.params_version: the same
 * unless "fred" stamped the client later).  ps_schedule_update (ps_step.c) computes, for
 * each buffered push, tau = server version - push version (counted, what is damped: under
 * either fetch protocol the updates made between the fetch and the update that applies the
 * push, the SASGD paper's tau) and the parameters' age = server version - params_version;
 * apply_update records both.
 *
 * Drivers.  `uniform` is FRED's schedule: no clocks; each iteration a uniformly random
 * unblocked client (stream client_pick) finishes a gradient; iteration i happens at virtual
 * time i + 1 ns.  `timed`: clients fetch and push over a star network with the server at
 * endpoint 0, compute for a modelled time (compute.*, io.*, cluster.time_factor per client),
 * and the server serves arrivals first come first served, each taking algorithm.server_time_s.
 *
 * The update step (ps_step.c).  The server's decision to make an update is written to the
 * deferred-update ledger (ps_ledger.h) and applied later, in order: the FASGD step runs as
 * ps_schedule_update -> ps_drain -> apply_update.  The ledger is drained when it holds
 * gradient_batch requests, at the run's last update (so the run ends at the same event),
 * before a B-FASGD gate with c > 0, and when the engine stops.  Every result is the same bits
 * for any gradient_batch (tests/algorithms/test_ps.c); gradient_batch = 1 applies each
 * update when the server makes it; the default is 16 on the CPU and 64 with CUDA (ps_opts.c
 * says why).
 *
 * Minibatches.  `cyclic` (FRED): the t-th gradient requested in the run uses the t-th block
 * of mu rows, cyclically.  `random`: each client draws mu rows uniformly with replacement
 * from its own stream (data_order, entity = client), when its gradient is scheduled.
 *
 * Timeline.  With ctx->trace the life cycle below records what it schedules (the "timeline"
 * section: tracks, spans, a flow from each push to its update, counters); the schedule never
 * reads any of it back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "algorithms/ps_state.h"
#include "common/fpenv.h"
#include "sim/rng.h"


/* Entity id of the server's own random stream: far above any client index, so adding a
 * client never changes the server's draws. */
#define PS_SERVER_ENTITY (1ull << 40)

/* Rows of the model workspace at least, so validation runs in large chunks even when each
 * gradient is over a single sample. */
#define PS_MIN_MODEL_BATCH 1024

int64_t ps_model_batch(const scn_t *s)
{
    int64_t rows = ps_rows(s->alg_opts, s->batch_per_worker);
    return rows > PS_MIN_MODEL_BATCH ? rows : PS_MIN_MODEL_BATCH;
}

/* ---- client life cycle ----------------------------------------------------------------- */

static bool gate(ps_t *p, int k, double cval)
{
    if (!p->o->rule->gated) return true;
    /* The probability reads the normaliser's statistics, which the scheduled updates still
     * change: catch up first (with c = 0 it is 1 whatever they are). */
    if (cval > 0) ps_drain(p);
    /* Before the server has taken in a gradient the normaliser's statistics are all 0;
     * initial_v stands in for v until then (its default 0 is that mean). */
    double v = p->o->initial_v;
    if (p->srv.tau.n > 0) ps_rule_norm_mean(p, &v);
    double prob = ps_gate_probability(cval, v, p->o->gate_eps);
    return gsl_rng_uniform(p->cl[k].last.rng) < prob;
}

static void unblock(ps_t *p, int k)
{
    SGD_ASSERT(p->cl[k].slot == UINT32_MAX);
    p->cl[k].slot = (uint32_t)p->uniform.n;
    p->uniform.unblocked[p->uniform.n++] = (uint32_t)k;
}

static void block(ps_t *p, int k)
{
    uint32_t slot = p->cl[k].slot;
    SGD_ASSERT(slot != UINT32_MAX);
    uint32_t last = p->uniform.unblocked[--p->uniform.n];
    p->uniform.unblocked[slot] = last;
    p->cl[last].slot = slot;
    p->cl[k].slot = UINT32_MAX;
}

static int64_t draw_ns(const sim_dist_t *d, gsl_rng *r, double factor)
{
    return sim_seconds_to_ns(sim_dist_sample(d, r) * factor);
}

/* Client k now computes on `snap` (a reference it takes over): its next gradient's
 * staleness counts from snap's version. */
static void hold_snapshot(ps_t *p, ps_client_t *c, ps_snap_t *snap)
{
    ps_snap_release(&p->srv, c->snap);
    c->snap = snap;
    c->stamp = snap->version;
}

/* The push client c sends next counts its staleness from `version`; its gradient was
 * computed on the parameters of `params_version` (the same, unless skipped_fetch_tau "fred"
 * stamped the client with a later one). */
static void stage_push(ps_client_t *c, int64_t version, int64_t params_version)
{
    c->push.version = version;
    c->push.params_version = params_version;
}

/* The client starts (uniform: becomes eligible for) its next gradient. */
static void compute_next(ps_t *p, int k, int64_t now)
{
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        unblock(p, k);
        return;
    }
    ps_client_t *c = &p->cl[k];
    const scn_t *s = p->s;
    int64_t comp;
    if (s->compute_kind == SCN_COMPUTE_FLOPS)
        comp = sim_seconds_to_ns(model_flops_per_sample(p->ctx->model) * (double)p->mu /
                                 (s->device_gflops * 1e9) * c->timed.time_factor);
    else
        comp = draw_ns(&s->compute_time_s, c->timed.compute_rng, c->timed.time_factor);
    int64_t io = draw_ns(&s->io_time_s, c->timed.io_rng, 1.0);
    ps_trace_compute(p, k, now, comp, io);
    sim_engine_schedule(p->ctx->engine, now + comp + io, p->timed.ev_compute_done, (uint32_t)k,
                        0, NULL);
}

/* A fetch the gate skipped: keep computing on the parameters already held; their version,
 * not the server's, is what the next gradient's staleness counts from -- unless
 * skipped_fetch_tau is "fred", which records the server's current timestamp as FRED does. */
static void skip_fetch(ps_t *p, int k, int64_t now)
{
    p->srv.fetch.skipped_msgs++;
    p->srv.fetch.skipped_bytes += p->msg_bytes;
    if (p->o->fred_skip_tau) p->cl[k].stamp = p->srv.version;
    compute_next(p, k, now);
}

static void fetch_opportunity(ps_t *p, int k, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    if (!gate(p, k, p->o->c_fetch)) {
        skip_fetch(p, k, now);
        return;
    }
    p->srv.fetch.sent_msgs++;
    p->srv.fetch.sent_bytes += p->msg_bytes;
    ps_snap_t *snap = ps_server_snapshot(&p->srv);
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        hold_snapshot(p, c, snap);
        compute_next(p, k, now);
        return;
    }
    /* The reply carries the version current when the request reached the server (the
     * server serialises it then), and takes the network's time to arrive. */
    int route[2];
    sim_star_route(&p->timed.star, 0, k + 1, route);
    int64_t at = ps_trace_reserve(p, route, p->msg_bytes, now, "fetch", k, snap->version);
    if (ps_trace_of(p))
        ps_trace_fetch(p, k, now, ps_trace_moved_at(p, route, p->msg_bytes), at, snap);
    c->timed.incoming = snap;
    sim_engine_schedule(p->ctx->engine, at, p->timed.ev_fetch_arrive, (uint32_t)k, 0, NULL);
}

static void start_service(ps_t *p, int64_t now)
{
    const ps_client_t *head = &p->cl[p->timed.queue[p->timed.qhead]];
    if (ps_trace_of(p) && head->trace.t_arrive < now)
        ps_trace_client(p, p->timed.queue[p->timed.qhead], "queued", head->trace.t_arrive, now,
                     NULL, 0);
    p->trace.service_t0 = now;
    p->timed.busy = true;
    sim_engine_schedule(p->ctx->engine,
                        now + draw_ns(&p->o->server_time_s, p->timed.server_rng, 1.0),
                        p->timed.ev_server_done, 0, 0, NULL);
}

/* Client k's push moves into the server's buffer, its snapshot references with it, until
 * the update that consumes it; the client's is empty. */
static void take_in(ps_t *p, int k)
{
    ps_sent_t *from = &p->cl[k].push;
    ps_buffered_t *b = &p->sched.buf[p->sched.nbuf++];
    ps_req_t *reqs = b->push.reqs;
    SGD_ASSERT(b->push.nreq == 0); /* consumed by the last update */
    memcpy(reqs, from->reqs, (size_t)from->nreq * sizeof *reqs);
    b->client = k;
    b->push = *from;
    b->push.reqs = reqs;
    from->nreq = 0;
    from->reapply = false;
}

/* Client k's push is done with (consumed by an update, or taken in under "after_push"):
 * it fetches, or under Downpour computes on until its k_fetch-th gradient. */
static void push_done(ps_t *p, int k, int64_t now)
{
    if (p->o->rule->protocol == PS_PROTO_DOWNPOUR && p->cl[k].steps % p->o->k_fetch != 0)
        compute_next(p, k, now);
    else
        fetch_opportunity(p, k, now);
}

/* The server takes client k's push into its buffer; with c of them it makes an update.  Then
 * each client whose push it applied gets its fetch opportunity ("after_update"), or client k
 * gets its own at once ("after_push"; the new version when its push completed an update). */
static void server_receive(ps_t *p, int k, int64_t now)
{
    const bool at_once = p->o->fetch == PS_FETCH_AFTER_PUSH;
    take_in(p, k);
    if (p->sched.nbuf < p->c) {
        ps_trace_receive(p, k, now, false, 0);
        if (at_once) push_done(p, k, now);
        return;
    }
    const int64_t version = p->srv.version;
    bool more = ps_schedule_update(p, now);
    int64_t n = p->sched.nbuf;
    ps_trace_receive(p, k, now, p->srv.version != version, n);
    for (int64_t b = 0; b < n; b++) p->sched.applied[b] = p->sched.buf[b].client;
    p->sched.nbuf = 0;
    if (!more) return;
    if (at_once) {
        push_done(p, k, now);
        return;
    }
    for (int64_t b = 0; b < n; b++) push_done(p, p->sched.applied[b], now);
}

static void deliver_push(ps_t *p, int k, int64_t now)
{
    /* A skipped push still tells the server to re-apply (a message without payload). */
    uint64_t bytes = p->cl[k].push.reapply ? 0 : p->msg_bytes;
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        ps_trace_push(p, k, now, now, now + 1, bytes);
        server_receive(p, k, now);
        return;
    }
    int route[2];
    sim_star_route(&p->timed.star, k + 1, 0, route);
    int64_t at = ps_trace_reserve(p, route, bytes, now, "push", k, p->cl[k].push.version);
    if (ps_trace_of(p)) ps_trace_push(p, k, now, ps_trace_moved_at(p, route, bytes), at, bytes);
    sim_engine_schedule(p->ctx->engine, at, p->timed.ev_push_arrive, (uint32_t)k, 0, NULL);
}

static void send_push(ps_t *p, int k, int64_t now)
{
    p->srv.push.sent_msgs++;
    p->srv.push.sent_bytes += p->msg_bytes;
    deliver_push(p, k, now);
}

/* Downpour: the gradient joins the pending push; every k_push-th is sent, every k_fetch-th
 * fetches. */
static void downpour_gradient_ready(ps_t *p, int k, int64_t t, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    if (c->push.nreq == 0) /* oldest gradient in the push */
        stage_push(c, c->stamp, c->snap->version);
    c->push.reqs[c->push.nreq++] = (ps_req_t){.snap = ps_snap_ref(c->snap), .t = t};
    if (c->steps % p->o->k_push == 0)
        send_push(p, k, now);
    else if (c->steps % p->o->k_fetch == 0)
        fetch_opportunity(p, k, now);
    else
        compute_next(p, k, now);
}

/* Client k has finished computing a gradient on its snapshot at `now`. */
static void gradient_ready(ps_t *p, int k, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    int64_t t = p->sched.t_next++;
    c->steps++;
    if (p->o->rule->protocol == PS_PROTO_DOWNPOUR) {
        downpour_gradient_ready(p, k, t, now);
        return;
    }
    /* first_push "always": a client's first gradient is sent without a coin (FRED) */
    const bool first_always = p->o->first_push_always && c->steps == 1;
    if (first_always || gate(p, k, p->o->c_push)) {
        c->push.reqs[0] = (ps_req_t){.snap = ps_snap_ref(c->snap), .t = t};
        c->push.nreq = 1;
        stage_push(c, c->stamp, c->snap->version);
        if (c->last.grad) { /* B-FASGD may re-apply this gradient for a later skipped push */
            c->last.version = c->push.version; /* its timestamp as pushed */
            c->last.params_version = c->push.params_version;
            c->last.has = true;
        }
        send_push(p, k, now);
        return;
    }
    p->srv.push.skipped_msgs++;
    p->srv.push.skipped_bytes += p->msg_bytes;
    if (c->last.has) {
        /* The server re-applies the last gradient it got from k, with its old timestamp, so
         * its staleness keeps growing (under "after_push" that push may still be buffered: it
         * is applied first, as k's pushes are taken in and applied in the order sent). */
        c->push.reapply = true;
        stage_push(c, c->last.version, c->last.params_version);
        deliver_push(p, k, now);
    } else {
        fetch_opportunity(p, k, now); /* nothing to re-apply yet */
    }
}

/* ---- event handlers -------------------------------------------------------------------- */

static void on_iter(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    ps_t *p = arg;
    SGD_ASSERT(p->uniform.n > 0); /* at most c - 1 <= lambda - 1 clients wait at a time */
    uint32_t k =
        p->uniform.unblocked[gsl_rng_uniform_int(p->uniform.pick_rng, (unsigned long)p->uniform.n)];
    /* Busy until compute_next makes it eligible again: at once when it does not push or
     * under fetch "after_push", after the update that applies its push otherwise. */
    block(p, (int)k);
    gradient_ready(p, (int)k, ev->t_ns);
    if (p->ctx->status == ALG_RUNNING)
        sim_engine_schedule(e, ev->t_ns + 1, p->uniform.ev_iter, 0, 0, NULL);
}

static void on_compute_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    gradient_ready(arg, (int)ev->entity, ev->t_ns);
}

static void on_push_arrive(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    ps_t *p = arg;
    ps_client_t *c = &p->cl[ev->entity];
    SGD_ASSERT(p->timed.qlen < p->lambda);
    p->timed.queue[(p->timed.qhead + p->timed.qlen++) % p->lambda] = (int32_t)ev->entity;
    if (ps_trace_of(p)) {
        c->trace.t_arrive = ev->t_ns;
        p->trace.push_bytes -= c->push.reapply ? 0 : p->msg_bytes;
        ps_trace_in_flight(p, ev->t_ns);
    }
    if (!p->timed.busy) start_service(p, ev->t_ns);
    ps_trace_queue(p, ev->t_ns);
}

static void on_server_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    ps_t *p = arg;
    int k = p->timed.queue[p->timed.qhead];
    p->timed.qhead = (p->timed.qhead + 1) % p->lambda;
    p->timed.qlen--;
    p->timed.busy = false;
    p->cl[k].trace.t_served = ev->t_ns;
    server_receive(p, k, ev->t_ns);
    if (p->ctx->status == ALG_RUNNING && p->timed.qlen > 0) start_service(p, ev->t_ns);
    ps_trace_queue(p, ev->t_ns);
}

static void on_fetch_arrive(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    ps_t *p = arg;
    ps_client_t *c = &p->cl[ev->entity];
    hold_snapshot(p, c, c->timed.incoming);
    c->timed.incoming = NULL;
    if (ps_trace_of(p)) {
        p->trace.fetch_bytes -= p->msg_bytes;
        ps_trace_in_flight(p, ev->t_ns);
    }
    compute_next(p, (int)ev->entity, ev->t_ns);
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
    /* the snapshots; gradient_batch slots of one gradient each, and their minibatches */
    const double slots = (double)o->gradient_batch, np = (double)ctx->nparams;
    const double slot_floats = np + (double)s->batch_per_worker * (d->dim + 1);
    return alg_check_memory("cluster.workers: parameter snapshots",
                            ps_snapshot_versions(s, o) * 4.0 * np, err) ||
                   (slots > 1 &&
                    alg_check_memory("algorithm.gradient_batch", slots * 4.0 * slot_floats, err))
               ? -1
               : 0;
}

/* Every client starts on version 0 with its own random streams (one per entity, so adding a
 * client changes no other client's draws). */
static void init_clients(ps_t *p)
{
    const scn_t *s = p->s;
    const ps_opts_t *o = p->o;
    p->cl = SGD_ARENA_NEW(&p->arena, p->lambda, ps_client_t);
    ps_snap_t *initial = ps_server_snapshot(&p->srv);
    for (int64_t k = 0; k < p->lambda; k++) {
        ps_client_t *c = &p->cl[k];
        c->snap = k == 0 ? initial : ps_snap_ref(initial);
        c->push.reqs = SGD_ARENA_NEW(&p->arena, o->k_push, ps_req_t);
        c->slot = UINT32_MAX;
        if (o->minibatch == PS_MB_RANDOM)
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

static void init_driver(ps_t *p)
{
    alg_ctx_t *ctx = p->ctx;
    const scn_t *s = p->s;
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        p->uniform.unblocked = SGD_ARENA_NEW(&p->arena, p->lambda, uint32_t);
        p->uniform.pick_rng = sim_rng_create(s->seed, SIM_STREAM_CLIENT_PICK, 0);
        p->uniform.ev_iter = sim_engine_register(ctx->engine, "ps.iteration", on_iter, p);
        return;
    }
    p->timed.net = sim_net_create();
    sim_star_init(&p->timed.star, p->timed.net, (int)p->lambda + 1, s->bandwidth_Bps,
                  s->latency_ns);
    p->timed.queue = SGD_ARENA_NEW(&p->arena, p->lambda, int32_t);
    p->timed.server_rng = sim_rng_create(s->seed, SIM_STREAM_COMPUTE, PS_SERVER_ENTITY);
    p->timed.ev_compute_done =
        sim_engine_register(ctx->engine, "ps.compute_done", on_compute_done, p);
    p->timed.ev_push_arrive =
        sim_engine_register(ctx->engine, "ps.push_arrive", on_push_arrive, p);
    p->timed.ev_server_done =
        sim_engine_register(ctx->engine, "ps.server_done", on_server_done, p);
    p->timed.ev_fetch_arrive =
        sim_engine_register(ctx->engine, "ps.fetch_arrive", on_fetch_arrive, p);
}

/* The rule's state, zeroed, from the run's arena, laid out by its init. */
static void init_rule(ps_t *p)
{
    const ps_rule_t *r = p->o->rule;
    const size_t bytes = r->state_bytes ? r->state_bytes(p->o, p->ctx->nparams) : 0;
    p->rule_state = sgd_arena_alloc(&p->arena, bytes, 1);
    if (r->init) r->init(p->rule_state, p->o, p->ctx->nparams);
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
    p->mu = s->batch_per_worker;
    p->c = o->c;
    p->msg_bytes = ctx->nparams * sizeof(float);
    p->counts_emitted_at = -1;
    sgd_arena_init(&p->arena);
    ps_server_init(&p->srv, ctx->params, ctx->nparams);
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
    const ps_ledger_cfg_t lc = {
        .srv = &p->srv, .train = ctx->train, .backend = ctx->backend,
        .nparams = ctx->nparams, .mu = p->mu, .cyclic = o->minibatch == PS_MB_CYCLIC,
        .merge = o->merge, .max_reqs = p->c * o->k_push,
        .max_rows = ps_rows(o, p->mu), .gradient_batch = o->gradient_batch};
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
    init_driver(p);
    ps_set_checks(p);
    ps_trace_tracks(p);
    return p;
}

void ps_start(void *state)
{
    ps_t *p = state;
    for (int64_t k = 0; k < p->lambda; k++) compute_next(p, (int)k, 0);
    if (p->o->driver == PS_DRIVER_UNIFORM)
        sim_engine_schedule(p->ctx->engine, 1, p->uniform.ev_iter, 0, 0, NULL);
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
    }
    if (sink && report_tables(p, sink, err)) return -1;

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
          alg_metric(ctx, u, v, "push_skipped", (double)sv->push.skipped_msgs))))
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
    for (int64_t k = 0; k < p->lambda; k++) free_client(p, &p->cl[k]);
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
