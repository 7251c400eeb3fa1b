/* LSGD — Layered SGD (Yu, Flynn, Yoo, D'Imperio 2019), exactly as docs/papers.md §1
 * restates the authors' released code.
 *
 * Needs topology.kind "cluster": N nodes x G workers, plus one communicator per node -- an
 * extra process on the node's host CPU that computes nothing and loads no data.
 *
 * Worker w, iteration t:
 *   1. load batch t (I/O time, serial, in the training process);
 *   2. if t > 0: wait for the broadcast of update t-1, apply the optimizer step;
 *   3. forward + backward on batch t;
 *   4. reduce its gradient to the node's communicator (blocking: the worker waits until its
 *      part of the reduce is complete), then goes on to load batch t+1.
 * Communicator of node a, iteration t:
 *   1. reduce its G workers' gradients (and divide by P: no time charged);
 *   2. allreduce among the N communicators -- the only cross-node step; it overlaps with the
 *      workers' loading of batch t+1;
 *   3. broadcast the result to its G workers.
 * Nothing overlaps with forward/backward; the intra-node reduce and broadcast block the
 * workers.  Per iteration, in steady state:
 *   T ~ T_reduce_intra + max(T_load, T_allreduce_inter(N)) + T_bcast_intra + T_fwd_bwd + T_step.
 * algorithm.overlap = false is the ablation without step 1's overlap: the worker loads batch
 * t+1 only after it applied update t.
 *
 * Numerics (sync.h): when the last worker's gradient of step t exists, the mean over the
 * stacked global batch is computed once and the step applied, exactly as CSGD does: sum_c
 * (sum_{p in c} g_p)/P = (1/P) sum_p g_p, so with the same seed LSGD's parameters equal
 * CSGD's bit for bit while its virtual times differ (tests/algorithms/test_lsgd.c).
 *
 * Collectives: intra-node reduce and broadcast over ranks {communicator = rank 0, the node's
 * G workers = ranks 1..G} (algorithm.reduce, algorithm.broadcast: star as in the authors'
 * code, or binomial); the inter-node allreduce over the N communicators (network.allreduce).
 * Each is issued per tensor or per bucket (network.granularity), message by message (with
 * the rendezvous protocol: data moves once its receiver has posted the receive, so a worker
 * still loading holds back its broadcast) or in closed form (network.fidelity).  In closed
 * form the phases are charged in lockstep: a node's reduce ends R after its last worker
 * entered it, the allreduce A after the last communicator entered it, a node's broadcast B
 * after both its communicator holds the result and its last worker is ready to receive.
 *
 * Timeline (sim/trace.h): per worker io, compute, reduce, broadcast and update, each with
 * the update it belongs to.  A worker's reduce or broadcast starts with a "wait" span while
 * it waits for others: a reduce until both the communicator and the node's last worker have
 * entered it, a broadcast until the communicator holds the global mean and the node's last
 * worker has posted its receive (under rendezvous the root serves call after call, so every
 * call waits for the slowest worker) -- but no later than the worker's part ended.  Per
 * communicator its reduce, allreduce and broadcast; at message fidelity the links' messages,
 * each tagged with its collective, update, call, step, sender and receiver. */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/lsgd_state.h"
#include "common/json.h"

static int node_of(const lsgd_t *l, int w) { return w / l->g; }

static uint64_t grad_bytes(const lsgd_t *l) { return l->ctx->cost_nparams * sizeof(float); }

/* A communicator's span, with the bytes it moves. */
static void span(lsgd_t *l, int a, const char *name, int64_t t0, int64_t t1)
{
    const sim_trace_arg_t args[] = {SIM_TRACE_I("bytes", grad_bytes(l))};
    sim_trace_span_args(l->ctx->trace, SIM_TRACK_COMMUNICATOR, (uint32_t)a, name, t0, t1, args,
                        1);
}

