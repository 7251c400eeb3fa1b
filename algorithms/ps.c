/* The parameter-server family: SASGD, FASGD, B-FASGD, Downpour and hardsync (NOTES.md §2-3),
 * each registered under its own algorithm.name, sharing one implementation.
 *
 * Clients.  lambda clients (cluster.workers) each hold a snapshot of the parameters they last
 * fetched (ps_server.h: shared, reference-counted) and compute gradients of minibatches of mu
 * rows (batch.per_worker) on it.  A push delivers a gradient to the server; the server applies
 * an update once it holds c gradients (n-softsync: c = lambda / n; hardsync: c = lambda;
 * Downpour: c = 1) and then each client whose gradient was applied gets a fetch opportunity.
 * A client that pushed waits for that update ("blocked"), as in the authors' simulator.
 *
 * Drivers.  `uniform` is FRED's schedule: no clocks; each iteration a uniformly random
 * unblocked client (stream client_pick) finishes a gradient; iteration i happens at virtual
 * time i + 1 ns.  `timed`: clients fetch and push over a star network with the server at
 * endpoint 0, compute for a modelled time (compute.*, io.*, cluster.time_factor per client),
 * and the server serves arrivals first come first served, each taking algorithm.server_time_s.
 *
 * Numerics meet time lazily (DESIGN.md, "real gradients meet virtual time at one seam"): a
 * push records WHICH gradient it carries — (snapshot, minibatch) — and the gradient is
 * evaluated when the server applies it.  Without a normaliser, the requests of one update
 * that share a snapshot and a staleness factor are evaluated as ONE stacked minibatch in
 * arrival order (the mean over their rows is (1/count) * the sum of their gradients), so
 * hardsync with lambda x mu is bit for bit minibatch SGD with lambda*mu rows, and softsync
 * with n = 1 without staleness scaling is bit for bit hardsync.  With a normaliser every
 * gradient is evaluated and folded into the statistics on its own, in arrival order.
 *
 * Deferred numerics.  Nothing the schedule decides depends on the parameters' values (only
 * B-FASGD's gates read the normaliser), so the schedule may run ahead of the arithmetic: an
 * update the server makes is written to a ledger — its terms, minibatches (drawn then, in
 * the order an immediate evaluation would draw them), staleness and learning rate — and
 * applied later, in order, by drain().  Applying update u evaluates u's single-minibatch
 * gradients together with the ledger's later ones whose parameter versions are already
 * applied (with staleness ~ lambda, most of them) in ONE loss_grad_batched call, up to
 * algorithm.gradient_batch gradients.  The ledger is drained when it holds gradient_batch
 * requests, at the run's last update (so the run ends at the same event), before a B-FASGD
 * gate with c > 0, and when the engine stops.  Snapshots of versions not applied yet are
 * filled when the parameters get there (ps_server.h).  The runner sees alg_update_done for
 * every update in order with the same values; a run that stops inside a drained stretch
 * (diverged, interrupted, a failed write) reports the counters the schedule had at that
 * update, and the engine's event count up to the event that made it.  So every result is
 * the same bits for any gradient_batch (tests/algorithms/test_ps.c).  gradient_batch = 1
 * (the CPU default) applies each update when the server makes it.
 *
 * Minibatches.  `cyclic` (FRED): the t-th gradient requested in the run (t = 0, 1, ...) uses
 * rows [(t mod M) mu, (t mod M) mu + mu), M = floor(N / mu).  `random`: each client draws mu
 * rows uniformly with replacement from its own stream (data_order, entity = client). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "algorithms/ps_opts.h"
#include "algorithms/ps_rules.h"
#include "algorithms/ps_server.h"
#include "models/optim.h"
#include "sim/network.h"
#include "sim/rng.h"

#if PS_HAVE_MXCSR
#include <xmmintrin.h>
#endif

/* Entity id of the server's own random stream: far above any client index, so adding a
 * client never changes the server's draws. */
#define PS_SERVER_ENTITY (1ull << 40)

/* Rows of the model workspace at least, so validation runs in large chunks even when each
 * gradient is over a single sample. */
#define PS_MIN_MODEL_BATCH 1024

static int parse_sasgd(const sgd_jobj_t *a, scn_t *s, sgd_err_t *e) { return ps_opts_parse(a, s, PS_SASGD, e); }
static int parse_fasgd(const sgd_jobj_t *a, scn_t *s, sgd_err_t *e) { return ps_opts_parse(a, s, PS_FASGD, e); }
static int parse_bfasgd(const sgd_jobj_t *a, scn_t *s, sgd_err_t *e) { return ps_opts_parse(a, s, PS_BFASGD, e); }
static int parse_downpour(const sgd_jobj_t *a, scn_t *s, sgd_err_t *e) { return ps_opts_parse(a, s, PS_DOWNPOUR, e); }
static int parse_hardsync(const sgd_jobj_t *a, scn_t *s, sgd_err_t *e) { return ps_opts_parse(a, s, PS_HARDSYNC, e); }

/* ---- state ----------------------------------------------------------------------------- */

typedef struct ps_req {      /* one gradient to evaluate: which parameters, which minibatch */
    ps_snap_t *snap;
    int64_t t;               /* index of the gradient in the run (cyclic minibatches) */
} ps_req_t;

typedef struct ps_client {
    ps_snap_t *snap;         /* the parameters it computes on */
    ps_snap_t *incoming;     /* timed: fetched snapshot in flight */
    ps_req_t *reqs;          /* gradients of the pending push (up to k_push) */
    int nreq;
    bool reapply;            /* the pending push re-applies last_grad (B-FASGD) */
    int64_t push_version;    /* staleness of the pending push counts from this version */
    int64_t stamp;           /* the version its next gradient is counted from: its snapshot's,
                              * or with skipped_fetch_tau "fred" the server's at a skip */
    int64_t steps;           /* gradients computed so far (Downpour's schedule) */
    uint32_t slot;           /* uniform: position in the unblocked array, or UINT32_MAX */
    gsl_rng *sample_rng;     /* minibatch "random" */
    gsl_rng *gate_rng;       /* B-FASGD coin flips */
    gsl_rng *compute_rng;    /* timed: compute-time draws */
    gsl_rng *io_rng;         /* timed: load-time draws */
    double time_factor;      /* timed: drawn once */
    float *last_grad;        /* B-FASGD with c_push > 0: the last gradient it sent */
    int64_t last_version;
    double last_loss;
    bool has_last;
} ps_client_t;

