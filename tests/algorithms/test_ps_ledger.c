/* The deferred-update ledger (algorithms/ps_ledger.h) on its own: how pushes become terms
 * and requests, where "random" rows come from, that a batched evaluation (a backend without
 * a background path, as a GPU's) and a background one (the CPU's, on 1 to 3 threads) give
 * the bits of one-at-a-time evaluation and never run ahead of the parameters, and that
 * release and clear give every pin and slot back. */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "algorithms/ps_ledger.h"
#include "models/backend.h"
#include "models/dataset.h"
#include "models/model.h"
#include "models/model_kind.h"
#include "tests/check.h"

#define MU 4
#define DIM 6
#define CLASSES 3

typedef struct fixture {
    sgd_dataset_t train;
    model_t *model;
    sgd_backend_t backend;
    sgd_backend_iface_t iface;   /* the CPU backend's, without its background path */
    float *params;
    size_t np;
    ps_server_t srv;
    sgd_arena_t arena;
    ps_ledger_t ledger;
    sgd_err_t err;               /* the backend's message, were it to fail */
} fixture_t;

/* threads 0: the CPU backend without its background path, so that gradients are evaluated
 * the way a GPU backend's are (loss_grad_batched); else its background path on `threads`. */
static void fixture_start_on(fixture_t *f, bool cyclic, bool merge, int64_t gradient_batch,
                             int threads)
{
    memset(f, 0, sizeof *f);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    dataset_synthetic(50, DIM, CLASSES, 1.0, r, &f->train);
    const model_spec_t spec = {.kind = model_kind_find("mlp"), .ninputs = DIM, .nclasses = CLASSES,
                               .nhidden = 1, .hidden = {5}};
    f->model = model_create(&spec, 8 * MU);
    f->np = model_nparams(f->model);
    f->params = malloc(f->np * sizeof *f->params);
    model_init_params(f->model, f->params, MODEL_INIT_HE, r);
    gsl_rng_free(r);
    sgd_err_t err = {{0}};
    CHECK(sgd_backend_create("cpu", f->model, &f->backend, &err) == 0);
    if (threads == 0) {
        f->iface = *f->backend.iface;
        f->iface.async_open = NULL;
        f->backend.iface = &f->iface;
    } else {
        sgd_backend_set_threads(&f->backend, threads);
    }
    ps_server_init(&f->srv, f->params, f->np);
    sgd_arena_init(&f->arena);
    const ps_ledger_cfg_t cfg = {.srv = &f->srv, .train = &f->train, .backend = &f->backend,
                                 .nparams = f->np, .mu = MU, .cyclic = cyclic, .merge = merge,
                                 .max_reqs = 8, .max_rows = 8 * MU,
                                 .gradient_batch = gradient_batch};
    ps_ledger_init(&f->ledger, &cfg, &f->arena);
    CHECK(f->ledger.async == (threads > 0 && gradient_batch > 1));
}

static void fixture_start(fixture_t *f, bool cyclic, bool merge, int64_t gradient_batch)
{
    fixture_start_on(f, cyclic, merge, gradient_batch, 0);
}

static void fixture_end(fixture_t *f)
{
    ps_ledger_free(&f->ledger);
    sgd_arena_free(&f->arena);
    ps_server_free(&f->srv);
    sgd_backend_destroy(&f->backend);
    model_destroy(f->model);
    dataset_free(&f->train);
    free(f->params);
}

/* Moves the parameters to the next version, as applying an update would. */
static void next_version(fixture_t *f)
{
    for (size_t i = 0; i < f->np; i++) f->params[i] *= 0.5f;
    ps_server_bump(&f->srv);
    ps_server_applied(&f->srv);
}

/* Snapshots of versions 0 and 1, filled, and of version 2, scheduled while the parameters are
 * still at 1 (so not filled yet). */
static void three_versions(fixture_t *f, ps_snap_t *v[3])
{
    v[0] = ps_server_snapshot(&f->srv);
    next_version(f);
    v[1] = ps_server_snapshot(&f->srv);
    ps_server_bump(&f->srv);
    v[2] = ps_server_snapshot(&f->srv);
}