/* Worker w's span of `update` (1-based), with the bytes it moves when any. */
static void wspan(lsgd_t *l, int w, const char *name, int64_t t0, int64_t t1, int64_t update,
                  uint64_t bytes)
{
    const sim_trace_arg_t args[] = {SIM_TRACE_I("update", update), SIM_TRACE_I("bytes", bytes)};
    sim_trace_span_args(l->ctx->trace, SIM_TRACK_WORKER, (uint32_t)w, name, t0, t1, args,
                        bytes ? 2 : 1);
}

/* A reduce or broadcast of worker w from t0 to t1 that waited for others until `ready`:
 * "wait" until then (within [t0, t1]), `name` after. */
static void wspan_transfer(lsgd_t *l, int w, const char *name, int64_t t0, int64_t ready,
                           int64_t t1, int64_t update)
{
    int64_t from = ready < t0 ? t0 : ready > t1 ? t1 : ready;
    if (from > t0) wspan(l, w, "wait", t0, from, update, 0);
    wspan(l, w, name, from, t1, update, grad_bytes(l));
}

static int64_t latest(int64_t a, int64_t b) { return a > b ? a : b; }

static void start_load(lsgd_t *l, int w, int64_t now)
{
    int64_t done = now + alg_sync_io_ns(&l->y, w);
    wspan(l, w, "io", now, done, l->w[w].iter + 1, 0);
    sim_engine_schedule(l->ctx->engine, done, l->ev_io_done, (uint32_t)w, 0, NULL);
}

static void start_compute(lsgd_t *l, int w, int64_t now)
{
    int64_t done = now + alg_sync_compute_ns(&l->y, w);
    wspan(l, w, "compute", now, done, l->w[w].iter + 1, 0);
    sim_engine_schedule(l->ctx->engine, done, l->ev_compute_done, (uint32_t)w, 0, NULL);
}

/* Closed form: node a's broadcast starts once its communicator holds the result and every
 * worker of the node has posted its receive (rendezvous: a worker busy loading does not
 * receive), and lasts B. */
static void analytic_try_bcast(lsgd_t *l, int a, int64_t now)
{
    if (!l->node_has_result[a] || l->node_posted[a] < l->g) return;
    l->node_has_result[a] = false;
    l->node_posted[a] = 0;
    span(l, a, "broadcast", now, now + l->bcast_ns);
    for (int g = 0; g < l->g; g++)
        sim_engine_schedule(l->ctx->engine, now + l->bcast_ns, l->ev_update_arrived,
                            (uint32_t)(a * l->g + g), 0, NULL);
}

/* Worker w is ready to receive update t-1: it joins the broadcast (a binomial broadcast
 * needs it to forward; under rendezvous nothing reaches it before). */
static void post_bcast(lsgd_t *l, int w, int64_t now)
{
    int a = node_of(l, w);
    l->w[w].t_bcast_ns = now;
    l->times[a].posted = now;
    if (!l->analytic) {
        sim_coll_enter(l->node_bcast[a], w % l->g + 1, now);
        return;
    }
    l->node_posted[a]++;
    analytic_try_bcast(l, a, now);
}

/* Step 2 of a worker: once the update has arrived (and, with overlap, the next batch is
 * loaded), apply it. */
static void try_step(lsgd_t *l, int w, int64_t now)
{
    lsgd_worker_t *k = &l->w[w];
    if (!k->have_update || k->stepping || (l->o.overlap && !k->loaded)) return;
    k->stepping = true;
    int64_t done = now + alg_sync_step_ns(&l->y, w);
    wspan(l, w, "update", now, done, k->iter, 0);
    sim_engine_schedule(l->ctx->engine, done, l->ev_step_done, (uint32_t)w, 0, NULL);
}

static void on_io_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    lsgd_t *l = arg;
    int w = (int)ev->entity;
    lsgd_worker_t *k = &l->w[w];
    (void)e;
    k->loaded = true;
    if (k->iter == 0 || !l->o.overlap) {
        /* Nothing to apply before the first batch; without overlap the update was applied
         * before this load began. */
        start_compute(l, w, ev->t_ns);
        return;
    }
    post_bcast(l, w, ev->t_ns);
    try_step(l, w, ev->t_ns);
}