/* The ledger: updates the schedule has made whose arithmetic is still to do (file comment,
 * "Deferred numerics"). */
typedef struct ps_term {     /* one gradient (or stacked group of them) of a scheduled update */
    ps_snap_t *snap;         /* its parameters, pinned; NULL re-applies the client's last one */
    int32_t client;          /* its (first) client: whose last_grad (B-FASGD) */
    double factor;           /* staleness factor */
    int64_t count;           /* requests in it */
    int64_t first_req;       /* its requests: lreq[first_req, first_req + count) */
    const float *grad;       /* evaluated gradient (grad or a batch slot), NULL until then */
    int slot;                /* batch slot holding grad, or -1 */
    double loss;             /* mean loss of its rows, once evaluated */
} ps_term_t;

typedef struct ps_lreq {     /* a scheduled gradient request's minibatch */
    int32_t client;
    int64_t t;               /* its index in the run (cyclic minibatches) */
    int64_t rows;            /* "random": offset of its mu row indices in rowpool, else -1 */
} ps_lreq_t;

typedef struct ps_update {   /* a scheduled update */
    int64_t vtime;           /* when the server applied it */
    double lr;
    int64_t first_term, nterms; /* terms[first_term, first_term + nterms) */
    int64_t first_tau, ntau;    /* staleness of each push: taus[first_tau, + ntau) */
    ps_traffic_t fetch, push;   /* the schedule's traffic counters then */
    int64_t peak_live;          /* and its snapshot peak */
    uint64_t events;            /* engine events processed, the one that made it included */
} ps_update_t;

typedef struct ps {
    alg_ctx_t *ctx;
    const scn_t *s;
    const ps_opts_t *o;
    int64_t lambda, mu, c, ncyc;  /* ncyc = floor(N / mu) cyclic minibatches */
    size_t msg_bytes;             /* a parameter or gradient message */
    ps_server_t srv;
    ps_client_t *cl;
    bool has_norm;
    ps_norm_t norm;

    int64_t t_next;               /* gradients requested so far */
    int32_t *buf;                 /* clients whose push the server holds, arrival order */
    int64_t nbuf;
    int32_t *applied;             /* copy of buf while handling the clients of an update */

    /* uniform */
    uint32_t *unblocked;
    int64_t nunblocked;
    gsl_rng *pick_rng;
    uint32_t ev_iter;

    /* timed */
    sim_net_t *net;
    sim_star_t star;
    int32_t *queue;               /* FCFS arrivals, ring of lambda entries */
    int64_t qhead, qlen;
    bool busy;
    gsl_rng *server_rng;
    uint32_t ev_compute_done, ev_push_arrive, ev_server_done, ev_fetch_arrive;

    /* the ledger, emptied by every drain */
    ps_update_t *upd;
    ps_term_t *terms;
    ps_lreq_t *lreq;
    int64_t *taus, *rowpool;
    int64_t nupd, nterm, nlreq, ntau, nrowpool; /* nlreq: its gradient requests */
    int64_t cap_upd, cap_terms, cap_lreq, cap_taus, cap_rowpool;
    bool stopped;                 /* the run stopped at a drained update ... */
    ps_update_t stop_at;          /* ... this one */

    /* batched evaluation: gradient_batch slots (none when it is 1) */
    float **slot_grad;
    int *free_slots;
    int nfree_slots;
    float *batch_x;               /* "random" minibatches of one call */
    int32_t *batch_y;
    ps_term_t **bterm;            /* one call's terms and arguments */
    const float **bparams, **bx_of;
    const int32_t **by_of;
    float **bgrad;
    double *bloss;

    /* numerics scratch */
    float *grad, *step, *bx;
    int32_t *by;
    int64_t max_rows;
    int64_t *req_term;            /* while scheduling: each request's term */
    int64_t *term_fill;           /* while scheduling: each term's next request slot */
    int64_t last_vtime;
    int64_t counts_emitted_at;    /* update index of the last traffic-count metric rows */
    unsigned saved_csr;           /* MXCSR before the run, restored by destroy */
} ps_t;

static int64_t ps_model_batch(const scn_t *s)
{
    int64_t rows = ps_rows(s->alg_opts, s->batch_per_worker);
    return rows > PS_MIN_MODEL_BATCH ? rows : PS_MIN_MODEL_BATCH;
}

/* ---- deferred numerics ----------------------------------------------------------------- */

static bool drain(ps_t *p);

/* The first row of a cyclic minibatch (file comment, "Minibatches"). */
static int64_t cyclic_first(const ps_t *p, const ps_lreq_t *q)
{
    return (q->t % p->ncyc) * p->mu;
}

/* The row of the r-th sample of scheduled request q. */
static int64_t request_row(const ps_t *p, const ps_lreq_t *q, int64_t r)
{
    return p->o->minibatch == PS_MB_CYCLIC ? cyclic_first(p, q) + r : p->rowpool[q->rows + r];
}

/* One cyclic minibatch is a contiguous block of the training set: read it in place instead
 * of copying (the same rows, so the same bits). */
static void cyclic_block(const ps_t *p, const ps_lreq_t *q, const float **x, const int32_t **y)
{
    const sgd_dataset_t *d = p->ctx->train;
    int64_t first = cyclic_first(p, q);
    *x = d->x + first * d->dim;
    *y = d->y + first;
}

