/* The runner's side of background checkpoint writes (alg_checkpoint_opts_t.wait), with a
 * writer that keeps each payload "in flight" until the runner's wait completes it (or until
 * a few looks after updates have passed): a run writing checkpoints so gives the digest and
 * rows of one without; the runner never starts a write while one is in flight, and none is
 * in flight when the run returns; a checkpoint that stops the run (exit_at_update) returns
 * only once its write completed; a write that fails ends the run failed naming the update of
 * its checkpoint and the writer's message, a little after that update; a run that is
 * already ending (here: complete) waits for the write in flight and fails with its error;
 * with a reclaim callback, every checkpoint after the first is serialised into the buffer of
 * the one before, giving the same payloads byte for byte.
 * CSGD: one update per event, so a checkpoint can follow any update. */
#include "tests/algorithms/ckpt_harness.h"

static const char *csgd_text =
    "{\"schema_version\": 1, \"seed\": 5,"
    " \"algorithm\": {\"name\": \"csgd\"},"
    " \"cluster\": {\"workers\": 4, \"time_factor\": {\"dist\": \"uniform\", \"min\": 1, \"max\": 2}},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 300, \"n_validation\": 60,"
    "           \"dim\": 10, \"classes\": 3, \"separation\": 2.0},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [12]},"
    " \"batch\": {\"per_worker\": 4},"
    " \"optimizer\": {\"lr\": 0.05},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"uniform\", \"min\": 0.002, \"max\": 0.005}},"
    " \"io\": {\"time_s\": {\"dist\": \"uniform\", \"min\": 0.001, \"max\": 0.003}},"
    " \"stop\": {\"updates\": 40}, \"eval\": {\"every\": 7}}";

/* A writer whose writes end only when waited for, or after `lag` looks that found them in
 * flight. */
typedef struct deferred {
    int lag;               /* looks (!block) a write stays in flight; < 0: until waited for */
    int64_t fail_update;   /* the write of this update fails (0: none) */
    void *payload;         /* in flight, or NULL */
    int64_t updates;       /* ... of this update */
    int looks;
    int started, ended, overlaps;
    int64_t last_ended;    /* update of the last write that ended */
    bool reuse;            /* keep an ended write's payload for d_reclaim */
    void *spare;           /* that payload, until reclaimed */
    size_t n, spare_n;     /* the bytes of the payload in flight, of the spare */
    int reclaims;          /* buffers d_reclaim handed back */
    uint64_t hash[64];     /* FNV-1a of each write's payload, in order */
} deferred_t;

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int d_write(void *ctx, void *payload, size_t n, int64_t updates, sgd_err_t *err)
{
    (void)n, (void)err;
    deferred_t *d = ctx;
    if (d->payload) d->overlaps++, free(d->payload);
    if (d->started < 64) d->hash[d->started] = fnv1a(payload, n);
    d->payload = payload;
    d->n = n;
    d->updates = updates;
    d->looks = 0;
    d->started++;
    return 0;
}

static int d_wait(void *ctx, bool block, sgd_err_t *err)
{
    deferred_t *d = ctx;
    if (!d->payload) return 0;
    if (!block && (d->lag < 0 || d->looks++ < d->lag)) return 1;
    if (d->reuse) {
        free(d->spare);
        d->spare = d->payload, d->spare_n = d->n;
    } else {
        free(d->payload);
    }
    d->payload = NULL;
    d->ended++;
    d->last_ended = d->updates;
    if (d->updates != d->fail_update) return 0;
    return sgd_errf(err, "x.ckpt: cannot write: No space left on device");
}

static void *d_reclaim(void *ctx, size_t *n)
{
    deferred_t *d = ctx;
    CHECK(!d->payload); /* only with no write in flight */
    void *p = d->spare;
    *n = p ? d->spare_n : 0;
    d->spare = NULL;
    d->reclaims += p != NULL;
    return p;
}

static alg_outcome_t run_with(const scn_t *s, deferred_t *d, int64_t every, int64_t exit_at,
                              rows_t *rows)
{
    alg_checkpoint_opts_t co = {.every_updates = every, .exit_at_update = exit_at,
                                .write = d_write, .wait = d_wait,
                                .reclaim = d->reuse ? d_reclaim : NULL, .ctx = d};
    rows->n = 0;
    return execute(s, NULL, 0, &co, rows);
}

int main(void)
{
    scn_t s;
    const char *sets[] = {"stop.updates=40"};
    load(csgd_text, sets, 1, 1, &s);
    static rows_t full, got;
    alg_outcome_t o_full = execute(&s, NULL, 0, NULL, &full);
    CHECK(o_full.status == ALG_COMPLETE);

    /* Writes that last 0, 2 and "until waited for" looks: the same bits, one in flight. */
    for (int lag = -1; lag <= 2; lag += 1) {
        deferred_t d = {.lag = lag};
        alg_outcome_t o = run_with(&s, &d, lag == 2 ? 1 : 3, 0, &got);
        CHECK(o.status == ALG_COMPLETE);
        CHECK_STR_EQ(o.digest, o_full.digest);
        CHECK(same_rows(&got, &full));
        CHECK_INT_EQ(d.overlaps, 0);
        CHECK(d.started >= 10 && d.ended == d.started && !d.payload);
        free(o.final_params);
    }

    /* A stop returns only once its write ended. */
    deferred_t stop = {.lag = -1};
    alg_outcome_t o = run_with(&s, &stop, 3, 20, &got);
    CHECK(o.status == ALG_CHECKPOINTED);
    CHECK(!stop.payload && stop.last_ended == o.updates && o.updates >= 20);
    CHECK_INT_EQ(stop.overlaps, 0);
    free(o.final_params);

    /* A write that fails, noticed two looks later: the run fails, naming its update. */
    deferred_t bad = {.lag = 2, .fail_update = 12};
    o = run_with(&s, &bad, 6, 0, &got);
    CHECK(o.status == ALG_FAILED);
    CHECK_STR_CONTAINS(o.detail, "checkpoint after update 12: x.ckpt: cannot write");
    CHECK(o.updates > 12 && o.updates < 18); /* went on a little; no write after it */
    CHECK(!bad.payload && bad.started == 2);
    free(o.final_params);

    /* The write in flight when the run completes is waited for; its failure fails the run. */
    deferred_t last = {.lag = -1, .fail_update = 39};
    o = run_with(&s, &last, 39, 0, &got);
    CHECK(o.status == ALG_FAILED);
    CHECK_STR_CONTAINS(o.detail, "checkpoint after update 39:");
    CHECK(!last.payload && last.ended == 1);
    free(o.final_params);

    /* Serialised into the last checkpoint's buffer: the same payloads, the same run. */
    deferred_t fresh = {.lag = 1}, reuse = {.lag = 1, .reuse = true};
    o = run_with(&s, &fresh, 3, 0, &got);
    free(o.final_params);
    o = run_with(&s, &reuse, 3, 0, &got);
    CHECK(o.status == ALG_COMPLETE);
    CHECK_STR_EQ(o.digest, o_full.digest);
    CHECK(same_rows(&got, &full));
    CHECK(reuse.started == fresh.started && reuse.started >= 10 && reuse.started <= 64);
    CHECK_INT_EQ(reuse.reclaims, reuse.started - 1);
    CHECK(memcmp(reuse.hash, fresh.hash, sizeof fresh.hash) == 0);
    free(reuse.spare);
    free(o.final_params);

    free(o_full.final_params);
    scn_free(&s);
    return check_exit();
}
