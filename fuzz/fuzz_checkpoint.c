/* libFuzzer target: the checkpoint reader and every restore path -- CSGD's, LSGD's and the
 * parameter-server family's (algorithms/ps_ckpt.c) on both drivers.  An input that starts
 * with the checkpoint magic is taken as a whole file: when only its SHA-256 is wrong (what
 * almost every mutation of a good file gives) the digest is written afresh, so that the
 * fuzzer reaches the header and payload parsers without having to forge one; its header's
 * algorithm picks the scenario.  Any other input is a raw payload whose first byte picks the
 * scenario.  The payload is restored into a small run of that scenario built afresh
 * (alg_restore: engine, runner and the algorithm's sections).  Nothing an input holds may
 * crash, hang or leak, and a refusal always says why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"
#include "common/ckpt_file.h"
#include "common/sha256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The seed corpus's checkpoints (fuzz/corpus/checkpoint/ALGORITHM-*.ckpt) were written by
 * `sgdsim run` of these scenarios with --checkpoint-exit-at. */
#define SMALL_RUN                                                                              \
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 40, \"n_validation\": 10,"             \
    "           \"dim\": 4, \"classes\": 2},"                                                 \
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [3]}, \"batch\": {\"per_worker\": 4},"       \
    " \"stop\": {\"updates\": 20}, \"eval\": {\"every\": 5}}"
static const struct {
    const char *algorithm, *json;
} scenarios[] = {
    {"csgd", "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"csgd\"},"
             " \"cluster\": {\"workers\": 2},"
             " \"optimizer\": {\"lr\": 0.1, \"momentum\": 0.9}," SMALL_RUN},
    {"lsgd", "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"lsgd\"},"
             " \"cluster\": {\"workers\": 4}, \"topology\": {\"kind\": \"cluster\","
             " \"gpus_per_node\": 2}, \"optimizer\": {\"lr\": 0.1, \"momentum\": 0.9},"
             SMALL_RUN},
    {"fasgd", "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"fasgd\","
              " \"driver\": \"timed\", \"server_time_s\": 0.0005}, \"cluster\": {\"workers\": 3},"
              " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0}," SMALL_RUN},
    {"b-fasgd", "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"b-fasgd\","
                " \"c_fetch\": 0.05, \"c_push\": 0.02}, \"cluster\": {\"workers\": 3},"
                " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0}," SMALL_RUN},
};
#define NSCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* The input as a checkpoint file, its digest written afresh when it is wrong; 0 with the
 * header and payload (pointing into *copy, to free), or -1. */
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

/* The scenario a file's header names (else the one its first letter picks). */
static size_t scenario_of(const char *algorithm)
{
    for (size_t i = 0; i < NSCENARIOS; i++)
        if (strcmp(scenarios[i].algorithm, algorithm) == 0) return i;
    return (size_t)(unsigned char)algorithm[0] % NSCENARIOS;
}

/* Restores payload[0..n) into a fresh run of scenario k. */
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
    if (alg_restore(run, payload, n, &err) != 0 && !err.msg[0]) abort();
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
        restore_into(scenario_of(meta.algorithm), payload, n);
        free(copy);
    } else if (size > 0) {
        restore_into(data[0] % NSCENARIOS, data + 1, size - 1);
    }
    return 0;
}
