/* Run keys (the configuration hash) identify a configuration exactly: two loads get the same
 * key if and only if they resolve to the same values.  Seeds just below 2^53 and learning
 * rates one ulp apart get distinct keys; the same values written another way (4.0 for 4, other
 * digits of the same double, keys in another order) get the same key; a randomised property
 * test checks "same key <=> same values" over many generated scenarios. */
#include <stdio.h>
#include <stdlib.h>

#include "config/scenario.h"
#include "tests/check.h"

static const scn_algorithm_t csgd = {.name = "csgd"};
static const scn_algorithm_t *const algs[] = {&csgd, NULL};

/* Loads text with optional --set overrides and --seed; the key, or "" with the error. */
static const char *key_of(const char *text, const char *set, const uint64_t *seed,
                          char key[SGD_SHA256_HEX_LEN + 1], char *msg, size_t msg_size)
{
    scn_t s;
    sgd_err_t err = {{0}};
    scn_override_t ov = {set};
    key[0] = '\0';
    if (msg) msg[0] = '\0';
    if (scn_load_text(text, "t.json", ".", &ov, set ? 1 : 0, seed, algs, &s, &err) != 0) {
        if (msg) snprintf(msg, msg_size, "%s", err.msg);
        return key;
    }
    memcpy(key, s.config_hash, SGD_SHA256_HEX_LEN + 1);
    scn_free(&s);
    return key;
}

static void seeds_below_2_53_get_distinct_keys(void)
{
    char k[3][SGD_SHA256_HEX_LEN + 1], text[128], msg[SGD_ERR_MAX];
    const uint64_t seeds[3] = {9007199254740989ULL, 9007199254740990ULL, 9007199254740991ULL};
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, "{\"schema_version\": 1, \"seed\": %llu}",
                 (unsigned long long)seeds[i]);
        key_of(text, NULL, NULL, k[i], NULL, 0);
        CHECK_INT_EQ(strlen(k[i]), SGD_SHA256_HEX_LEN);
        char from_flag[SGD_SHA256_HEX_LEN + 1];
        key_of("{\"schema_version\": 1}", NULL, &seeds[i], from_flag, NULL, 0);
        CHECK_STR_EQ(from_flag, k[i]); /* --seed and the file agree */
    }
    CHECK(strcmp(k[0], k[1]) != 0);
    CHECK(strcmp(k[1], k[2]) != 0);
    CHECK(strcmp(k[0], k[2]) != 0);
    /* 2^53 and above are refused from the file and from --seed alike: 2^53 + 1 would read as
     * 2^53 and silently become another seed. */
    key_of("{\"schema_version\": 1, \"seed\": 9007199254740993}", NULL, NULL, k[0], msg,
           sizeof msg);
    CHECK_STR_CONTAINS(msg, "t.json: seed: expected integer <= 9007199254740991");
    key_of("{\"schema_version\": 1, \"seed\": 9007199254740992}", NULL, NULL, k[0], msg,
           sizeof msg);
    CHECK_STR_CONTAINS(msg, "seed: expected integer <= 9007199254740991");
    const uint64_t big = 9007199254740992ULL;
    key_of("{\"schema_version\": 1}", NULL, &big, k[0], msg, sizeof msg);
    CHECK_STR_CONTAINS(msg, "--seed 9007199254740992: must be <= 2^53 - 1 (9007199254740991)");
}

static void stored_configuration_keeps_every_digit(void)
{
    scn_t s;
    sgd_err_t err = {{0}};
    scn_override_t ov = {"optimizer.lr=0.30000000000000004"};
    uint64_t seed = 9007199254740991ULL;
    CHECK(scn_load_text("{\"schema_version\": 1}", "t.json", ".", &ov, 1, &seed, algs, &s,
                        &err) == 0);
    CHECK_STR_CONTAINS(s.resolved_json, "\"lr\":0.30000000000000004");
    CHECK_STR_CONTAINS(s.resolved_json, "\"seed\":9007199254740991");
    scn_free(&s);
}

static void learning_rates_one_ulp_apart_get_distinct_keys(void)
{
    const char *base = "{\"schema_version\": 1}";
    char a[SGD_SHA256_HEX_LEN + 1], b[SGD_SHA256_HEX_LEN + 1], c[SGD_SHA256_HEX_LEN + 1];
    key_of(base, "optimizer.lr=0.3", NULL, a, NULL, 0);
    key_of(base, "optimizer.lr=0.30000000000000004", NULL, b, NULL, 0);
    key_of(base, "optimizer.lr=0.29999999999999999", NULL, c, NULL, 0); /* the double 0.3 */
    CHECK(a[0] && b[0]);
    CHECK(strcmp(a, b) != 0);
    CHECK_STR_EQ(a, c);
    /* A sweep block keeps both values as two texts, so a sweep has two points. */
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK(scn_load_text("{\"schema_version\": 1, \"sweep\": {\"optimizer.lr\": "
                        "[0.3, 0.30000000000000004]}}", "t.json", ".", NULL, 0, NULL, algs, &s,
                        &err) == 0);
    CHECK_INT_EQ(s.nsweep, 1);
    CHECK_STR_EQ(s.sweep[0].values[0], "0.3");
    CHECK_STR_EQ(s.sweep[0].values[1], "0.30000000000000004");
    scn_free(&s);
}

