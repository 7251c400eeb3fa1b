/* Checkpoints of a run (alg.h, "checkpoints"): when one is due, and the payload -- the
 * engine, the runner's books, the parameters, the backend's counters and the algorithm's
 * own state -- written and read back in one fixed order of tagged sections (common/ckbuf.h).
 *
 * A checkpoint is written only between events, after an update was counted: the update's
 * metric rows are all emitted by then and nothing is half done, so a resumed run continues
 * from a state the uninterrupted run passed through, and every later row, every draw and the
 * digest are the uninterrupted run's. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "algorithms/alg.h"
#include "algorithms/runner_internal.h"
#include "common/ckbuf.h"
#include "common/clock.h"

static volatile sig_atomic_t exit_requested;

void alg_request_checkpoint_exit(void) { exit_requested = 1; }

bool alg_runner_checkpoint_exit_requested(void) { return exit_requested != 0; }

const char *alg_checkpoint_unsupported(const alg_prepared_t *run)
{
    static char why[160];
    SGD_ASSERT(run->ops->ckpt); /* every registered algorithm has them (alg.h) */
    const sgd_backend_t *b = &run->res.backend;
    if (run->ctx.numerics && run->ops->ckpt->backend_state &&
        (!b->iface->sync_export || !b->iface->sync_import)) {
        snprintf(why, sizeof why, "backend \"%s\" does not support checkpoints of %s yet",
                 b->iface->name, run->ops->scenario.name);
        return why;
    }
    return NULL;
}

void alg_set_checkpoints(alg_prepared_t *run, const alg_checkpoint_opts_t *o)
{
    SGD_ASSERT(!alg_checkpoint_unsupported(run) && o->write);
    run->runner.checkpoints = true;
    run->runner.ckpt = *o;
    run->runner.last_ckpt_wall_s = sgd_monotonic_s();
}

/* Ends the run with a checkpoint's error, worded as the synchronous write always was;
 * a run that already ended otherwise (diverged, interrupted) keeps its first reason. */
static void fail_checkpoint(alg_ctx_t *ctx, int64_t update, const sgd_err_t *err)
{
    if (ctx->status != ALG_RUNNING && ctx->status != ALG_COMPLETE) return;
    ctx->status = ALG_FAILED;
    snprintf(ctx->detail, sizeof ctx->detail, "checkpoint after update %lld: %.900s",
             (long long)update, err->msg);
}

/* The write in flight (alg_checkpoint_opts_t.wait): waits for it to end (block) or only
 * looks.  1 while it is still in flight (!block only); 0 when none is in flight any more
 * and the last one stored its file; -1 when it failed, after failing the run. */
static int settle_write(struct alg_runner *rn, alg_ctx_t *ctx, bool block)
{
    if (!rn->write_in_flight) return 0;
    sgd_err_t err = {{0}};
    int rc = rn->ckpt.wait(rn->ckpt.ctx, block, &err);
    if (rc == 1) return 1;
    rn->write_in_flight = false;
    if (rc == 0) return 0;
    fail_checkpoint(ctx, rn->in_flight_update, &err);
    return -1;
}

void alg_runner_checkpoint_drain(alg_prepared_t *run)
{
    settle_write(&run->runner, &run->ctx, true);
}

bool alg_runner_checkpoint_check(alg_ctx_t *ctx)
{
    struct alg_runner *r = ctx->runner;
    if (!r->checkpoints) return true;
    /* Looked at after every update, so a failed background write ends the run within an
     * update or so of failing; which update that is depends on wall time, like the failure. */
    if (settle_write(r, ctx, false) < 0) {
        sim_engine_stop(ctx->engine);
        return false;
    }
    const alg_checkpoint_opts_t *o = &r->ckpt;
    bool exit_now = exit_requested || (o->exit_at_update && ctx->updates >= o->exit_at_update);
    bool due = exit_now || (o->every_updates && ctx->updates % o->every_updates == 0) ||
               (o->once_at_update && ctx->updates == o->once_at_update) ||
               (o->every_wall_s > 0 && sgd_monotonic_s() - r->last_ckpt_wall_s >= o->every_wall_s);
    if (!due) return true;
    r->ckpt_due = true;
    r->ckpt_exit = exit_now;
    sim_engine_stop(ctx->engine);
    return true;
}

/* ---- the payload ------------------------------------------------------------------- */

static void save_digest(const sgd_sha256_t *d, sgd_ckw_t *w)
{
    for (int i = 0; i < 8; i++) sgd_ckw_u64(w, d->h[i]);
    sgd_ckw_u64(w, d->nbytes);
    sgd_ckw_bytes(w, d->block, sizeof d->block);
    sgd_ckw_u64(w, d->nblock);
}

static void restore_digest(sgd_sha256_t *d, sgd_ckr_t *r)
{
    for (int i = 0; i < 8; i++) d->h[i] = (uint32_t)sgd_ckr_count(r, UINT32_MAX, "digest");
    d->nbytes = sgd_ckr_u64(r);
    sgd_ckr_bytes(r, d->block, sizeof d->block, "digest block");
    d->nblock = (size_t)sgd_ckr_count(r, sizeof d->block - 1, "digest block bytes");
    if (!r->failed && d->nblock != d->nbytes % sizeof d->block)
        sgd_ckr_fail(r, "digest: %zu bytes in its block after %llu hashed", d->nblock,
                     (unsigned long long)d->nbytes);
}

