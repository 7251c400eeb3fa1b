/* The deferred-update ledger (ps_ledger.h): recording scheduled updates, evaluating their
 * gradients (batched when it can), and giving back what they held.
 *
 * Minibatches.  `cyclic` (FRED): the t-th gradient requested in the run (t = 0, 1, ...) uses
 * rows [(t mod M) mu, (t mod M) mu + mu), M = floor(N / mu).  `random`: mu rows drawn
 * uniformly with replacement from the pushing client's own stream when the update is
 * scheduled, in the order the requests lie in the ledger.  Local training (cfg.local): a
 * request is a task whose minibatches its evaluation draws itself (ps_local.h); none are
 * drawn here. */
#include "algorithms/ps_ledger.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "sim/rng.h"

/* A local task handed to the background path: what ps_local_run needs, in its slot. */
typedef struct ps_local_job {
    const ps_local_data_t *data;
    ps_task_t task;
    const float *start;
    float *out;
    ps_local_work_t *work;
} ps_local_job_t;

static int run_local_job(void *arg, sgd_grad_fn grad, void *oracle, double *loss,
                         sgd_err_t *err)
{
    ps_local_job_t *j = arg;
    return ps_local_run(j->data, &j->task, j->start, j->out, loss, j->work, grad, oracle, err);
}

/* Each batch slot's task scratch, for local tasks run in the background. */
static void init_jobs(ps_ledger_t *l, sgd_arena_t *arena)
{
    const int64_t nb = l->cfg.gradient_batch;
    const size_t floats = ps_local_work_floats(l->cfg.local);
    l->batch.work = SGD_ARENA_NEW(arena, nb, ps_local_work_t);
    l->batch.job = SGD_ARENA_NEW(arena, nb, ps_local_job_t);
    for (int64_t i = 0; i < nb; i++)
        ps_local_work_bind(&l->batch.work[i], l->cfg.local, SGD_ARENA_NEW(arena, floats, float));
}

void ps_ledger_init(ps_ledger_t *l, const ps_ledger_cfg_t *cfg, sgd_arena_t *arena)
{
    *l = (ps_ledger_t){.cfg = *cfg, .ncyc = cfg->train->n / cfg->mu};
    const size_t np = cfg->nparams, dim = (size_t)cfg->train->dim;
    l->req_term = SGD_ARENA_NEW(arena, cfg->max_reqs, int64_t);
    l->term_fill = SGD_ARENA_NEW(arena, cfg->max_reqs, int64_t);
    l->req_rng = SGD_ARENA_NEW(arena, cfg->max_reqs, gsl_rng *);
    l->stacked.grad = SGD_ARENA_NEW(arena, np, float);
    l->stacked.x = SGD_ARENA_NEW(arena, (size_t)cfg->max_rows * dim, float);
    l->stacked.y = SGD_ARENA_NEW(arena, cfg->max_rows, int32_t);
    if (cfg->local)
        ps_local_work_bind(&l->stacked.work, cfg->local,
                           SGD_ARENA_NEW(arena, ps_local_work_floats(cfg->local), float));
    if (!cfg->cyclic && !cfg->local) l->task_rng = gsl_rng_alloc(sim_rng_xoshiro256ss);
    const int64_t nb = cfg->gradient_batch;
    if (nb <= 1) return;
    l->batch.grad = SGD_ARENA_NEW(arena, nb, float *);
    l->batch.free = SGD_ARENA_NEW(arena, nb, int);
    for (int64_t i = 0; i < nb; i++) {
        l->batch.grad[i] = SGD_ARENA_NEW(arena, np, float);
        l->batch.free[i] = (int)(nb - 1 - i); /* slot 0 is taken first */
    }
    l->batch.nfree = (int)nb;
    if (!cfg->cyclic) {
        l->batch.x = SGD_ARENA_NEW(arena, (size_t)(nb * cfg->mu) * dim, float);
        l->batch.y = SGD_ARENA_NEW(arena, nb * cfg->mu, int32_t);
    }
    l->batch.term = SGD_ARENA_NEW(arena, nb, ps_term_t *);
    l->batch.params = SGD_ARENA_NEW(arena, nb, const float *);
    l->batch.x_of = SGD_ARENA_NEW(arena, nb, const float *);
    l->batch.y_of = SGD_ARENA_NEW(arena, nb, const int32_t *);
    l->batch.out = SGD_ARENA_NEW(arena, nb, float *);
    l->batch.loss = SGD_ARENA_NEW(arena, nb, double);
    l->async = sgd_backend_async_open(cfg->backend, (int)nb, (int)cfg->mu) == 1;
    if (cfg->local && l->async && sgd_backend_async_jobs(cfg->backend)) init_jobs(l, arena);
}

