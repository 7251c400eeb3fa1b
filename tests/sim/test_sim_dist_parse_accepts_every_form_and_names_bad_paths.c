/* sim_dist_parse: every accepted form gives the right kind and parameters and writes the
 * resolved object form; bad inputs fail with the exact JSON path and reason. */
#include <stdlib.h>

#include "sim/dist.h"
#include "tests/check.h"

/* Parses {"compute": {"time_s": <field>}} (field_json NULL: absent) and returns the status;
 * the resolved "time_s" is printed unformatted into resolved (if not NULL). */
static int parse(const char *field_json, sim_dist_t *d, sgd_err_t *err, char *resolved,
                 size_t size)
{
    char text[512];
    if (field_json)
        snprintf(text, sizeof text, "{\"compute\": {\"time_s\": %s}}", field_json);
    else
        snprintf(text, sizeof text, "{\"compute\": {}}");
    cJSON *in = cJSON_Parse(text);
    CHECK(in != NULL);
    cJSON *out = cJSON_CreateObject();
    sgd_jobj_t root, compute;
    int rc = sgd_jobj_root(in, out, &root, err);
    if (!rc) rc = sgd_jobj_child(&root, "compute", &compute, err);
    if (!rc) rc = sim_dist_parse(&compute, "time_s", 0.25, d, err);
    if (resolved) {
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(out, "compute"), "time_s");
        char *s = res ? cJSON_PrintUnformatted(res) : NULL;
        snprintf(resolved, size, "%s", s ? s : "(none)");
        free(s);
    }
    cJSON_Delete(in);
    cJSON_Delete(out);
    return rc;
}

static void accepts(const char *json, sim_dist_kind_t kind, double p0, double p1,
                    const char *resolved_expected)
{
    sim_dist_t d;
    sgd_err_t err = {{0}};
    char resolved[256];
    int rc = parse(json, &d, &err, resolved, sizeof resolved);
    if (rc) fprintf(stderr, "input %s: unexpected error: %s\n", json ? json : "(absent)", err.msg);
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(d.kind, kind);
    CHECK_NEAR(d.p[0], p0, 0);
    CHECK_NEAR(d.p[1], p1, 0);
    if (strcmp(resolved, resolved_expected) != 0) {
        fprintf(stderr, "input %s: resolved %s, expected %s\n", json ? json : "(absent)",
                resolved, resolved_expected);
        check_failures++;
    }
}

static void rejects(const char *json, const char *message)
{
    sim_dist_t d;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(parse(json, &d, &err, NULL, 0), -1);
    if (strcmp(err.msg, message) != 0) {
        fprintf(stderr, "input %s:\n  got      \"%s\"\n  expected \"%s\"\n", json, err.msg,
                message);
        check_failures++;
    }
}