/* The runner's books: the digest's running state, the evaluation and stop schedule's
 * position, the counters the outcome reports. */
static void save_books(const alg_prepared_t *run, sgd_ckw_t *w)
{
    const struct alg_runner *rn = &run->runner;
    const alg_ctx_t *ctx = &run->ctx;
    sgd_ckw_tag(w, "runner");
    save_digest(&rn->digest, w);
    sgd_ckw_i64(w, rn->last_eval_update);
    sgd_ckw_i64(w, rn->last_vtime_ns);
    sgd_ckw_i64(w, rn->first_vtime_ns);
    sgd_ckw_f64(w, rn->last_train_loss);
    sgd_ckw_i64(w, ctx->updates);
    sgd_ckw_u64(w, ctx->events_at_stop);
    sgd_ckw_u64(w, ctx->events_at_update);
    sgd_ckw_u64(w, run->res.backend.grad_calls);
    sgd_ckw_u64(w, run->res.backend.grads);
    sgd_ckw_u64(w, ctx->numerics ? ctx->nparams : 0);
    if (ctx->numerics) sgd_ckw_bytes(w, ctx->params, ctx->nparams * sizeof *ctx->params);
}

/* The books' times against each other and the engine's clock: update 1 at or before the
 * latest update, which is not after now (both 0 before the first update). */
static void check_times(const alg_prepared_t *run, sgd_ckr_t *r)
{
    const struct alg_runner *rn = &run->runner;
    const int64_t now = sim_engine_now(run->res.engine), first = rn->first_vtime_ns,
                  last = rn->last_vtime_ns;
    bool ok = run->ctx.updates == 0 ? first == 0 && last == 0
                                    : first >= 0 && first <= last && last <= now;
    if (!r->failed && !ok)
        sgd_ckr_fail(r, "virtual times out of order: update 1 at %lld ns, update %lld at %lld "
                        "ns, the clock at %lld ns", (long long)first,
                     (long long)run->ctx.updates, (long long)last, (long long)now);
}

/* The books' counters against the scenario and the engine. */
static void check_books(const alg_prepared_t *run, sgd_ckr_t *r)
{
    const struct alg_runner *rn = &run->runner;
    const alg_ctx_t *ctx = &run->ctx;
    const scn_t *s = ctx->scn;
    if (r->failed) return;
    if (ctx->updates < 0 || ctx->updates >= s->stop_updates) {
        sgd_ckr_fail(r, "%lld updates applied, outside [0, stop.updates = %lld)",
                     (long long)ctx->updates, (long long)s->stop_updates);
        return;
    }
    /* evaluated at update 0 and every eval.every updates since (alg_update_done) */
    const int64_t every = s->eval_every;
    const int64_t eval = ctx->numerics && every > 0 ? ctx->updates / every * every : -1;
    const uint64_t processed = sim_engine_counters(run->res.engine).events_processed;
    if (rn->last_eval_update != eval)
        sgd_ckr_fail(r, "last evaluation at update %lld, this run's would be at %lld",
                     (long long)rn->last_eval_update, (long long)eval);
    else if (ctx->events_at_stop != 0 || ctx->events_at_update > processed)
        sgd_ckr_fail(r, "event counts %llu and %llu past the %llu events processed",
                     (unsigned long long)ctx->events_at_stop,
                     (unsigned long long)ctx->events_at_update, (unsigned long long)processed);
    else if (run->res.backend.grad_calls > run->res.backend.grads)
        sgd_ckr_fail(r, "%llu backend calls for %llu gradients",
                     (unsigned long long)run->res.backend.grad_calls,
                     (unsigned long long)run->res.backend.grads);
    else if (ctx->numerics ? !isfinite(rn->last_train_loss) : rn->last_train_loss != 0.0)
        sgd_ckr_fail(r, "training loss %g", rn->last_train_loss);
    else if (ctx->numerics && alg_any_nonfinite(ctx->params, ctx->nparams))
        sgd_ckr_fail(r, "parameters: a value is NaN or infinite");
    check_times(run, r);
}

static void restore_books(alg_prepared_t *run, sgd_ckr_t *r)
{
    struct alg_runner *rn = &run->runner;
    alg_ctx_t *ctx = &run->ctx;
    sgd_ckr_tag(r, "runner");
    restore_digest(&rn->digest, r);
    rn->last_eval_update = sgd_ckr_i64(r);
    rn->last_vtime_ns = sgd_ckr_i64(r);
    rn->first_vtime_ns = sgd_ckr_i64(r);
    rn->last_train_loss = sgd_ckr_f64(r);
    ctx->updates = sgd_ckr_i64(r);
    ctx->events_at_stop = sgd_ckr_u64(r);
    ctx->events_at_update = sgd_ckr_u64(r);
    run->res.backend.grad_calls = sgd_ckr_u64(r);
    run->res.backend.grads = sgd_ckr_u64(r);
    uint64_t np = sgd_ckr_u64(r);
    if (!r->failed && np != (ctx->numerics ? ctx->nparams : 0))
        sgd_ckr_fail(r, "%llu parameters saved, this run's model has %zu",
                     (unsigned long long)np, ctx->numerics ? ctx->nparams : 0);
    if (ctx->numerics) sgd_ckr_bytes(r, ctx->params, ctx->nparams * sizeof *ctx->params, "parameters");
    check_books(run, r);
}

