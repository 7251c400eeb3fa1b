/* Shared by the checkpoint tests (test_checkpoint_resume.c, test_checkpoint_resume_ps.c):
 * a sink that keeps every row a run reports as text (metrics, traffic, staleness and
 * version-age bins), checkpoints kept in memory, one execution from the start or from a
 * payload, and check_resume -- stop with a checkpoint, resume, compare with the
 * uninterrupted run.  The row stores are large: they are static, one set per process. */
#ifndef SGDSIM_TESTS_ALGORITHMS_CKPT_HARNESS_H
#define SGDSIM_TESTS_ALGORITHMS_CKPT_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"
#include "tests/check.h"

#define MAX_ROWS 4096

typedef struct rows {
    char text[MAX_ROWS][96];
    int n;
} rows_t;

static int on_metric(void *ctx, int64_t update, int64_t vtime_ns, const char *name,
                     double value, sgd_err_t *err)
{
    (void)err;
    rows_t *r = ctx;
    SGD_ASSERT(r->n < MAX_ROWS);
    snprintf(r->text[r->n++], sizeof r->text[0], "%lld %lld %s %a", (long long)update,
             (long long)vtime_ns, name, value);
    return 0;
}

static int on_bin(rows_t *r, const char *what, int64_t x, int64_t count)
{
    SGD_ASSERT(r->n < MAX_ROWS);
    snprintf(r->text[r->n++], sizeof r->text[0], "%s %lld %lld", what, (long long)x,
             (long long)count);
    return 0;
}

static int on_staleness(void *ctx, int64_t tau, int64_t count, sgd_err_t *err)
{
    (void)err;
    return on_bin(ctx, "staleness", tau, count);
}

static int on_version_age(void *ctx, int64_t age, int64_t count, sgd_err_t *err)
{
    (void)err;
    return on_bin(ctx, "version_age", age, count);
}

static int on_traffic(void *ctx, const char *kind, uint64_t m, uint64_t b, uint64_t sm,
                      uint64_t sb, sgd_err_t *err)
{
    (void)err;
    rows_t *r = ctx;
    SGD_ASSERT(r->n < MAX_ROWS);
    snprintf(r->text[r->n++], sizeof r->text[0], "traffic %s %llu %llu %llu %llu", kind,
             (unsigned long long)m, (unsigned long long)b, (unsigned long long)sm,
             (unsigned long long)sb);
    return 0;
}

/* Checkpoints kept in memory: the latest, and every one by update. */
typedef struct store {
    uint8_t *last;
    size_t n;
    int64_t updates;
    uint8_t *by_update[64];
    size_t size_at[64];
} store_t;

/* The runner's write: the payload is ours to keep as the latest. */
static int keep(void *ctx, void *payload, size_t n, int64_t updates, sgd_err_t *err)
{
    (void)err;
    store_t *s = ctx;
    free(s->last);
    s->last = payload;
    s->n = n;
    s->updates = updates;
    if (updates < 64 && !s->by_update[updates]) {
        s->by_update[updates] = sgd_xmalloc(n);
        memcpy(s->by_update[updates], payload, n);
        s->size_at[updates] = n;
    }
    return 0;
}

static void free_store(store_t *s)
{
    free(s->last);
    for (int i = 0; i < 64; i++) free(s->by_update[i]);
}

static void load(const char *text, const char *const *sets, int nsets, int threads, scn_t *s)
{
    scn_override_t ov[12];
    SGD_ASSERT(nsets <= 12);
    for (int i = 0; i < nsets; i++) ov[i].assignment = sets[i];
    sgd_err_t err = {{0}};
    if (scn_load_text(text, "ckpt.json", ".", ov, nsets, NULL, alg_scenario_table, s, &err))
        sgd_die(__FILE__, __LINE__, "load: %s", err.msg);
    s->numerics.threads_resolved = threads;
}

/* One execution of s: from the start, or from payload; with checkpoints when st is set. */
static alg_outcome_t execute(const scn_t *s, const uint8_t *payload, size_t n,
                             const alg_checkpoint_opts_t *co, rows_t *rows)
{
    alg_prepare_opts_t po = {.backend = ALG_BACKEND_NEEDED};
    alg_prepared_t *run;
    sgd_err_t err = {{0}};
    SGD_ASSERT(alg_prepare(s, &po, &run, &err) == 0);
    CHECK(alg_checkpoint_unsupported(run) == NULL);
    if (payload && alg_restore(run, payload, n, &err)) sgd_die(__FILE__, __LINE__, "%s", err.msg);
    if (co) alg_set_checkpoints(run, co);
    alg_sink_t sink = {.ctx = rows, .metric = on_metric, .traffic = on_traffic,
                       .staleness = on_staleness, .version_age = on_version_age};
    alg_outcome_t o;
    SGD_ASSERT(alg_execute(run, &sink, &o, &err) == 0);
    alg_prepared_free(run);
    return o;
}