static ps_push_t push_of(int32_t client, double factor, const ps_req_t *req)
{
    return (ps_push_t){.client = client, .tau = client, .factor = factor, .reqs = req,
                       .nreq = req ? 1 : 0, .reapply = req == NULL};
}

static const ps_update_t *schedule(fixture_t *f, const ps_push_t *pushes, int64_t n)
{
    const ps_update_t head = {.vtime = 42, .lr = 0.1, .events = 9};
    return ps_ledger_schedule(&f->ledger, &head, pushes, n);
}

static void requests_on_one_snapshot_and_factor_merge_in_arrival_order(void)
{
    fixture_t f;
    fixture_start(&f, true, true, 1);
    ps_snap_t *a = ps_server_snapshot(&f.srv);
    next_version(&f);
    ps_snap_t *b = ps_server_snapshot(&f.srv);
    const ps_req_t r0 = {.snap = a, .t = 0}, r1 = {.snap = b, .t = 1},
                   r2 = {.snap = a, .t = 2}, r3 = {.snap = a, .t = 3};
    const ps_push_t pushes[] = {push_of(0, 1.0, &r0), push_of(1, 1.0, &r1),
                                push_of(2, 1.0, &r2), push_of(3, 0.5, &r3),
                                push_of(4, 1.0, NULL)};
    const ps_update_t *u = schedule(&f, pushes, 5);
    CHECK_INT_EQ(u->vtime, 42);
    CHECK_INT_EQ(u->events, 9);
    CHECK_INT_EQ(u->nterms, 4);
    CHECK_INT_EQ(u->ntau, 5);
    const int64_t *taus = ps_ledger_taus(&f.ledger, u);
    for (int i = 0; i < 5; i++) CHECK_INT_EQ(taus[i], i);
    const ps_term_t *t = ps_ledger_terms(&f.ledger, u);
    CHECK(t[0].snap == a && t[0].count == 2 && t[0].client == 0 && t[0].factor == 1.0);
    CHECK(t[1].snap == b && t[1].count == 1 && t[1].client == 1);
    CHECK(t[2].snap == a && t[2].count == 1 && t[2].factor == 0.5);
    CHECK(t[3].snap == NULL && t[3].client == 4 && t[3].count == 1);
    /* Each term's requests together, in arrival order. */
    const ps_lreq_t *q = f.ledger.lreq;
    CHECK_INT_EQ(f.ledger.nlreq, 4);
    CHECK_INT_EQ(t[0].first_req, 0);
    CHECK(q[0].client == 0 && q[0].t == 0 && q[1].client == 2 && q[1].t == 2);
    CHECK(q[t[1].first_req].client == 1 && q[t[2].first_req].client == 3);
    /* One pin per term on a snapshot; the pushes' own references are untouched. */
    CHECK_INT_EQ(a->pins, 2);
    CHECK_INT_EQ(b->pins, 1);
    CHECK_INT_EQ(a->refs, 1);
    ps_ledger_clear(&f.ledger, 0);
    CHECK_INT_EQ(a->pins, 0);
    CHECK_INT_EQ(b->pins, 0);
    CHECK_INT_EQ(f.ledger.nupd + f.ledger.nterm + f.ledger.nlreq + f.ledger.ntau, 0);
    ps_snap_release(&f.srv, a);
    ps_snap_release(&f.srv, b);
    fixture_end(&f);
}

static void without_merge_every_request_is_its_own_term(void)
{
    fixture_t f;
    fixture_start(&f, true, false, 1);
    ps_snap_t *a = ps_server_snapshot(&f.srv);
    const ps_req_t r0 = {.snap = a, .t = 0}, r1 = {.snap = a, .t = 1};
    const ps_push_t pushes[] = {push_of(0, 1.0, &r0), push_of(1, 1.0, &r1)};
    const ps_update_t *u = schedule(&f, pushes, 2);
    CHECK_INT_EQ(u->nterms, 2);
    CHECK_INT_EQ(a->pins, 2);
    ps_ledger_clear(&f.ledger, 0);
    ps_snap_release(&f.srv, a);
    fixture_end(&f);
}