static void gather_rows(const ps_t *p, const ps_lreq_t *q, float *x, int32_t *y)
{
    const sgd_dataset_t *d = p->ctx->train;
    for (int64_t r = 0; r < p->mu; r++) {
        int64_t row = request_row(p, q, r);
        memcpy(x + r * d->dim, d->x + row * d->dim, (size_t)d->dim * sizeof *x);
        y[r] = d->y[row];
    }
}

/* Makes room for `more` elements after the first `n` of a growing array. */
static void *reserve(void *a, int64_t *cap, int64_t n, int64_t more, size_t elem)
{
    if (n + more <= *cap) return a;
    int64_t want = *cap ? *cap : 64;
    while (want < n + more) want *= 2;
    *cap = want;
    return sgd_xrealloc(a, (size_t)want * elem);
}

/* Element-wise loops on arrays that never overlap (restrict lets the compiler vectorise them
 * without overlap checks; element-wise, so vectorising changes no result). */
static void axpy_into(float *restrict y, float w, const float *restrict x, size_t n, bool first)
{
    if (first)
        for (size_t i = 0; i < n; i++) y[i] = w * x[i];
    else
        for (size_t i = 0; i < n; i++) y[i] += w * x[i];
}

/* theta -= w * x, rounding w * x first: the same as axpy_into then sub_into. */
static void axpy_sub(float *restrict theta, float w, const float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float step = w * x[i];
        theta[i] -= step;
    }
}

static void sub_into(float *restrict theta, const float *restrict step, size_t n)
{
    for (size_t i = 0; i < n; i++) theta[i] -= step[i];
}

/* Schedules the c buffered pushes as one update at virtual time `now`: fixes its terms, their
 * minibatches and staleness factors now, and leaves the arithmetic to apply_scheduled (at
 * once, or when the ledger is drained).  Returns false when the run must stop. */
static bool schedule_update(ps_t *p, int64_t now)
{
    if (p->stopped) return false;
    const int64_t version = p->srv.version;
    const int64_t maxreq = p->c * p->o->k_push;
    p->terms = reserve(p->terms, &p->cap_terms, p->nterm, maxreq, sizeof *p->terms);
    p->lreq = reserve(p->lreq, &p->cap_lreq, p->nlreq, maxreq, sizeof *p->lreq);
    p->taus = reserve(p->taus, &p->cap_taus, p->ntau, p->c, sizeof *p->taus);
    p->upd = reserve(p->upd, &p->cap_upd, p->nupd, 1, sizeof *p->upd);
    ps_update_t *u = &p->upd[p->nupd++];
    *u = (ps_update_t){.vtime = now, .lr = lr_at(&p->s->lr, version, p->c * p->mu),
                       .first_term = p->nterm, .first_tau = p->ntau, .fetch = p->srv.fetch,
                       .push = p->srv.push, .peak_live = p->srv.peak_live,
                       .events = sim_engine_counters(p->ctx->engine).events_processed + 1};

    /* Terms in order of first appearance; requests sharing (snapshot, factor) merge when
     * there is no normaliser (see the file comment). */
    ps_term_t *terms = p->terms + p->nterm;
    int64_t nterms = 0, nreq = 0;
    for (int64_t b = 0; b < p->nbuf; b++) {
        ps_client_t *c = &p->cl[p->buf[b]];
        int64_t tau = version - c->push_version;
        p->taus[p->ntau++] = tau;
        double f = ps_staleness_factor(p->o->staleness, tau);
        if (c->reapply) {
            terms[nterms++] = (ps_term_t){.client = p->buf[b], .factor = f, .count = 1,
                                          .slot = -1};
            continue;
        }
        for (int r = 0; r < c->nreq; r++, nreq++) {
            int64_t j = nterms;
            if (!p->has_norm)
                for (j = 0; j < nterms; j++)
                    if (terms[j].snap == c->reqs[r].snap && terms[j].factor == f) break;
            if (j == nterms)
                terms[nterms++] = (ps_term_t){.snap = c->reqs[r].snap, .client = p->buf[b],
                                              .factor = f, .slot = -1};
            terms[j].count++;
            p->req_term[nreq] = j;
        }
    }
    /* The requests, terms in order and each term's in arrival order (a counting sort): the
     * order an evaluation gathers them in, and so the order minibatch "random" draws each
     * client's rows in. */
    for (int64_t j = 0, at = p->nlreq; j < nterms; j++) {
        ps_term_t *tm = &terms[j];
        if (!tm->snap) continue;
        ps_snap_pin(tm->snap);
        tm->first_req = p->term_fill[j] = at;
        at += tm->count;
        ps_client_t *c = &p->cl[tm->client];
        if (c->last_grad) { /* B-FASGD may re-apply it when a later push is skipped */
            c->last_version = c->push_version; /* its timestamp as pushed */
            c->has_last = true;
        }
    }
    for (int64_t b = 0, q = 0; b < p->nbuf; b++) {
        const ps_client_t *c = &p->cl[p->buf[b]];
        if (c->reapply) continue;
        for (int r = 0; r < c->nreq; r++, q++)
            p->lreq[p->term_fill[p->req_term[q]]++] =
                (ps_lreq_t){.client = p->buf[b], .t = c->reqs[r].t, .rows = -1};
    }
    if (p->o->minibatch == PS_MB_RANDOM) {
        p->rowpool = reserve(p->rowpool, &p->cap_rowpool, p->nrowpool, nreq * p->mu,
                             sizeof *p->rowpool);
        for (int64_t i = p->nlreq; i < p->nlreq + nreq; i++) {
            ps_lreq_t *rq = &p->lreq[i];
            rq->rows = p->nrowpool;
            for (int64_t k = 0; k < p->mu; k++)
                p->rowpool[p->nrowpool++] = (int64_t)gsl_rng_uniform_int(
                    p->cl[rq->client].sample_rng, (unsigned long)p->ctx->train->n);
        }
    }
    p->nlreq += nreq;
    for (int64_t b = 0; b < p->nbuf; b++) {
        ps_client_t *c = &p->cl[p->buf[b]];
        for (int r = 0; r < c->nreq; r++) ps_snap_release(&p->srv, c->reqs[r].snap);
        c->nreq = 0;
        c->reapply = false;
    }
    u->nterms = nterms;
    u->ntau = p->nbuf;
    p->nterm += nterms;
    ps_server_bump(&p->srv);

    /* Run ahead of the numerics while the ledger holds fewer than gradient_batch requests;
     * the last update is applied at once, so that the run ends at the same event. */
    if (p->nlreq < p->o->gradient_batch && p->srv.version < p->s->stop_updates)
        return true;
    return drain(p);
}