static bool same_rows(const rows_t *a, const rows_t *b)
{
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->text[i], b->text[i]) != 0) {
            fprintf(stderr, "row %d: %s != %s\n", i, a->text[i], b->text[i]);
            return false;
        }
    return true;
}

/* The first checkpoint kept at or after update `from`, or -1. */
static int first_kept(const store_t *s, int from)
{
    for (int u = from; u < 64; u++)
        if (s->by_update[u]) return u;
    return -1;
}

/* Stops after update `at` with a checkpoint (writing one every 6 updates on the way), then
 * resumes from it and from an earlier one; each must give the uninterrupted run.  exact: the
 * stop is at update `at` itself (one update per event); else at the end of the event that
 * made it, which may have applied more (the parameter-server family's drains).  Unused by
 * test_checkpoint_deferred, hence the attribute. */
__attribute__((unused)) static void check_resume(const char *label, const char *text, const char *const *sets,
                         int nsets, int threads, int64_t at, bool exact)
{
    fprintf(stderr, "%s, %d thread(s), stop at %lld\n", label, threads, (long long)at);
    scn_t s;
    load(text, sets, nsets, threads, &s);
    static rows_t full, part, rest, rest2, joined;
    full.n = part.n = rest.n = rest2.n = 0;
    alg_outcome_t o_full = execute(&s, NULL, 0, NULL, &full);
    CHECK(o_full.status == ALG_COMPLETE);

    store_t st = {0};
    alg_checkpoint_opts_t co = {.every_updates = 6, .exit_at_update = at, .write = keep, .ctx = &st};
    alg_outcome_t o_part = execute(&s, NULL, 0, &co, &part);
    CHECK(o_part.status == ALG_CHECKPOINTED);
    CHECK(st.updates == o_part.updates && o_part.updates >= at);
    if (exact) CHECK(o_part.updates == at);

    /* The part's rows are those of updates <= the checkpoint's: the resumed run writes the
     * rest. */
    alg_outcome_t o_rest = execute(&s, st.last, st.n, NULL, &rest);
    CHECK(o_rest.status == ALG_COMPLETE);
    CHECK_STR_EQ(o_rest.digest, o_full.digest);
    CHECK(o_rest.events == o_full.events && o_rest.vtime_ns == o_full.vtime_ns);
    CHECK(o_rest.nparams == o_full.nparams &&
          memcmp(o_rest.final_params, o_full.final_params, o_full.nparams * sizeof(float)) == 0);
    joined = part;
    for (int i = 0; i < rest.n; i++) memcpy(joined.text[joined.n++], rest.text[i], sizeof rest.text[0]);
    CHECK(same_rows(&joined, &full));

    /* From an earlier checkpoint, with checkpoints written as it goes on. */
    int early = first_kept(&st, 6);
    CHECK(early >= 6 && (!exact || early == 6));
    store_t st2 = {0};
    alg_checkpoint_opts_t co2 = {.every_updates = 5, .write = keep, .ctx = &st2};
    alg_outcome_t o_rest2 = execute(&s, st.by_update[early], st.size_at[early], &co2, &rest2);
    CHECK_STR_EQ(o_rest2.digest, o_full.digest);
    CHECK(exact ? st2.by_update[35] != NULL : first_kept(&st2, early + 1) > early);

    /* A payload cut short, another configuration: refused. */
    alg_prepare_opts_t po = {.backend = ALG_BACKEND_NEEDED};
    alg_prepared_t *run;
    sgd_err_t err = {{0}};
    SGD_ASSERT(alg_prepare(&s, &po, &run, &err) == 0);
    CHECK(alg_restore(run, st.last, st.n - 3, &err) == -1);
    alg_prepared_free(run);
    scn_t other;
    const char *more[12];
    for (int i = 0; i < nsets; i++) more[i] = sets[i];
    more[nsets] = "model.hidden=[13]"; /* another parameter count */
    load(text, more, nsets + 1, threads, &other);
    SGD_ASSERT(alg_prepare(&other, &po, &run, &err) == 0);
    CHECK(alg_restore(run, st.last, st.n, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "parameters saved");
    alg_prepared_free(run);
    scn_free(&other);

    free(o_full.final_params);
    free(o_part.final_params);
    free(o_rest.final_params);
    free(o_rest2.final_params);
    free_store(&st);
    free_store(&st2);
    scn_free(&s);
}

#endif