/* "random": request i in ledger order takes the next MU draws of its own client's stream. */
static void random_rows_come_from_each_clients_stream_in_ledger_order(void)
{
    fixture_t f;
    fixture_start(&f, false, true, 1);
    ps_snap_t *a = ps_server_snapshot(&f.srv);
    next_version(&f);
    ps_snap_t *b = ps_server_snapshot(&f.srv);
    gsl_rng *rng[3], *copy[3];
    for (int c = 0; c < 3; c++) {
        rng[c] = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(rng[c], 100 + (unsigned long)c);
        copy[c] = gsl_rng_clone(rng[c]);
    }
    /* Arrival: client 0 on a, 1 on b, 2 on a: ledger order 0, 2, 1. */
    const ps_req_t r0 = {.snap = a, .t = 0}, r1 = {.snap = b, .t = 1},
                   r2 = {.snap = a, .t = 2};
    ps_push_t pushes[] = {push_of(0, 1.0, &r0), push_of(1, 1.0, &r1), push_of(2, 1.0, &r2)};
    for (int c = 0; c < 3; c++) pushes[c].sample_rng = rng[c];
    schedule(&f, pushes, 3);
    const int order[] = {0, 2, 1};
    for (int i = 0; i < 3; i++) {
        const ps_lreq_t *q = &f.ledger.lreq[i];
        CHECK_INT_EQ(q->client, order[i]);
        for (int k = 0; k < MU; k++)
            CHECK_INT_EQ(f.ledger.rowpool[q->rows + k],
                         gsl_rng_uniform_int(copy[order[i]], (unsigned long)f.train.n));
    }
    ps_ledger_clear(&f.ledger, 0);
    for (int c = 0; c < 3; c++) {
        gsl_rng_free(rng[c]);
        gsl_rng_free(copy[c]);
    }
    ps_snap_release(&f.srv, a);
    ps_snap_release(&f.srv, b);
    fixture_end(&f);
}

static bool same_floats(const float *x, const float *y, size_t n)
{
    return memcmp(x, y, n * sizeof *x) == 0;
}

/* Three updates of one gradient each: two on filled snapshots, one on a version the
 * parameters have not reached.  Asking for the first gradient evaluates the two filled ones
 * in one batched call and leaves the lagging one; each equals loss_grad on its own rows. */
static void a_batch_takes_only_filled_snapshots_and_gives_the_same_bits(void)
{
    for (int cyclic = 0; cyclic <= 1; cyclic++) {
        fixture_t f;
        fixture_start(&f, cyclic, false, 4);
        ps_snap_t *v[3];
        three_versions(&f, v);
        ps_snap_t *v0 = v[0], *v1 = v[1], *v2 = v[2];
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
        const ps_req_t r[3] = {
            {.snap = v0, .t = 3}, {.snap = v1, .t = 20}, {.snap = v2, .t = 7}};
        const ps_update_t *u[3];
        for (int i = 0; i < 3; i++) {
            ps_push_t pu = push_of(i, 1.0, &r[i]);
            pu.sample_rng = rng;
            u[i] = schedule(&f, &pu, 1);
        }
        ps_term_t *t0 = ps_ledger_terms(&f.ledger, u[0]);
        ps_term_t *t1 = ps_ledger_terms(&f.ledger, u[1]);
        ps_term_t *t2 = ps_ledger_terms(&f.ledger, u[2]);
        const uint64_t calls = f.backend.grad_calls;
        const float *g0 = ps_ledger_gradient(&f.ledger, t0, &f.err);
        CHECK_INT_EQ(f.backend.grad_calls - calls, 1);
        CHECK_INT_EQ(f.backend.grads, 2);
        CHECK(t1->grad != NULL && t2->grad == NULL);
        CHECK(t0->slot >= 0 && t1->slot >= 0 && t0->slot != t1->slot);
        CHECK(ps_ledger_gradient(&f.ledger, t1, &f.err) == t1->grad); /* no second evaluation */
        CHECK_INT_EQ(f.backend.grad_calls - calls, 1);

        float *want = malloc(f.np * sizeof *want), x[MU * DIM];
        int32_t y[MU];
        const ps_term_t *terms[2] = {t0, t1};
        for (int i = 0; i < 2; i++) {
            const ps_lreq_t *q = &f.ledger.lreq[terms[i]->first_req];
            for (int k = 0; k < MU; k++) {
                int64_t row = cyclic ? (q->t % (f.train.n / MU)) * MU + k
                                     : f.ledger.rowpool[q->rows + k];
                memcpy(x + k * DIM, f.train.x + row * DIM, DIM * sizeof *x);
                y[k] = f.train.y[row];
            }
            double loss = model_loss_grad(f.model, terms[i]->snap->data, x, y, MU, want);
            CHECK(same_floats(want, terms[i]->grad, f.np));
            CHECK(loss == terms[i]->loss);
        }
        CHECK(g0 == t0->grad);
        free(want);

        /* Releasing the applied update gives its slot back; clearing after it releases the
         * rest unapplied: every pin and slot is back. */
        ps_ledger_release(&f.ledger, t0);
        CHECK_INT_EQ(f.ledger.batch.nfree, 3);
        ps_ledger_clear(&f.ledger, 1);
        CHECK_INT_EQ(f.ledger.batch.nfree, 4);
        CHECK_INT_EQ(v0->pins + v1->pins, 0);
        CHECK_INT_EQ(v2->pins, 1); /* the server's own, until the parameters reach it */
        ps_server_applied(&f.srv);
        CHECK_INT_EQ(v2->pins, 0);
        ps_snap_release(&f.srv, v0);
        ps_snap_release(&f.srv, v1);
        ps_snap_release(&f.srv, v2);
        gsl_rng_free(rng);
        fixture_end(&f);
    }
}

