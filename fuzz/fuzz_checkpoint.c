/* libFuzzer target: the checkpoint reader and every restore path, and what a restored run
 * does next -- CSGD's and LSGD's (message level and closed form), the parameter-server
 * family's (algorithms/ps_ckpt.c: SASGD with fetch "after_push", FASGD, B-FASGD, Downpour,
 * hardsync, DC-ASGD-a, on both drivers; FedBuff and FedAvg with sampled clients that come and
 * go, drop out and hold a Dirichlet partition: algorithms/ps_slots_ckpt.c).
 *
 * A checkpoint's SHA-256 only proves it was not damaged by accident, so mutations must reach
 * the checks behind it: an input that starts with the checkpoint magic is taken as a whole
 * file and RESEALED -- when only its digest is wrong (what almost every mutation of a good
 * file gives) the digest is written afresh -- and its payload is restored into a small run of
 * every scenario of the header's algorithm, built afresh (alg_restore: engine, runner and the
 * algorithm's sections, then the pending events against the state).  Any other input is a
 * raw payload whose first byte picks the scenario.  A payload the restore accepts is then
 * run to its end (the scenarios stop at 20 updates or 5 s of virtual time): a value that
 * passed every check must not crash, hang or leak the run that uses it either.  A refusal
 * always says why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"
#include "common/ckpt_file.h"
#include "common/sha256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The seed corpus's checkpoints (fuzz/corpus/checkpoint/NAME.ckpt, NAME the second column)
 * were written by `sgdsim run` of these scenarios with --checkpoint-exit-at 7. */
#define SMALL_RUN                                                                              \
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 40, \"n_validation\": 10,"             \
    "           \"dim\": 4, \"classes\": 2},"                                                 \
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [3]}, \"batch\": {\"per_worker\": 4},"       \
    " \"stop\": {\"updates\": 20, \"vtime_s\": 5}, \"eval\": {\"every\": 5}}"
#define SYNC(name, workers, more)                                                              \
    "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"" name "\"},"            \
    " \"cluster\": {\"workers\": " workers "}, " more                                          \
    " \"optimizer\": {\"lr\": 0.1, \"momentum\": 0.9}," SMALL_RUN
#define PS(workers, opts)                                                                      \
    "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {" opts "},"                          \
    " \"cluster\": {\"workers\": " workers "},"                                                \
    " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0}," SMALL_RUN
#define LSGD_TOPOLOGY "\"topology\": {\"kind\": \"cluster\", \"gpus_per_node\": 2},"
static const struct {
    const char *algorithm, *name, *json;
} scenarios[] = {
    {"csgd", "csgd", SYNC("csgd", "2", "")},
    {"csgd", "csgd-analytic", SYNC("csgd", "3", "\"network\": {\"fidelity\": \"analytic\"},")},
    {"lsgd", "lsgd", SYNC("lsgd", "4", LSGD_TOPOLOGY)},
    {"lsgd", "lsgd-analytic-serial",
     "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"lsgd\", \"overlap\": "
     "false}, \"cluster\": {\"workers\": 4}, " LSGD_TOPOLOGY
     " \"network\": {\"fidelity\": \"analytic\"},"
     " \"optimizer\": {\"lr\": 0.1, \"momentum\": 0.9}," SMALL_RUN},
    {"fasgd", "fasgd-timed",
     PS("3", "\"name\": \"fasgd\", \"driver\": \"timed\", \"server_time_s\": 0.0005")},
    {"b-fasgd", "b-fasgd", PS("3", "\"name\": \"b-fasgd\", \"c_fetch\": 0.05, \"c_push\": 0.02")},
    {"sasgd", "sasgd-after-push-timed",
     PS("4", "\"name\": \"sasgd\", \"n\": 2, \"fetch\": \"after_push\", \"driver\": \"timed\"")},
    {"downpour", "downpour-timed",
     PS("3", "\"name\": \"downpour\", \"k_push\": 2, \"k_fetch\": 3, \"driver\": \"timed\"")},
    {"hardsync", "hardsync", PS("3", "\"name\": \"hardsync\"")},
    {"dc-asgd", "dc-asgd-a", PS("4", "\"name\": \"dc-asgd\", \"variant\": \"a\", \"n\": 2")},
    {"fedbuff", "fedbuff-clients",
     "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"fedbuff\","
     " \"buffer\": 2, \"concurrency\": 2, \"local\": {\"steps\": 2}}, \"cluster\":"
     " {\"workers\": 6}, \"clients\": {\"availability\": \"renewal\", \"online_s\":"
     " {\"dist\": \"exponential\", \"mean\": 0.05}, \"offline_s\": {\"dist\":"
     " \"exponential\", \"mean\": 0.02}, \"dropout_p\": 0.1, \"compute_factor\":"
     " {\"dist\": \"lognormal\", \"mean\": 1, \"cv\": 0.5}, \"bandwidth_Bps\": {\"dist\":"
     " \"uniform\", \"min\": 2000000.0, \"max\": 20000000.0}}, \"compute\": {\"kind\":"
     " \"time\", \"time_s\": 0.004}, \"data\": {\"source\": \"synthetic\", \"n_train\":"
     " 60, \"n_validation\": 10, \"dim\": 4, \"classes\": 2, \"partition\": {\"scheme\":"
     " \"dirichlet\", \"alpha\": 0.5}}, \"model\": {\"kind\": \"mlp\", \"hidden\": [3]},"
     " \"batch\": {\"per_worker\": 4}, \"optimizer\": {\"lr\": 0.05, \"momentum\": 0},"
     " \"stop\": {\"updates\": 20, \"vtime_s\": 5}, \"eval\": {\"every\": 5}}"},
    {"fedavg", "fedavg-clients",
     "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"fedavg\","
     " \"clients_per_round\": 3, \"local\": {\"steps\": 2}}, \"cluster\": {\"workers\":"
     " 6}, \"clients\": {\"availability\": \"renewal\", \"online_s\": {\"dist\":"
     " \"exponential\", \"mean\": 0.05}, \"offline_s\": {\"dist\": \"exponential\","
     " \"mean\": 0.02}, \"dropout_p\": 0.1, \"compute_factor\": {\"dist\": \"lognormal\","
     " \"mean\": 1, \"cv\": 0.5}, \"bandwidth_Bps\": {\"dist\": \"uniform\", \"min\":"
     " 2000000.0, \"max\": 20000000.0}}, \"compute\": {\"kind\": \"time\", \"time_s\":"
     " 0.004}, \"data\": {\"source\": \"synthetic\", \"n_train\": 60, \"n_validation\":"
     " 10, \"dim\": 4, \"classes\": 2, \"partition\": {\"scheme\": \"dirichlet\","
     " \"alpha\": 0.5}}, \"model\": {\"kind\": \"mlp\", \"hidden\": [3]}, \"batch\":"
     " {\"per_worker\": 4}, \"optimizer\": {\"lr\": 0.05, \"momentum\": 0}, \"stop\":"
     " {\"updates\": 20, \"vtime_s\": 5}, \"eval\": {\"every\": 5}}"},
};
#define NSCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* The input as a checkpoint file, resealed when only its digest is wrong; 0 with the header
 * and payload (pointing into *copy, to free, or into data), or -1. */
