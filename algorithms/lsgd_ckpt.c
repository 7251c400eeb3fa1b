/* LSGD's checkpoints (alg.h, alg_ckpt_ops_t): the synchronous machinery's state (sync.h),
 * every worker's place in its iteration, the nodes' timeline times, and the collectives --
 * their message-level state, or the closed form's counters.
 *
 * What a restore checks follows from when a checkpoint is written: right after update u was
 * counted, when the last worker has just applied it.  No broadcast of update u + 1 can have
 * begun (the allreduce needs that worker's next gradient), so no worker holds an update or
 * steps, and each is in iteration u (computing, or with its gradient in its node's reduce;
 * without overlap also loading) or u + 1 (loading, with overlap; or waiting for the
 * broadcast).  Every worker is in exactly one such place, which its events, its flags, the
 * collectives and the closed form's counters must all say. */
#include <stdio.h>
#include <string.h>

#include "algorithms/lsgd_state.h"

static void save_i64s(sgd_ckw_t *w, const int64_t *v, int n)
{
    for (int i = 0; i < n; i++) sgd_ckw_i64(w, v[i]);
}

static void restore_i64s(sgd_ckr_t *r, int64_t *v, int n)
{
    for (int i = 0; i < n; i++) v[i] = sgd_ckr_i64(r);
}

static void save_workers_and_nodes(const lsgd_t *l, sgd_ckw_t *w)
{
    for (int i = 0; i < l->p; i++) {
        const lsgd_worker_t *k = &l->w[i];
        sgd_ckw_u64(w, (uint64_t)k->loaded | (uint64_t)k->have_update << 1 |
                           (uint64_t)k->stepping << 2);
        sgd_ckw_i64(w, k->iter);
        sgd_ckw_i64(w, k->t_reduce_ns);
        sgd_ckw_i64(w, k->t_bcast_ns);
    }
    save_i64s(w, l->comm_t0_ns, l->n);
    for (int a = 0; a < l->n; a++) {
        const struct lsgd_node_times *t = &l->times[a];
        const int64_t v[4] = {t->comm_in, t->worker_in, t->result, t->posted};
        save_i64s(w, v, 4);
    }
}

static void restore_workers_and_nodes(lsgd_t *l, sgd_ckr_t *r)
{
    for (int i = 0; i < l->p && !r->failed; i++) {
        lsgd_worker_t *k = &l->w[i];
        uint64_t flags = sgd_ckr_count(r, 7, "worker flags");
        *k = (lsgd_worker_t){.loaded = flags & 1, .have_update = (flags >> 1) & 1,
                             .stepping = (flags >> 2) & 1};
        k->iter = sgd_ckr_i64(r);
        k->t_reduce_ns = sgd_ckr_i64(r);
        k->t_bcast_ns = sgd_ckr_i64(r);
    }
    restore_i64s(r, l->comm_t0_ns, l->n);
    for (int a = 0; a < l->n; a++) {
        int64_t v[4];
        restore_i64s(r, v, 4);
        l->times[a] = (struct lsgd_node_times){v[0], v[1], v[2], v[3]};
    }
}

static int lsgd_save(const void *state, sgd_ckw_t *w, sgd_err_t *err)
{
    const lsgd_t *l = state;
    if (alg_sync_save(&l->y, w, err)) return -1;
    sgd_ckw_tag(w, "lsgd");
    save_workers_and_nodes(l, w);
    sgd_ckw_i64(w, l->ncomputed);
    sgd_ckw_i64(w, l->nstepped);
    sgd_ckw_u64(w, l->exchanges);
    if (l->analytic) {
        sgd_ckw_i64(w, l->comms_entered);
        for (int a = 0; a < l->n; a++) {
            sgd_ckw_i64(w, l->node_entered[a]);
            sgd_ckw_i64(w, l->node_last_entry[a]);
            sgd_ckw_u64(w, l->node_has_result[a]);
            sgd_ckw_i64(w, l->node_posted[a]);
        }
        return 0;
    }
    for (int a = 0; a < l->n; a++) {
        sim_coll_save(l->node_reduce[a], w);
        sim_coll_save(l->node_bcast[a], w);
    }
    sim_coll_save(l->inter, w);
    return 0;
}