/* "workers": 4.0 is the integer 4, in the file and from --set; 4.5 is refused. */
static void integral_numbers_are_integers(void)
{
    char a[SGD_SHA256_HEX_LEN + 1], b[SGD_SHA256_HEX_LEN + 1], c[SGD_SHA256_HEX_LEN + 1];
    char msg[SGD_ERR_MAX];
    key_of("{\"schema_version\": 1, \"cluster\": {\"workers\": 4}}", NULL, NULL, a, NULL, 0);
    key_of("{\"schema_version\": 1.0, \"cluster\": {\"workers\": 4.0}}", NULL, NULL, b, NULL, 0);
    key_of("{\"schema_version\": 1}", "cluster.workers=4e0", NULL, c, NULL, 0);
    CHECK(a[0]);
    CHECK_STR_EQ(a, b);
    CHECK_STR_EQ(a, c);
    key_of("{\"schema_version\": 1}", "cluster.workers=4.5", NULL, c, msg, sizeof msg);
    CHECK_STR_CONTAINS(msg, "--set cluster.workers=4.5: cluster.workers: expected integer");
}

/* A JSON object's members in reverse order, recursively (a loader reading fields in another
 * order would print them so). */
static void reverse_members(cJSON *v)
{
    cJSON *rev = NULL;
    for (cJSON *it = v->child, *next; it; it = next) {
        next = it->next;
        reverse_members(it);
        if (!cJSON_IsObject(v)) continue;
        it->next = rev;
        it->prev = NULL;
        if (rev) rev->prev = it;
        rev = it;
    }
    if (!cJSON_IsObject(v) || !rev) return;
    v->child = rev;
    cJSON *last = rev;
    while (last->next) last = last->next;
    rev->prev = last; /* cJSON keeps the last member in the first one's prev */
}

static void key_order_changes_no_key(void)
{
    const char *one = "{\"schema_version\": 1, \"seed\": 5, \"cluster\": {\"workers\": 8,"
                      " \"time_factor\": {\"dist\": \"uniform\", \"min\": 1, \"max\": 2}},"
                      " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9}}";
    const char *two = "{\"optimizer\": {\"momentum\": 0.9, \"lr\": 0.05}, \"cluster\":"
                      " {\"time_factor\": {\"max\": 2, \"dist\": \"uniform\", \"min\": 1}, \"workers\": 8},"
                      " \"seed\": 5, \"schema_version\": 1}";
    char a[SGD_SHA256_HEX_LEN + 1], b[SGD_SHA256_HEX_LEN + 1], msg[SGD_ERR_MAX];
    key_of(one, NULL, NULL, a, msg, sizeof msg);
    CHECK_STR_EQ(msg, "");
    key_of(two, NULL, NULL, b, NULL, 0);
    CHECK(a[0]);
    CHECK_STR_EQ(a, b);
    /* The loader's reading order is not part of the key: the stored configuration with every
     * object's members reversed hashes to the same key. */
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK(scn_load_text(one, "t.json", ".", NULL, 0, NULL, algs, &s, &err) == 0);
    cJSON *tree = cJSON_Parse(s.resolved_json);
    reverse_members(tree);
    char *reversed = sgd_json_print(tree, false);
    CHECK(strcmp(reversed, s.resolved_json) != 0);
    char h[SGD_SHA256_HEX_LEN + 1];
    CHECK_INT_EQ(sgd_config_hash_text(reversed, h), 0);
    CHECK_STR_EQ(h, s.config_hash);
    free(reversed);
    cJSON_Delete(tree);
    scn_free(&s);
}

/* ---- property: same key <=> same values ---------------------------------------------- */

/* Each field takes one of a few values, some of them one ulp apart or near 2^53, each
 * written in several ways that read back as the same double. */
typedef struct field {
    const char *object, *key; /* "" object: top level */
    double values[4];
    int nvalues;
    bool integer;
} field_t;

