/* Scenario loader, "sweep" block: its axes are read in file order with each value kept as
 * JSON text, it stays out of the resolved configuration and its hash (so extending a sweep
 * keeps the keys of the points already run), and a malformed block names sweep.<key>. */
#include <stdlib.h>
#include <string.h>

#include "config/scenario.h"
#include "tests/check.h"

static const scn_algorithm_t csgd = {.name = "csgd"};
static const scn_algorithm_t *const algs[] = {&csgd, NULL};

static const char *load_err(const char *text)
{
    static sgd_err_t err;
    scn_t s;
    memset(&err, 0, sizeof err);
    if (scn_load_text(text, "t.json", ".", NULL, 0, NULL, algs, &s, &err) == 0) {
        scn_free(&s);
        return "";
    }
    return err.msg;
}

int main(void)
{
    sgd_err_t err = {{0}};
    scn_t plain, swept;
    CHECK(scn_load_text("{\"schema_version\": 1}", "t.json", ".", NULL, 0, NULL, algs, &plain,
                        &err) == 0);
    CHECK(scn_load_text("{\"schema_version\": 1, \"sweep\": {\"cluster.workers\": [2, 8],"
                        " \"algorithm.name\": [\"csgd\"], \"model.hidden\": [[16, 8], [32]]}}",
                        "t.json", ".", NULL, 0, NULL, algs, &swept, &err) == 0);
    CHECK_INT_EQ(plain.nsweep, 0);
    CHECK_INT_EQ(swept.nsweep, 3);
    if (swept.nsweep == 3) {
        CHECK_STR_EQ(swept.sweep[0].key, "cluster.workers");
        CHECK_INT_EQ(swept.sweep[0].nvalues, 2);
        CHECK_STR_EQ(swept.sweep[0].values[1], "8");
        CHECK_STR_EQ(swept.sweep[1].values[0], "\"csgd\"");
        CHECK_STR_EQ(swept.sweep[2].values[0], "[16,8]");
    }
    /* The block is not configuration: same resolved JSON, same hash. */
    CHECK_STR_EQ(plain.resolved_json, swept.resolved_json);
    CHECK_STR_EQ(plain.config_hash, swept.config_hash);
    CHECK(strstr(swept.resolved_json, "sweep") == NULL);
    scn_free(&plain);
    scn_free(&swept);

    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"sweep\": [1, 2]}"),
                       "t.json: sweep: expected an object");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"sweep\": {\"cluster.workers\": []}}"),
                       "t.json: sweep.cluster.workers: expected an array of 1..");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"sweep\": {\"cluster.workers\": 4}}"),
                       "sweep.cluster.workers: expected an array");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"sweep\": {\"a..b\": [1]}}"),
                       "sweep.a..b: expected a key path");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"sweep\": {\"sweep.x\": [1]}}"),
                       "a sweep cannot sweep itself");
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1,"
                                " \"sweep\": {\"seed\": [1], \"seed\": [2]}}"),
                       "sweep.seed: key appears more than once");
    CHECK_STR_EQ(load_err("{\"schema_version\": 1, \"sweep\": {}}"), "");
    return check_exit();
}