void ps_ledger_free(ps_ledger_t *l)
{
    for (int64_t j = 0; j < l->nterm; j++) ps_ledger_release(l, &l->terms[j]);
    free(l->upd);
    free(l->terms);
    free(l->lreq);
    free(l->taus);
    free(l->ages);
    free(l->rowpool);
    ps_local_work_free(&l->stacked.work);
    for (int64_t i = 0; l->batch.work && i < l->cfg.gradient_batch; i++)
        ps_local_work_free(&l->batch.work[i]);
    if (l->task_rng) gsl_rng_free(l->task_rng);
    *l = (ps_ledger_t){0};
}

/* ---- scheduling ------------------------------------------------------------------------ */

static void submit_ready(ps_ledger_t *l, int64_t from);

/* Makes room for `more` elements after the first `n` of a growing array. */
static void *reserve(void *a, int64_t *cap, int64_t n, int64_t more, size_t elem)
{
    if (n + more <= *cap) return a;
    int64_t want = *cap ? *cap : 64;
    while (want < n + more) want *= 2;
    *cap = want;
    return sgd_xrealloc(a, (size_t)want * elem);
}

/* The update's terms in order of first appearance (with merge, requests sharing snapshot and
 * factor join one); records each request's term in req_term.  Returns the requests. */
static int64_t group_terms(ps_ledger_t *l, ps_term_t *terms, int64_t *nterms,
                           const ps_push_t *pushes, int64_t npush)
{
    int64_t n = 0, nreq = 0;
    for (int64_t b = 0; b < npush; b++) {
        const ps_push_t *pu = &pushes[b];
        if (pu->reapply) {
            terms[n++] = (ps_term_t){.client = pu->client, .samples = pu->samples,
                                     .factor = pu->factor, .tau = pu->tau, .count = 1,
                                     .slot = -1};
            continue;
        }
        for (int r = 0; r < pu->nreq; r++, nreq++) {
            int64_t j = n;
            if (l->cfg.merge)
                for (j = 0; j < n; j++)
                    if (terms[j].snap == pu->reqs[r].snap && terms[j].factor == pu->factor) break;
            if (j == n)
                terms[n++] = (ps_term_t){.snap = pu->reqs[r].snap, .client = pu->client,
                                         .samples = pu->samples, .factor = pu->factor,
                                         .tau = pu->tau, .slot = -1};
            terms[j].count++;
            l->req_term[nreq] = j;
        }
    }
    *nterms = n;
    return nreq;
}

/* Lays the requests out terms in order and each term's in arrival order (a counting sort):
 * the order an evaluation gathers them in, and so the order "random" draws rows in. */
static void lay_out_requests(ps_ledger_t *l, ps_term_t *terms, int64_t nterms,
                             const ps_push_t *pushes, int64_t npush)
{
    for (int64_t j = 0, at = l->nlreq; j < nterms; j++) {
        ps_term_t *tm = &terms[j];
        if (!tm->snap) continue;
        ps_snap_pin(tm->snap);
        tm->first_req = l->term_fill[j] = at;
        at += tm->count;
    }
    for (int64_t b = 0, q = 0; b < npush; b++) {
        const ps_push_t *pu = &pushes[b];
        if (pu->reapply) continue;
        for (int r = 0; r < pu->nreq; r++, q++) {
            int64_t at = l->term_fill[l->req_term[q]]++;
            const ps_req_t *rq = &pu->reqs[r];
            l->lreq[at] = (ps_lreq_t){.client = pu->client, .t = rq->t, .rows = -1,
                                      .owner = pu->owner, .task = rq->task,
                                      .steps = rq->steps};
            l->req_rng[at - l->nlreq] = pu->sample_rng;
        }
    }
}

/* Minibatch "random": each request's rows, from its client's stream (or its task's), in
 * ledger order; with a partition, from the client's own samples. */
