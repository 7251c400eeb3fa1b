/* Strings in scenarios are text, exactly as written, or refused with their JSON path:
 *   - "\u0000" would cut the C string cJSON makes of it ("a\u0000b" became "a", and
 *     "cpu\u0000x" the backend "cpu"; a key "name\u0000x" the key "name");
 *   - raw control characters (a line break inside quotes; JSON forbids them, cJSON took
 *     them) and bytes that are not UTF-8 were stored as they came.
 * Checked in the file (values, keys, arrays, the sweep block) and in --set values, parsed
 * as JSON or taken as plain text.  Escapes such as "\n" and "\u00e9", and UTF-8 of every
 * length, stay accepted. */
#include <stdlib.h>

#include "config/scenario.h"
#include "tests/check.h"

static const scn_algorithm_t csgd = {.name = "csgd"};
static const scn_algorithm_t *const algs[] = {&csgd, NULL};

/* Loads {"schema_version": 1, <body>} and returns the error message ("" on success). */
static const char *load_body(const char *body, const scn_override_t *sets, int nsets)
{
    static sgd_err_t err;
    static char text[4096];
    snprintf(text, sizeof text, "{\"schema_version\": 1%s%s}", body[0] ? ", " : "", body);
    scn_t s;
    memset(&err, 0, sizeof err);
    if (scn_load_text(text, "t.json", ".", sets, nsets, NULL, algs, &s, &err) == 0) {
        scn_free(&s);
        return "";
    }
    return err.msg;
}

static void refused(const char *body, const char *where, const char *what)
{
    const char *msg = load_body(body, NULL, 0);
    fprintf(stderr, "%s -> %s\n", where, msg);
    CHECK_STR_CONTAINS(msg, where);
    CHECK_STR_CONTAINS(msg, what);
}

static void nul_escapes_are_refused_wherever_they_are(void)
{
    refused("\"name\": \"a\\u0000b\"", "t.json: name: ", "\\u0000");
    refused("\"backend\": \"cpu\\u0000x\"", "t.json: backend: ", "\\u0000");
    refused("\"description\": \"\\u0000\"", "t.json: description: ", "\\u0000");
    refused("\"data\": {\"source\": \"idx\", \"train_images\": \"x\\u0000.gz\"}",
            "t.json: data.train_images: ", "\\u0000");
    refused("\"sweep\": {\"name\": [\"a\", \"b\\u0000\"]}", "t.json: sweep.name[1]: ", "\\u0000");
    /* In a key: "name\u0000x" used to read as "name". */
    refused("\"name\\u0000x\": \"evil\"", "t.json: a key of the top level", "\\u0000");
    refused("\"cluster\": {\"workers\\u0000\": 2}", "t.json: cluster: a key", "\\u0000");
    /* A malformed \u escape is read by cJSON as a NUL too ("a\u00g0b" became "a"). */
    refused("\"name\": \"a\\u00g0b\"", "t.json: name: ", "not followed by four hex digits");
    /* An escaped backslash before u0000 is the text \u0000, not a NUL. */
    CHECK_STR_EQ(load_body("\"description\": \"C:\\\\u0000\"", NULL, 0), "");
}

static void raw_control_characters_are_refused(void)
{
    refused("\"name\": \"a\nb\"", "t.json: name: ", "raw control character 0x0a");
    refused("\"description\": \"tab\there\"", "t.json: description: ", "0x09");
    refused("\"algorithm\": {\"name\": \"csgd\x1b\"}", "t.json: algorithm.name: ", "0x1b");
    /* Written as escapes they are ordinary JSON text. */
    CHECK_STR_EQ(load_body("\"description\": \"line 1\\nline 2\\tend\"", NULL, 0), "");
}

static void bytes_that_are_not_utf8_are_refused(void)
{
    refused("\"name\": \"caf\xe9\"", "t.json: name: ", "not valid UTF-8");     /* Latin-1 */
    refused("\"name\": \"\xc0\xaf\"", "t.json: name: ", "not valid UTF-8");     /* overlong */
    refused("\"name\": \"\xed\xa0\x80\"", "t.json: name: ", "not valid UTF-8"); /* surrogate */
    refused("\"name\": \"\xf4\x90\x80\x80\"", "t.json: name: ", "not valid UTF-8"); /* > U+10FFFF */
    refused("\"name\": \"\xe2\x82\"", "t.json: name: ", "not valid UTF-8");     /* cut short */
    refused("\"name\": \"\xff\"", "t.json: name: ", "byte 0xff");
    CHECK_STR_EQ(load_body("\"name\": \"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80\"",
                           NULL, 0), "");
    CHECK_STR_EQ(load_body("\"name\": \"caf\\u00e9 \\ud83d\\ude80\"", NULL, 0), "");
}

static void set_values_are_checked_too(void)
{
    scn_override_t plain[] = {{"name=a\nb"}};
    const char *msg = load_body("", plain, 1);
    CHECK_STR_CONTAINS(msg, "--set name=...: name: ");
    CHECK_STR_CONTAINS(msg, "0x0a");
    scn_override_t json[] = {{"name=\"a\\u0000b\""}};
    msg = load_body("", json, 1);
    CHECK_STR_CONTAINS(msg, "--set name=...: name: ");
    CHECK_STR_CONTAINS(msg, "\\u0000");
    scn_override_t nested[] = {{"data={\"source\": \"idx\", \"train_images\": \"\xff\"}"}};
    msg = load_body("", nested, 1);
    CHECK_STR_CONTAINS(msg, "--set data=...: data.train_images: ");
    CHECK_STR_CONTAINS(msg, "not valid UTF-8");
    scn_override_t latin1[] = {{"name=caf\xe9"}};
    CHECK_STR_CONTAINS(load_body("", latin1, 1), "not valid UTF-8");
    scn_override_t fine[] = {{"name=caf\xc3\xa9"}, {"description=\"a\\nb\""}};
    CHECK_STR_EQ(load_body("", fine, 2), "");
}

int main(void)
{
    nul_escapes_are_refused_wherever_they_are();
    raw_control_characters_are_refused();
    bytes_that_are_not_utf8_are_refused();
    set_values_are_checked_too();
    return check_exit();
}
