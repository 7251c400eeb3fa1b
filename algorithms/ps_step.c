/* The parameter-server family's update step: schedule_update -> drain -> apply_update.
 *
 * Numerics meet time lazily (docs/design.md, "Real gradients meet virtual time at one seam"): a
 * push records WHICH gradient it carries -- (snapshot, minibatch) -- and the gradient is
 * evaluated when the server's update is applied.  ps_schedule_update writes the update into
 * the ledger (ps_ledger.h) with the staleness tau = server version - push_version of each
 * push; ps_drain applies the ledger's updates in order; apply_update computes
 *
 *     theta_i -= (1/c) sum_k lr s(tau_k) g_k,i / d_i          (ps_rules.h)
 *
 * and hands the update to the runner (alg_update_done).  Without a normaliser the requests
 * of one update that share a snapshot and a staleness factor are ONE stacked minibatch (the
 * mean over their rows is (1/count) * the sum of their gradients), so hardsync with lambda x
 * mu is bit for bit minibatch SGD with lambda*mu rows, and softsync with n = 1 without
 * staleness scaling is bit for bit hardsync.  With a normaliser every gradient is folded into
 * the statistics on its own, in arrival order. */
#include <string.h>

#include "algorithms/ps_state.h"
#include "models/optim.h"

bool ps_rule_norm_mean(const ps_t *p, double *mean)
{
    const ps_rule_t *r = p->o->rule;
    return r->norm_mean && r->norm_mean(p->rule_state, mean);
}

/* sum += x, element-wise on arrays that never overlap (restrict lets the compiler
 * vectorise it without overlap checks; element-wise, so vectorising changes no result). */
static void add_into(float *restrict sum, const float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++) sum[i] += x[i];
}

/* Schedules the c buffered pushes as one update at virtual time `now`: their staleness and
 * factors, terms and minibatches are fixed now (ps_ledger_schedule); the arithmetic is left
 * to apply_update, at once or when the ledger is drained.  Returns false when the run must
 * stop. */
bool ps_schedule_update(ps_t *p, int64_t now)
{
    if (p->stop.stopped) return false;
    const int64_t version = p->srv.version;
    for (int64_t b = 0; b < p->sched.nbuf; b++) {
        const ps_buffered_t *e = &p->sched.buf[b];
        const int64_t tau = version - e->push.version;
        p->sched.pushes[b] = (ps_push_t){.client = e->client, .owner = e->push.owner,
                                         .samples = ps_client_samples(p, e->push.owner),
                                         .tau = tau,
                                         .age = version - e->push.params_version,
                                         .factor = ps_staleness_factor(p->o->staleness, tau),
                                         .reqs = e->push.reqs, .nreq = e->push.nreq,
                                         .reapply = e->push.reapply,
                                         .sample_rng = p->cl[e->client].sample_rng};
    }
    const ps_update_t head = {
        .vtime = now, .lr = lr_at(&p->s->lr, version, p->c * p->mu), .fetch = p->srv.fetch,
        .push = p->srv.push, .peak_live = p->srv.peak_live, .pop = p->pop.stats,
        .events = sim_engine_counters(p->ctx->engine).events_processed + 1};
    ps_ledger_schedule(&p->ledger, &head, p->sched.pushes, p->sched.nbuf);
    for (int64_t b = 0; b < p->sched.nbuf; b++) { /* the ledger pinned what it needs */
        ps_sent_t *push = &p->sched.buf[b].push;
        for (int r = 0; r < push->nreq; r++) ps_snap_release(&p->srv, push->reqs[r].snap);
        push->nreq = 0;
        push->reapply = false;
    }
    ps_server_bump(&p->srv);

    /* Run ahead of the numerics while the ledger holds fewer than gradient_batch requests;
     * the last update is applied at once, so that the run ends at the same event. */
    if (p->ledger.nlreq < p->o->gradient_batch && p->srv.version < p->s->stop_updates)
        return true;
    return ps_drain(p);
}

/* The rule's normaliser mean, where it has one.  Returns alg_metric's status. */
static int emit_norm_mean(ps_t *p, int64_t n, int64_t t)
{
    double mean;
    return ps_rule_norm_mean(p, &mean) ? alg_metric(p->ctx, n, t, "norm_mean", mean) : 0;
}

