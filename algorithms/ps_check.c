/* What a restored parameter-server run is checked against before it may go on (alg.h,
 * alg_ckpt_ops_t's verify; ps_ckpt.c reads the state and checks each value on its own).
 *
 * A checkpoint is written between events, settled (ps_ckpt.c): the ledger empty, the
 * parameters at the server's version.  Then every client is in exactly one place:
 *   timed driver   computing (a compute_done event), its push on its way to the server
 *                  (push_arrive), queued at the server (in the FCFS queue, the head being
 *                  served while a server_done is pending), its fetch on its way back
 *                  (fetch_arrive, with the snapshot it will hold), or -- under fetch
 *                  "after_update" -- blocked, its push in the server's buffer until the
 *                  update that applies it;
 *   uniform driver unblocked (one of the clients the one pending iteration picks from), or
 *                  blocked as above.
 * A push a client is sending carries its gradients (one, Downpour's k_push, or none when it
 * re-applies B-FASGD's last gradient); a client not sending holds none (Downpour: those of
 * its steps since its last push).  The counters agree with one another: the gradients
 * requested are the clients' steps, each pushed or skipped; the traffic's bytes are its
 * messages' sizes; the histograms' sums are their values'. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/ps_state.h"

/* ---- the events ------------------------------------------------------------------------ */

/* One more event of `count[entity]`'s kind for a client in range (arg unused). */
static bool count_client(const ps_t *p, int32_t *count, const sim_event_t *ev, char *why,
                         size_t size)
{
    if (ev->entity < (uint64_t)p->nslots && ev->arg == 0) {
        count[ev->entity]++;
        return true;
    }
    snprintf(why, size, "client %u of %lld", ev->entity, (long long)p->nslots);
    return false;
}

static bool check_compute(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    ps_t *p = arg;
    return count_client(p, p->ck.compute, ev, why, size);
}

static bool check_push(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    ps_t *p = arg;
    return count_client(p, p->ck.push, ev, why, size);
}

static bool check_fetch(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    ps_t *p = arg;
    return count_client(p, p->ck.fetch, ev, why, size);
}

/* The server's service, or the uniform driver's iteration: one of its own. */
static bool check_single(int64_t *count, const sim_event_t *ev, char *why, size_t size)
{
    if (ev->entity == 0 && ev->arg == 0 && (*count)++ == 0) return true;
    snprintf(why, size, "a second one, or one for entity %u", ev->entity);
    return false;
}

static bool check_served(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    ps_t *p = arg;
    return check_single(&p->ck.served, ev, why, size);
}

static bool check_iteration(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    ps_t *p = arg;
    return check_single(&p->ck.iterations, ev, why, size);
}

void ps_set_checks(ps_t *p)
{
    sim_engine_t *e = p->ctx->engine;
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        sim_engine_set_check(e, p->uniform.ev_iter, check_iteration);
        return;
    }
    p->ck.compute = SGD_ARENA_NEW(&p->arena, p->nslots, int32_t);
    p->ck.push = SGD_ARENA_NEW(&p->arena, p->nslots, int32_t);
    p->ck.fetch = SGD_ARENA_NEW(&p->arena, p->nslots, int32_t);
    sim_engine_set_check(e, p->timed.ev_compute_done, check_compute);
    sim_engine_set_check(e, p->timed.ev_push_arrive, check_push);
    sim_engine_set_check(e, p->timed.ev_server_done, check_served);
    sim_engine_set_check(e, p->timed.ev_fetch_arrive, check_fetch);
    if (p->pop.sampling || p->pop.behaviour) ps_slots_set_checks(p);
}

void ps_reset_checks(ps_t *p)
{
    p->ck.served = p->ck.iterations = 0;
    if (p->o->driver == PS_DRIVER_UNIFORM) return;
    for (int64_t k = 0; k < p->nslots; k++) p->ck.compute[k] = p->ck.push[k] = p->ck.fetch[k] = 0;
    if (p->ck.dropout) ps_slots_reset_checks(p);
}

/* ---- where each client is -------------------------------------------------------------- */

/* Pushes of client k the server buffers. */
static int64_t buffered(const ps_t *p, int64_t k)
{
    int64_t n = 0;
    for (int64_t b = 0; b < p->sched.nbuf; b++) n += p->sched.buf[b].client == k;
    return n;
}

/* Times client k is in the server's queue. */
static int64_t queued(const ps_t *p, int64_t k)
{
    int64_t n = 0;
    for (int64_t i = 0; i < p->timed.qlen; i++)
        n += p->timed.queue[(p->timed.qhead + i) % p->nslots] == k;
    return n;
}

