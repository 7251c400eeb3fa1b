/* --set is as strict as the file: the whole value is read (as JSON, or as a plain string when
 * it starts like a word or path), empty key segments are refused, and every message names the
 * argument, never the scenario file, when the argument is at fault. */
#include "config/scenario.h"
#include "tests/check.h"

static const scn_algorithm_t csgd = {.name = "csgd"};
static const scn_algorithm_t *const algs[] = {&csgd, NULL};

/* Loads a minimal scenario with one --set; the error message, "" when accepted (then *s is
 * loaded and the caller frees it, if s is not NULL). */
static const char *set_err(const char *assignment, scn_t *s)
{
    static sgd_err_t err;
    scn_t tmp;
    scn_t *out = s ? s : &tmp;
    scn_override_t ov = {assignment};
    memset(&err, 0, sizeof err);
    if (scn_load_text("{\"schema_version\": 1}", "t.json", ".", &ov, 1, NULL, algs, out,
                      &err) != 0)
        return err.msg;
    if (!s) scn_free(&tmp);
    return "";
}

static void values_with_trailing_text_are_refused(void)
{
    static const char *const bad[] = {"cluster.workers=8abc", "optimizer.lr=0.5xyz",
                                      "model.hidden=[16],[8]", "cluster.workers=4 garbage",
                                      "cluster.workers=+4", "optimizer.lr=.5x",
                                      "name=\"unterminated", "model.hidden={", NULL};
    for (const char *const *b = bad; *b; b++) {
        char want[128];
        snprintf(want, sizeof want, "--set %s: not a valid JSON value", *b);
        CHECK_STR_CONTAINS(set_err(*b, NULL), want);
        CHECK(strstr(set_err(*b, NULL), "t.json") == NULL);
    }
}

static void whole_values_and_plain_words_are_accepted(void)
{
    scn_t s;
    CHECK_STR_EQ(set_err("cluster.workers=8", &s), "");
    CHECK_INT_EQ(s.workers, 8);
    scn_free(&s);
    CHECK_STR_EQ(set_err("model.hidden=[16, 8] ", &s), "");
    CHECK_INT_EQ(s.model.nhidden, 2);
    CHECK_INT_EQ(s.model.hidden[1], 8);
    scn_free(&s);
    /* Not JSON but starting like a word or a path: the text is the string. */
    CHECK_STR_EQ(set_err("name=my-run", &s), "");
    CHECK_STR_EQ(s.name, "my-run");
    scn_free(&s);
    CHECK_STR_EQ(set_err("name=./runs/a b", &s), "");
    CHECK_STR_EQ(s.name, "./runs/a b");
    scn_free(&s);
    CHECK_STR_EQ(set_err("name=\"4 quoted\"", &s), "");
    CHECK_STR_EQ(s.name, "4 quoted");
    scn_free(&s);
    /* A word-like value for a number is still a type error, naming the argument. */
    CHECK_STR_CONTAINS(set_err("cluster.workers=eight", NULL),
                       "--set cluster.workers=eight: cluster.workers: expected integer");
}

static void empty_key_segments_are_refused(void)
{
    CHECK_STR_EQ(set_err("cluster..workers=8", NULL), "--set cluster..workers=8: empty key segment");
    CHECK_STR_EQ(set_err("a..b=1", NULL), "--set a..b=1: empty key segment");
    CHECK_STR_EQ(set_err(".cluster.workers=8", NULL),
                 "--set .cluster.workers=8: empty key segment");
    CHECK_STR_EQ(set_err("cluster.=8", NULL), "--set cluster.=8: empty key segment");
}

/* An unknown key the argument introduced blames the argument, even when the error is about
 * the object it created on its way. */
static void errors_about_created_objects_blame_the_argument(void)
{
    const char *msg = set_err("a.b=1", NULL);
    CHECK_STR_CONTAINS(msg, "--set a.b=1: a: unknown key");
    CHECK(strstr(msg, "t.json") == NULL);
    CHECK_STR_CONTAINS(set_err("x.y.z=1", NULL), "--set x.y.z=1: x: unknown key");
    /* An error of the file inside an object the override only added to blames the file. */
    scn_override_t ov = {"cluster.workers=4"};
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK(scn_load_text("{\"schema_version\": 1, \"cluster\": {\"wrkers\": 3}}", "t.json",
                        ".", &ov, 1, NULL, algs, &s, &err) != 0);
    CHECK_STR_CONTAINS(err.msg, "t.json: cluster.wrkers: unknown key");
}

int main(void)
{
    values_with_trailing_text_are_refused();
    whole_values_and_plain_words_are_accepted();
    empty_key_segments_are_refused();
    errors_about_created_objects_blame_the_argument();
    return check_exit();
}
