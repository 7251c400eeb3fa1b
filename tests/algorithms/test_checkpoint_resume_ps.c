/* Exact resume for the parameter-server family: every rule (SASGD, FASGD with the paper's
 * normaliser, B-FASGD with both gates open to skips and re-applied pushes, and with c = 2
 * and pushes the server buffers at a checkpoint, Downpour with k_fetch and k_push > 1,
 * hardsync, DC-ASGD-a), on both drivers, for gradient_batch 1 and 16 and threads 1 and 2,
 * with fetch "after_update" and (every rule but hardsync, which refuses it) "after_push":
 * a run stopped with a checkpoint and resumed in a freshly prepared run ends with the
 * uninterrupted run's digest, final parameters and every metric, traffic, staleness and
 * version-age row; so does a run continued from an earlier checkpoint.  Also:
 * a checkpoint of one rule is refused by another, and a damaged one is refused without
 * leaving anything ps_destroy cannot free. */
#include "tests/algorithms/ckpt_harness.h"

static const char *ps_text =
    "{\"schema_version\": 1, \"seed\": 5, \"algorithm\": {\"name\": \"sasgd\"},"
    " \"cluster\": {\"workers\": 4, \"time_factor\": {\"dist\": \"uniform\", \"min\": 1, \"max\": 2}},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 300, \"n_validation\": 60,"
    "           \"dim\": 10, \"classes\": 3, \"separation\": 2.0},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [12]},"
    " \"batch\": {\"per_worker\": 4},"
    " \"optimizer\": {\"lr\": 0.05},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"uniform\", \"min\": 0.002, \"max\": 0.005}},"
    " \"io\": {\"time_s\": {\"dist\": \"uniform\", \"min\": 0.001, \"max\": 0.003}},"
    " \"stop\": {\"updates\": 40}, \"eval\": {\"every\": 7}}";

/* Each rule with the options that give it the most state to carry. */
static const char *const rules[][2] = {
    {"sasgd", "\"name\": \"sasgd\", \"n\": 2"},
    {"fasgd", "\"name\": \"fasgd\", \"normaliser\": \"paper\""},
    {"b-fasgd", "\"name\": \"b-fasgd\", \"c_fetch\": 0.05, \"c_push\": 0.02, "
                "\"minibatch\": \"random\""},
    /* c = 2 and only the push gate: it catches up with the schedule (updates scheduled at
     * earlier events) while the server buffers a push, so a checkpoint holds one */
    {"b-fasgd", "\"name\": \"b-fasgd\", \"n\": 2, \"c_push\": 0.02"},
    {"downpour", "\"name\": \"downpour\", \"k_fetch\": 2, \"k_push\": 3"},
    {"hardsync", "\"name\": \"hardsync\""},
    {"dc-asgd", "\"name\": \"dc-asgd\", \"variant\": \"a\", \"n\": 2"},
};

/* One rule's checks (above) under one fetch protocol. */
static void check_rule(size_t i, const char *fetch)
{
    for (int timed = 0; timed < 2; timed++)
        for (int gb = 1; gb <= 16; gb += 15)
            for (int threads = 1; threads <= 2; threads++) {
                char alg[288], label[128];
                snprintf(alg, sizeof alg,
                         "algorithm={%s, \"driver\": \"%s\", \"gradient_batch\": %d, "
                         "\"fetch\": \"%s\"%s}",
                         rules[i][1], timed ? "timed" : "uniform", gb, fetch,
                         timed ? ", \"server_time_s\": 0.0005" : "");
                snprintf(label, sizeof label, "%s %s gradient_batch %d fetch %s", rules[i][0],
                         timed ? "timed" : "uniform", gb, fetch);
                const char *sets[] = {alg};
                check_resume(label, ps_text, sets, 1, threads, 13, false);
            }
}

/* Under either protocol the server may hold pushes when a checkpoint is written (the c = 2
 * B-FASGD's push gate catches up with the schedule while pushes wait in its buffer); the
 * checkpoint carries them. */
static void check_every_rule(void)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        check_rule(i, "after_update");
        if (strcmp(rules[i][0], "hardsync") != 0) check_rule(i, "after_push");
    }
}

/* A checkpoint of SASGD restored into FASGD, and one whose snapshot section is cut: both
 * refused, and the run they were restored into is freed cleanly (the sanitizers watch). */
static void check_refusals(void)
{
    scn_t s, other;
    const char *sasgd[] = {"algorithm={\"name\": \"sasgd\", \"gradient_batch\": 4}"};
    const char *fasgd[] = {"algorithm={\"name\": \"fasgd\", \"gradient_batch\": 4}"};
    load(ps_text, sasgd, 1, 1, &s);
    load(ps_text, fasgd, 1, 1, &other);
    static rows_t part;
    part.n = 0;
    store_t st = {0};
    alg_checkpoint_opts_t co = {.exit_at_update = 20, .write = keep, .ctx = &st};
    alg_outcome_t o = execute(&s, NULL, 0, &co, &part);
    CHECK(o.status == ALG_CHECKPOINTED && st.last);
    alg_prepare_opts_t po = {.backend = ALG_BACKEND_NEEDED};
    alg_prepared_t *run;
    sgd_err_t err = {{0}};
    SGD_ASSERT(alg_prepare(&other, &po, &run, &err) == 0);
    CHECK(alg_restore(run, st.last, st.n, &err) == -1);
    alg_prepared_free(run);
    for (size_t cut = 1; cut < st.n; cut += st.n / 97 + 1) {
        SGD_ASSERT(alg_prepare(&s, &po, &run, &err) == 0);
        CHECK(alg_restore(run, st.last, st.n - cut, &err) == -1);
        alg_prepared_free(run);
    }
    free(o.final_params);
    free_store(&st);
    scn_free(&s);
    scn_free(&other);
}

int main(void)
{
    check_every_rule();
    check_refusals();
    return check_exit();
}