/* Whether a push holds what it should: being sent, its gradients (Downpour: k_push; else
 * one) or, re-applying, none; not being sent, none (Downpour: its steps since the last). */
static bool push_fits(const ps_t *p, const ps_client_t *c, bool sending)
{
    const ps_sent_t *s = &c->push;
    const bool downpour = p->o->rule->protocol == PS_PROTO_DOWNPOUR;
    if (!sending) return !s->reapply && s->nreq == (downpour ? c->steps % p->o->k_push : 0);
    if (s->reapply) return s->nreq == 0 && p->o->rule->gated;
    return s->nreq == (downpour ? p->o->k_push : 1);
}

/* Client k of the timed driver, in exactly one place (file comment); with sampling or a
 * clients section also dropping out or waiting (ps_slots_ckpt.c), and in a round a slot
 * without a client holds nothing at all. */
static int check_timed_client(const ps_t *p, int64_t k, sgd_err_t *err)
{
    const ps_client_t *c = &p->cl[k];
    const bool blocking = p->o->fetch == PS_FETCH_AFTER_UPDATE;
    const int64_t inq = queued(p, k), sending = p->ck.push[k] + inq;
    const int64_t places = p->ck.compute[k] + sending + p->ck.fetch[k] +
                           (blocking ? buffered(p, k) : 0) + ps_slot_pending(p, k);
    const int64_t expected = ps_slot_expected_places(p, k);
    if (places != expected)
        return sgd_errf(err, "parameter server: client %lld is in %lld places (computing %d, "
                             "pushing %d, queued %lld, fetching %d)", (long long)k,
                        (long long)places, p->ck.compute[k], p->ck.push[k], (long long)inq,
                        p->ck.fetch[k]);
    if ((c->timed.incoming != NULL) != (p->ck.fetch[k] == 1))
        return sgd_errf(err, "parameter server: client %lld: a fetch on its way without the "
                             "snapshot it brings, or the reverse", (long long)k);
    if (!push_fits(p, c, sending == 1))
        return sgd_errf(err, "parameter server: client %lld: its push holds %d gradients "
                             "(re-applying: %d) %s", (long long)k, c->push.nreq,
                        (int)c->push.reapply, sending ? "while sending it" : "while not sending");
    return 0;
}

/* Client k of the uniform driver: unblocked, or blocked with its push in the buffer. */
static int check_uniform_client(const ps_t *p, int64_t k, sgd_err_t *err)
{
    const ps_client_t *c = &p->cl[k];
    const int64_t held = buffered(p, k);
    const bool blocked = c->slot == UINT32_MAX;
    if (p->o->fetch == PS_FETCH_AFTER_UPDATE ? held != (blocked ? 1 : 0) : blocked)
        return sgd_errf(err, "parameter server: client %lld is %s with %lld pushes buffered",
                        (long long)k, blocked ? "blocked" : "unblocked", (long long)held);
    if (!push_fits(p, c, false))
        return sgd_errf(err, "parameter server: client %lld holds a push of %d gradients "
                             "between iterations", (long long)k, c->push.nreq);
    return 0;
}

static int check_driver(const ps_t *p, sgd_err_t *err)
{
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        if (p->ck.iterations != 1)
            return sgd_errf(err, "parameter server: %lld iterations pending, one expected",
                            (long long)p->ck.iterations);
    } else if (p->timed.busy != (p->timed.qlen > 0) || p->ck.served != p->timed.busy) {
        return sgd_errf(err, "parameter server: %lld pushes queued, the server %s, %lld "
                             "services pending", (long long)p->timed.qlen,
                        p->timed.busy ? "busy" : "idle", (long long)p->ck.served);
    }
    for (int64_t k = 0; k < p->nslots; k++)
        if (p->o->driver == PS_DRIVER_UNIFORM ? check_uniform_client(p, k, err)
                                              : check_timed_client(p, k, err))
            return -1;
    return ps_slots_verify(p, err);
}

/* ---- the counters against each other --------------------------------------------------- */

/* A push's gradients: each requested already; its versions in order -- the oldest
 * gradient's snapshot is the one its parameters' version names, its staleness counts from
 * that version or a later one, and none is past the server's. */