static int parse_file(const uint8_t *data, size_t size, uint8_t **copy, sgd_ckpt_meta_t *meta,
                      const uint8_t **payload, size_t *n)
{
    sgd_err_t err = {{0}};
    *copy = NULL;
    if (sgd_ckpt_parse(data, size, meta, payload, n, &err) == 0) return 0;
    if (!err.msg[0]) abort(); /* a refusal always says why */
    if (size < 8 + SGD_SHA256_HEX_LEN / 2 || memcmp(data, SGD_CKPT_MAGIC, 8) != 0) return -1;
    *copy = malloc(size);
    if (!*copy) return -1;
    memcpy(*copy, data, size);
    char hex[SGD_SHA256_HEX_LEN + 1];
    size_t body = size - SGD_SHA256_HEX_LEN / 2;
    sgd_sha256_hex(*copy, body, hex);
    for (size_t i = 0; i < SGD_SHA256_HEX_LEN / 2; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        (*copy)[body + i] = (uint8_t)v;
    }
    if (sgd_ckpt_parse(*copy, size, meta, payload, n, &err) == 0) return 0;
    free(*copy);
    *copy = NULL;
    return -1;
}

/* Restores payload[0..n) into a fresh run of scenario k and, when it is accepted, runs it. */
static void restore_into(size_t k, const uint8_t *payload, size_t n)
{
    sgd_err_t err = {{0}};
    scn_t s;
    if (scn_load_text(scenarios[k].json, "fuzz.json", ".", NULL, 0, NULL, alg_scenario_table,
                      &s, &err))
        abort();
    alg_prepare_opts_t po = {.backend = ALG_BACKEND_NEEDED};
    alg_prepared_t *run;
    if (alg_prepare(&s, &po, &run, &err)) abort();
    err.msg[0] = '\0';
    if (alg_restore(run, payload, n, &err) != 0) {
        if (!err.msg[0]) abort();
    } else {
        alg_outcome_t o;
        if (alg_execute(run, NULL, &o, &err) != 0) abort(); /* no sink: nothing refuses */
        free(o.final_params);
    }
    alg_prepared_free(run);
    scn_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sgd_ckpt_meta_t meta;
    const uint8_t *payload;
    size_t n;
    uint8_t *copy;
    if (parse_file(data, size, &copy, &meta, &payload, &n) == 0) {
        bool any = false;
        for (size_t k = 0; k < NSCENARIOS; k++)
            if (strcmp(scenarios[k].algorithm, meta.algorithm) == 0) {
                restore_into(k, payload, n);
                any = true;
            }
        if (!any) restore_into((unsigned char)meta.algorithm[0] % NSCENARIOS, payload, n);
        free(copy);
    } else if (size > 0) {
        restore_into(data[0] % NSCENARIOS, data + 1, size - 1);
    }
    return 0;
}
