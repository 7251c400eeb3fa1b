/* Exact resume for the synchronous algorithms: for CSGD and LSGD (message level and closed
 * form), on one thread and on two, a run stopped with a checkpoint after update N and resumed
 * from it in a freshly prepared run ends with the uninterrupted run's digest, final
 * parameters and every metric and traffic row; a checkpoint written every K updates along
 * the way and a run continued from any of them do too.  A restored run asked to stop before
 * its first event writes the same checkpoint again and stops there.  A damaged payload, or one restored
 * into another configuration, is refused with a message.  Every registered algorithm has
 * checkpoints (the parameter-server family: test_checkpoint_resume_ps.c); a backend that
 * cannot export the synchronous algorithms' resident state is refused for them. */
#include "algorithms/runner_internal.h"
#include "tests/algorithms/ckpt_harness.h"

static const char *csgd_text =
    "{\"schema_version\": 1, \"seed\": 11, \"algorithm\": {\"name\": \"csgd\"},"
    " \"cluster\": {\"workers\": 4, \"time_factor\": {\"dist\": \"uniform\", \"min\": 1, \"max\": 2}},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 300, \"n_validation\": 60,"
    "           \"dim\": 10, \"classes\": 3, \"separation\": 2.0},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [12]},"
    " \"batch\": {\"per_worker\": 8},"
    " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"uniform\", \"min\": 0.002, \"max\": 0.005}},"
    " \"io\": {\"time_s\": {\"dist\": \"uniform\", \"min\": 0.001, \"max\": 0.003}},"
    " \"stop\": {\"updates\": 40}, \"eval\": {\"every\": 7}}";

static const char *lsgd_text =
    "{\"schema_version\": 1, \"seed\": 7, \"algorithm\": {\"name\": \"lsgd\"},"
    " \"cluster\": {\"workers\": 8, \"time_factor\": {\"dist\": \"uniform\", \"min\": 1, \"max\": 2}},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 300, \"n_validation\": 60,"
    "           \"dim\": 10, \"classes\": 3, \"separation\": 2.0},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [12]},"
    " \"batch\": {\"per_worker\": 5},"
    " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"uniform\", \"min\": 0.002, \"max\": 0.005}},"
    " \"io\": {\"time_s\": {\"dist\": \"uniform\", \"min\": 0.001, \"max\": 0.004}},"
    " \"topology\": {\"kind\": \"cluster\", \"gpus_per_node\": 4,"
    "              \"intra\": {\"bandwidth_gbps\": 8, \"latency_us\": 1},"
    "              \"nic\": {\"bandwidth_gbps\": 1, \"latency_us\": 5}},"
    " \"stop\": {\"updates\": 40}, \"eval\": {\"every\": 7}}";

/* Every registered algorithm has checkpoints; a backend that cannot export the state the
 * synchronous algorithms keep in it (the CUDA backend's velocity) is refused for them, named,
 * and not for the parameter-server family, which keeps none there. */
static void check_support(void)
{
    for (const alg_ops_t *const *a = alg_registry; *a; a++) CHECK((*a)->ckpt != NULL);
    const char *ps[] = {"algorithm.name=fasgd", "optimizer.momentum=0"};
    for (int is_ps = 0; is_ps < 2; is_ps++) {
        scn_t s;
        load(csgd_text, ps, is_ps ? 2 : 0, 1, &s);
        alg_prepare_opts_t po = {.backend = ALG_BACKEND_NEEDED};
        alg_prepared_t *run;
        sgd_err_t err = {{0}};
        SGD_ASSERT(alg_prepare(&s, &po, &run, &err) == 0);
        CHECK(alg_checkpoint_unsupported(run) == NULL);
        sgd_backend_iface_t no_export = *run->res.backend.iface;
        const sgd_backend_iface_t *real = run->res.backend.iface;
        no_export.sync_export = NULL;
        no_export.sync_import = NULL;
        run->res.backend.iface = &no_export;
        const char *why = alg_checkpoint_unsupported(run);
        if (is_ps) {
            CHECK(why == NULL);
        } else {
            CHECK(why != NULL);
            if (why) CHECK_STR_CONTAINS(why, "does not support checkpoints of csgd");
        }
        run->res.backend.iface = real;
        alg_prepared_free(run);
        scn_free(&s);
    }
}

/* A stop asked for before a restored run's first event (a signal while it was resuming):
 * the run writes its checkpoint again at once -- the same bytes -- and stops without an
 * update or a row. */
static void check_stop_at_start(const char *text, const char *const *sets, int nsets)
{
    scn_t s;
    load(text, sets, nsets, 1, &s);
    static rows_t part, none;
    part.n = none.n = 0;
    store_t st = {0}, again = {0};
    alg_checkpoint_opts_t co = {.exit_at_update = 13, .write = keep, .ctx = &st};
    alg_outcome_t o = execute(&s, NULL, 0, &co, &part);
    CHECK(o.status == ALG_CHECKPOINTED);
    free(o.final_params);
    alg_checkpoint_opts_t co2 = {.write = keep, .ctx = &again};
    alg_request_checkpoint_exit();
    o = execute(&s, st.last, st.n, &co2, &none);
    CHECK(o.status == ALG_CHECKPOINTED && o.updates == st.updates && none.n == 0);
    CHECK(again.last && again.n == st.n && memcmp(again.last, st.last, st.n) == 0);
    free(o.final_params);
    free_store(&st);
    free_store(&again);
    scn_free(&s);
}

int main(void)
{
    const char *analytic[] = {"network.fidelity=analytic"};
    for (int threads = 1; threads <= 2; threads++) {
        check_resume("csgd message", csgd_text, NULL, 0, threads, 13, true);
        check_resume("csgd analytic", csgd_text, analytic, 1, threads, 20, true);
        check_resume("lsgd message", lsgd_text, NULL, 0, threads, 13, true);
        check_resume("lsgd analytic", lsgd_text, analytic, 1, threads, 21, true);
    }
    const char *single[] = {"cluster.workers=1"};
    check_resume("csgd one worker", csgd_text, single, 1, 1, 9, true);
    check_support();
    check_stop_at_start(csgd_text, NULL, 0);
    const char *timed_ps[] = {"algorithm.name=fasgd", "algorithm.driver=timed",
                              "optimizer.momentum=0"};
    check_stop_at_start(csgd_text, timed_ps, 3);
    return check_exit();
}