int main(void)
{
    accepts(NULL, SIM_DIST_CONSTANT, 0.25, 0, "{\"dist\":\"constant\",\"value\":0.25}");
    accepts("1.5", SIM_DIST_CONSTANT, 1.5, 0, "{\"dist\":\"constant\",\"value\":1.5}");
    accepts("0", SIM_DIST_CONSTANT, 0, 0, "{\"dist\":\"constant\",\"value\":0}");
    accepts("{\"dist\":\"constant\",\"value\":2}", SIM_DIST_CONSTANT, 2, 0,
            "{\"dist\":\"constant\",\"value\":2}");
    accepts("{\"min\":1,\"dist\":\"uniform\",\"max\":3}", SIM_DIST_UNIFORM, 1, 3,
            "{\"dist\":\"uniform\",\"min\":1,\"max\":3}");
    accepts("{\"dist\":\"uniform\",\"min\":2,\"max\":2}", SIM_DIST_UNIFORM, 2, 2,
            "{\"dist\":\"uniform\",\"min\":2,\"max\":2}");
    accepts("{\"dist\":\"normal\",\"mean\":1,\"sd\":0.5}", SIM_DIST_NORMAL, 1, 0.5,
            "{\"dist\":\"normal\",\"mean\":1,\"sd\":0.5}");
    accepts("{\"dist\":\"lognormal\",\"mean\":0.1,\"cv\":0.3}", SIM_DIST_LOGNORMAL, 0.1, 0.3,
            "{\"dist\":\"lognormal\",\"mean\":0.1,\"cv\":0.3}");
    accepts("{\"dist\":\"gamma\",\"mean\":4,\"cv\":2}", SIM_DIST_GAMMA, 4, 2,
            "{\"dist\":\"gamma\",\"mean\":4,\"cv\":2}");
    accepts("{\"dist\":\"exponential\",\"mean\":0.5}", SIM_DIST_EXPONENTIAL, 0.5, 0,
            "{\"dist\":\"exponential\",\"mean\":0.5}");

#define NOT_A_DIST "compute.time_s: expected a number in [0, 1e+12] or a distribution object, got "
    rejects("-1", NOT_A_DIST "-1");
    rejects("\"fast\"", NOT_A_DIST "\"fast\"");
    rejects("[1]", NOT_A_DIST "an array");
    rejects("1e13", NOT_A_DIST "10000000000000");
    /* Bounds that keep every sample finite and every sum of times in range (sim/dist.h). */
    rejects("{\"dist\":\"gamma\",\"mean\":0.004,\"cv\":1e200}",
            "compute.time_s.cv: expected number <= 1000, got 9.9999999999999997e+199");
    rejects("{\"dist\":\"uniform\",\"min\":0,\"max\":2e12}",
            "compute.time_s.max: expected number <= 1e+12, got 2000000000000");
    rejects("{\"dist\":\"gamma\",\"mean\":1,\"cv\":-1}",
            "compute.time_s.cv: expected number > 0, got -1");
    rejects("{\"dist\":\"gamma\",\"mean\":1,\"cv\":0}",
            "compute.time_s.cv: expected number > 0, got 0");
    rejects("{\"dist\":\"lognormal\",\"mean\":0,\"cv\":1}",
            "compute.time_s.mean: expected number > 0, got 0");
    rejects("{\"dist\":\"exponential\",\"mean\":\"1\"}",
            "compute.time_s.mean: expected number > 0, got \"1\"");
    rejects("{\"dist\":\"uniform\",\"min\":3,\"max\":1}",
            "compute.time_s.max: expected number >= 3, got 1");
    rejects("{\"dist\":\"normal\",\"mean\":1,\"sd\":-0.5}",
            "compute.time_s.sd: expected number >= 0, got -0.5");
    rejects("{\"dist\":\"constant\",\"value\":-2}",
            "compute.time_s.value: expected number >= 0, got -2");
    rejects("{\"dist\":\"constant\"}",
            "compute.time_s.value: required field is missing (expected a number)");
    rejects("{\"dist\":\"gamma\",\"mean\":1,\"sd\":1}",
            "compute.time_s.sd: unknown key (allowed here: dist, mean, cv)");
    rejects("{\"dist\":\"weibull\",\"mean\":1}",
            "compute.time_s.dist: expected one of \"constant\", \"uniform\", \"normal\", "
            "\"lognormal\", \"gamma\", \"exponential\", got \"weibull\"");
    rejects("{\"mean\":1}",
            "compute.time_s.dist: required field is missing (expected one of \"constant\", "
            "\"uniform\", \"normal\", \"lognormal\", \"gamma\", \"exponential\")");
    rejects("{\"dist\":\"exponential\",\"mean\":1,\"mean\":2}",
            "compute.time_s.mean: key appears more than once");

    /* With no resolved tree (parent->out NULL) parsing still works. */
    cJSON *in = cJSON_Parse("{\"t\": 3}");
    sgd_jobj_t root;
    sgd_err_t err = {{0}};
    sim_dist_t d;
    CHECK_INT_EQ(sgd_jobj_root(in, NULL, &root, &err), 0);
    CHECK_INT_EQ(sim_dist_parse(&root, "t", 0, &d, &err), 0);
    CHECK_NEAR(d.p[0], 3, 0);
    cJSON_Delete(in);
    return check_exit();
}
