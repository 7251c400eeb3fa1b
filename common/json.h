/* Strict, path-aware reading of JSON objects (cJSON) for scenario files.
 *
 * Every getter checks type and range, reports errors as "json.path: expected ..., got ...",
 * and records the value actually used (given or default) in a parallel "resolved" object so
 * the full configuration can be stored with the run and hashed.  Unknown keys and duplicate
 * keys are errors (sgd_jobj_check_keys), because a misspelt key silently falling back to a
 * default is the most common way to run the wrong experiment. */
#ifndef SGDSIM_COMMON_JSON_H
#define SGDSIM_COMMON_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "common/error.h"
#include "common/sha256.h"

#define SGD_JPATH_MAX 256

typedef struct sgd_jobj {
    const cJSON *in; /* the user's object; NULL when absent (every field takes its default) */
    cJSON *out;      /* resolved object being filled, owned by the caller's tree; may be NULL */
    char path[SGD_JPATH_MAX]; /* JSON path of this object, "" for the root */
} sgd_jobj_t;

/* Root wrapper: in must be an object (checked), out may be NULL. */
int sgd_jobj_root(const cJSON *in, cJSON *out, sgd_jobj_t *root, sgd_err_t *err);

/* Child object `key`; absent -> child.in = NULL (defaults), present but not an object -> error.
 * A resolved child object is created under parent->out. */
int sgd_jobj_child(const sgd_jobj_t *parent, const char *key, sgd_jobj_t *child, sgd_err_t *err);

/* Element i of an array as an object context with path "key[i]". */
void sgd_jobj_elem(const cJSON *elem, cJSON *out_elem, const char *array_path, int i,
                   sgd_jobj_t *child);

/* Rejects keys not listed in `allowed` (NULL-terminated) and duplicated keys. */
int sgd_jobj_check_keys(const sgd_jobj_t *o, const char *const *allowed, sgd_err_t *err);

bool sgd_jobj_has(const sgd_jobj_t *o, const char *key);

/* Integer in [min, max]; absent -> def. */
int sgd_jobj_int(const sgd_jobj_t *o, const char *key, int64_t def, int64_t min, int64_t max,
                 int64_t *out, sgd_err_t *err);
/* Required integer (absent is an error). */
int sgd_jobj_int_req(const sgd_jobj_t *o, const char *key, int64_t min, int64_t max,
                     int64_t *out, sgd_err_t *err);

/* Finite number; `gt_min` selects min < x (true) or min <= x (false); x <= max. */
int sgd_jobj_num(const sgd_jobj_t *o, const char *key, double def, double min, bool gt_min,
                 double max, double *out, sgd_err_t *err);
int sgd_jobj_num_req(const sgd_jobj_t *o, const char *key, double min, bool gt_min, double max,
                     double *out, sgd_err_t *err);

int sgd_jobj_bool(const sgd_jobj_t *o, const char *key, bool def, bool *out, sgd_err_t *err);

/* String; *out points into the cJSON tree (or to def): valid while the tree lives.
 * def == NULL makes the key required. */
int sgd_jobj_str(const sgd_jobj_t *o, const char *key, const char *def, const char **out,
                 sgd_err_t *err);

/* String that must be one of names[] (NULL-terminated); *out = its index. def < 0: required. */
int sgd_jobj_enum(const sgd_jobj_t *o, const char *key, const char *const *names, int def,
                  int *out, sgd_err_t *err);

/* Writes "parent.key" (or "key" at the root) into buf. */
void sgd_jpath_join(char *buf, size_t size, const char *parent, const char *key);

/* Short description of a JSON value for messages: "four" (quoted), 3.5, true, null, an object... */
void sgd_json_describe(const cJSON *v, char *buf, size_t size);

/* Checks every string of a JSON text that cJSON has parsed, keys included, for what cJSON
 * lets through: a raw control character (a byte < 0x20; JSON allows them only escaped), the
 * escape \u0000 (cJSON's C string would end there: "a\u0000b" would read as "a"), and bytes
 * that are not UTF-8 (overlong forms, surrogates and values above U+10FFFF included).
 * `path` is the JSON path of the text's value ("" for a whole file).  Errors name the path
 * of the string ("data.train_images: ..." or "cluster: a key ..."), never its bytes.  The
 * text must be valid JSON (the walk trusts its structure). */
int sgd_json_check_strings(const char *text, const char *path, sgd_err_t *err);

/* The same checks for text used as a string as it is (no JSON escapes), e.g. a --set value
 * that is not JSON; errors name `path`. */
int sgd_json_check_plain(const char *s, const char *path, sgd_err_t *err);

/* ---- exact printing and the canonical form ------------------------------------------ */

/* Longest text sgd_json_format_number writes, NUL included. */
#define SGD_JSON_NUMBER_MAX 32

/* A double as JSON text that reads back as the same bits: an integral value of magnitude
 * below 2^53 as an integer ("4", "9007199254740991"), -0 as "-0", any other finite value with
 * the fewest of 15, 16 or 17 significant digits that strtod reads back exactly ("0.3",
 * "0.30000000000000004", "1e+300").  Non-finite values (never in a resolved configuration)
 * print as "null", as cJSON prints them.  Returns buf. */
char *sgd_json_format_number(double d, char buf[SGD_JSON_NUMBER_MAX]);

/* v as JSON text without whitespace, every number through sgd_json_format_number (cJSON's own
 * printer keeps 15 digits when the 17-digit value is merely close, so 0.3 and
 * 0.30000000000000004 would print alike) and strings escaped as cJSON escapes them.
 * `sorted`: the members of every object in byte order of their keys (strcmp), which with the
 * number rule makes the canonical form: two trees print alike iff they hold the same values.
 * Otherwise members keep their order.  The caller frees the result. */
char *sgd_json_print(const cJSON *v, bool sorted);

/* Paths of a resolved configuration that change no result and so are left out of its hash
 * (NULL-terminated): numerics.threads (results are the same bits for any thread count).
 * data.cache and data.cache_dir never enter the resolved configuration at all.  Shared by
 * the scenario loader and the results database's migration, which both hash configurations
 * and must agree. */
extern const char *const sgd_config_unhashed[];

/* The configuration hash: SHA-256 hex of the canonical form (sgd_json_print sorted) of a
 * resolved configuration without the sgd_config_unhashed paths.  `config` is not changed. */
void sgd_config_hash_tree(const cJSON *config, char hex[SGD_SHA256_HEX_LEN + 1]);

/* The same from stored JSON text (a results database's config_json); -1 when the text is
 * not a JSON object (hex is then left alone). */
int sgd_config_hash_text(const char *json, char hex[SGD_SHA256_HEX_LEN + 1]);

/* 1..4: the bytes of the well-formed UTF-8 sequence at s (no overlong forms, surrogates or
 * code points above U+10FFFF, RFC 3629); 0 at the terminating NUL or where s is not
 * well-formed.  Used by the string checks here and by the CLI's escaping of untrusted text. */
size_t sgd_utf8_len(const char *s);

#endif
