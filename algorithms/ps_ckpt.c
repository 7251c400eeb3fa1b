/* Checkpoints of the parameter-server family (alg.h, alg_ckpt_ops_t), the same for every rule
 * (ps_rule.h): a rule declares its state -- state_bytes and state_header -- and nothing else.
 *
 * When.  A checkpoint is written between events.  The schedule may then have run ahead of
 * the numerics (updates in the ledger, snapshots of versions the parameters have not
 * reached), so settle first applies every scheduled update: ps_drain, which the run would do
 * later with the same bits (every result is the same for any gradient_batch, ps_ledger.h).
 * What is saved is therefore a settled family -- the ledger empty, applied == version,
 * nothing pinned -- and a resumed run starts from exactly the state the saving run went on
 * from.
 *
 * What.  In one fixed order: the server's counters (version, snapshot peak, staleness and
 * parameter-age histograms, traffic); every live snapshot once, by ascending version, with
 * its parameters; each client (its snapshot, the push it is sending and its fetch in flight
 * as versions, never pointers; its stamp, step count, B-FASGD's last gradient and flags, its
 * streams); the pushes the server buffers, each with its client; the driver's state (uniform: the unblocked clients and the pick
 * stream; timed: the links, the FCFS queue and the server's stream); the timeline's ids;
 * the rule's state past its header, as bytes.  Holders' references are rebuilt from the
 * versions they saved, so every snapshot's reference count, `live` and the slab's contents
 * follow.
 *
 * Restore reads into a state ps_create has just built and refuses (the reader failed, the
 * state back to one ps_destroy frees) anything out of range: a client, a version past the
 * server's, a snapshot nobody holds, a count that differs from this configuration's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/ps_state.h"
#include "sim/rng.h"

/* ---- snapshots, by version ------------------------------------------------------------- */

typedef struct held {
    int64_t version;
    const ps_snap_t *snap;
} held_t;

static int by_version(const void *a, const void *b)
{
    const held_t *x = a, *y = b;
    return (x->version > y->version) - (x->version < y->version);
}

/* Snapshots a settled run can hold: the current one, each client's, its push's and the one
 * it is being sent, and those of the pushes the server buffers. */
static int64_t max_held(const ps_t *p)
{
    return 1 + p->nslots * (2 + p->o->k_push) + p->c * p->o->k_push;
}

static int64_t gather_push(const ps_sent_t *push, held_t *h, int64_t n)
{
    for (int r = 0; r < push->nreq; r++)
        h[n++] = (held_t){push->reqs[r].snap->version, push->reqs[r].snap};
    return n;
}

static int64_t gather_held(const ps_t *p, held_t *h)
{
    int64_t n = 0;
    if (p->srv.current) h[n++] = (held_t){p->srv.current->version, p->srv.current};
    for (int64_t k = 0; k < p->nslots; k++) {
        const ps_client_t *c = &p->cl[k];
        h[n++] = (held_t){c->snap->version, c->snap};
        n = gather_push(&c->push, h, n);
        if (c->timed.incoming) h[n++] = (held_t){c->timed.incoming->version, c->timed.incoming};
    }
    for (int64_t b = 0; b < p->sched.nbuf; b++) n = gather_push(&p->sched.buf[b].push, h, n);
    return n;
}

/* Each live snapshot once: its version and its parameters. */
static void save_snapshots(const ps_t *p, sgd_ckw_t *w)
{
    held_t *h = sgd_xmalloc((size_t)max_held(p) * sizeof *h);
    int64_t n = gather_held(p, h), unique = 0;
    qsort(h, (size_t)n, sizeof *h, by_version);
    for (int64_t i = 0; i < n; i++) {
        if (unique > 0 && h[unique - 1].version == h[i].version) {
            SGD_ASSERT(h[unique - 1].snap == h[i].snap); /* one snapshot per version */
            continue;
        }
        h[unique++] = h[i];
    }
    sgd_ckw_tag(w, "snapshots");
    sgd_ckw_u64(w, (uint64_t)unique);
    for (int64_t i = 0; i < unique; i++) {
        sgd_ckw_i64(w, h[i].version);
        sgd_ckw_bytes(w, h[i].snap->data, p->ctx->nparams * sizeof(float));
    }
    free(h);
}

/* The revived snapshots, ascending by version, for the holders' lookups. */
typedef struct snap_table {
    ps_snap_t **snap;
    int64_t n;
} snap_table_t;