static void on_compute_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    lsgd_t *l = arg;
    int w = (int)ev->entity, a = node_of(l, w);
    l->w[w].t_reduce_ns = ev->t_ns;
    l->times[a].worker_in = ev->t_ns;
    if (++l->ncomputed == l->p) {
        /* Every gradient of this step exists: compute the update once (sync.h). */
        l->ncomputed = 0;
        if (alg_sync_update(&l->y, l->ctx->updates)) return; /* the run failed */
    }
    if (!l->analytic) {
        sim_coll_enter(l->node_reduce[a], w % l->g + 1, ev->t_ns);
        return;
    }
    /* Virtual time only grows, so the latest entry ever is this iteration's latest. */
    if (ev->t_ns > l->node_last_entry[a]) l->node_last_entry[a] = ev->t_ns;
    if (++l->node_entered[a] == l->g) {
        l->node_entered[a] = 0;
        span(l, a, "reduce", l->node_last_entry[a], l->node_last_entry[a] + l->reduce_ns);
        sim_engine_schedule(e, l->node_last_entry[a] + l->reduce_ns, l->ev_reduced, (uint32_t)a,
                            0, NULL);
    }
}

/* Worker w's part of the reduce is complete: iteration t+1 begins with loading its batch
 * (overlapping the communicators' allreduce), or, without overlap, waiting for the update. */
static void worker_reduced(lsgd_t *l, int w, int64_t now)
{
    lsgd_worker_t *k = &l->w[w];
    const struct lsgd_node_times *tm = &l->times[node_of(l, w)];
    wspan_transfer(l, w, "reduce", k->t_reduce_ns, latest(tm->comm_in, tm->worker_in), now,
                   k->iter + 1);
    k->iter++;
    k->loaded = false;
    if (l->o.overlap) start_load(l, w, now);
    else post_bcast(l, w, now);
}

static void on_worker_reduced(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    worker_reduced(arg, (int)ev->entity, ev->t_ns);
}

/* The communicator of node a holds its node's sum: on to the inter-node allreduce. */
static void comm_reduced(lsgd_t *l, int a, int64_t now)
{
    l->comm_t0_ns[a] = now;
    if (!l->analytic) {
        span(l, a, "reduce", l->times[a].comm_in, now);
        sim_coll_enter(l->inter, a, now);
        return;
    }
    for (int g = 0; g < l->g; g++)
        sim_engine_schedule(l->ctx->engine, now, l->ev_worker_reduced, (uint32_t)(a * l->g + g),
                            0, NULL);
    if (++l->comms_entered == l->n) {
        l->comms_entered = 0;
        l->exchanges++;
        sim_engine_schedule(l->ctx->engine, now + l->allreduce_ns, l->ev_allreduced, 0, 0, NULL);
    }
}

static void on_reduced(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    comm_reduced(arg, (int)ev->entity, ev->t_ns);
}

/* Analytic: every communicator holds the global mean; each broadcasts it to its workers. */
static void on_allreduced(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    lsgd_t *l = arg;
    (void)e;
    for (int a = 0; a < l->n; a++) {
        span(l, a, "allreduce", l->comm_t0_ns[a], ev->t_ns);
        l->times[a].result = ev->t_ns;
        l->node_has_result[a] = true;
        analytic_try_bcast(l, a, ev->t_ns);
    }
}

static void update_arrived(lsgd_t *l, int w, int64_t now)
{
    const struct lsgd_node_times *tm = &l->times[node_of(l, w)];
    wspan_transfer(l, w, "broadcast", l->w[w].t_bcast_ns, latest(tm->result, tm->posted), now,
                   l->w[w].iter);
    l->w[w].have_update = true;
    try_step(l, w, now);
}

static void on_update_arrived(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    update_arrived(arg, (int)ev->entity, ev->t_ns);
}

