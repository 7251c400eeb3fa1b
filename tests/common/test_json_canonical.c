/* Exact number printing and the canonical form configuration hashes are taken of: every
 * double reads back as the same bits in the fewest digits, integers print as integers,
 * objects sort by key bytes, strings escape as cJSON escapes them, and the configuration
 * hash ignores key order and numerics.threads but nothing else. */
#include <math.h>
#include <stdlib.h>

#include "common/json.h"
#include "tests/check.h"

static const char *num(double d)
{
    static char buf[SGD_JSON_NUMBER_MAX];
    return sgd_json_format_number(d, buf);
}

static void numbers_print_exactly_and_shortest(void)
{
    CHECK_STR_EQ(num(0.3), "0.3");
    CHECK_STR_EQ(num(0.1 + 0.2), "0.30000000000000004");
    CHECK_STR_EQ(num(4.0), "4");
    CHECK_STR_EQ(num(-17.0), "-17");
    CHECK_STR_EQ(num(-0.0), "-0");
    CHECK_STR_EQ(num(9007199254740991.0), "9007199254740991");
    CHECK_STR_EQ(num(9007199254740990.0), "9007199254740990");
    CHECK_STR_EQ(num(9007199254740992.0), "9007199254740992"); /* 2^53: by %.16g */
    CHECK_STR_EQ(num(1e300), "1e+300");
    CHECK_STR_EQ(num(5e-324), "4.94065645841247e-324"); /* reads back: shortest */
    CHECK_STR_EQ(num(NAN), "null");
    /* Every one of many doubles reads back as the same bits. */
    unsigned state = 7;
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t bits = 0;
        for (int k = 0; k < 4; k++) {
            state = state * 1103515245u + 12345u;
            bits = bits << 16 | (state >> 8 & 0xffff);
        }
        double d;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d)) continue;
        double back = strtod(num(d), NULL);
        if (memcmp(&back, &d, sizeof d) != 0 && bad++ < 3)
            fprintf(stderr, "%.17g printed as %s\n", d, num(d));
    }
    CHECK_INT_EQ(bad, 0);
}

static char *print(const char *json, bool sorted)
{
    cJSON *v = cJSON_Parse(json);
    char *out = sgd_json_print(v, sorted);
    cJSON_Delete(v);
    return out;
}

static void canonical_form_sorts_keys_and_drops_whitespace(void)
{
    char *a = print("{\"b\": [3, {\"z\": 1, \"a\": 2.50}], \"a\": {\"y\": null, \"x\": true},"
                    " \"\\u00e9\": \"q\\\"\\n\\u0001\"}", true);
    CHECK_STR_EQ(a, "{\"a\":{\"x\":true,\"y\":null},\"b\":[3,{\"a\":2.5,\"z\":1}],"
                    "\"\xc3\xa9\":\"q\\\"\\n\\u0001\"}");
    free(a);
    char *b = print("{\"b\": 1, \"a\": 2}", false);
    CHECK_STR_EQ(b, "{\"b\":1,\"a\":2}"); /* unsorted keeps the order */
    free(b);
    /* Strings print as cJSON prints them. */
    cJSON *s = cJSON_CreateString("tab\tquote\"back\\slash\x1f\x7f");
    char *mine = sgd_json_print(s, true), *theirs = cJSON_PrintUnformatted(s);
    CHECK_STR_EQ(mine, theirs);
    free(mine);
    free(theirs);
    cJSON_Delete(s);
}

static const char *hash(const char *json)
{
    static char hex[SGD_SHA256_HEX_LEN + 1];
    if (sgd_config_hash_text(json, hex)) return "refused";
    return hex;
}

static void config_hash_ignores_order_and_threads_only(void)
{
    char a[SGD_SHA256_HEX_LEN + 1];
    snprintf(a, sizeof a, "%s", hash("{\"seed\": 1, \"numerics\": {\"threads\": 4,"
                                     " \"blas_core\": \"Haswell\"}, \"lr\": 0.3}"));
    CHECK_STR_EQ(hash("{\"lr\": 0.29999999999999999, \"numerics\": {\"blas_core\":"
                      " \"Haswell\", \"threads\": 1}, \"seed\": 1.0}"), a);
    CHECK_STR_EQ(hash("{\"lr\": 0.3, \"numerics\": {\"blas_core\": \"Haswell\"},"
                      " \"seed\": 1}"), a);
    CHECK(strcmp(hash("{\"lr\": 0.30000000000000004, \"numerics\": {\"blas_core\":"
                      " \"Haswell\"}, \"seed\": 1}"), a) != 0);
    CHECK(strcmp(hash("{\"lr\": 0.3, \"numerics\": {\"blas_core\": \"Zen\"}, \"seed\": 1}"),
                 a) != 0);
    CHECK_STR_EQ(hash("not json"), "refused");
    CHECK_STR_EQ(hash("[1]"), "refused");
    CHECK_STR_EQ(hash("{} trailing"), "refused");
}

int main(void)
{
    numbers_print_exactly_and_shortest();
    canonical_form_sorts_keys_and_drops_whitespace();
    config_hash_ignores_order_and_threads_only();
    return check_exit();
}