/* Evaluates term tm of the update being applied.  A single-minibatch term goes in one
 * loss_grad_batched call with the scheduled single-minibatch terms after it whose parameters
 * are already known, one free slot each; a stacked term (or one without a free slot) is
 * evaluated alone. */
static void evaluate_term(ps_t *p, ps_term_t *tm)
{
    alg_ctx_t *ctx = p->ctx;
    const sgd_dataset_t *d = ctx->train;
    const int dim = d->dim;
    if (tm->count == 1 && p->nfree_slots > 0) {
        const int room = p->nfree_slots;
        int k = 0;
        for (ps_term_t *t = tm; t < p->terms + p->nterm && k < room; t++) {
            if (!t->snap || t->grad || t->count != 1 || t->snap->version > p->srv.applied)
                continue;
            const ps_lreq_t *q = &p->lreq[t->first_req];
            if (p->o->minibatch == PS_MB_CYCLIC) {
                cyclic_block(p, q, &p->bx_of[k], &p->by_of[k]);
            } else {
                float *x = p->batch_x + (size_t)k * (size_t)p->mu * (size_t)dim;
                int32_t *y = p->batch_y + (size_t)k * (size_t)p->mu;
                gather_rows(p, q, x, y);
                p->bx_of[k] = x;
                p->by_of[k] = y;
            }
            t->slot = p->free_slots[--p->nfree_slots];
            p->bterm[k] = t;
            p->bparams[k] = t->snap->data;
            p->bgrad[k] = p->slot_grad[t->slot];
            k++;
        }
        sgd_backend_loss_grad_batched(ctx->backend, k, p->bparams, p->bx_of, p->by_of,
                                      (int)p->mu, p->bgrad, p->bloss);
        for (int i = 0; i < k; i++) {
            p->bterm[i]->grad = p->bgrad[i];
            p->bterm[i]->loss = p->bloss[i];
        }
        return;
    }
    const ps_lreq_t *q = &p->lreq[tm->first_req];
    const float *x = p->bx;
    const int32_t *y = p->by;
    if (tm->count == 1 && p->o->minibatch == PS_MB_CYCLIC) {
        cyclic_block(p, q, &x, &y);
    } else {
        SGD_ASSERT(tm->count * p->mu <= p->max_rows);
        for (int64_t i = 0; i < tm->count; i++)
            gather_rows(p, &q[i], p->bx + i * p->mu * dim, p->by + i * p->mu);
    }
    tm->loss = sgd_backend_loss_grad(ctx->backend, tm->snap->data, x, y,
                                     (int)(tm->count * p->mu), p->grad);
    tm->grad = p->grad;
}

/* A term is done with: its batch slot and its pin go back. */
static void release_term(ps_t *p, ps_term_t *tm)
{
    if (tm->slot >= 0) p->free_slots[p->nfree_slots++] = tm->slot;
    tm->slot = -1;
    if (tm->snap) ps_snap_unpin(&p->srv, tm->snap);
}

/* Applies scheduled update u to the parameters, then reports it to the runner as the update
 * that happened at u->vtime.  Returns false when the run must stop there. */
static bool apply_scheduled(ps_t *p, const ps_update_t *u)
{
    alg_ctx_t *ctx = p->ctx;
    for (int64_t i = 0; i < u->ntau; i++) ps_server_record_tau(&p->srv, p->taus[u->first_tau + i]);

    const size_t np = ctx->nparams;
    ps_term_t *terms = p->terms + u->first_term;
    const int64_t nterms = u->nterms;
    double loss_sum = 0.0;
    int64_t loss_rows = 0;
    for (int64_t j = 0; j < nterms; j++) {
        ps_term_t *tm = &terms[j];
        ps_client_t *c = &p->cl[tm->client];
        const float *g;
        if (!tm->snap) { /* a skipped push: the client's last gradient again */
            g = c->last_grad;
            tm->loss = c->last_loss;
        } else {
            if (!tm->grad) evaluate_term(p, tm);
            g = tm->grad;
            if (c->last_grad) {
                memcpy(c->last_grad, g, np * sizeof *g);
                c->last_loss = tm->loss;
            }
        }
        /* count / c is exactly 1.0 when one term holds every request of the update, so the
         * step is then exactly (float)(lr * factor) * g, as in plain minibatch SGD. */
        const float w = (float)(u->lr * tm->factor * ((double)tm->count / (double)p->c));
        loss_sum += tm->loss * (double)(tm->count * p->mu);
        loss_rows += tm->count * p->mu;
        if (nterms == 1) { /* one pass over memory; the same operations per element */
            if (p->has_norm)
                ps_norm_observe_apply(&p->norm, ctx->params, g, w);
            else
                axpy_sub(ctx->params, w, g, np);
            break;
        }
        if (p->has_norm) ps_norm_observe(&p->norm, g);
        axpy_into(p->step, w, g, np, j == 0);
    }
    if (nterms > 1) {
        if (p->has_norm)
            ps_norm_apply(&p->norm, ctx->params, p->step);
        else
            sub_into(ctx->params, p->step, np);
    }
    double loss = nterms == 1 ? terms[0].loss : loss_sum / (double)loss_rows;
    for (int64_t j = 0; j < nterms; j++) release_term(p, &terms[j]);
    ps_server_applied(&p->srv);

    p->last_vtime = u->vtime;
    bool more = alg_update_done(ctx, u->vtime, loss, u->lr);
    const int64_t every = p->s->eval_every;
    if (ctx->status != ALG_FAILED && every > 0 && ctx->updates % every == 0) {
        /* Traffic so far next to each validation point (as the schedule counted it at this
         * update): Experiment 3's actual vs potential copies as curves. */
        p->counts_emitted_at = ctx->updates;
        const int64_t n = ctx->updates, t = u->vtime;
        if (!alg_metric(ctx, n, t, "fetch_sent", (double)u->fetch.sent_msgs) ||
            !alg_metric(ctx, n, t, "fetch_skipped", (double)u->fetch.skipped_msgs) ||
            !alg_metric(ctx, n, t, "push_sent", (double)u->push.sent_msgs) ||
            !alg_metric(ctx, n, t, "push_skipped", (double)u->push.skipped_msgs) ||
            (p->has_norm && !alg_metric(ctx, n, t, "norm_mean", ps_norm_mean(&p->norm))))
            return false;
    }
    return more;
}