static const field_t fields[] = {
    {"", "seed", {9007199254740990.0, 9007199254740991.0, 1, 2}, 4, true},
    {"optimizer", "lr", {0.3, 0.30000000000000004, 0.1, 0.10000000000000002}, 4, false},
    {"cluster", "workers", {4, 8}, 2, true},
    {"network", "latency_us", {5, 5.000000000000001, 0}, 3, false},
    {"optimizer", "momentum", {0.9, 0}, 2, false},
};
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))
#define NCONFIGS 300

static unsigned rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

/* One way of writing v: integers as 4, 4.0 or 4e0; other numbers with 17, 20 or 25
 * significant digits (the same double each time). */
static void write_number(char *buf, size_t size, double v, bool integer, unsigned form)
{
    if (integer) {
        if (form % 3 == 0) snprintf(buf, size, "%.0f", v);
        else if (form % 3 == 1) snprintf(buf, size, "%.1f", v);
        else snprintf(buf, size, "%.15e", v); /* 16 significant digits: exact here */
    } else {
        snprintf(buf, size, "%.*g", form % 3 == 0 ? 17 : form % 3 == 1 ? 20 : 25, v);
    }
}

/* Scenario text for the value choice pick[] with members in a random order. */
static void write_scenario(char *text, size_t size, const int *pick, unsigned *state)
{
    static const char *const objects[] = {"", "optimizer", "cluster", "network"};
    char member[4][512];
    int order[4] = {0, 1, 2, 3};
    for (int o = 0; o < 4; o++) {
        member[o][0] = '\0';
        size_t len = 0;
        if (o == 0) len += (size_t)snprintf(member[o], sizeof member[o], "\"schema_version\": 1");
        for (int f = 0; f < NFIELDS; f++) {
            if (strcmp(fields[f].object, objects[o]) != 0) continue;
            char num[64];
            write_number(num, sizeof num, fields[f].values[pick[f]], fields[f].integer,
                         rnd(state));
            len += (size_t)snprintf(member[o] + len, sizeof member[o] - len, "%s\"%s\": %s",
                                    len ? ", " : "", fields[f].key, num);
        }
    }
    for (int i = 3; i > 0; i--) {
        int j = (int)(rnd(state) % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    size_t len = (size_t)snprintf(text, size, "{");
    for (int i = 0; i < 4; i++) {
        int o = order[i];
        const char *sep = i ? ", " : "";
        if (o == 0) len += (size_t)snprintf(text + len, size - len, "%s%s", sep, member[o]);
        else
            len += (size_t)snprintf(text + len, size - len, "%s\"%s\": {%s}", sep, objects[o],
                                    member[o]);
    }
    snprintf(text + len, size - len, "}");
}

static void same_key_iff_same_values(void)
{
    static int picks[NCONFIGS][NFIELDS];
    static char keys[NCONFIGS][SGD_SHA256_HEX_LEN + 1];
    static char *canon[NCONFIGS];
    unsigned state = 20261201u;
    int failures = 0;
    for (int c = 0; c < NCONFIGS; c++) {
        for (int f = 0; f < NFIELDS; f++)
            picks[c][f] = (int)(rnd(&state) % (unsigned)fields[f].nvalues);
        char text[2048];
        write_scenario(text, sizeof text, picks[c], &state);
        scn_t s;
        sgd_err_t err = {{0}};
        if (scn_load_text(text, "t.json", ".", NULL, 0, NULL, algs, &s, &err) != 0) {
            fprintf(stderr, "config %d refused: %s\n%s\n", c, err.msg, text);
            CHECK(0);
            return;
        }
        memcpy(keys[c], s.config_hash, sizeof keys[c]);
        cJSON *tree = cJSON_Parse(s.resolved_json);
        canon[c] = sgd_json_print(tree, true);
        cJSON_Delete(tree);
        scn_free(&s);
    }
    for (int a = 0; a < NCONFIGS; a++)
        for (int b = a + 1; b < NCONFIGS; b++) {
            bool same_values = memcmp(picks[a], picks[b], sizeof picks[a]) == 0;
            bool same_key = strcmp(keys[a], keys[b]) == 0;
            bool same_canon = strcmp(canon[a], canon[b]) == 0;
            if ((same_values != same_key || same_key != same_canon) && failures++ < 5)
                fprintf(stderr, "configs %d and %d: same values %d, same key %d, same "
                        "canonical JSON %d\n", a, b, same_values, same_key, same_canon);
        }
    CHECK_INT_EQ(failures, 0);
    for (int c = 0; c < NCONFIGS; c++) free(canon[c]);
}

int main(void)
{
    seeds_below_2_53_get_distinct_keys();
    stored_configuration_keeps_every_digit();
    learning_rates_one_ulp_apart_get_distinct_keys();
    integral_numbers_are_integers();
    key_order_changes_no_key();
    same_key_iff_same_values();
    return check_exit();
}
