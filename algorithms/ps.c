/* The parameter-server family: SASGD, FASGD, B-FASGD, Downpour, hardsync, DC-ASGD, FedAvg,
 * FedAsync, FedBuff, ... (docs/papers.md §2-4), each a rule (ps_rule.h, one file under rules/)
 * registered under its own algorithm.name, sharing one implementation: the clients' life
 * cycle and the two drivers (this file), the callbacks (ps_run.c), the update step.  Options:
 * ps_opts.h; the deferred-update ledger and where gradients are evaluated: ps_ledger.h;
 * local training: ps_local.h; the registered clients, slots and rounds: ps_clients.h,
 * ps_slots.c; snapshots and staleness statistics: ps_server.h; the arithmetic the
 * scaled-step rules share: ps_rules.h.
 *
 * Clients.  Clients run in C slots (C = algorithm.concurrency, lambda = cluster.workers by
 * default: slot k is then client k, as below; with fewer slots, or an FL rule, a slot takes
 * sampled clients one task at a time: ps_clients.h).  Each holds a snapshot of the
 * parameters it last fetched (ps_server.h: shared, reference-counted) and computes gradients
 * of minibatches of mu rows (batch.per_worker) on it, or with algorithm.local runs a local
 * training task and pushes its delta (ps_local.h).  A push delivers it to the server; the
 * server applies an update once it holds c of them (n-softsync: c = C / n; hardsync: c = C;
 * Downpour: c = 1; FedBuff: its buffer; FedAvg: when its round's clients all reported).  When a client that pushed gets its fetch opportunity is algorithm.fetch:
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
 * endpoint 0, compute for a modelled time (compute.*, io.*, cluster.time_factor per client,
 * times a local task's steps and its device's factor), and the server serves arrivals first
 * come first served, each taking algorithm.server_time_s.  With a clients section a task may
 * be cut short when it starts (ps_slot_drops): its client sends nothing.
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
    c->push.owner = c->id;
}

/* The client in slot k starts its next task: its index (the client's task count, where the
 * run keeps one) and, with local training, its steps are fixed now; a sampled client's
 * streams are derived for it (ps_clients.h). */
static void start_task(ps_t *p, int k)
{
    ps_client_t *c = &p->cl[k];
    if (!p->pop.tasks) return;
    c->task = ps_pop_task(&p->pop, c->id);
    if (p->o->local.on)
        c->task_steps = ps_local_steps(&p->o->local, ps_client_samples(p, c->id), p->mu);
    if (p->pop.sampling) ps_slot_streams(p, k);
}

/* The client starts (uniform: becomes eligible for) its next gradient, or local task: the
 * task's time is its steps times a minibatch's, drawn once.  With a clients section the task
 * may be cut short (dropout): then it ends there, without a push. */
void ps_compute_next(ps_t *p, int k, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    start_task(p, k);
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        unblock(p, k);
        return;
    }
    const scn_t *s = p->s;
    const double steps = p->o->local.on ? (double)c->task_steps : 1.0;
    int64_t comp;
    if (s->compute_kind == SCN_COMPUTE_FLOPS)
        comp = sim_seconds_to_ns(model_flops_per_sample(p->ctx->model) * (double)p->mu /
                                 (s->device_gflops * 1e9) * c->timed.time_factor * steps);
    else
        comp = draw_ns(&s->compute_time_s, c->timed.compute_rng, c->timed.time_factor * steps);
    int64_t io = draw_ns(&s->io_time_s, c->timed.io_rng, steps);
    if (p->pop.behaviour && ps_slot_drops(p, k, now, comp + io)) return;
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
    ps_compute_next(p, k, now);
}

void ps_fetch_opportunity(ps_t *p, int k, int64_t now)
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
        ps_compute_next(p, k, now);
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
    if (p->pop.contributed) ps_pop_contributed(&p->pop, b->push.owner);
}

/* Client k's push is done with (consumed by an update, or taken in under "after_push"):
 * it fetches, or under Downpour computes on until its k_fetch-th gradient; a sampled client
 * leaves its slot, which takes the next (ps_slots.c). */
static void push_done(ps_t *p, int k, int64_t now)
{
    if (p->pop.sampling || p->pop.behaviour)
        ps_slot_free(p, k, now);
    else if (p->o->rule->protocol == PS_PROTO_DOWNPOUR && p->cl[k].steps % p->o->k_fetch != 0)
        ps_compute_next(p, k, now);
    else
        ps_fetch_opportunity(p, k, now);
}

/* The server takes client k's push into its buffer; with c of them it makes an update.  Then
 * each client whose push it applied gets its fetch opportunity ("after_update"), or client k
 * gets its own at once ("after_push"; the new version when its push completed an update). */