/* Applies every scheduled update in order.  Returns false when the run stopped at one of
 * them (complete, diverged, failed or interrupted): the rest are dropped, and the run reports
 * the counters the schedule had at that update (ps_report) and the events processed until
 * then (ctx->events_at_stop) -- what a run that never ran ahead reports. */
static bool drain(ps_t *p)
{
    int64_t i = 0;
    while (i < p->nupd && !p->stopped) {
        const ps_update_t *u = &p->upd[i++];
        if (!apply_scheduled(p, u)) {
            p->stopped = true;
            p->stop_at = *u;
            p->ctx->events_at_stop = u->events;
        }
    }
    for (int64_t j = i < p->nupd ? p->upd[i].first_term : p->nterm; j < p->nterm; j++)
        release_term(p, &p->terms[j]);
    p->nupd = p->nterm = p->ntau = p->nlreq = p->nrowpool = 0;
    return !p->stopped;
}

/* ---- client life cycle ----------------------------------------------------------------- */

static bool gate(ps_t *p, int k, double cval)
{
    if (p->o->kind != PS_BFASGD) return true;
    /* The probability reads the normaliser's statistics, which the scheduled updates still
     * change: catch up first (with c = 0 it is 1 whatever they are). */
    if (cval > 0) drain(p);
    double prob = ps_gate_probability(cval, ps_norm_mean(&p->norm), p->o->gate_eps);
    return gsl_rng_uniform(p->cl[k].gate_rng) < prob;
}

static void unblock(ps_t *p, int k)
{
    SGD_ASSERT(p->cl[k].slot == UINT32_MAX);
    p->cl[k].slot = (uint32_t)p->nunblocked;
    p->unblocked[p->nunblocked++] = (uint32_t)k;
}

static void block(ps_t *p, int k)
{
    uint32_t slot = p->cl[k].slot;
    SGD_ASSERT(slot != UINT32_MAX);
    uint32_t last = p->unblocked[--p->nunblocked];
    p->unblocked[slot] = last;
    p->cl[last].slot = slot;
    p->cl[k].slot = UINT32_MAX;
}

static int64_t draw_ns(const sim_dist_t *d, gsl_rng *r, double factor)
{
    return sim_seconds_to_ns(sim_dist_sample(d, r) * factor);
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
    int64_t dur;
    if (s->compute_kind == SCN_COMPUTE_FLOPS)
        dur = sim_seconds_to_ns(model_flops_per_sample(p->ctx->model) * (double)p->mu /
                                (s->device_gflops * 1e9) * c->time_factor);
    else
        dur = draw_ns(&s->compute_time_s, c->compute_rng, c->time_factor);
    dur += draw_ns(&s->io_time_s, c->io_rng, 1.0);
    sim_engine_schedule(p->ctx->engine, now + dur, p->ev_compute_done, (uint32_t)k, 0, NULL);
}

static void fetch_opportunity(ps_t *p, int k, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    if (!gate(p, k, p->o->c_fetch)) {
        /* Skipped: keep computing on the parameters already held; their version, not the
         * server's, is what the next gradient's staleness counts from. */
        p->srv.fetch.skipped_msgs++;
        p->srv.fetch.skipped_bytes += p->msg_bytes;
        if (p->o->fred_skip_tau) c->stamp = p->srv.version;
        compute_next(p, k, now);
        return;
    }
    p->srv.fetch.sent_msgs++;
    p->srv.fetch.sent_bytes += p->msg_bytes;
    ps_snap_t *snap = ps_server_snapshot(&p->srv);
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        ps_snap_release(&p->srv, c->snap);
        c->snap = snap;
        c->stamp = snap->version;
        compute_next(p, k, now);
        return;
    }
    /* The reply carries the version current when the request reached the server (the
     * server serialises it then), and takes the network's time to arrive. */
    int route[2];
    sim_star_route(&p->star, 0, k + 1, route);
    int64_t at = sim_net_reserve(p->net, route, 2, p->msg_bytes, now);
    c->incoming = snap;
    sim_engine_schedule(p->ctx->engine, at, p->ev_fetch_arrive, (uint32_t)k, 0, NULL);
}

static void start_service(ps_t *p, int64_t now)
{
    p->busy = true;
    sim_engine_schedule(p->ctx->engine, now + draw_ns(&p->o->server_time_s, p->server_rng, 1.0),
                        p->ev_server_done, 0, 0, NULL);
}

/* The server takes client k's push into its buffer; with c of them it applies an update and
 * gives each of those clients its fetch opportunity. */