static void draw_rows(ps_ledger_t *l, int64_t nreq)
{
    const int64_t mu = l->cfg.mu;
    l->rowpool = reserve(l->rowpool, &l->cap_rowpool, l->nrowpool, nreq * mu,
                         sizeof *l->rowpool);
    for (int64_t i = l->nlreq; i < l->nlreq + nreq; i++) {
        ps_lreq_t *rq = &l->lreq[i];
        gsl_rng *rng = l->req_rng[i - l->nlreq];
        if (!rng) {
            rng = l->task_rng;
            ps_task_stream(rng, l->cfg.seed, SIM_STREAM_DATA_ORDER, rq->owner, rq->task);
        }
        const int32_t *own = l->cfg.part ? partition_indices(l->cfg.part, rq->owner) : NULL;
        const int64_t n = own ? partition_size(l->cfg.part, rq->owner) : l->cfg.train->n;
        SGD_ASSERT(n > 0);
        rq->rows = l->nrowpool;
        for (int64_t k = 0; k < mu; k++) {
            const int64_t r = (int64_t)gsl_rng_uniform_int(rng, (unsigned long)n);
            l->rowpool[l->nrowpool++] = own ? own[r] : r;
        }
    }
}

const ps_update_t *ps_ledger_schedule(ps_ledger_t *l, const ps_update_t *head,
                                      const ps_push_t *pushes, int64_t npush)
{
    const int64_t maxreq = l->cfg.max_reqs;
    l->terms = reserve(l->terms, &l->cap_terms, l->nterm, maxreq, sizeof *l->terms);
    l->lreq = reserve(l->lreq, &l->cap_lreq, l->nlreq, maxreq, sizeof *l->lreq);
    l->taus = reserve(l->taus, &l->cap_taus, l->ntau, npush, sizeof *l->taus);
    l->ages = reserve(l->ages, &l->cap_ages, l->ntau, npush, sizeof *l->ages);
    l->upd = reserve(l->upd, &l->cap_upd, l->nupd, 1, sizeof *l->upd);
    ps_update_t *u = &l->upd[l->nupd++];
    *u = *head;
    u->first_term = l->nterm;
    u->first_tau = l->ntau;
    u->ntau = npush;
    for (int64_t b = 0; b < npush; b++) {
        l->ages[l->ntau] = pushes[b].age;
        l->taus[l->ntau++] = pushes[b].tau;
    }

    ps_term_t *terms = l->terms + l->nterm;
    int64_t nreq = group_terms(l, terms, &u->nterms, pushes, npush);
    SGD_ASSERT(nreq <= maxreq);
    lay_out_requests(l, terms, u->nterms, pushes, npush);
    if (!l->cfg.cyclic && !l->cfg.local) draw_rows(l, nreq);
    l->nlreq += nreq;
    l->nterm += u->nterms;
    if (l->async) submit_ready(l, u->first_term);
    return u;
}

ps_term_t *ps_ledger_terms(ps_ledger_t *l, const ps_update_t *u)
{
    return l->terms + u->first_term;
}

const int64_t *ps_ledger_taus(const ps_ledger_t *l, const ps_update_t *u)
{
    return l->taus + u->first_tau;
}

const int64_t *ps_ledger_ages(const ps_ledger_t *l, const ps_update_t *u)
{
    return l->ages + u->first_tau;
}

/* ---- evaluation ------------------------------------------------------------------------ */

/* The first row of a cyclic minibatch (file comment, "Minibatches"). */
static int64_t cyclic_first(const ps_ledger_t *l, const ps_lreq_t *q)
{
    return (q->t % l->ncyc) * l->cfg.mu;
}

/* The row of the r-th sample of scheduled request q. */
static int64_t request_row(const ps_ledger_t *l, const ps_lreq_t *q, int64_t r)
{
    return l->cfg.cyclic ? cyclic_first(l, q) + r : l->rowpool[q->rows + r];
}

/* One cyclic minibatch is a contiguous block of the training set: read it in place instead
 * of copying (the same rows, so the same bits). */
static void cyclic_block(const ps_ledger_t *l, const ps_lreq_t *q, const float **x,
                         const int32_t **y)
{
    const sgd_dataset_t *d = l->cfg.train;
    int64_t first = cyclic_first(l, q);
    *x = d->x + first * d->dim;
    *y = d->y + first;
}

static void gather_rows(const ps_ledger_t *l, const ps_lreq_t *q, float *x, int32_t *y)
{
    const sgd_dataset_t *d = l->cfg.train;
    for (int64_t r = 0; r < l->cfg.mu; r++) {
        int64_t row = request_row(l, q, r);
        memcpy(x + r * d->dim, d->x + row * d->dim, (size_t)d->dim * sizeof *x);
        y[r] = d->y[row];
    }
}