static void on_step_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    lsgd_t *l = arg;
    int w = (int)ev->entity;
    lsgd_worker_t *k = &l->w[w];
    (void)e;
    k->stepping = false;
    k->have_update = false;
    if (++l->nstepped == l->p) {
        /* The update counts as done when the last worker holds the new parameters. */
        l->nstepped = 0;
        if (!alg_update_done(l->ctx, ev->t_ns, l->y.loss, l->y.lr)) return;
    }
    if (l->o.overlap) start_compute(l, w, ev->t_ns);
    else start_load(l, w, ev->t_ns);
}

/* Message fidelity: communicator a enters its node's reduce (rank 0) at t. */
static void comm_enter_reduce(lsgd_t *l, int a, int64_t t)
{
    l->times[a].comm_in = t;
    sim_coll_enter(l->node_reduce[a], 0, t);
}

/* Message fidelity: completions of the collectives' ranks. */
static void node_reduce_done(void *arg, int rank, int64_t t)
{
    lsgd_node_ctx_t *nc = arg;
    lsgd_t *l = nc->l;
    if (rank == 0) comm_reduced(l, nc->node, t);
    else worker_reduced(l, nc->node * l->g + rank - 1, t);
}

static void node_bcast_done(void *arg, int rank, int64_t t)
{
    lsgd_node_ctx_t *nc = arg;
    lsgd_t *l = nc->l;
    if (rank == 0) {
        span(l, nc->node, "broadcast", l->times[nc->node].result, t);
        comm_enter_reduce(l, nc->node, t); /* next iteration */
    } else {
        update_arrived(l, nc->node * l->g + rank - 1, t);
    }
}

static void inter_done(void *arg, int rank, int64_t t)
{
    lsgd_t *l = arg;
    span(l, rank, "allreduce", l->comm_t0_ns[rank], t);
    l->times[rank].result = t;
    sim_coll_enter(l->node_bcast[rank], 0, t);
}