/* The analytic fidelity's counters, each checked against what it counts. */
static void restore_analytic(lsgd_t *l, sgd_ckr_t *r)
{
    l->comms_entered = (int)sgd_ckr_count(r, (uint64_t)l->n, "communicators entered");
    for (int a = 0; a < l->n && !r->failed; a++) {
        l->node_entered[a] = (int)sgd_ckr_count(r, (uint64_t)l->g, "workers entered");
        l->node_last_entry[a] = sgd_ckr_i64(r);
        l->node_has_result[a] = sgd_ckr_count(r, 1, "node result") != 0;
        l->node_posted[a] = (int)sgd_ckr_count(r, (uint64_t)l->g, "workers posted");
    }
}

/* A time of the timeline: not before the run, not after now. */
static void check_time(const lsgd_t *l, int64_t t, const char *what, int i, sgd_ckr_t *r)
{
    if (!r->failed && (t < 0 || t > sim_engine_now(l->ctx->engine)))
        sgd_ckr_fail(r, "%s %d: time %lld ns, out of range", what, i, (long long)t);
}

/* What the state says on its own right after update u (file comment). */
static void check_books(const lsgd_t *l, sgd_ckr_t *r)
{
    const int64_t u = l->ctx->updates;
    if (!r->failed && (l->nstepped != 0 || l->ncomputed >= l->p ||
                       l->exchanges != (l->analytic ? (uint64_t)u : 0)))
        sgd_ckr_fail(r, "%d workers stepped, %d gradients computed, %llu exchanges after %lld "
                        "updates", l->nstepped, l->ncomputed, (unsigned long long)l->exchanges,
                     (long long)u);
    for (int i = 0; i < l->p && !r->failed; i++) {
        const lsgd_worker_t *k = &l->w[i];
        if (k->have_update || k->stepping || k->iter < u || k->iter > u + 1)
            sgd_ckr_fail(r, "worker %d in iteration %lld%s after update %lld", i,
                         (long long)k->iter, k->have_update || k->stepping ? ", stepping" : "",
                         (long long)u);
        check_time(l, k->t_reduce_ns, "worker", i, r);
        check_time(l, k->t_bcast_ns, "worker", i, r);
    }
    for (int a = 0; a < l->n && !r->failed; a++) {
        const struct lsgd_node_times *t = &l->times[a];
        check_time(l, l->comm_t0_ns[a], "node", a, r);
        check_time(l, t->comm_in, "node", a, r);
        check_time(l, t->worker_in, "node", a, r);
        check_time(l, t->result, "node", a, r);
        check_time(l, t->posted, "node", a, r);
        if (!l->analytic) continue;
        check_time(l, l->node_last_entry[a], "node", a, r);
        if (!r->failed && l->node_has_result[a])
            sgd_ckr_fail(r, "node %d holds the result of an allreduce not yet made", a);
    }
}

static int lsgd_restore(void *state, sgd_ckr_t *r, sgd_err_t *err)
{
    lsgd_t *l = state;
    if (alg_sync_restore(&l->y, r, err)) return -1;
    sgd_ckr_tag(r, "lsgd");
    restore_workers_and_nodes(l, r);
    l->ncomputed = (int)sgd_ckr_count(r, (uint64_t)l->p, "gradients computed");
    l->nstepped = (int)sgd_ckr_count(r, (uint64_t)l->p, "workers stepped");
    l->exchanges = sgd_ckr_u64(r);
    if (l->analytic) restore_analytic(l, r);
    check_books(l, r);
    memset(l->ck.io, 0, (size_t)l->p * sizeof *l->ck.io);
    memset(l->ck.compute, 0, (size_t)l->p * sizeof *l->ck.compute);
    memset(l->ck.reduced, 0, (size_t)l->p * sizeof *l->ck.reduced);
    memset(l->ck.node, 0, (size_t)l->n * sizeof *l->ck.node);
    if (sgd_ckr_check(r, "lsgd", err)) return -1;
    if (l->analytic) return 0;
    for (int a = 0; a < l->n; a++)
        if (sim_coll_restore(l->node_reduce[a], r, err) ||
            sim_coll_restore(l->node_bcast[a], r, err))
            return -1;
    return sim_coll_restore(l->inter, r, err);
}