/* A scheduled single-minibatch term that can be evaluated ahead of its update now. */
static bool ready_single(const ps_ledger_t *l, const ps_term_t *t)
{
    return !l->cfg.local && t->snap && !t->grad && t->slot < 0 && t->count == 1 &&
           t->snap->version <= l->cfg.srv->applied;
}

/* Takes a free batch slot for term t and lays its minibatch out for slot s: in place when
 * cyclic, else gathered into the slot's rows. */
static int take_slot(ps_ledger_t *l, ps_term_t *t, const float **x, const int32_t **y)
{
    const int s = l->batch.free[--l->batch.nfree];
    const ps_lreq_t *q = &l->lreq[t->first_req];
    t->slot = s;
    if (l->cfg.cyclic) {
        cyclic_block(l, q, x, y);
    } else {
        const size_t rows = (size_t)s * (size_t)l->cfg.mu;
        float *bx = l->batch.x + rows * (size_t)l->cfg.train->dim;
        int32_t *by = l->batch.y + rows;
        gather_rows(l, q, bx, by);
        *x = bx;
        *y = by;
    }
    return s;
}

/* A local task that can run in the background now: its snapshot filled, a job path. */
static bool ready_local(const ps_ledger_t *l, const ps_term_t *t)
{
    return l->batch.job && t->snap && !t->grad && t->slot < 0 &&
           t->snap->version <= l->cfg.srv->applied;
}

/* Hands local task t to the background path in a free slot: its delta into the slot's
 * gradient, its steps on the slot's scratch. */
static void submit_local(ps_ledger_t *l, ps_term_t *t)
{
    const int s = l->batch.free[--l->batch.nfree];
    const ps_lreq_t *q = &l->lreq[t->first_req];
    t->slot = s;
    t->queued = true;
    l->batch.job[s] = (ps_local_job_t){
        .data = l->cfg.local,
        .task = {.client = q->owner, .task = q->task, .t = q->t, .steps = q->steps},
        .start = t->snap->data, .out = l->batch.grad[s], .work = &l->batch.work[s]};
    sgd_backend_async_submit_job(l->cfg.backend, s, run_local_job, &l->batch.job[s],
                                 (uint64_t)q->steps);
}

/* Background evaluation (the backend's async path): hands every ready single-minibatch term
 * (or local task) from `from` on to the backend while slots are free, in schedule order. */
static void submit_ready(ps_ledger_t *l, int64_t from)
{
    for (int64_t j = from; j < l->nterm && l->batch.nfree > 0; j++) {
        ps_term_t *t = &l->terms[j];
        if (ready_local(l, t)) {
            submit_local(l, t);
            continue;
        }
        if (!ready_single(l, t)) continue;
        const float *x;
        const int32_t *y;
        const int s = take_slot(l, t, &x, &y);
        t->queued = true;
        sgd_backend_async_submit(l->cfg.backend, s, t->snap->data, x, y, l->batch.grad[s]);
    }
}

void ps_ledger_prefetch(ps_ledger_t *l)
{
    if (l->async) submit_ready(l, 0);
}

/* A queued term's result: waits for it, or computes it here if nobody started it.  0, or
 * -1 with err when the backend failed (tm then has no gradient). */
static int collect(ps_ledger_t *l, ps_term_t *tm, sgd_err_t *err)
{
    tm->queued = false;
    if (sgd_backend_async_collect(l->cfg.backend, tm->slot, &tm->loss, err)) return -1;
    tm->grad = l->batch.grad[tm->slot];
    return 0;
}

/* Evaluates tm with the ready single-minibatch terms after it, one free slot each, in one
 * loss_grad_batched call.  0, or -1 with err when the backend failed (no term has its
 * gradient then; their slots go back when they are released). */