static void *lsgd_create(alg_ctx_t *ctx, sgd_err_t *err)
{
    const scn_t *s = ctx->scn;
    if (alg_sync_check_allreduce(s, (int)s->topo.nodes, "topology.nodes", err)) return NULL;
    lsgd_t *l = sgd_xcalloc(1, sizeof *l);
    l->ctx = ctx;
    l->o = *(const lsgd_opts_t *)s->alg_opts;
    alg_sync_init(&l->y, ctx);
    l->p = l->y.p;
    l->g = (int)s->topo.gpus_per_node;
    l->n = (int)s->topo.nodes;
    l->analytic = s->fidelity == SCN_FIDELITY_ANALYTIC;
    l->w = sgd_xcalloc((size_t)l->p, sizeof *l->w);
    l->comm_t0_ns = sgd_xcalloc((size_t)l->n, sizeof *l->comm_t0_ns);
    l->times = sgd_xcalloc((size_t)l->n, sizeof *l->times);
    for (int a = 0; a < l->n && ctx->trace; a++) {
        char name[48];
        snprintf(name, sizeof name, "node %d communicator", a);
        sim_trace_name_track(ctx->trace, SIM_TRACK_COMMUNICATOR, (uint32_t)a, name);
    }
    sim_engine_t *e = ctx->engine;
    l->ev_io_done = sim_engine_register(e, "lsgd.io_done", on_io_done, l);
    l->ev_compute_done = sim_engine_register(e, "lsgd.compute_done", on_compute_done, l);
    l->ev_step_done = sim_engine_register(e, "lsgd.step_done", on_step_done, l);
    l->ev_reduced = sim_engine_register(e, "lsgd.node_reduced", on_reduced, l);
    l->ev_allreduced = sim_engine_register(e, "lsgd.allreduced", on_allreduced, l);
    l->ev_update_arrived = sim_engine_register(e, "lsgd.update_arrived", on_update_arrived, l);
    l->ev_worker_reduced = sim_engine_register(e, "lsgd.worker_reduced", on_worker_reduced, l);
    lsgd_set_checks(l);

    l->reduce = sim_sched_reduce((sim_rooted_alg_t)l->o.reduce, l->g + 1);
    l->bcast = sim_sched_broadcast((sim_rooted_alg_t)l->o.broadcast, l->g + 1);
    l->allreduce = sim_sched_allreduce((sim_allreduce_alg_t)s->allreduce_alg, l->n);
    int *node_eps = sgd_xmalloc(((size_t)l->g + 1) * sizeof *node_eps);
    int *hosts = sgd_xmalloc((size_t)l->n * sizeof *hosts);
    for (int a = 0; a < l->n; a++) hosts[a] = sim_topo_host(&l->y.topo, a);
    if (l->analytic) {
        /* Every node's reduce and broadcast cost the same on an idle network; node 0's. */
        node_eps[0] = hosts[0];
        for (int g = 0; g < l->g; g++) node_eps[g + 1] = g;
        l->reduce_ns = alg_sync_analytic_ns(&l->y, l->reduce, node_eps);
        l->bcast_ns = alg_sync_analytic_ns(&l->y, l->bcast, node_eps);
        l->allreduce_ns = alg_sync_analytic_ns(&l->y, l->allreduce, hosts);
        l->node_entered = sgd_xcalloc((size_t)l->n, sizeof *l->node_entered);
        l->node_last_entry = sgd_xcalloc((size_t)l->n, sizeof *l->node_last_entry);
        l->node_has_result = sgd_xcalloc((size_t)l->n, sizeof *l->node_has_result);
        l->node_posted = sgd_xcalloc((size_t)l->n, sizeof *l->node_posted);
    } else {
        l->node_reduce = sgd_xcalloc((size_t)l->n, sizeof *l->node_reduce);
        l->node_bcast = sgd_xcalloc((size_t)l->n, sizeof *l->node_bcast);
        l->node_ctx = sgd_xcalloc((size_t)l->n, sizeof *l->node_ctx);
        lsgd_node_ctx_t *nc = l->node_ctx;
        for (int a = 0; a < l->n; a++) {
            nc[a] = (lsgd_node_ctx_t){l, a};
            node_eps[0] = hosts[a];
            for (int g = 0; g < l->g; g++) node_eps[g + 1] = a * l->g + g;
            char name[64];
            snprintf(name, sizeof name, "lsgd.reduce%d", a);
            l->node_reduce[a] = sim_coll_create(e, l->y.net, &l->y.topo, l->reduce, node_eps,
                                                l->y.call_elems, l->y.ncalls, sizeof(float),
                                                node_reduce_done, &nc[a], name);
            snprintf(name, sizeof name, "lsgd.bcast%d", a);
            l->node_bcast[a] = sim_coll_create(e, l->y.net, &l->y.topo, l->bcast, node_eps,
                                               l->y.call_elems, l->y.ncalls, sizeof(float),
                                               node_bcast_done, &nc[a], name);
            /* Gradients are large messages: rendezvous, so a worker receives only once it
             * has finished loading and posted its receive (the broadcast blocks it). */
            sim_coll_set_rendezvous(l->node_reduce[a], true);
            sim_coll_set_rendezvous(l->node_bcast[a], true);
            alg_sync_trace_coll(&l->y, l->node_reduce[a], "reduce", l->g + 1, a, 1, a * l->g);
            alg_sync_trace_coll(&l->y, l->node_bcast[a], "broadcast", l->g + 1, a, 1, a * l->g);
        }
        l->inter = sim_coll_create(e, l->y.net, &l->y.topo, l->allreduce, hosts, l->y.call_elems,
                                   l->y.ncalls, sizeof(float), inter_done, l, "lsgd.allreduce");
        sim_coll_set_rendezvous(l->inter, true);
        alg_sync_trace_coll(&l->y, l->inter, "allreduce", l->n, 0, l->n, 0);
    }
    free(node_eps);
    free(hosts);
    return l;
}