static void server_receive(ps_t *p, int k, int64_t now)
{
    p->buf[p->nbuf++] = k;
    if (p->nbuf < p->c) return;
    bool more = schedule_update(p, now);
    int64_t n = p->nbuf;
    memcpy(p->applied, p->buf, (size_t)n * sizeof *p->buf);
    p->nbuf = 0;
    if (!more) return;
    for (int64_t b = 0; b < n; b++) {
        int j = p->applied[b];
        ps_client_t *c = &p->cl[j];
        if (p->o->kind == PS_DOWNPOUR && c->steps % p->o->k_fetch != 0)
            compute_next(p, j, now);
        else
            fetch_opportunity(p, j, now);
    }
}

static void deliver_push(ps_t *p, int k, int64_t now)
{
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        server_receive(p, k, now);
        return;
    }
    /* A skipped push still tells the server to re-apply (a message without payload). */
    int route[2];
    sim_star_route(&p->star, k + 1, 0, route);
    uint64_t bytes = p->cl[k].reapply ? 0 : p->msg_bytes;
    int64_t at = sim_net_reserve(p->net, route, 2, bytes, now);
    sim_engine_schedule(p->ctx->engine, at, p->ev_push_arrive, (uint32_t)k, 0, NULL);
}

/* Client k has finished computing a gradient on its snapshot at `now`. */
static void gradient_ready(ps_t *p, int k, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    int64_t t = p->t_next++;
    c->steps++;
    if (p->o->kind == PS_DOWNPOUR) {
        if (c->nreq == 0) c->push_version = c->stamp; /* oldest gradient in the push */
        c->reqs[c->nreq++] = (ps_req_t){.snap = ps_snap_ref(c->snap), .t = t};
        if (c->steps % p->o->k_push == 0) {
            p->srv.push.sent_msgs++;
            p->srv.push.sent_bytes += p->msg_bytes;
            deliver_push(p, k, now);
        } else if (c->steps % p->o->k_fetch == 0) {
            fetch_opportunity(p, k, now);
        } else {
            compute_next(p, k, now);
        }
        return;
    }
    if (gate(p, k, p->o->c_push)) {
        p->srv.push.sent_msgs++;
        p->srv.push.sent_bytes += p->msg_bytes;
        c->reqs[0] = (ps_req_t){.snap = ps_snap_ref(c->snap), .t = t};
        c->nreq = 1;
        c->push_version = c->stamp;
        deliver_push(p, k, now);
        return;
    }
    p->srv.push.skipped_msgs++;
    p->srv.push.skipped_bytes += p->msg_bytes;
    if (c->has_last) {
        /* The server re-applies the last gradient it got from k, with its old timestamp, so
         * its staleness keeps growing. */
        c->reapply = true;
        c->push_version = c->last_version;
        deliver_push(p, k, now);
    } else {
        fetch_opportunity(p, k, now); /* nothing to re-apply yet */
    }
}

/* ---- event handlers -------------------------------------------------------------------- */

static void on_iter(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    ps_t *p = arg;
    SGD_ASSERT(p->nunblocked > 0); /* at most c - 1 <= lambda - 1 clients wait at a time */
    uint32_t k = p->unblocked[gsl_rng_uniform_int(p->pick_rng, (unsigned long)p->nunblocked)];
    /* Busy until compute_next makes it eligible again: at once when it does not push, after
     * the update that applies its push otherwise. */
    block(p, (int)k);
    gradient_ready(p, (int)k, ev->t_ns);
    if (p->ctx->status == ALG_RUNNING)
        sim_engine_schedule(e, ev->t_ns + 1, p->ev_iter, 0, 0, NULL);
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
    SGD_ASSERT(p->qlen < p->lambda);
    p->queue[(p->qhead + p->qlen++) % p->lambda] = (int32_t)ev->entity;
    if (!p->busy) start_service(p, ev->t_ns);
}

static void on_server_done(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    ps_t *p = arg;
    int k = p->queue[p->qhead];
    p->qhead = (p->qhead + 1) % p->lambda;
    p->qlen--;
    p->busy = false;
    server_receive(p, k, ev->t_ns);
    if (p->ctx->status == ALG_RUNNING && p->qlen > 0) start_service(p, ev->t_ns);
}

static void on_fetch_arrive(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    ps_t *p = arg;
    ps_client_t *c = &p->cl[ev->entity];
    ps_snap_release(&p->srv, c->snap);
    c->snap = c->incoming;
    c->stamp = c->snap->version;
    c->incoming = NULL;
    compute_next(p, (int)ev->entity, ev->t_ns);
}

/* ---- alg_ops_t ------------------------------------------------------------------------- */