/* ---- a restored run's pending events ----------------------------------------------- */

/* One more event of `count[entity]`'s kind, for an entity below n: true, or false with why. */
static bool count_one(int *count, const sim_event_t *ev, int n, const char *what, char *why,
                      size_t size)
{
    if (ev->entity < (uint32_t)n && ev->arg == 0) {
        count[ev->entity]++;
        return true;
    }
    snprintf(why, size, "%s %u of %d", what, ev->entity, n);
    return false;
}

static bool check_io(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    lsgd_t *l = arg;
    return count_one(l->ck.io, ev, l->p, "worker", why, size);
}

static bool check_compute(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    lsgd_t *l = arg;
    return count_one(l->ck.compute, ev, l->p, "worker", why, size);
}

/* Closed form: a worker's part of its node's reduce done, or a node's reduce done. */
static bool check_worker_reduced(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    lsgd_t *l = arg;
    return count_one(l->ck.reduced, ev, l->analytic ? l->p : 0, "worker", why, size);
}

static bool check_node_reduced(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    lsgd_t *l = arg;
    return count_one(l->ck.node, ev, l->analytic ? l->n : 0, "node", why, size);
}

/* A step, an allreduce's result or an update on its way: none right after an update. */
static bool check_never(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    (void)arg;
    (void)ev;
    snprintf(why, size, "none is pending right after an update (the next update's gradients "
                        "are not all computed)");
    return false;
}

void lsgd_set_checks(lsgd_t *l)
{
    l->ck.io = sgd_xcalloc((size_t)l->p, sizeof *l->ck.io);
    l->ck.compute = sgd_xcalloc((size_t)l->p, sizeof *l->ck.compute);
    l->ck.reduced = sgd_xcalloc((size_t)l->p, sizeof *l->ck.reduced);
    l->ck.node = sgd_xcalloc((size_t)l->n, sizeof *l->ck.node);
    sim_engine_t *e = l->ctx->engine;
    sim_engine_set_check(e, l->ev_io_done, check_io);
    sim_engine_set_check(e, l->ev_compute_done, check_compute);
    sim_engine_set_check(e, l->ev_worker_reduced, check_worker_reduced);
    sim_engine_set_check(e, l->ev_reduced, check_node_reduced);
    sim_engine_set_check(e, l->ev_step_done, check_never);
    sim_engine_set_check(e, l->ev_allreduced, check_never);
    sim_engine_set_check(e, l->ev_update_arrived, check_never);
}

/* Where a worker is right after update u (file comment). */
typedef enum { AT_LOAD, AT_COMPUTE, AT_REDUCE, AT_REDUCED, AT_BCAST, AT_NOWHERE } place_t;

static place_t place_of(const lsgd_t *l, int w)
{
    const lsgd_worker_t *k = &l->w[w];
    const int64_t u = l->ctx->updates;
    const bool next = k->iter == u + 1;
    const int events = l->ck.io[w] + l->ck.compute[w] + l->ck.reduced[w];
    if (events > 1) return AT_NOWHERE;
    if (l->ck.io[w]) return !k->loaded && next == l->o.overlap ? AT_LOAD : AT_NOWHERE;
    if (l->ck.compute[w]) return k->loaded && !next ? AT_COMPUTE : AT_NOWHERE;
    if (l->ck.reduced[w]) return k->loaded && !next ? AT_REDUCED : AT_NOWHERE;
    if (!next) return k->loaded ? AT_REDUCE : AT_NOWHERE;
    return k->loaded == l->o.overlap ? AT_BCAST : AT_NOWHERE;
}

/* Message level: the node's reduce holds the worker exactly while it is in it, the node's
 * broadcast likewise. */