static void lsgd_start(void *state)
{
    lsgd_t *l = state;
    for (int w = 0; w < l->p; w++) start_load(l, w, 0);
    if (!l->analytic)
        for (int a = 0; a < l->n; a++) comm_enter_reduce(l, a, 0);
}

static int lsgd_report(void *state, const alg_sink_t *sink, sgd_err_t *err)
{
    lsgd_t *l = state;
    if (!sink || !sink->traffic) return 0;
    const char *kinds[3] = {"reduce", "allreduce", "broadcast"};
    const sim_sched_t *sch[3] = {l->reduce, l->allreduce, l->bcast};
    for (int k = 0; k < 3; k++) {
        uint64_t msgs = 0, bytes = 0;
        if (!l->analytic) {
            for (int a = 0; a < (k == 1 ? 1 : l->n); a++) {
                const sim_coll_t *c = k == 0   ? l->node_reduce[a]
                                      : k == 1 ? l->inter
                                               : l->node_bcast[a];
                msgs += sim_coll_messages(c);
                bytes += sim_coll_bytes(c);
            }
        } else {
            /* Reduce and broadcast run on every node; count the exchanges the communicators
             * completed (a broadcast is counted with the allreduce that starts it). */
            uint64_t m, b, times = l->exchanges * (k == 1 ? 1u : (uint64_t)l->n);
            alg_sync_traffic(&l->y, sch[k], &m, &b);
            msgs = m * times;
            bytes = b * times;
        }
        if (sink->traffic(sink->ctx, kinds[k], msgs, bytes, 0, 0, err)) return -1;
    }
    return 0;
}

static void lsgd_destroy(void *state)
{
    lsgd_t *l = state;
    if (l->node_reduce) {
        for (int a = 0; a < l->n; a++) {
            sim_coll_destroy(l->node_reduce[a]);
            sim_coll_destroy(l->node_bcast[a]);
        }
        free(l->node_reduce);
        free(l->node_bcast);
        free(l->node_ctx);
    }
    sim_coll_destroy(l->inter);
    sim_sched_destroy(l->reduce);
    sim_sched_destroy(l->bcast);
    sim_sched_destroy(l->allreduce);
    free(l->node_entered);
    free(l->node_last_entry);
    free(l->node_has_result);
    free(l->node_posted);
    free(l->ck.io);
    free(l->ck.compute);
    free(l->ck.reduced);
    free(l->ck.node);
    free(l->w);
    free(l->comm_t0_ns);
    free(l->times);
    alg_sync_free(&l->y);
    free(l);
}

/* algorithm.reduce / broadcast / overlap; LSGD needs the cluster topology (communicators
 * run on the node hosts). */
static int lsgd_parse_options(const sgd_jobj_t *alg, scn_t *s, sgd_err_t *err)
{
    static const char *const keys[] = {"name", "reduce", "broadcast", "overlap", NULL};
    lsgd_opts_t *o = sgd_xcalloc(1, sizeof *o);
    s->alg_opts = o;
    s->alg_opts_free = free;
    if (sgd_jobj_check_keys(alg, keys, err) ||
        sgd_jobj_enum(alg, "reduce", sim_rooted_names, SIM_ROOTED_STAR, &o->reduce, err) ||
        sgd_jobj_enum(alg, "broadcast", sim_rooted_names, SIM_ROOTED_STAR, &o->broadcast, err) ||
        sgd_jobj_bool(alg, "overlap", true, &o->overlap, err))
        return -1;
    if (s->topo.kind != SCN_TOPO_CLUSTER)
        return sgd_errf(err, "topology.kind: algorithm \"lsgd\" needs \"cluster\" (its "
                             "communicators run on the node hosts), got \"flat\"");
    return 0;
}

const alg_ops_t alg_lsgd = {
    .scenario = {.name = "lsgd", .parse_options = lsgd_parse_options},
    .create = lsgd_create,
    .start = lsgd_start,
    .report = lsgd_report,
    .destroy = lsgd_destroy,
    .ckpt = &lsgd_ckpt_ops,
};
