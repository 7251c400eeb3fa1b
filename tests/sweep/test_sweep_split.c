/* Sweep planning helpers: --set list splitting (commas inside JSON brackets, braces and
 * strings do not split; empty values and unbalanced brackets are errors naming the
 * argument) and --shard parsing (0 <= I < N). */
#include <stdlib.h>
#include <string.h>

#include "sweep/plan.h"
#include "tests/check.h"

/* Splits a and joins the values with '|' into out (or the error message). */
static const char *split(const char *a)
{
    static char out[2048];
    sgd_err_t err = {{0}};
    char *key, **vals;
    int n;
    if (sweep_split(a, &key, &vals, &n, &err)) {
        snprintf(out, sizeof out, "ERR %s", err.msg);
        return out;
    }
    snprintf(out, sizeof out, "%s:", key);
    for (int i = 0; i < n; i++) {
        strcat(out, i ? "|" : "");
        strcat(out, vals[i]);
        free(vals[i]);
    }
    free(vals);
    free(key);
    return out;
}

int main(void)
{
    CHECK_STR_EQ(split("cluster.workers=250,500,1000"), "cluster.workers:250|500|1000");
    CHECK_STR_EQ(split("cluster.workers=4"), "cluster.workers:4");
    CHECK_STR_EQ(split("model.hidden=[16,8],[32]"), "model.hidden:[16,8]|[32]");
    CHECK_STR_EQ(split("x={\"a\":1,\"b\":[1,2]},{}"), "x:{\"a\":1,\"b\":[1,2]}|{}");
    CHECK_STR_EQ(split("name=\"a,b\",c"), "name:\"a,b\"|c");
    CHECK_STR_EQ(split("name=\"q\\\",r\",s"), "name:\"q\\\",r\"|s");
    CHECK_STR_EQ(split("network.fidelity=message,analytic"), "network.fidelity:message|analytic");
    CHECK_STR_CONTAINS(split("cluster.workers=1,,2"),
                       "ERR --set cluster.workers=1,,2: empty value in the list (value 2)");
    CHECK_STR_CONTAINS(split("cluster.workers=1,"), "empty value in the list (value 2)");
    CHECK_STR_CONTAINS(split("cluster.workers="), "empty value in the list (value 1)");
    CHECK_STR_CONTAINS(split("model.hidden=[16,8"), "missing ']'");
    CHECK_STR_CONTAINS(split("model.hidden=[16}"), "unbalanced '}'");
    CHECK_STR_CONTAINS(split("name=\"abc"), "unterminated string");
    CHECK_STR_CONTAINS(split("=1,2"), "expected key.path=value");
    CHECK_STR_CONTAINS(split("cluster.workers"), "expected key.path=value");

    int i = -1, n = -1;
    sgd_err_t err = {{0}};
    CHECK(sweep_parse_shard("3/8", &i, &n, &err) == 0);
    CHECK_INT_EQ(i, 3);
    CHECK_INT_EQ(n, 8);
    CHECK(sweep_parse_shard("0/1", &i, &n, &err) == 0);
    CHECK(sweep_parse_shard("8/8", &i, &n, &err) == -1);
    CHECK_STR_CONTAINS(err.msg,
                       "--shard 8/8: shard index 8 out of range: shards are numbered 0..7");
    static const char *const bad[] = {"", "3", "/4", "3/", "a/4", "3/b", "-1/4", "1/-4",
                                      "1/4x", "+1/4", " 1/4", "1/ 4", "0x1/4", "1/4 ",
                                      "99999999999999999999/4", NULL};
    for (const char *const *b = bad; *b; b++) {
        CHECK(sweep_parse_shard(*b, &i, &n, &err) == -1);
        CHECK_STR_CONTAINS(err.msg, "--shard");
    }
    CHECK(sweep_parse_shard("0/0", &i, &n, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "number of shards N must be in 1..");
    return check_exit();
}