static void restore_snapshots(ps_t *p, snap_table_t *t, sgd_ckr_t *r)
{
    sgd_ckr_tag(r, "snapshots");
    uint64_t n = sgd_ckr_count(r, (uint64_t)max_held(p), "snapshots");
    t->snap = sgd_xcalloc(n ? n : 1, sizeof *t->snap);
    for (uint64_t i = 0; i < n && !r->failed; i++) {
        int64_t v = sgd_ckr_i64(r);
        if (r->failed) break;
        if (v < 0 || v > p->srv.version || (t->n > 0 && v <= t->snap[t->n - 1]->version)) {
            sgd_ckr_fail(r, "snapshot of version %lld out of order or past the server's %lld",
                         (long long)v, (long long)p->srv.version);
            break;
        }
        ps_snap_t *s = ps_server_revive(&p->srv, v);
        t->snap[t->n++] = s;
        sgd_ckr_bytes(r, s->data, p->ctx->nparams * sizeof(float), "snapshot");
        if (!r->failed && alg_any_nonfinite(s->data, p->ctx->nparams))
            sgd_ckr_fail(r, "snapshot of version %lld: a value is NaN or infinite",
                         (long long)v);
    }
}

/* A holder's reference to the snapshot of the version it saved (-1: none, where allowed). */
static ps_snap_t *hold_version(const snap_table_t *t, bool optional, sgd_ckr_t *r)
{
    int64_t v = sgd_ckr_i64(r);
    if (r->failed || (optional && v == -1)) return NULL;
    int64_t lo = 0, hi = t->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (t->snap[mid]->version < v) lo = mid + 1;
        else hi = mid;
    }
    if (lo == t->n || t->snap[lo]->version != v) {
        sgd_ckr_fail(r, "a client holds version %lld, whose snapshot was not saved",
                     (long long)v);
        return NULL;
    }
    return ps_snap_hold(t->snap[lo]);
}

/* Every revived snapshot but the current one must have a holder (or it would never be
 * given back). */
static void check_held(const ps_t *p, const snap_table_t *t, sgd_ckr_t *r)
{
    for (int64_t i = 0; i < t->n && !r->failed; i++)
        if (t->snap[i]->refs == 0 && t->snap[i] != p->srv.current)
            sgd_ckr_fail(r, "the snapshot of version %lld has no holder",
                         (long long)t->snap[i]->version);
}

/* Drops every snapshot and every reference to one: the server as ps_server_init left it, so
 * that restore starts from nothing and a failed restore leaves what ps_destroy frees. */
static void forget_snapshots(ps_t *p)
{
    for (int64_t k = 0; k < p->nslots; k++) {
        ps_client_t *c = &p->cl[k];
        c->snap = NULL;
        c->timed.incoming = NULL;
        c->push.nreq = 0;
    }
    for (int64_t b = 0; b < p->c; b++) p->sched.buf[b].push.nreq = 0;
    p->sched.nbuf = 0;
    ps_server_free(&p->srv);
    ps_server_init(&p->srv, p->ctx->params, p->ctx->nparams);
}

/* ---- clients --------------------------------------------------------------------------- */

/* A stream that this configuration has (the scenario decides which exist). */
static void save_rng(const gsl_rng *g, sgd_ckw_t *w)
{
    if (g) sim_rng_save(g, w);
}

static void restore_rng(gsl_rng *g, sgd_ckr_t *r)
{
    if (g) sim_rng_restore(g, r);
}

/* A push, by the versions of its gradients' snapshots (local training: with each task's
 * index and steps, and whose push it is). */
static void save_push(const ps_t *p, const ps_sent_t *push, sgd_ckw_t *w)
{
    const bool local = p->o->local.on;
    sgd_ckw_u64(w, (uint64_t)push->nreq);
    for (int i = 0; i < push->nreq; i++) {
        sgd_ckw_i64(w, push->reqs[i].snap->version);
        sgd_ckw_i64(w, push->reqs[i].t);
        if (local) {
            sgd_ckw_i64(w, push->reqs[i].task);
            sgd_ckw_i64(w, push->reqs[i].steps);
        }
    }
    if (local) sgd_ckw_i64(w, push->owner);
    sgd_ckw_u64(w, push->reapply);
    sgd_ckw_i64(w, push->version);
    sgd_ckw_i64(w, push->params_version);
    sgd_ckw_u64(w, push->flow);
}

