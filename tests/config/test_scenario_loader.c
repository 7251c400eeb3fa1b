/* Scenario loader: defaults, the resolved configuration and its hash, --set overrides, and
 * every kind of bad input with the message a user would see. */
#include <stdlib.h>

#include "config/scenario.h"
#include "tests/check.h"

static const char *minimal = "{\"schema_version\": 1}";

/* A stand-in algorithm table: this layer is tested without the algorithms layer. */
static const scn_algorithm_t csgd = {.name = "csgd"};
static const scn_algorithm_t *const algs[] = {&csgd, NULL};

/* Loads text and returns the error message ("" on success). */
static const char *load_err(const char *text, const scn_override_t *sets, int nsets)
{
    static sgd_err_t err;
    scn_t s;
    memset(&err, 0, sizeof err);
    if (scn_load_text(text, "t.json", ".", sets, nsets, NULL, algs, &s, &err) == 0) {
        scn_free(&s);
        return "";
    }
    return err.msg;
}

static void defaults_are_filled_in_and_hashed(void)
{
    scn_t a, b;
    sgd_err_t err = {{0}};
    CHECK(scn_load_text(minimal, "t.json", ".", NULL, 0, NULL, algs, &a, &err) == 0);
    CHECK_INT_EQ(a.workers, 4);
    CHECK_INT_EQ(a.seed, 1);
    CHECK_STR_EQ(a.algorithm, "csgd");
    CHECK_STR_EQ(a.name, "t");
    CHECK_INT_EQ(a.model.nhidden, 1);
    CHECK_INT_EQ(a.model.hidden[0], 200);
    CHECK_NEAR(a.bandwidth_Bps, 10e9 / 8, 0);
    CHECK_INT_EQ(a.latency_ns, 5000);
    CHECK_STR_CONTAINS(a.resolved_json, "\"workers\":4");
    CHECK_STR_CONTAINS(a.resolved_json, "\"bandwidth_gbps\":10");
    CHECK_INT_EQ(strlen(a.config_hash), SGD_SHA256_HEX_LEN);
    /* Spelling out a default gives the same resolved configuration and hash. */
    CHECK(scn_load_text("{\"schema_version\": 1, \"cluster\": {\"workers\": 4}}", "t.json", ".",
                        NULL, 0, NULL, algs, &b, &err) == 0);
    CHECK_STR_EQ(a.config_hash, b.config_hash);
    scn_free(&b);
    /* A different value changes the hash. */
    uint64_t seed = 7;
    CHECK(scn_load_text(minimal, "t.json", ".", NULL, 0, &seed, algs, &b, &err) == 0);
    CHECK_INT_EQ(b.seed, 7);
    CHECK(strcmp(a.config_hash, b.config_hash) != 0);
    scn_free(&b);
    scn_free(&a);
}

static void set_overrides_apply_and_are_validated(void)
{
    scn_t s;
    sgd_err_t err = {{0}};
    scn_override_t sets[] = {{"cluster.workers=8"}, {"network.fidelity=analytic"},
                             {"model.hidden=[16,8]"}};
    CHECK(scn_load_text(minimal, "t.json", ".", sets, 3, NULL, algs, &s, &err) == 0);
    CHECK_INT_EQ(s.workers, 8);
    CHECK_INT_EQ(s.fidelity, SCN_FIDELITY_ANALYTIC);
    CHECK_INT_EQ(s.model.nhidden, 2);
    CHECK_INT_EQ(s.model.hidden[1], 8);
    scn_free(&s);

    scn_override_t bad_key[] = {{"cluster.wrkers=4"}};
    CHECK_STR_CONTAINS(load_err(minimal, bad_key, 1), "--set cluster.wrkers=4: cluster.wrkers: unknown key");
    scn_override_t bad_val[] = {{"cluster.workers=0"}};
    CHECK_STR_CONTAINS(load_err(minimal, bad_val, 1), "--set cluster.workers=0: cluster.workers: expected integer >= 1, got 0");
    scn_override_t no_eq[] = {{"cluster.workers"}};
    CHECK_STR_CONTAINS(load_err(minimal, no_eq, 1), "--set cluster.workers: expected key.path=value");
    scn_override_t through_scalar[] = {{"seed.x=1"}};
    CHECK_STR_CONTAINS(load_err("{\"schema_version\":1,\"seed\":3}", through_scalar, 1),
                       "--set seed.x=1: seed is not an object");
}

