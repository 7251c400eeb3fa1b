/* The strict JSON getters: types, ranges, defaults written to the resolved object, unknown
 * and duplicate keys, and the exact "path: expected ..., got ..." messages users see; and the
 * string checks' paths through nested objects and arrays. */
#include "common/json.h"
#include "tests/check.h"

/* sgd_json_check_strings on text (under path) and its message, "" when accepted. */
static const char *strings_err(const char *text, const char *path)
{
    static sgd_err_t err;
    memset(&err, 0, sizeof err);
    return sgd_json_check_strings(text, path, &err) ? err.msg : "";
}

static void string_checks_name_the_path(void)
{
    CHECK_STR_EQ(strings_err("{\"a\": [1, {\"b\": \"ok\\n\\u00e9\"}], \"c\": null}", ""), "");
    CHECK_STR_CONTAINS(strings_err("{\"a\": [1, \"x\", {\"b\": \"\\u0000\"}]}", ""),
                       "a[2].b: contains \\u0000 at character 1");
    CHECK_STR_CONTAINS(strings_err("[[\"\xc3\"]]", "v"), "v[0][0]: not valid UTF-8 (byte 0xc3");
    CHECK_STR_CONTAINS(strings_err("{\"o\": {\"k\x01\": 1}}", ""), "o: a key: contains a raw "
                       "control character 0x01");
    CHECK_STR_CONTAINS(strings_err("\"\x7f\x1f\"", ""), "top level: contains a raw control "
                       "character 0x1f at character 2");
    /* A \u escape needs four hex digits: cJSON reads \u00g0 as a NUL.  The walk must also
     * find the string's end where cJSON does: it once skipped six bytes at "\u" and, out of
     * step, looped forever on the '}' of ["\uf\\\"}"] (a fuzzer's find). */
    CHECK_STR_CONTAINS(strings_err("[\"\\uf\\\\\\\"}\"]", ""),
                       "[0]: a \\u escape at character 1 is not followed by four hex digits");
    CHECK_STR_CONTAINS(strings_err("{\"a\\u00g0\": 1}", ""), "a key of the top level: a \\u "
                       "escape at character 2");
    CHECK_STR_CONTAINS(strings_err("[\"\\u12\"]", ""), "not followed by four hex digits");
    CHECK_STR_CONTAINS(strings_err("[\"\\u00e9\\n\\u0000\"]", ""), "[0]: contains \\u0000 at "
                       "character 3");
    CHECK_STR_EQ(strings_err("[\"\\\\u0000 \\uD83D\\uDE00 \\u00E9 \\\"}\", {\"b\": 1}]", ""), "");
    /* Text the parser refused is never walked, but a walk over it still ends. */
    CHECK_STR_EQ(strings_err("[}]", ""), "");
    CHECK_STR_EQ(strings_err("{\"a\": }", ""), "");
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sgd_json_check_plain("plain \xe2\x82\xac", "k", &err), 0);
    CHECK_INT_EQ(sgd_json_check_plain("a\\u0000b", "k", &err), 0); /* plain: no escapes */
    CHECK_INT_EQ(sgd_json_check_plain("bad \xe2\x82", "k", &err), -1);
    CHECK_STR_CONTAINS(err.msg, "k: not valid UTF-8");
}

#include <stdlib.h>

int main(void)
{
    cJSON *in = cJSON_Parse("{\"cluster\": {\"workers\": \"four\", \"x\": 1.5},"
                            " \"n\": 3, \"big\": 1e300, \"name\": \"q\", \"flag\": true,"
                            " \"dup\": 1, \"dup\": 2}");
    cJSON *out = cJSON_CreateObject();
    sgd_jobj_t root, cluster;
    sgd_err_t err = {{0}};
    CHECK(sgd_jobj_root(in, out, &root, &err) == 0);
    CHECK(sgd_jobj_child(&root, "cluster", &cluster, &err) == 0);

    int64_t v;
    CHECK(sgd_jobj_int(&cluster, "workers", 4, 1, INT64_MAX, &v, &err) == -1);
    CHECK_STR_EQ(err.msg, "cluster.workers: expected integer >= 1, got \"four\"");
    CHECK(sgd_jobj_int(&cluster, "x", 4, 1, INT64_MAX, &v, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "cluster.x: expected integer >= 1, got 1.5");
    CHECK(sgd_jobj_int(&root, "n", 1, 0, 10, &v, &err) == 0);
    CHECK_INT_EQ(v, 3);
    CHECK(sgd_jobj_int(&root, "big", 1, 0, INT64_MAX, &v, &err) == -1);
    CHECK(sgd_jobj_int(&root, "absent", 7, 0, 10, &v, &err) == 0);
    CHECK_INT_EQ(v, 7);

    double d;
    CHECK(sgd_jobj_num(&root, "n", 0, 3.0, true, 1e9, &d, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "n: expected number > 3, got 3");
    CHECK(sgd_jobj_num(&root, "n", 0, 3.0, false, 1e9, &d, &err) == 0);
    CHECK_NEAR(d, 3.0, 0);

    static const char *const names[] = {"p", "q", NULL};
    int idx;
    CHECK(sgd_jobj_enum(&root, "name", names, -1, &idx, &err) == 0);
    CHECK_INT_EQ(idx, 1);
    CHECK(sgd_jobj_enum(&root, "missing", names, -1, &idx, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "missing: required field is missing");
    bool b;
    CHECK(sgd_jobj_bool(&root, "flag", false, &b, &err) == 0 && b);
    CHECK(sgd_jobj_bool(&root, "n", false, &b, &err) == -1);

    static const char *const allowed[] = {"cluster", "n", "big", "name", "flag", NULL};
    CHECK(sgd_jobj_check_keys(&root, allowed, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "dup: unknown key");
    static const char *const allowed2[] = {"cluster", "n", "big", "name", "flag", "dup", NULL};
    CHECK(sgd_jobj_check_keys(&root, allowed2, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "dup: key appears more than once");

    /* defaults and given values both land in the resolved object */
    char *text = cJSON_PrintUnformatted(out);
    CHECK_STR_CONTAINS(text, "\"absent\":7");
    CHECK_STR_CONTAINS(text, "\"n\":3");
    CHECK_STR_CONTAINS(text, "\"flag\":true");
    free(text);

    cJSON *arr = cJSON_Parse("[1,2]");
    CHECK(sgd_jobj_root(arr, NULL, &root, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "top level: expected a JSON object, got an array");
    cJSON_Delete(arr);
    cJSON_Delete(in);
    cJSON_Delete(out);
    string_checks_name_the_path();
    return check_exit();
}