static void save_client(const ps_t *p, const ps_client_t *c, sgd_ckw_t *w)
{
    sgd_ckw_i64(w, c->snap->version);
    sgd_ckw_i64(w, c->stamp);
    sgd_ckw_i64(w, c->steps);
    if (p->pop.tasks) ps_slot_save(p, c, w);
    save_push(p, &c->push, w);
    save_rng(c->sample_rng, w);
    save_rng(c->last.rng, w);
    if (c->last.grad) sgd_ckw_bytes(w, c->last.grad, p->ctx->nparams * sizeof(float));
    sgd_ckw_i64(w, c->last.version);
    sgd_ckw_i64(w, c->last.params_version);
    sgd_ckw_f64(w, c->last.loss);
    sgd_ckw_u64(w, c->last.has);
    sgd_ckw_i64(w, c->timed.incoming ? c->timed.incoming->version : -1);
    save_rng(c->timed.compute_rng, w);
    save_rng(c->timed.io_rng, w);
    sgd_ckw_i64(w, c->trace.t_arrive);
    sgd_ckw_i64(w, c->trace.t_served);
}

/* A version a client's staleness counts from: one the server has made. */
static int64_t restore_version(const ps_t *p, sgd_ckr_t *r)
{
    int64_t v = sgd_ckr_i64(r);
    if (!r->failed && (v < 0 || v > p->srv.version))
        sgd_ckr_fail(r, "a client's version %lld is past the server's %lld", (long long)v,
                     (long long)p->srv.version);
    return v;
}

/* A local task's index and steps, as save_push wrote them. */
static void restore_task(const ps_t *p, ps_req_t *q, sgd_ckr_t *r)
{
    q->task = sgd_ckr_i64(r);
    q->steps = sgd_ckr_i64(r);
    if (!r->failed && (q->task < 0 || q->task > UINT32_MAX || q->steps < 1 ||
                       q->steps > p->o->local.count * (p->ctx->train->n + 1)))
        sgd_ckr_fail(r, "local task %lld of %lld steps", (long long)q->task,
                     (long long)q->steps);
}

/* A registered client's index read from r. */
static int64_t restore_owner(const ps_t *p, sgd_ckr_t *r)
{
    return (int64_t)sgd_ckr_count(r, (uint64_t)p->lambda - 1, "registered client");
}

/* A push saved by save_push into one whose reqs array is empty: its references taken. */
static void restore_push(const ps_t *p, ps_sent_t *push, const snap_table_t *t, sgd_ckr_t *r)
{
    const bool local = p->o->local.on;
    int nreq = (int)sgd_ckr_count(r, (uint64_t)p->o->k_push, "push requests");
    for (int i = 0; i < nreq && !r->failed; i++) {
        ps_snap_t *s = hold_version(t, false, r);
        if (!s) break;
        int64_t t_req = sgd_ckr_i64(r);
        ps_req_t *q = &push->reqs[push->nreq++];
        *q = (ps_req_t){.snap = s, .t = t_req};
        if (!r->failed && t_req < 0) sgd_ckr_fail(r, "gradient index %lld", (long long)t_req);
        if (local) restore_task(p, q, r);
    }
    if (local) push->owner = restore_owner(p, r);
    push->reapply = sgd_ckr_count(r, 1, "reapply") != 0;
    push->version = restore_version(p, r);
    push->params_version = restore_version(p, r);
    push->flow = sgd_ckr_u64(r);
}

/* A time of the timeline: not before the run, not after now. */
static bool time_fits(const ps_t *p, int64_t t)
{
    return t >= 0 && t <= sim_engine_now(p->ctx->engine);
}

/* A client's values on their own: its snapshot held, its step count, B-FASGD's last
 * gradient and loss finite (a run whose numbers were not had diverged), its times. */
static void check_client(const ps_t *p, const ps_client_t *c, sgd_ckr_t *r)
{
    if (r->failed) return;
    if (!c->snap || c->steps < 0)
        sgd_ckr_fail(r, "a client without a snapshot, or with %lld steps", (long long)c->steps);
    else if (!isfinite(c->last.loss) ||
             (c->last.grad && alg_any_nonfinite(c->last.grad, p->ctx->nparams)))
        sgd_ckr_fail(r, "a client's last gradient or loss is NaN or infinite");
    else if (!time_fits(p, c->trace.t_arrive) || !time_fits(p, c->trace.t_served))
        sgd_ckr_fail(r, "a client's times %lld and %lld ns, out of range",
                     (long long)c->trace.t_arrive, (long long)c->trace.t_served);
}