/* The whole state, in the order alg_restore reads it. */
static int save_payload(const alg_prepared_t *run, sgd_ckw_t *w, sgd_err_t *err)
{
    sgd_ckw_tag(w, "sgdsim-run");
    if (sim_engine_save(run->res.engine, w, err)) return -1;
    save_books(run, w);
    sgd_ckw_tag(w, run->ops->scenario.name);
    if (run->ops->ckpt->save(run->res.state, w, err)) return -1;
    sgd_ckw_tag(w, "end");
    return 0;
}

bool alg_runner_checkpoint_write(alg_prepared_t *run)
{
    struct alg_runner *rn = &run->runner;
    alg_ctx_t *ctx = &run->ctx;
    sgd_ckw_t w;
    sgd_ckw_init(&w);
    sgd_err_t err = {{0}};
    rn->ckpt_due = false;
    /* At most one write in flight: a checkpoint due while the previous one is still being
     * written waits for it before its own state is serialised, so the run never holds two
     * serialised copies. */
    if (settle_write(rn, ctx, true) < 0) return false;
    const alg_ckpt_ops_t *ops = run->ops->ckpt;
    /* Updates settle applies may find another checkpoint due (and stop the engine again):
     * the loop in runner.c then writes the same state once more, which costs a write and
     * changes nothing. */
    if (ops->settle && !ops->settle(run->res.state)) /* the run ended there */
        return false;
    if (rn->ckpt.reclaim) { /* the last checkpoint's buffer, its pages already ours */
        size_t cap = 0;
        void *buf = rn->ckpt.reclaim(rn->ckpt.ctx, &cap);
        sgd_ckw_adopt(&w, buf, cap);
    }
    int rc = save_payload(run, &w, &err);
    if (rc == 0) { /* the buffer passes to write: the serialised state is never copied */
        rc = rn->ckpt.write(rn->ckpt.ctx, w.buf, w.len, ctx->updates, &err);
        sgd_ckw_init(&w);
        rn->write_in_flight = rc == 0 && rn->ckpt.wait;
        rn->in_flight_update = ctx->updates;
    }
    sgd_ckw_free(&w);
    rn->last_ckpt_wall_s = sgd_monotonic_s(); /* the next interval counts from the hand-over */
    if (rc) {
        fail_checkpoint(ctx, ctx->updates, &err);
        return false;
    }
    if (!rn->ckpt_exit) return true;
    if (settle_write(rn, ctx, true) < 0) return false; /* stopped only once the file is in place */
    exit_requested = 0;
    ctx->status = ALG_CHECKPOINTED;
    snprintf(ctx->detail, sizeof ctx->detail, "stopped after update %lld with a checkpoint",
             (long long)ctx->updates);
    return false;
}

bool alg_runner_checkpoint_stop_at_start(alg_prepared_t *run)
{
    struct alg_runner *rn = &run->runner;
    if (!rn->restored || !rn->checkpoints || !exit_requested) return false;
    rn->ckpt_due = rn->ckpt_exit = true;
    alg_runner_checkpoint_write(run); /* false: stopped with it, or failed to write it */
    return true;
}

int alg_restore(alg_prepared_t *run, const void *payload, size_t n, sgd_err_t *err)
{
    const char *no = alg_checkpoint_unsupported(run);
    if (no) return sgd_errf(err, "%s", no);
    sgd_ckr_t r;
    sgd_ckr_init(&r, payload, n);
    sgd_ckr_tag(&r, "sgdsim-run");
    if (sgd_ckr_check(&r, "checkpoint", err) || sim_engine_restore(run->res.engine, &r, err))
        return -1;
    restore_books(run, &r);
    sgd_ckr_tag(&r, run->ops->scenario.name);
    if (sgd_ckr_check(&r, "checkpoint", err) || run->ops->ckpt->restore(run->res.state, &r, err))
        return -1;
    sgd_ckr_tag(&r, "end");
    if (sgd_ckr_check(&r, "checkpoint", err)) return -1;
    if (!sgd_ckr_done(&r)) return sgd_errf(err, "checkpoint: bytes left after its end");
    /* Every part read and checked on its own: now the pending events against the state
     * they act on, and the algorithm's state against the events. */
    const alg_ckpt_ops_t *ops = run->ops->ckpt;
    if (sim_engine_check_pending(run->res.engine, err) ||
        (ops->verify && ops->verify(run->res.state, err)))
        return -1;
    run->runner.restored = true;
    return 0;
}

int64_t alg_restored_updates(const alg_prepared_t *run) { return run->ctx.updates; }