static int evaluate_batched(ps_ledger_t *l, ps_term_t *tm, sgd_err_t *err)
{
    const int64_t mu = l->cfg.mu;
    const int room = l->batch.nfree;
    int k = 0;
    for (ps_term_t *t = tm; t < l->terms + l->nterm && k < room; t++) {
        if (!ready_single(l, t)) continue;
        take_slot(l, t, &l->batch.x_of[k], &l->batch.y_of[k]);
        l->batch.term[k] = t;
        l->batch.params[k] = t->snap->data;
        l->batch.out[k] = l->batch.grad[t->slot];
        k++;
    }
    if (sgd_backend_loss_grad_batched(l->cfg.backend, k, l->batch.params, l->batch.x_of,
                                      l->batch.y_of, (int)mu, l->batch.out, l->batch.loss, err))
        return -1;
    for (int i = 0; i < k; i++) {
        l->batch.term[i]->grad = l->batch.out[i];
        l->batch.term[i]->loss = l->batch.loss[i];
    }
    return 0;
}

/* Evaluates tm alone, its requests stacked into one minibatch, into the stacked scratch.
 * 0, or -1 with err when the backend failed. */
static int evaluate_stacked(ps_ledger_t *l, ps_term_t *tm, sgd_err_t *err)
{
    const int dim = l->cfg.train->dim;
    const int64_t mu = l->cfg.mu;
    const ps_lreq_t *q = &l->lreq[tm->first_req];
    const float *x = l->stacked.x;
    const int32_t *y = l->stacked.y;
    if (tm->count == 1 && l->cfg.cyclic) {
        cyclic_block(l, q, &x, &y);
    } else {
        SGD_ASSERT(tm->count * mu <= l->cfg.max_rows);
        for (int64_t i = 0; i < tm->count; i++)
            gather_rows(l, &q[i], l->stacked.x + i * mu * dim, l->stacked.y + i * mu);
    }
    if (sgd_backend_loss_grad(l->cfg.backend, tm->snap->data, x, y, (int)(tm->count * mu),
                              l->stacked.grad, &tm->loss, err))
        return -1;
    tm->grad = l->stacked.grad;
    return 0;
}

/* The backend's loss_grad as a ps_grad_fn. */
static int backend_grad(void *backend, const float *params, const float *x, const int32_t *y,
                        int rows, float *grad, double *loss, sgd_err_t *err)
{
    return sgd_backend_loss_grad(backend, params, x, y, rows, grad, loss, err);
}

/* Runs local task tm on this thread into the stacked scratch.  0, or -1 with err when the
 * backend failed. */
static int evaluate_local(ps_ledger_t *l, ps_term_t *tm, sgd_err_t *err)
{
    const ps_lreq_t *q = &l->lreq[tm->first_req];
    const ps_task_t task = {.client = q->owner, .task = q->task, .t = q->t, .steps = q->steps};
    SGD_ASSERT(tm->count == 1 && q->steps > 0);
    if (ps_local_run(l->cfg.local, &task, tm->snap->data, l->stacked.grad, &tm->loss,
                     &l->stacked.work, backend_grad, l->cfg.backend, err))
        return -1;
    tm->grad = l->stacked.grad;
    return 0;
}

const float *ps_ledger_gradient(ps_ledger_t *l, ps_term_t *tm, sgd_err_t *err)
{
    SGD_ASSERT(tm->snap && tm->snap->version <= l->cfg.srv->applied);
    if (tm->grad) return tm->grad;
    if (l->async && !tm->queued) submit_ready(l, tm - l->terms);
    if (l->cfg.local && !tm->queued) return evaluate_local(l, tm, err) ? NULL : tm->grad;
    int rc;
    if (tm->queued)
        rc = collect(l, tm, err);
    else if (tm->count == 1 && l->batch.nfree > 0)
        rc = evaluate_batched(l, tm, err);
    else
        rc = evaluate_stacked(l, tm, err);
    return rc ? NULL : tm->grad;
}

/* ---- giving back ----------------------------------------------------------------------- */

void ps_ledger_release(ps_ledger_t *l, ps_term_t *tm)
{
    sgd_err_t ignored; /* a result nobody will read: only its slot must be free again */
    if (tm->queued) (void)collect(l, tm, &ignored); /* the backend may be writing its slot */
    if (tm->slot >= 0) l->batch.free[l->batch.nfree++] = tm->slot;
    tm->slot = -1;
    if (tm->snap) ps_snap_unpin(l->cfg.srv, tm->snap);
}

void ps_ledger_clear(ps_ledger_t *l, int64_t applied)
{
    for (int64_t j = applied < l->nupd ? l->upd[applied].first_term : l->nterm; j < l->nterm;
         j++)
        ps_ledger_release(l, &l->terms[j]);
    l->nupd = l->nterm = l->ntau = l->nlreq = l->nrowpool = 0;
}