static void restore_client(ps_t *p, int64_t k, ps_client_t *c, const snap_table_t *t,
                           sgd_ckr_t *r)
{
    c->snap = hold_version(t, false, r);
    c->stamp = restore_version(p, r);
    c->steps = sgd_ckr_i64(r);
    if (p->pop.tasks) ps_slot_restore(p, k, c, r);
    restore_push(p, &c->push, t, r);
    restore_rng(c->sample_rng, r);
    restore_rng(c->last.rng, r);
    if (c->last.grad)
        sgd_ckr_bytes(r, c->last.grad, p->ctx->nparams * sizeof(float), "last gradient");
    c->last.version = restore_version(p, r);
    c->last.params_version = restore_version(p, r);
    c->last.loss = sgd_ckr_f64(r);
    c->last.has = sgd_ckr_count(r, 1, "last gradient held") != 0;
    c->timed.incoming = hold_version(t, true, r);
    restore_rng(c->timed.compute_rng, r);
    restore_rng(c->timed.io_rng, r);
    c->trace.t_arrive = sgd_ckr_i64(r);
    c->trace.t_served = sgd_ckr_i64(r);
    check_client(p, c, r);
}

/* ---- what the server buffers, the drivers, the timeline -------------------------------- */

/* A client index read from r. */
static int32_t restore_client_index(const ps_t *p, sgd_ckr_t *r)
{
    return (int32_t)sgd_ckr_count(r, (uint64_t)p->nslots - 1, "client");
}

static void save_sched(const ps_t *p, sgd_ckw_t *w)
{
    sgd_ckw_tag(w, "sched");
    sgd_ckw_i64(w, p->sched.t_next);
    sgd_ckw_u64(w, (uint64_t)p->sched.nbuf);
    for (int64_t b = 0; b < p->sched.nbuf; b++) {
        sgd_ckw_u64(w, (uint64_t)p->sched.buf[b].client);
        save_push(p, &p->sched.buf[b].push, w);
    }
    sgd_ckw_i64(w, p->last_vtime);
    sgd_ckw_i64(w, p->counts_emitted_at);
}

static void restore_sched(ps_t *p, const snap_table_t *t, sgd_ckr_t *r)
{
    sgd_ckr_tag(r, "sched");
    p->sched.t_next = sgd_ckr_i64(r);
    /* fewer than c: with c of them the server has made its update */
    int64_t nbuf = (int64_t)sgd_ckr_count(r, (uint64_t)p->c - 1, "pushes buffered");
    for (int64_t b = 0; b < nbuf && !r->failed; b++, p->sched.nbuf++) {
        p->sched.buf[b].client = restore_client_index(p, r);
        restore_push(p, &p->sched.buf[b].push, t, r);
    }
    p->last_vtime = sgd_ckr_i64(r);
    p->counts_emitted_at = sgd_ckr_i64(r);
    if (!r->failed && p->sched.t_next < 0)
        sgd_ckr_fail(r, "%lld gradients requested", (long long)p->sched.t_next);
}

static void save_uniform(const ps_t *p, sgd_ckw_t *w)
{
    sgd_ckw_u64(w, (uint64_t)p->uniform.n);
    for (int64_t i = 0; i < p->uniform.n; i++) sgd_ckw_u64(w, p->uniform.unblocked[i]);
    sim_rng_save(p->uniform.pick_rng, w);
}

/* The unblocked clients in their order; each client's slot follows from it. */
static void restore_uniform(ps_t *p, sgd_ckr_t *r)
{
    p->uniform.n = (int64_t)sgd_ckr_count(r, (uint64_t)p->nslots, "unblocked clients");
    for (int64_t k = 0; k < p->nslots; k++) p->cl[k].slot = UINT32_MAX;
    for (int64_t i = 0; i < p->uniform.n && !r->failed; i++) {
        int32_t k = restore_client_index(p, r);
        if (r->failed) break;
        if (p->cl[k].slot != UINT32_MAX) {
            sgd_ckr_fail(r, "client %d unblocked twice", k);
            break;
        }
        p->uniform.unblocked[i] = (uint32_t)k;
        p->cl[k].slot = (uint32_t)i;
    }
    /* Under this driver a client is blocked exactly while the server buffers its push and
     * it waits for the update (fetch "after_update"); under "after_push" it never is. */
    const int64_t blocked = p->o->fetch == PS_FETCH_AFTER_UPDATE ? p->sched.nbuf : 0;
    if (!r->failed && p->uniform.n != p->nslots - blocked)
        sgd_ckr_fail(r, "%lld clients unblocked with %lld pushes buffered of %lld clients",
                     (long long)p->uniform.n, (long long)p->sched.nbuf, (long long)p->nslots);
    sim_rng_restore(p->uniform.pick_rng, r);
}