static void *ps_create(alg_ctx_t *ctx, sgd_err_t *err)
{
    const scn_t *s = ctx->scn;
    const ps_opts_t *o = s->alg_opts;
    SGD_ASSERT(o);
    const sgd_dataset_t *d = ctx->train;
    int64_t rows = ps_rows(o, s->batch_per_worker);
    if (rows > d->n) {
        sgd_errf(err, "batch.per_worker: %lld rows per gradient evaluation (%s, lambda = %lld, "
                      "mu = %lld) exceed the %lld training rows",
                 (long long)rows, ps_kind_name(o->kind), (long long)s->workers,
                 (long long)s->batch_per_worker, (long long)d->n);
        return NULL;
    }
    /* gradient_batch slots of one gradient each, and their minibatches */
    const double slots = (double)o->gradient_batch;
    if (slots > 1 && alg_check_memory("algorithm.gradient_batch",
                                   slots * 4.0 * ((double)ctx->nparams +
                                               (double)s->batch_per_worker * (d->dim + 1)),
                                   err))
        return NULL;
    ps_t *p = sgd_xcalloc(1, sizeof *p);
    p->ctx = ctx;
    p->s = s;
    p->o = o;
    p->lambda = s->workers;
    p->mu = s->batch_per_worker;
    p->c = o->c;
    p->ncyc = d->n / p->mu;
    p->msg_bytes = ctx->nparams * sizeof(float);
    p->max_rows = rows;
    ps_server_init(&p->srv, ctx->params, ctx->nparams);
    p->has_norm = o->norm.kind != PS_NORM_NONE;
    if (p->has_norm) ps_norm_init(&p->norm, &o->norm, ctx->nparams);

    p->cl = sgd_xcalloc((size_t)p->lambda, sizeof *p->cl);
    ps_snap_t *initial = ps_server_snapshot(&p->srv); /* every client starts on version 0 */
    for (int64_t k = 0; k < p->lambda; k++) {
        ps_client_t *c = &p->cl[k];
        c->snap = k == 0 ? initial : ps_snap_ref(initial);
        c->reqs = sgd_xmalloc((size_t)o->k_push * sizeof *c->reqs);
        c->slot = UINT32_MAX;
        if (o->minibatch == PS_MB_RANDOM)
            c->sample_rng = sim_rng_create(s->seed, SIM_STREAM_DATA_ORDER, (uint64_t)k);
        if (o->kind == PS_BFASGD)
            c->gate_rng = sim_rng_create(s->seed, SIM_STREAM_GATING, (uint64_t)k);
        if (o->kind == PS_BFASGD && o->c_push > 0)
            c->last_grad = sgd_xmalloc(ctx->nparams * sizeof *c->last_grad);
        if (o->driver == PS_DRIVER_TIMED) {
            c->compute_rng = sim_rng_create(s->seed, SIM_STREAM_COMPUTE, (uint64_t)k);
            c->io_rng = sim_rng_create(s->seed, SIM_STREAM_IO, (uint64_t)k);
            gsl_rng *speed = sim_rng_create(s->seed, SIM_STREAM_SPEED, (uint64_t)k);
            c->time_factor = sim_dist_sample(&s->time_factor, speed);
            gsl_rng_free(speed);
        }
    }
    p->buf = sgd_xmalloc((size_t)p->c * sizeof *p->buf);
    p->applied = sgd_xmalloc((size_t)p->c * sizeof *p->applied);
    int64_t maxreq = p->c * o->k_push;
    p->req_term = sgd_xmalloc((size_t)maxreq * sizeof *p->req_term);
    p->term_fill = sgd_xmalloc((size_t)maxreq * sizeof *p->term_fill);
    p->grad = sgd_xmalloc(ctx->nparams * sizeof *p->grad);
    p->step = sgd_xmalloc(ctx->nparams * sizeof *p->step);
    p->bx = sgd_xmalloc((size_t)rows * (size_t)d->dim * sizeof *p->bx);
    p->by = sgd_xmalloc((size_t)rows * sizeof *p->by);
    p->counts_emitted_at = -1;
    if (o->gradient_batch > 1) {
        const int64_t nb = o->gradient_batch;
        p->slot_grad = sgd_xmalloc((size_t)nb * sizeof *p->slot_grad);
        p->free_slots = sgd_xmalloc((size_t)nb * sizeof *p->free_slots);
        for (int64_t i = 0; i < nb; i++) {
            p->slot_grad[i] = sgd_xmalloc(ctx->nparams * sizeof **p->slot_grad);
            p->free_slots[i] = (int)(nb - 1 - i); /* slot 0 is taken first */
        }
        p->nfree_slots = (int)nb;
        if (o->minibatch == PS_MB_RANDOM) {
            p->batch_x = sgd_xmalloc((size_t)(nb * p->mu) * (size_t)d->dim * sizeof *p->batch_x);
            p->batch_y = sgd_xmalloc((size_t)(nb * p->mu) * sizeof *p->batch_y);
        }
        p->bterm = sgd_xmalloc((size_t)nb * sizeof *p->bterm);
        p->bparams = sgd_xmalloc((size_t)nb * sizeof *p->bparams);
        p->bx_of = sgd_xmalloc((size_t)nb * sizeof *p->bx_of);
        p->by_of = sgd_xmalloc((size_t)nb * sizeof *p->by_of);
        p->bgrad = sgd_xmalloc((size_t)nb * sizeof *p->bgrad);
        p->bloss = sgd_xmalloc((size_t)nb * sizeof *p->bloss);
    }
#if PS_HAVE_MXCSR
    /* Flush-to-zero (bit 15) and denormals-are-zero (bit 6) for the rest of this run --
     * evaluation included -- on this thread, which is the only one (BLAS is pinned to one
     * thread); restored in destroy so other runs in the same process are unaffected. */
    p->saved_csr = _mm_getcsr();
    if (o->flush_denormals) _mm_setcsr(p->saved_csr | 0x8040u);
#endif

    if (o->driver == PS_DRIVER_UNIFORM) {
        p->unblocked = sgd_xmalloc((size_t)p->lambda * sizeof *p->unblocked);
        p->pick_rng = sim_rng_create(s->seed, SIM_STREAM_CLIENT_PICK, 0);
        p->ev_iter = sim_engine_register(ctx->engine, "ps.iteration", on_iter, p);
    } else {
        p->net = sim_net_create();
        sim_star_init(&p->star, p->net, (int)p->lambda + 1, s->bandwidth_Bps, s->latency_ns);
        p->queue = sgd_xmalloc((size_t)p->lambda * sizeof *p->queue);
        p->server_rng = sim_rng_create(s->seed, SIM_STREAM_COMPUTE, PS_SERVER_ENTITY);
        p->ev_compute_done = sim_engine_register(ctx->engine, "ps.compute_done",
                                                 on_compute_done, p);
        p->ev_push_arrive = sim_engine_register(ctx->engine, "ps.push_arrive", on_push_arrive, p);
        p->ev_server_done = sim_engine_register(ctx->engine, "ps.server_done", on_server_done, p);
        p->ev_fetch_arrive = sim_engine_register(ctx->engine, "ps.fetch_arrive",
                                                 on_fetch_arrive, p);
    }
    return p;
}