/* Traffic so far next to each validation point (as the schedule counted it at update u):
 * Experiment 3's actual vs potential copies as curves.  Returns alg_metric's status. */
static int emit_counts(ps_t *p, const ps_update_t *u)
{
    alg_ctx_t *ctx = p->ctx;
    p->counts_emitted_at = ctx->updates;
    const int64_t n = ctx->updates, t = u->vtime;
    return alg_metric(ctx, n, t, "fetch_sent", (double)u->fetch.sent_msgs) ||
                   alg_metric(ctx, n, t, "fetch_skipped", (double)u->fetch.skipped_msgs) ||
                   alg_metric(ctx, n, t, "push_sent", (double)u->push.sent_msgs) ||
                   alg_metric(ctx, n, t, "push_skipped", (double)u->push.skipped_msgs) ||
                   emit_norm_mean(p, n, t) ||
                   (ps_pop_extended(&p->pop, p->o) &&
                    ps_pop_metrics(&u->pop, ctx, n, t, u->push.sent_bytes, u->fetch.sent_bytes,
                                   p->o->rule->protocol == PS_PROTO_ROUNDS))
               ? -1
               : 0;
}

/* The gradient of term tm: evaluated by the ledger, or for a skipped push the client's last
 * one again; a client that may re-apply later keeps a copy.  NULL with err when the backend
 * failed. */
static const float *term_gradient(ps_t *p, ps_term_t *tm, sgd_err_t *err)
{
    ps_client_t *c = &p->cl[tm->client];
    if (!tm->snap) {
        tm->loss = c->last.loss;
        return c->last.grad;
    }
    const float *g = ps_ledger_gradient(&p->ledger, tm, err);
    if (!g) return NULL;
    if (c->last.grad) {
        memcpy(c->last.grad, g, p->ctx->nparams * sizeof *g);
        c->last.loss = tm->loss;
    }
    return g;
}

/* Term tm of update u as the rule sees it (ps_rule.h), its gradient evaluated, into *g.
 * count / c is exactly 1.0 when one term holds every request of the update, so w is then
 * exactly (float)(lr * factor), as in plain minibatch SGD.  0, or -1 with err when the
 * backend failed. */
static int term_view(ps_t *p, const ps_update_t *u, ps_term_t *tm, ps_grad_t *g,
                     sgd_err_t *err)
{
    *g = (ps_grad_t){.g = term_gradient(p, tm, err), .now = p->ctx->params,
                     .stale = tm->snap ? tm->snap->data : NULL, .tau = tm->tau,
                     .count = tm->count,
                     .w = (float)(u->lr * tm->factor * ((double)tm->count / (double)p->c)),
                     .n = p->ctx->nparams, .samples = tm->samples,
                     .samples_sum = p->update_samples};
    return g->g ? 0 : -1;
}

/* How an update's arithmetic ended: the parameters written (finite or not), or not at all
 * because a gradient could not be evaluated (the backend failed; err says why). */
typedef enum { STEP_FINITE, STEP_NONFINITE, STEP_FAILED } step_result_t;

static step_result_t finite_or_not(bool finite)
{
    return finite ? STEP_FINITE : STEP_NONFINITE;
}

/* Per-gradient rules: theta -= the sum of the terms' steps, summed in term order. */
static step_result_t step_terms(ps_t *p, const ps_update_t *u, ps_term_t *terms, float *copy,
                                double *loss_sum, sgd_err_t *err)
{
    const ps_rule_t *r = p->o->rule;
    for (int64_t j = 0; j < u->nterms; j++) {
        ps_grad_t g;
        if (term_view(p, u, &terms[j], &g, err)) return STEP_FAILED;
        *loss_sum += terms[j].loss * (double)(terms[j].count * p->mu);
        r->step(p->rule_state, &g, j == 0 ? p->step : p->term_step);
        if (j > 0) add_into(p->step, p->term_step, g.n);
    }
    return finite_or_not(ps_plain_sub(p->ctx->params, p->step, p->ctx->nparams, copy));
}

/* Combining rules: accumulate each term, then apply the sum; one term in one pass when the
 * rule can. */