static bool colls_agree(const lsgd_t *l, int w, place_t at)
{
    const int a = w / l->g, rank = w % l->g + 1;
    return sim_coll_holds(l->node_reduce[a], rank) == (at == AT_REDUCE) &&
           sim_coll_holds(l->node_bcast[a], rank) == (at == AT_BCAST);
}

/* Closed form: per node, the workers waiting in its reduce and for its broadcast are what
 * its counters say; a node whose reduce is done has all its workers past it; and those
 * nodes are what comms_entered counts. */
static int check_analytic_nodes(const lsgd_t *l, const place_t *at, sgd_err_t *err)
{
    int done = 0;
    for (int a = 0; a < l->n; a++) {
        int waiting = 0, posted = 0, left = 0;
        for (int w = a * l->g; w < (a + 1) * l->g; w++) {
            waiting += at[w] == AT_REDUCE;
            posted += at[w] == AT_BCAST;
            left += at[w] == AT_REDUCED || l->w[w].iter == l->ctx->updates + 1;
        }
        const bool reducing = l->ck.node[a] > 0;
        if (l->ck.node[a] > 1 || (reducing ? l->node_entered[a] != 0 || waiting != l->g
                                           : l->node_entered[a] != waiting) ||
            l->node_posted[a] != posted || (left && (reducing || left != l->g)))
            return sgd_errf(err, "lsgd: node %d: %d workers in its reduce (%d counted), %d "
                                 "waiting for its broadcast (%d counted)",
                            a, waiting, l->node_entered[a], posted, l->node_posted[a]);
        done += left > 0;
    }
    if (done != l->comms_entered)
        return sgd_errf(err, "lsgd: %d nodes reduced, %d communicators counted", done,
                        l->comms_entered);
    return 0;
}

/* Message level: each node's communicator in exactly one of its collectives, and every
 * collective's own events in order. */
static int check_communicators(const lsgd_t *l, sgd_err_t *err)
{
    for (int a = 0; a < l->n; a++) {
        int in = sim_coll_holds(l->node_reduce[a], 0) + sim_coll_holds(l->inter, a) +
                 sim_coll_holds(l->node_bcast[a], 0);
        if (in != 1)
            return sgd_errf(err, "lsgd: the communicator of node %d is in %d collectives", a,
                            in);
        if (sim_coll_verify(l->node_reduce[a], err) || sim_coll_verify(l->node_bcast[a], err))
            return -1;
    }
    return sim_coll_verify(l->inter, err);
}

static int lsgd_verify(void *state, sgd_err_t *err)
{
    const lsgd_t *l = state;
    place_t *at = sgd_xmalloc((size_t)l->p * sizeof *at);
    int computed = 0, rc = 0;
    for (int w = 0; w < l->p && rc == 0; w++) {
        at[w] = place_of(l, w);
        if (at[w] == AT_NOWHERE || (!l->analytic && !colls_agree(l, w, at[w])))
            rc = sgd_errf(err, "lsgd: worker %d (iteration %lld, %s) is not where its %d "
                               "pending events say", w, (long long)l->w[w].iter,
                          l->w[w].loaded ? "loaded" : "loading",
                          l->ck.io[w] + l->ck.compute[w] + l->ck.reduced[w]);
        computed += at[w] != AT_COMPUTE && !(at[w] == AT_LOAD && !l->o.overlap);
    }
    if (rc == 0 && computed != l->ncomputed)
        rc = sgd_errf(err, "lsgd: %d gradients computed, %d counted", computed, l->ncomputed);
    if (rc == 0)
        rc = l->analytic ? check_analytic_nodes(l, at, err) : check_communicators(l, err);
    if (rc == 0) rc = sim_net_check_times(l->y.net, sim_engine_latest(l->ctx->engine), err);
    free(at);
    return rc;
}

static size_t lsgd_state_size(const void *state)
{
    const lsgd_t *l = state;
    return alg_sync_state_size(&l->y) + (size_t)l->p * 32 + (size_t)l->n * 64 + 64;
}

const alg_ckpt_ops_t lsgd_ckpt_ops = {
    .state_size = lsgd_state_size, .save = lsgd_save, .restore = lsgd_restore,
    .verify = lsgd_verify, .backend_state = true};