/* The gradient of term t as loss_grad gives it on its own rows: the same bits and loss. */
static void check_is_loss_grad(fixture_t *f, const ps_term_t *t, bool cyclic)
{
    float *want = malloc(f->np * sizeof *want), x[MU * DIM];
    int32_t y[MU];
    const ps_lreq_t *q = &f->ledger.lreq[t->first_req];
    for (int k = 0; k < MU; k++) {
        int64_t row = cyclic ? (q->t % (f->train.n / MU)) * MU + k
                             : f->ledger.rowpool[q->rows + k];
        memcpy(x + k * DIM, f->train.x + row * DIM, DIM * sizeof *x);
        y[k] = f->train.y[row];
    }
    double loss = model_loss_grad(f->model, t->snap->data, x, y, MU, want);
    CHECK(t->grad && same_floats(want, t->grad, f->np));
    CHECK(loss == t->loss);
    free(want);
}

/* The background path: scheduling hands over the gradients on filled snapshots at once and
 * keeps the lagging one until an applied update fills it (prefetch); each gives loss_grad's
 * bits whichever thread computed it; clearing while requests are queued or running waits
 * for them and gives every pin and slot back. */
static void the_background_path_hands_over_filled_snapshots_and_gives_the_same_bits(void)
{
    for (int threads = 1; threads <= 3; threads++)
        for (int cyclic = 0; cyclic <= 1; cyclic++) {
            fixture_t f;
            fixture_start_on(&f, cyclic, false, 4, threads);
            ps_snap_t *v[3];
            three_versions(&f, v);
            ps_snap_t *v0 = v[0], *v1 = v[1], *v2 = v[2];
            gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
            const ps_req_t r[4] = {{.snap = v0, .t = 3}, {.snap = v1, .t = 20},
                                   {.snap = v2, .t = 7}, {.snap = v0, .t = 9}};
            const ps_update_t *u[4];
            for (int i = 0; i < 4; i++) {
                ps_push_t pu = push_of(i, 1.0, &r[i]);
                pu.sample_rng = rng;
                u[i] = schedule(&f, &pu, 1);
            }
            ps_term_t *t[4];
            for (int i = 0; i < 4; i++) t[i] = ps_ledger_terms(&f.ledger, u[i]);
            CHECK(t[0]->queued && t[1]->queued && !t[2]->queued && t[3]->queued);
            CHECK_INT_EQ(f.backend.grads, 3);
            CHECK_INT_EQ(f.backend.grad_calls, 3); /* one call per gradient */
            CHECK_INT_EQ(f.ledger.batch.nfree, 1);
            CHECK(ps_ledger_gradient(&f.ledger, t[0], &f.err) == t[0]->grad && !t[0]->queued);
            check_is_loss_grad(&f, t[0], cyclic);
            ps_ledger_release(&f.ledger, t[0]);
            ps_ledger_prefetch(&f.ledger); /* nothing new is filled: t2 still waits */
            CHECK(!t[2]->queued);
            for (size_t i = 0; i < f.np; i++) f.params[i] *= 0.5f;
            ps_server_applied(&f.srv); /* the parameters reach version 2 */
            ps_ledger_prefetch(&f.ledger);
            CHECK(t[2]->queued);
            CHECK_INT_EQ(f.backend.grads, 4);
            for (int i = 1; i < 3; i++) {
                ps_ledger_gradient(&f.ledger, t[i], &f.err);
                check_is_loss_grad(&f, t[i], cyclic);
            }
            ps_ledger_clear(&f.ledger, 1); /* t3 still queued or running */
            CHECK_INT_EQ(f.ledger.batch.nfree, 4);
            CHECK_INT_EQ(v0->pins + v1->pins + v2->pins, 0);
            ps_snap_release(&f.srv, v0);
            ps_snap_release(&f.srv, v1);
            ps_snap_release(&f.srv, v2);
            gsl_rng_free(rng);
            fixture_end(&f);
        }
}