static step_result_t combine_terms(ps_t *p, const ps_update_t *u, ps_term_t *terms,
                                   float *copy, double *loss_sum, sgd_err_t *err)
{
    const ps_rule_t *r = p->o->rule;
    for (int64_t j = 0; j < u->nterms; j++) {
        ps_grad_t g;
        if (term_view(p, u, &terms[j], &g, err)) return STEP_FAILED;
        *loss_sum += terms[j].loss * (double)(terms[j].count * p->mu);
        if (u->nterms == 1 && r->apply_one)
            return finite_or_not(r->apply_one(p->rule_state, &g, p->ctx->params, copy));
        r->accumulate(p->rule_state, &g, p->step, j == 0);
    }
    return finite_or_not(r->apply(p->rule_state, p->ctx->params, p->step, p->ctx->nparams,
                                  copy));
}

/* The rule's update of the parameters from the terms of update u (ps_rule.h), the new theta
 * also written to `copy` unless it is NULL; *loss is the mean loss of their rows.  Returns
 * whether the parameters are finite afterwards, or STEP_FAILED (err) with the parameters
 * unwritten. */
static step_result_t step_parameters(ps_t *p, const ps_update_t *u, ps_term_t *terms,
                                     float *copy, double *loss, sgd_err_t *err)
{
    double loss_sum = 0.0;
    int64_t loss_rows = 0;
    p->update_samples = 0;
    for (int64_t j = 0; j < u->nterms; j++) {
        loss_rows += terms[j].count * p->mu;
        p->update_samples += terms[j].samples;
    }
    const step_result_t res = p->o->rule->step
                                  ? step_terms(p, u, terms, copy, &loss_sum, err)
                                  : combine_terms(p, u, terms, copy, &loss_sum, err);
    /* one term: its own mean loss, exactly (no multiply and divide by its rows) */
    *loss = u->nterms == 1 ? terms[0].loss : loss_sum / (double)loss_rows;
    return res;
}

/* Applies scheduled update u to the parameters, then reports it to the runner as the update
 * that happened at u->vtime.  Returns false when the run must stop there. */
static bool apply_update(ps_t *p, const ps_update_t *u)
{
    alg_ctx_t *ctx = p->ctx;
    const int64_t *taus = ps_ledger_taus(&p->ledger, u), *ages = ps_ledger_ages(&p->ledger, u);
    for (int64_t i = 0; i < u->ntau; i++) ps_server_record(&p->srv, taus[i], ages[i]);

    ps_term_t *terms = ps_ledger_terms(&p->ledger, u);
    double loss;
    sgd_err_t err = {{0}};
    /* The snapshot a client took of the version this update makes, filled in the same pass. */
    float *next = ps_server_next_fill(&p->srv);
    const step_result_t res = step_parameters(p, u, terms, next, &loss, &err);
    for (int64_t j = 0; j < u->nterms; j++) ps_ledger_release(&p->ledger, &terms[j]);
    /* The update did not happen: the server never reaches its version. */
    if (res == STEP_FAILED) return alg_backend_failed(p->ctx, &err);
    ps_server_applied_filled(&p->srv, next);
    const bool finite = res == STEP_FINITE;

    p->last_vtime = u->vtime;
    ctx->events_at_update = u->events; /* the schedule has run ahead of this update */
    bool more = alg_update_done_checked(ctx, u->vtime, loss, u->lr, finite);
    const int64_t every = p->s->eval_every;
    if (ctx->status != ALG_FAILED && every > 0 && ctx->updates % every == 0 &&
        emit_counts(p, u))
        return false;
    return more;
}

/* Applies every scheduled update in order.  Returns false when the run stopped at one of
 * them (complete, diverged, failed or interrupted): the rest are dropped, and the run reports
 * the counters the schedule had at that update (ps_report) and the events processed until
 * then (ctx->events_at_stop) -- what a run that never ran ahead reports. */
bool ps_drain(ps_t *p)
{
    ps_ledger_t *l = &p->ledger;
    int64_t i = 0;
    while (i < l->nupd && !p->stop.stopped) {
        const ps_update_t *u = &l->upd[i++];
        if (!apply_update(p, u)) {
            p->stop.stopped = true;
            p->stop.at = *u;
            p->ctx->events_at_stop = u->events;
        } else {
            ps_ledger_prefetch(l); /* its slots are free again, its snapshot filled */
        }
    }
    ps_ledger_clear(l, i);
    return !p->stop.stopped;
}