static void save_timed(const ps_t *p, sgd_ckw_t *w)
{
    sim_net_save(p->timed.net, w);
    sgd_ckw_i64(w, p->timed.qhead);
    sgd_ckw_u64(w, (uint64_t)p->timed.qlen);
    for (int64_t i = 0; i < p->timed.qlen; i++)
        sgd_ckw_u64(w, (uint64_t)p->timed.queue[(p->timed.qhead + i) % p->nslots]);
    sgd_ckw_u64(w, p->timed.busy);
    sim_rng_save(p->timed.server_rng, w);
}

static int restore_timed(ps_t *p, sgd_ckr_t *r, sgd_err_t *err)
{
    if (sim_net_restore(p->timed.net, r, err)) return -1;
    p->timed.qhead = (int64_t)sgd_ckr_count(r, (uint64_t)p->nslots - 1, "queue head");
    p->timed.qlen = (int64_t)sgd_ckr_count(r, (uint64_t)p->nslots, "queue length");
    for (int64_t i = 0; i < p->timed.qlen && !r->failed; i++)
        p->timed.queue[(p->timed.qhead + i) % p->nslots] = restore_client_index(p, r);
    p->timed.busy = sgd_ckr_count(r, 1, "server busy") != 0;
    sim_rng_restore(p->timed.server_rng, r);
    return 0;
}

static void save_trace(const ps_t *p, sgd_ckw_t *w)
{
    sgd_ckw_u64(w, p->trace.next_flow);
    sgd_ckw_i64(w, p->trace.service_t0);
    sgd_ckw_u64(w, p->trace.push_bytes);
    sgd_ckw_u64(w, p->trace.fetch_bytes);
}

static void restore_trace(ps_t *p, sgd_ckr_t *r)
{
    p->trace.next_flow = sgd_ckr_u64(r);
    p->trace.service_t0 = sgd_ckr_i64(r);
    p->trace.push_bytes = sgd_ckr_u64(r);
    p->trace.fetch_bytes = sgd_ckr_u64(r);
    /* at most one message of each kind per client on its way */
    const uint64_t most = (uint64_t)p->lambda * p->msg_bytes;
    if (!r->failed && (!time_fits(p, p->trace.service_t0) || p->trace.push_bytes > most ||
                       p->trace.fetch_bytes > most))
        sgd_ckr_fail(r, "timeline: service at %lld ns, %llu and %llu bytes on their way",
                     (long long)p->trace.service_t0, (unsigned long long)p->trace.push_bytes,
                     (unsigned long long)p->trace.fetch_bytes);
}

/* ---- the rule's state ------------------------------------------------------------------ */

/* Where the rule's saved state starts and how long it is (ps_rule.h, state_header). */
static size_t rule_saved(const ps_t *p, unsigned char **at)
{
    const ps_rule_t *rule = p->o->rule;
    size_t bytes = rule->state_bytes ? rule->state_bytes(p->o, p->ctx->nparams) : 0;
    SGD_ASSERT(rule->state_header <= bytes || bytes == 0);
    size_t header = bytes ? rule->state_header : 0;
    *at = (unsigned char *)p->rule_state + header;
    return bytes - header;
}

/* ---- alg_ckpt_ops_t -------------------------------------------------------------------- */

static bool ps_settle(void *state)
{
    return ps_drain(state);
}

static int ps_save(const void *state, sgd_ckw_t *w, sgd_err_t *err)
{
    (void)err;
    const ps_t *p = state;
    SGD_ASSERT(!p->stop.stopped && p->ledger.nupd == 0); /* settled (file comment) */
    sgd_ckw_tag(w, "ps");
    sgd_ckw_u64(w, (uint64_t)p->nslots);
    ps_server_save(&p->srv, w);
    save_snapshots(p, w);
    if (p->pop.tasks) ps_pop_save(&p->pop, w);
    sgd_ckw_tag(w, "clients");
    for (int64_t k = 0; k < p->nslots; k++) save_client(p, &p->cl[k], w);
    save_sched(p, w);
    sgd_ckw_tag(w, p->o->driver == PS_DRIVER_UNIFORM ? "uniform" : "timed");
    if (p->o->driver == PS_DRIVER_UNIFORM) save_uniform(p, w);
    else save_timed(p, w);
    ps_round_save(p, w);
    save_trace(p, w);
    unsigned char *rule;
    size_t n = rule_saved(p, &rule);
    sgd_ckw_tag(w, "rule");
    sgd_ckw_bytes(w, rule, n);
    return 0;
}