/* A term of several requests is evaluated alone, as one stacked minibatch. */
static void a_merged_term_is_one_stacked_minibatch(void)
{
    fixture_t f;
    fixture_start(&f, true, true, 4);
    ps_snap_t *a = ps_server_snapshot(&f.srv);
    const ps_req_t r0 = {.snap = a, .t = 1}, r1 = {.snap = a, .t = 5};
    const ps_push_t pushes[] = {push_of(0, 1.0, &r0), push_of(1, 1.0, &r1)};
    const ps_update_t *u = schedule(&f, pushes, 2);
    ps_term_t *t = ps_ledger_terms(&f.ledger, u);
    CHECK_INT_EQ(u->nterms, 1);
    ps_ledger_gradient(&f.ledger, t, &f.err);
    CHECK(t->slot == -1);
    float *want = malloc(f.np * sizeof *want), x[2 * MU * DIM];
    int32_t y[2 * MU];
    const int64_t blocks[2] = {1, 5};
    for (int i = 0; i < 2; i++) {
        memcpy(x + i * MU * DIM, f.train.x + blocks[i] * MU * DIM, MU * DIM * sizeof *x);
        memcpy(y + i * MU, f.train.y + blocks[i] * MU, MU * sizeof *y);
    }
    double loss = model_loss_grad(f.model, a->data, x, y, 2 * MU, want);
    CHECK(same_floats(want, t->grad, f.np));
    CHECK(loss == t->loss);
    free(want);
    ps_ledger_release(&f.ledger, t);
    ps_ledger_clear(&f.ledger, 1);
    CHECK_INT_EQ(a->pins, 0);
    ps_snap_release(&f.srv, a);
    fixture_end(&f);
}

/* Freeing a ledger that still holds updates gives their pins back. */
static void free_releases_updates_never_applied(void)
{
    fixture_t f;
    fixture_start(&f, true, false, 2);
    ps_snap_t *a = ps_server_snapshot(&f.srv);
    const ps_req_t r0 = {.snap = a, .t = 0};
    const ps_push_t pu = push_of(0, 1.0, &r0);
    schedule(&f, &pu, 1);
    schedule(&f, &pu, 1);
    CHECK_INT_EQ(a->pins, 2);
    ps_ledger_free(&f.ledger);
    CHECK_INT_EQ(a->pins, 0);
    ps_snap_release(&f.srv, a);
    fixture_end(&f);
}

int main(void)
{
    requests_on_one_snapshot_and_factor_merge_in_arrival_order();
    without_merge_every_request_is_its_own_term();
    random_rows_come_from_each_clients_stream_in_ledger_order();
    a_batch_takes_only_filled_snapshots_and_gives_the_same_bits();
    the_background_path_hands_over_filled_snapshots_and_gives_the_same_bits();
    a_merged_term_is_one_stacked_minibatch();
    free_releases_updates_never_applied();
    return check_exit();
}