static void bad_inputs_name_file_and_path(void)
{
    CHECK_STR_CONTAINS(load_err("", NULL, 0), "t.json: empty file");
    CHECK_STR_CONTAINS(load_err("  \n ", NULL, 0), "t.json: empty file");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1,,}", NULL, 0), "t.json:1:");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1,,}", NULL, 0), "malformed JSON");
    CHECK_STR_CONTAINS(load_err("[1, 2]", NULL, 0), "t.json: top level: expected a JSON object, got an array");
    CHECK_STR_CONTAINS(load_err("{}", NULL, 0), "t.json: schema_version: required field is missing");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 2}", NULL, 0), "t.json: schema_version: this sgdsim reads version 1");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"colour\": 1}", NULL, 0), "t.json: colour: unknown key");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"cluster\": {\"workers\": \"four\"}}", NULL, 0),
                       "t.json: cluster.workers: expected integer >= 1, got \"four\"");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"cluster\": {\"workers\": 0}}", NULL, 0),
                       "t.json: cluster.workers: expected integer >= 1, got 0");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"network\": {\"bandwidth_gbps\": -5}}", NULL, 0),
                       "t.json: network.bandwidth_gbps: expected number > 0, got -5");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"network\": {\"bandwidth_gbps\": 0}}", NULL, 0),
                       "t.json: network.bandwidth_gbps: expected number > 0, got 0");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"network\": {\"latency_us\": -1}}", NULL, 0),
                       "t.json: network.latency_us: expected number >= 0, got -1");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"algorithm\": {\"name\": \"adam\"}}", NULL, 0),
                       "t.json: algorithm.name: expected one of \"csgd\"");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"optimizer\": {\"lr\": -0.1}}", NULL, 0),
                       "t.json: optimizer.lr: expected number > 0, got -0.10000000000000001");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"model\": {\"hidden\": [10, 0]}}", NULL, 0),
                       "t.json: model.hidden[1]: expected integer >= 1, got 0");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"model\": {\"kind\": \"softmax\", \"hidden\": [3]}}", NULL, 0),
                       "model.hidden: softmax regression has no hidden layers");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"data\": {\"source\": \"idx\"}}", NULL, 0),
                       "t.json: data.train_images: required field is missing");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"data\": {\"dim\": 3, \"train_images\": \"x\"}}", NULL, 0),
                       "data.train_images: only valid with source \"idx\"");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"io\": {\"time_s\": {\"dist\": \"gamma\", \"mean\": 1, \"cv\": -1}}}", NULL, 0),
                       "t.json: io.time_s.cv");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"optimizer\": {\"schedule\": {\"milestones\": [10, 5]}}}", NULL, 0),
                       "optimizer.schedule.milestones[1]: milestones must increase");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"seed\": 1, \"seed\": 2}", NULL, 0),
                       "t.json: seed: key appears more than once");
    {
        char deep[512] = "{\"schema_version\": 1, \"x\": ";
        for (int i = 0; i < 40; i++) strcat(deep, "[");
        for (int i = 0; i < 40; i++) strcat(deep, "]");
        strcat(deep, "}");
        CHECK_STR_CONTAINS(load_err(deep, NULL, 0), "t.json:1: JSON nested deeper than 32 levels");
    }
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"compute\": {\"kind\": \"flops\"}}", NULL, 0),
                       "compute.device_gflops: required field is missing");
}

static void missing_file_is_reported(void)
{
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK(scn_load("/nonexistent/x.json", NULL, 0, NULL, algs, &s, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent/x.json: cannot open");
    CHECK(scn_load("/", NULL, 0, NULL, algs, &s, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "/: not a regular file");
}

int main(void)
{
    defaults_are_filled_in_and_hashed();
    set_overrides_apply_and_are_validated();
    bad_inputs_name_file_and_path();
    missing_file_is_reported();
    return check_exit();
}