/* Everything after the server: snapshots, holders, the buffer, the driver, the rule. */
static int restore_rest(ps_t *p, snap_table_t *t, sgd_ckr_t *r, sgd_err_t *err)
{
    restore_snapshots(p, t, r);
    if (p->pop.tasks) ps_pop_restore(&p->pop, r);
    sgd_ckr_tag(r, "clients");
    for (int64_t k = 0; k < p->nslots && !r->failed; k++)
        restore_client(p, k, &p->cl[k], t, r);
    ps_slots_check_busy(p, r);
    restore_sched(p, t, r);
    check_held(p, t, r);
    sgd_ckr_tag(r, p->o->driver == PS_DRIVER_UNIFORM ? "uniform" : "timed");
    if (sgd_ckr_check(r, "parameter server", err)) return -1;
    if (p->o->driver == PS_DRIVER_UNIFORM) restore_uniform(p, r);
    else if (restore_timed(p, r, err)) return -1;
    ps_round_restore(p, r);
    ps_slots_restore_devices(p);
    restore_trace(p, r);
    unsigned char *rule;
    size_t n = rule_saved(p, &rule);
    sgd_ckr_tag(r, "rule");
    sgd_ckr_bytes(r, rule, n, "the rule's state");
    const ps_rule_t *rl = p->o->rule;
    SGD_ASSERT(n == 0 || rl->check_state); /* a rule that saves state checks it (ps_rule.h) */
    char why[200];
    if (!r->failed && n > 0 && !rl->check_state(p->rule_state, p->ctx->nparams, why, sizeof why))
        sgd_ckr_fail(r, "the rule's state: %s", why);
    return sgd_ckr_check(r, "parameter server", err);
}

static int ps_restore(void *state, sgd_ckr_t *r, sgd_err_t *err)
{
    ps_t *p = state;
    forget_snapshots(p); /* the initial one ps_create gave every client */
    sgd_ckr_tag(r, "ps");
    uint64_t lambda = sgd_ckr_u64(r);
    if (!r->failed && lambda != (uint64_t)p->nslots)
        sgd_ckr_fail(r, "%llu clients saved, this run has %lld", (unsigned long long)lambda,
                     (long long)p->nslots);
    if (!r->failed) ps_server_restore(&p->srv, p->ctx->updates, r);
    if (!r->failed && p->srv.peak_live > max_held(p))
        sgd_ckr_fail(r, "server: %lld snapshots alive at once, this run holds at most %lld",
                     (long long)p->srv.peak_live, (long long)max_held(p));
    ps_reset_checks(p);
    snap_table_t t = {0};
    int rc = sgd_ckr_check(r, "parameter server", err) || restore_rest(p, &t, r, err) ? -1 : 0;
    free(t.snap);
    if (rc) forget_snapshots(p);
    return rc;
}

/* What save writes, about: the snapshots dominate. */
static size_t ps_state_size(const void *state)
{
    const ps_t *p = state;
    held_t *h = sgd_xmalloc((size_t)max_held(p) * sizeof *h);
    int64_t n = gather_held(p, h);
    free(h);
    const size_t np = p->ctx->nparams * sizeof(float);
    size_t clients = (size_t)p->nslots * (160 + (size_t)p->o->k_push * 16 +
                                          (p->cl[0].last.grad ? np + 8 : 0)) +
                     (size_t)p->sched.nbuf * (48 + (size_t)p->o->k_push * 16);
    /* registered clients: task and contribution counts, busy flags; each slot's task */
    const size_t population =
        p->pop.tasks ? (size_t)p->lambda * 9 + (size_t)p->nslots * 96 + 256 : 0;
    unsigned char *rule;
    return 1024 + (size_t)n * (np + 16) + clients + population + rule_saved(p, &rule) +
           (size_t)(p->srv.tau.len + p->srv.age.len) * 16;
}

const alg_ckpt_ops_t ps_ckpt_ops = {.state_size = ps_state_size,
                                    .settle = ps_settle,
                                    .save = ps_save,
                                    .restore = ps_restore,
                                    .verify = ps_verify};