static bool push_consistent(const ps_t *p, const ps_sent_t *s)
{
    if (s->nreq == 0 && !s->reapply) return true;
    /* only FRED's counting of a skipped fetch stamps a version later than the parameters' */
    const bool same = !p->o->fred_skip_tau;
    bool ok = s->params_version <= s->version && s->version <= p->srv.version &&
              (!same || s->version == s->params_version) &&
              (s->nreq == 0 || s->reqs[0].snap->version == s->params_version);
    for (int r = 0; r < s->nreq; r++)
        ok = ok && s->reqs[r].t < p->sched.t_next &&
             (r == 0 || s->reqs[r].snap->version >= s->reqs[r - 1].snap->version);
    return ok;
}

static int check_pushes(const ps_t *p, sgd_err_t *err)
{
    int64_t steps = 0, pushed = 0;
    for (int64_t k = 0; k < p->nslots; k++) {
        const ps_client_t *c = &p->cl[k];
        steps += c->steps;
        pushed += c->steps / p->o->k_push;
        const bool same = !p->o->fred_skip_tau; /* as in push_consistent */
        if (c->snap->version > c->stamp || (same && c->snap->version != c->stamp) ||
            !push_consistent(p, &c->push) ||
            (c->last.has && (c->last.params_version > c->last.version ||
                             (same && c->last.params_version != c->last.version))))
            return sgd_errf(err, "parameter server: client %lld: versions out of order",
                            (long long)k);
    }
    for (int64_t b = 0; b < p->sched.nbuf; b++) {
        const ps_sent_t *s = &p->sched.buf[b].push;
        if ((s->nreq == 0) != s->reapply || !push_consistent(p, s))
            return sgd_errf(err, "parameter server: buffered push %lld out of range",
                            (long long)b);
    }
    const ps_traffic_t *u = &p->srv.push;
    const bool downpour = p->o->rule->protocol == PS_PROTO_DOWNPOUR;
    /* a local task requests as many minibatch indices as it has steps, one at least */
    if ((p->o->local.on ? steps > p->sched.t_next : steps != p->sched.t_next) ||
        (downpour ? u->sent_msgs != (uint64_t)pushed || u->skipped_msgs != 0
                  : u->sent_msgs + u->skipped_msgs != (uint64_t)steps))
        return sgd_errf(err, "parameter server: %lld gradients requested, the clients made "
                             "%lld, %llu pushes sent and %llu skipped",
                        (long long)p->sched.t_next, (long long)steps,
                        (unsigned long long)u->sent_msgs, (unsigned long long)u->skipped_msgs);
    return 0;
}

/* Each message of the traffic counters is one parameter or gradient message. */
static bool traffic_fits(const ps_traffic_t *t, uint64_t bytes)
{
    return t->sent_bytes == t->sent_msgs * bytes && t->skipped_bytes == t->skipped_msgs * bytes;
}

/* The sum of a histogram's values, as ps_hist_add adds them (exact below 2^53). */
static bool hist_fits(const ps_hist_t *h)
{
    double sum = 0;
    for (int64_t x = 0; x < h->len; x++) sum += (double)x * (double)h->bins[x];
    return isfinite(h->sum) && (sum >= 0x1p53 || h->sum == sum);
}

static int check_counters(const ps_t *p, sgd_err_t *err)
{
    const ps_server_t *s = &p->srv;
    const alg_ctx_t *ctx = p->ctx;
    const int64_t every = p->s->eval_every, now = sim_engine_now(ctx->engine);
    const int64_t counts_at = every > 0 && ctx->updates >= every
                                  ? ctx->updates / every * every : -1;
    if (!traffic_fits(&s->fetch, p->msg_bytes) || !traffic_fits(&s->push, p->msg_bytes))
        return sgd_errf(err, "parameter server: traffic bytes are not its messages' sizes");
    if (s->tau.n != s->age.n || !hist_fits(&s->tau) || !hist_fits(&s->age))
        return sgd_errf(err, "parameter server: staleness and age histograms disagree");
    if (s->peak_live < s->live)
        return sgd_errf(err, "parameter server: %lld snapshots alive, at most %lld ever",
                        (long long)s->live, (long long)s->peak_live);
    if (p->counts_emitted_at != counts_at || p->last_vtime < 0 || p->last_vtime > now ||
        (ctx->updates == 0 && p->last_vtime != 0))
        return sgd_errf(err, "parameter server: counts last written at update %lld, the "
                             "latest update at %lld ns", (long long)p->counts_emitted_at,
                        (long long)p->last_vtime);
    return 0;
}

int ps_verify(void *state, sgd_err_t *err)
{
    const ps_t *p = state;
    if (check_driver(p, err) || check_pushes(p, err) || check_counters(p, err)) return -1;
    return p->timed.net ? sim_net_check_times(p->timed.net,
                                              sim_engine_latest(p->ctx->engine), err)
                        : 0;
}
