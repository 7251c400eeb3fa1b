/* libFuzzer target: the checkpoint reader.  The input is taken as a whole checkpoint file
 * (sgd_ckpt_parse: magic, format, header, lengths, digest) and, when it is one, its payload
 * -- else the input itself, so that the fuzzer reaches the payload's parsers without having
 * to forge a SHA-256 -- is restored into a small CSGD run built afresh (alg_restore: engine,
 * runner, sync and CSGD sections, collectives).  Nothing it holds may crash, hang or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/alg.h"
#include "common/ckpt_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The seed corpus's checkpoints were written by `sgdsim run` of this scenario. */
static const char scenario[] =
    "{\"schema_version\": 1, \"seed\": 3, \"algorithm\": {\"name\": \"csgd\"},"
    " \"cluster\": {\"workers\": 2},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 40, \"n_validation\": 10,"
    "           \"dim\": 4, \"classes\": 2},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [3]},"
    " \"batch\": {\"per_worker\": 4}, \"optimizer\": {\"lr\": 0.1, \"momentum\": 0.9},"
    " \"stop\": {\"updates\": 20}, \"eval\": {\"every\": 5}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sgd_ckpt_meta_t meta;
    const uint8_t *payload = data;
    size_t n = size;
    sgd_err_t err = {{0}};
    if (sgd_ckpt_parse(data, size, &meta, &payload, &n, &err) != 0) {
        if (!err.msg[0]) abort(); /* a refusal always says why */
        payload = data;
        n = size;
    }
    scn_t s;
    if (scn_load_text(scenario, "fuzz.json", ".", NULL, 0, NULL, alg_scenario_table, &s, &err))
        abort();
    alg_prepare_opts_t po = {.backend = ALG_BACKEND_NEEDED};
    alg_prepared_t *run;
    if (alg_prepare(&s, &po, &run, &err)) abort();
    err.msg[0] = '\0';
    if (alg_restore(run, payload, n, &err) != 0 && !err.msg[0]) abort();
    alg_prepared_free(run);
    scn_free(&s);
    return 0;
}