static void ps_start(void *state)
{
    ps_t *p = state;
    for (int64_t k = 0; k < p->lambda; k++) compute_next(p, (int)k, 0);
    if (p->o->driver == PS_DRIVER_UNIFORM)
        sim_engine_schedule(p->ctx->engine, 1, p->ev_iter, 0, 0, NULL);
}

static void ps_finish(void *state)
{
    drain(state); /* a virtual-time limit stopped the engine with updates scheduled */
}

static int ps_report(void *state, const alg_sink_t *sink, sgd_err_t *err)
{
    ps_t *p = state;
    alg_ctx_t *ctx = p->ctx;
    if (p->stopped) { /* the schedule may have run past the update the run stopped at */
        p->srv.fetch = p->stop_at.fetch;
        p->srv.push = p->stop_at.push;
        p->srv.peak_live = p->stop_at.peak_live;
    }
    if (sink && sink->traffic) {
        const ps_traffic_t *f = &p->srv.fetch, *u = &p->srv.push;
        if (sink->traffic(sink->ctx, "fetch", f->sent_msgs, f->sent_bytes, f->skipped_msgs,
                          f->skipped_bytes, err) ||
            sink->traffic(sink->ctx, "push", u->sent_msgs, u->sent_bytes, u->skipped_msgs,
                          u->skipped_bytes, err))
            return -1;
    }
    if (sink && sink->staleness)
        for (int64_t t = 0; t < p->srv.hist_len; t++)
            if (p->srv.hist[t] && sink->staleness(sink->ctx, t, p->srv.hist[t], err)) return -1;

    const int64_t u = ctx->updates, v = p->last_vtime;
    const ps_server_t *sv = &p->srv;
    double mean = sv->ngrad ? sv->tau_sum / (double)sv->ngrad : 0.0;
    bool ok = alg_metric(ctx, u, v, "staleness_mean", mean) &&
              alg_metric(ctx, u, v, "staleness_p50", (double)ps_server_tau_quantile(sv, 0.5)) &&
              alg_metric(ctx, u, v, "staleness_p99", (double)ps_server_tau_quantile(sv, 0.99)) &&
              alg_metric(ctx, u, v, "staleness_max", (double)ps_server_tau_quantile(sv, 1.0)) &&
              alg_metric(ctx, u, v, "snapshots_peak", (double)sv->peak_live);
    if (ok && p->counts_emitted_at != u)
        ok = alg_metric(ctx, u, v, "fetch_sent", (double)sv->fetch.sent_msgs) &&
             alg_metric(ctx, u, v, "fetch_skipped", (double)sv->fetch.skipped_msgs) &&
             alg_metric(ctx, u, v, "push_sent", (double)sv->push.sent_msgs) &&
             alg_metric(ctx, u, v, "push_skipped", (double)sv->push.skipped_msgs);
    if (!ok) {
        *err = ctx->err;
        return -1;
    }
    return 0;
}

static void ps_destroy(void *state)
{
    ps_t *p = state;
    for (int64_t k = 0; k < p->lambda; k++) {
        ps_client_t *c = &p->cl[k];
        for (int r = 0; r < c->nreq; r++) ps_snap_release(&p->srv, c->reqs[r].snap);
        if (c->snap) ps_snap_release(&p->srv, c->snap);
        if (c->incoming) ps_snap_release(&p->srv, c->incoming);
        free(c->reqs);
        free(c->last_grad);
        if (c->sample_rng) gsl_rng_free(c->sample_rng);
        if (c->gate_rng) gsl_rng_free(c->gate_rng);
        if (c->compute_rng) gsl_rng_free(c->compute_rng);
        if (c->io_rng) gsl_rng_free(c->io_rng);
    }
    for (int64_t j = 0; j < p->nterm; j++) release_term(p, &p->terms[j]); /* never drained */
    SGD_ASSERT(p->srv.live <= 1); /* every reference was returned */
#if PS_HAVE_MXCSR
    _mm_setcsr(p->saved_csr);
#endif
    ps_server_free(&p->srv);
    if (p->has_norm) ps_norm_free(&p->norm);
    free(p->cl);
    free(p->buf);
    free(p->applied);
    free(p->upd);
    free(p->terms);
    free(p->lreq);
    free(p->taus);
    free(p->rowpool);
    if (p->slot_grad)
        for (int64_t i = 0; i < p->o->gradient_batch; i++) free(p->slot_grad[i]);
    free(p->slot_grad);
    free(p->free_slots);
    free(p->batch_x);
    free(p->batch_y);
    free(p->bterm);
    free(p->bparams);
    free(p->bx_of);
    free(p->by_of);
    free(p->bgrad);
    free(p->bloss);
    free(p->req_term);
    free(p->term_fill);
    free(p->grad);
    free(p->step);
    free(p->bx);
    free(p->by);
    free(p->unblocked);
    if (p->pick_rng) gsl_rng_free(p->pick_rng);
    if (p->net) sim_net_destroy(p->net);
    free(p->queue);
    if (p->server_rng) gsl_rng_free(p->server_rng);
    free(p);
}

#define PS_OPS(var, nm, parser)                                                           \
    const alg_ops_t var = {.scenario = {.name = nm, .parse_options = parser},             \
                           .create = ps_create,                                           \
                           .start = ps_start,                                             \
                           .finish = ps_finish,                                           \
                           .report = ps_report,                                           \
                           .destroy = ps_destroy,                                         \
                           .model_batch = ps_model_batch}

PS_OPS(alg_sasgd, "sasgd", parse_sasgd);
PS_OPS(alg_fasgd, "fasgd", parse_fasgd);
PS_OPS(alg_bfasgd, "b-fasgd", parse_bfasgd);
PS_OPS(alg_downpour, "downpour", parse_downpour);
PS_OPS(alg_hardsync, "hardsync", parse_hardsync);