static void server_receive(ps_t *p, int k, int64_t now)
{
    const bool at_once = p->o->fetch == PS_FETCH_AFTER_PUSH;
    take_in(p, k);
    if (p->o->rule->protocol == PS_PROTO_ROUNDS) {
        ps_round_pushed(p, k, now);
        return;
    }
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

/* The request client c's push carries for the gradient (or local task) it finished: its
 * snapshot, a reference taken, and minibatch index t. */
static ps_req_t request(const ps_t *p, ps_client_t *c, int64_t t)
{
    return (ps_req_t){.snap = ps_snap_ref(c->snap), .t = t, .task = c->task,
                      .steps = p->o->local.on ? c->task_steps : 0};
}

/* Downpour: the gradient joins the pending push; every k_push-th is sent, every k_fetch-th
 * fetches. */
static void downpour_gradient_ready(ps_t *p, int k, int64_t t, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    if (c->push.nreq == 0) /* oldest gradient in the push */
        stage_push(c, c->stamp, c->snap->version);
    c->push.reqs[c->push.nreq++] = request(p, c, t);
    if (c->steps % p->o->k_push == 0)
        send_push(p, k, now);
    else if (c->steps % p->o->k_fetch == 0)
        ps_fetch_opportunity(p, k, now);
    else
        ps_compute_next(p, k, now);
}

/* Client k has finished computing a gradient (or a local task) on its snapshot at `now`. */
static void gradient_ready(ps_t *p, int k, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    int64_t t = p->sched.t_next; /* a local task's minibatches are its steps' indices */
    p->sched.t_next += p->o->local.on ? c->task_steps : 1;
    c->steps++;
    if (p->o->rule->protocol == PS_PROTO_DOWNPOUR) {
        downpour_gradient_ready(p, k, t, now);
        return;
    }
    /* first_push "always": a client's first gradient is sent without a coin (FRED) */
    const bool first_always = p->o->first_push_always && c->steps == 1;
    if (first_always || gate(p, k, p->o->c_push)) {
        c->push.reqs[0] = request(p, c, t);
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
        ps_fetch_opportunity(p, k, now); /* nothing to re-apply yet */
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
    SGD_ASSERT(p->timed.qlen < p->nslots);
    p->timed.queue[(p->timed.qhead + p->timed.qlen++) % p->nslots] = (int32_t)ev->entity;
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
    p->timed.qhead = (p->timed.qhead + 1) % p->nslots;
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
    ps_compute_next(p, (int)ev->entity, ev->t_ns);
}

/* ---- the driver's start ----------------------------------------------------------------- */

void ps_init_driver(ps_t *p)
{
    alg_ctx_t *ctx = p->ctx;
    const scn_t *s = p->s;
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        p->uniform.unblocked = SGD_ARENA_NEW(&p->arena, p->nslots, uint32_t);
        p->uniform.pick_rng = sim_rng_create(s->seed, SIM_STREAM_CLIENT_PICK, 0);
        p->uniform.ev_iter = sim_engine_register(ctx->engine, "ps.iteration", on_iter, p);
        return;
    }
    p->timed.net = sim_net_create();
    sim_star_init(&p->timed.star, p->timed.net, (int)p->nslots + 1, s->bandwidth_Bps,
                  s->latency_ns);
    p->timed.queue = SGD_ARENA_NEW(&p->arena, p->nslots, int32_t);
    p->timed.server_rng = sim_rng_create(s->seed, SIM_STREAM_COMPUTE, PS_SERVER_ENTITY);
    p->timed.ev_compute_done =
        sim_engine_register(ctx->engine, "ps.compute_done", on_compute_done, p);
    p->timed.ev_push_arrive =
        sim_engine_register(ctx->engine, "ps.push_arrive", on_push_arrive, p);
    p->timed.ev_server_done =
        sim_engine_register(ctx->engine, "ps.server_done", on_server_done, p);
    p->timed.ev_fetch_arrive =
        sim_engine_register(ctx->engine, "ps.fetch_arrive", on_fetch_arrive, p);
    if (p->pop.sampling || p->pop.behaviour) ps_slots_register(p);
}

void ps_start_clients(ps_t *p)
{
    if (p->pop.sampling || p->pop.behaviour) {
        ps_slots_start(p);
        return;
    }
    for (int64_t k = 0; k < p->nslots; k++) ps_compute_next(p, (int)k, 0);
    if (p->o->driver == PS_DRIVER_UNIFORM)
        sim_engine_schedule(p->ctx->engine, 1, p->uniform.ev_iter, 0, 0, NULL);
}
