/* Implementation of the strict JSON getters, the string checks and the exact printer with
 * the canonical form that configuration hashes are taken of (json.h). */
#include "common/json.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sgd_jpath_join(char *buf, size_t size, const char *parent, const char *key)
{
    int n = (!parent || !parent[0]) ? snprintf(buf, size, "%s", key)
                                    : snprintf(buf, size, "%s.%s", parent, key);
    if (n >= (int)size && size > 4) memcpy(buf + size - 4, "...", 4); /* show the cut */
}

void sgd_json_describe(const cJSON *v, char *buf, size_t size)
{
    if (!v) snprintf(buf, size, "nothing");
    else if (cJSON_IsString(v)) snprintf(buf, size, "\"%.60s\"", v->valuestring);
    else if (cJSON_IsNumber(v)) snprintf(buf, size, "%.17g", v->valuedouble);
    else if (cJSON_IsTrue(v)) snprintf(buf, size, "true");
    else if (cJSON_IsFalse(v)) snprintf(buf, size, "false");
    else if (cJSON_IsNull(v)) snprintf(buf, size, "null");
    else if (cJSON_IsArray(v)) snprintf(buf, size, "an array");
    else if (cJSON_IsObject(v)) snprintf(buf, size, "an object");
    else snprintf(buf, size, "an invalid value");
}

static const cJSON *get(const sgd_jobj_t *o, const char *key)
{
    return o->in ? cJSON_GetObjectItemCaseSensitive(o->in, key) : NULL;
}

static int type_error(const sgd_jobj_t *o, const char *key, const char *expected,
                      const cJSON *got, sgd_err_t *err)
{
    char path[SGD_JPATH_MAX], desc[96];
    sgd_jpath_join(path, sizeof path, o->path, key);
    sgd_json_describe(got, desc, sizeof desc);
    return sgd_errf(err, "%s: expected %s, got %s", path, expected, desc);
}

static int missing_error(const sgd_jobj_t *o, const char *key, const char *expected,
                         sgd_err_t *err)
{
    char path[SGD_JPATH_MAX];
    sgd_jpath_join(path, sizeof path, o->path, key);
    return sgd_errf(err, "%s: required field is missing (expected %s)", path, expected);
}

static void put(const sgd_jobj_t *o, const char *key, cJSON *v)
{
    if (!o->out) {
        cJSON_Delete(v);
        return;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(o->out, key);
    cJSON_AddItemToObject(o->out, key, v);
}

int sgd_jobj_root(const cJSON *in, cJSON *out, sgd_jobj_t *root, sgd_err_t *err)
{
    memset(root, 0, sizeof *root);
    if (!cJSON_IsObject(in)) {
        char desc[96];
        sgd_json_describe(in, desc, sizeof desc);
        return sgd_errf(err, "top level: expected a JSON object, got %s", desc);
    }
    root->in = in;
    root->out = out;
    return 0;
}

int sgd_jobj_child(const sgd_jobj_t *parent, const char *key, sgd_jobj_t *child,
                   sgd_err_t *err)
{
    const cJSON *v = get(parent, key);
    memset(child, 0, sizeof *child);
    sgd_jpath_join(child->path, sizeof child->path, parent->path, key);
    if (v && !cJSON_IsObject(v)) return type_error(parent, key, "an object", v, err);
    child->in = v;
    if (parent->out) {
        cJSON *existing = cJSON_GetObjectItemCaseSensitive(parent->out, key);
        if (cJSON_IsObject(existing)) {
            child->out = existing;
        } else {
            child->out = cJSON_CreateObject();
            put(parent, key, child->out);
        }
    }
    return 0;
}

void sgd_jobj_elem(const cJSON *elem, cJSON *out_elem, const char *array_path, int i,
                   sgd_jobj_t *child)
{
    memset(child, 0, sizeof *child);
    snprintf(child->path, sizeof child->path, "%s[%d]", array_path, i);
    child->in = elem;
    child->out = out_elem;
}

bool sgd_jobj_has(const sgd_jobj_t *o, const char *key) { return get(o, key) != NULL; }

int sgd_jobj_check_keys(const sgd_jobj_t *o, const char *const *allowed, sgd_err_t *err)
{
    if (!o->in) return 0;
    for (const cJSON *it = o->in->child; it; it = it->next) {
        char path[SGD_JPATH_MAX];
        sgd_jpath_join(path, sizeof path, o->path, it->string ? it->string : "?");
        bool known = false;
        for (const char *const *a = allowed; *a; a++)
            if (it->string && strcmp(*a, it->string) == 0) known = true;
        if (!known) {
            char list[512] = "";
            size_t len = 0;
            for (const char *const *a = allowed; *a && len < sizeof list - 64; a++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        a == allowed ? "" : ", ", *a);
            return sgd_errf(err, "%s: unknown key (allowed here: %s)", path, list);
        }
        for (const cJSON *prev = o->in->child; prev != it; prev = prev->next)
            if (prev->string && strcmp(prev->string, it->string) == 0)
                return sgd_errf(err, "%s: key appears more than once", path);
    }
    return 0;
}

static int read_int(const sgd_jobj_t *o, const char *key, const cJSON *v, int64_t min,
                    int64_t max, int64_t *out, sgd_err_t *err)
{
    /* Name the bound that was crossed: "expected integer >= 1, got 0". */
    char expected[128];
    bool above = cJSON_IsNumber(v) && v->valuedouble > (double)max;
    if (above)
        snprintf(expected, sizeof expected, "integer <= %lld", (long long)max);
    else
        snprintf(expected, sizeof expected, "integer >= %lld", (long long)min);
    if (!cJSON_IsNumber(v)) return type_error(o, key, expected, v, err);
    double d = v->valuedouble;
    /* Below 2^53 every integer is a double and the text read is the integer used.  2^53 is
     * refused too: it is also what 2^53 + 1 rounds to, so it cannot be told from a larger
     * value that would silently change.  An integral value written as 4.0 is the integer 4. */
    if (!isfinite(d) || d != floor(d) || fabs(d) >= 9007199254740992.0 || d < (double)min ||
        d > (double)max)
        return type_error(o, key, expected, v, err);
    *out = (int64_t)d;
    return 0;
}

int sgd_jobj_int(const sgd_jobj_t *o, const char *key, int64_t def, int64_t min, int64_t max,
                 int64_t *out, sgd_err_t *err)
{
    const cJSON *v = get(o, key);
    if (!v) *out = def;
    else if (read_int(o, key, v, min, max, out, err)) return -1;
    put(o, key, cJSON_CreateNumber((double)*out));
    return 0;
}

int sgd_jobj_int_req(const sgd_jobj_t *o, const char *key, int64_t min, int64_t max,
                     int64_t *out, sgd_err_t *err)
{
    const cJSON *v = get(o, key);
    if (!v) return missing_error(o, key, "an integer", err);
    if (read_int(o, key, v, min, max, out, err)) return -1;
    put(o, key, cJSON_CreateNumber((double)*out));
    return 0;
}

static int read_num(const sgd_jobj_t *o, const char *key, const cJSON *v, double min,
                    bool gt_min, double max, double *out, sgd_err_t *err)
{
    char expected[128];
    bool above = cJSON_IsNumber(v) && v->valuedouble > max;
    if (above)
        snprintf(expected, sizeof expected, "number <= %g", max);
    else
        snprintf(expected, sizeof expected, "number %s %g", gt_min ? ">" : ">=", min);
    if (!cJSON_IsNumber(v)) return type_error(o, key, expected, v, err);
    double d = v->valuedouble;
    if (!isfinite(d) || (gt_min ? !(d > min) : !(d >= min)) || d > max)
        return type_error(o, key, expected, v, err);
    *out = d;
    return 0;
}

int sgd_jobj_num(const sgd_jobj_t *o, const char *key, double def, double min, bool gt_min,
                 double max, double *out, sgd_err_t *err)
{
    const cJSON *v = get(o, key);
    if (!v) *out = def;
    else if (read_num(o, key, v, min, gt_min, max, out, err)) return -1;
    put(o, key, cJSON_CreateNumber(*out));
    return 0;
}

int sgd_jobj_num_req(const sgd_jobj_t *o, const char *key, double min, bool gt_min, double max,
                     double *out, sgd_err_t *err)
{
    const cJSON *v = get(o, key);
    if (!v) return missing_error(o, key, "a number", err);
    if (read_num(o, key, v, min, gt_min, max, out, err)) return -1;
    put(o, key, cJSON_CreateNumber(*out));
    return 0;
}

int sgd_jobj_bool(const sgd_jobj_t *o, const char *key, bool def, bool *out, sgd_err_t *err)
{
    const cJSON *v = get(o, key);
    if (!v) *out = def;
    else if (!cJSON_IsBool(v)) return type_error(o, key, "true or false", v, err);
    else *out = cJSON_IsTrue(v);
    put(o, key, cJSON_CreateBool(*out));
    return 0;
}

int sgd_jobj_str(const sgd_jobj_t *o, const char *key, const char *def, const char **out,
                 sgd_err_t *err)
{
    const cJSON *v = get(o, key);
    if (!v) {
        if (!def) return missing_error(o, key, "a string", err);
        *out = def;
    } else if (!cJSON_IsString(v)) {
        return type_error(o, key, "a string", v, err);
    } else {
        *out = v->valuestring;
    }
    put(o, key, cJSON_CreateString(*out));
    return 0;
}

int sgd_jobj_enum(const sgd_jobj_t *o, const char *key, const char *const *names, int def,
                  int *out, sgd_err_t *err)
{
    char expected[512] = "one of ";
    size_t len = strlen(expected);
    for (const char *const *n = names; *n && len < sizeof expected - 64; n++)
        len += (size_t)snprintf(expected + len, sizeof expected - len, "%s\"%s\"",
                                n == names ? "" : ", ", *n);
    const cJSON *v = get(o, key);
    if (!v) {
        if (def < 0) return missing_error(o, key, expected, err);
        *out = def;
    } else {
        if (!cJSON_IsString(v)) return type_error(o, key, expected, v, err);
        int found = -1;
        for (int i = 0; names[i]; i++)
            if (strcmp(names[i], v->valuestring) == 0) found = i;
        if (found < 0) return type_error(o, key, expected, v, err);
        *out = found;
    }
    put(o, key, cJSON_CreateString(names[*out]));
    return 0;
}

/* ---- string checks (sgd_json_check_strings) ------------------------------------------- */

/* Continuation bytes 10xxxxxx. */
static bool cont(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t sgd_utf8_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] == 0) return 0;
    if (u[0] < 0x80) return 1;
    /* The second byte's range is narrowed where the lead byte alone would allow overlong
     * forms (E0, F0), surrogates (ED) or code points past U+10FFFF (F4): RFC 3629's table. */
    if (u[0] >= 0xC2 && u[0] <= 0xDF) return cont(u[1]) ? 2 : 0;
    if (u[0] >= 0xE0 && u[0] <= 0xEF) {
        unsigned char lo = u[0] == 0xE0 ? 0xA0 : 0x80, hi = u[0] == 0xED ? 0x9F : 0xBF;
        return u[1] >= lo && u[1] <= hi && cont(u[2]) ? 3 : 0;
    }
    if (u[0] >= 0xF0 && u[0] <= 0xF4) {
        unsigned char lo = u[0] == 0xF0 ? 0x90 : 0x80, hi = u[0] == 0xF4 ? 0x8F : 0xBF;
        return u[1] >= lo && u[1] <= hi && cont(u[2]) && cont(u[3]) ? 4 : 0;
    }
    return 0;
}

/* What an error names: the string's path, or for a key the object holding it. */
static void string_what(char *buf, size_t size, const char *path, bool key)
{
    if (key) snprintf(buf, size, path[0] ? "%s: a key" : "a key of the top level", path);
    else snprintf(buf, size, "%s", path[0] ? path : "top level");
}

/* The four characters after "\u".  cJSON reads a malformed escape such as \u00g0 as code
 * point 0, so it and \u0000 would both put a NUL inside the string and cut it short. */
static int check_unicode_escape(const unsigned char *hex, size_t chars, const char *path,
                                bool key, sgd_err_t *err)
{
    int ndigits = 0;
    while (ndigits < 4 && isxdigit(hex[ndigits])) ndigits++;
    if (ndigits == 4 && strncmp((const char *)hex, "0000", 4) != 0) return 0;
    char what[SGD_JPATH_MAX + 32];
    string_what(what, sizeof what, path, key);
    if (ndigits < 4)
        return sgd_errf(err, "%s: a \\u escape at character %zu is not followed by four hex "
                        "digits", what, chars);
    return sgd_errf(err, "%s: contains \\u0000 at character %zu: a NUL cannot be part of a "
                    "string here", what, chars);
}

/* Checks one string from just after its opening quote; `escapes`: JSON text (stops at the
 * closing quote, reads escapes) or plain text (stops at the end).  *end gets the position
 * where it stopped.  Errors name `path` (the object's, for a key). */
static int check_string(const char *s, bool escapes, const char **end, const char *path,
                        bool key, sgd_err_t *err)
{
    const unsigned char *p = (const unsigned char *)s;
    char what[SGD_JPATH_MAX + 32];
    for (size_t chars = 1;; chars++) {
        if (*p == '\0' || (escapes && *p == '"')) break;
        if (*p < 0x20) {
            string_what(what, sizeof what, path, key);
            return sgd_errf(err, "%s: contains a raw control character 0x%02x at character "
                            "%zu; write it as an escape (\\n, \\t, \\u001b ...) if it is "
                            "meant", what, *p, chars);
        }
        if (escapes && *p == '\\') {
            /* One character each.  cJSON finds the closing quote by skipping a backslash
             * with the character after it; a \u escape's four hex digits, checked first,
             * hold neither quote nor backslash, so this walk ends where the parser does. */
            if (p[1] == 'u') {
                if (check_unicode_escape(p + 2, chars, path, key, err)) return -1;
                p += 6;
            } else {
                p += p[1] ? 2 : 1;
            }
            continue;
        }
        size_t n = sgd_utf8_len((const char *)p);
        if (n == 0) {
            string_what(what, sizeof what, path, key);
            return sgd_errf(err, "%s: not valid UTF-8 (byte 0x%02x at character %zu)", what,
                            *p, chars);
        }
        p += n;
    }
    *end = (const char *)p;
    return 0;
}

/* A walk over JSON text that cJSON accepted, keeping the path of where it is. */
typedef struct jwalk {
    const char *p;
    char path[SGD_JPATH_MAX];
    sgd_err_t *err;
} jwalk_t;

/* Skips what cJSON skips between tokens: every byte from 1 to 32. */
static void walk_space(jwalk_t *w)
{
    while (*w->p && (unsigned char)*w->p <= 32) w->p++;
}

static int walk_value(jwalk_t *w);

/* An object: each key is checked (errors name the object), then its value (named after the
 * key as written).  Frames hold no buffers, so deep nesting costs little stack. */
static int walk_object(jwalk_t *w)
{
    size_t len = strlen(w->path);
    for (w->p++, walk_space(w); *w->p == '"';) {
        const char *key = w->p + 1, *end;
        w->path[len] = '\0';
        if (check_string(key, true, &end, w->path, true, w->err)) return -1;
        snprintf(w->path + len, sizeof w->path - len, "%s%.*s", len ? "." : "",
                 (int)(end - key), key);
        w->p = *end ? end + 1 : end;
        walk_space(w);
        if (*w->p) w->p++; /* ':' */
        if (walk_value(w)) return -1;
        w->path[len] = '\0';
        walk_space(w);
        if (*w->p == ',') w->p++, walk_space(w);
    }
    if (*w->p) w->p++; /* '}' */
    return 0;
}

static int walk_array(jwalk_t *w)
{
    size_t len = strlen(w->path);
    w->p++;
    walk_space(w);
    for (int i = 0; *w->p && *w->p != ']'; i++) {
        snprintf(w->path + len, sizeof w->path - len, "[%d]", i);
        if (walk_value(w)) return -1;
        w->path[len] = '\0';
        walk_space(w);
        if (*w->p == ',') w->p++, walk_space(w);
    }
    if (*w->p) w->p++; /* ']' */
    return 0;
}

static int walk_value(jwalk_t *w)
{
    walk_space(w);
    if (*w->p == '{') return walk_object(w);
    if (*w->p == '[') return walk_array(w);
    if (*w->p == '"') {
        const char *end;
        if (check_string(w->p + 1, true, &end, w->path, false, w->err)) return -1;
        w->p = *end ? end + 1 : end;
        return 0;
    }
    /* A number, true, false or null: up to the next separator or space.  At least one byte
     * is consumed, so the loops above end even if this walk ever disagreed with the parser
     * about where a token ends (a stray '}' inside an array would otherwise stop it forever). */
    const char *start = w->p;
    while ((unsigned char)*w->p > 32 && *w->p != ',' && *w->p != ']' && *w->p != '}') w->p++;
    if (w->p == start && *w->p) w->p++;
    return 0;
}

int sgd_json_check_strings(const char *text, const char *path, sgd_err_t *err)
{
    jwalk_t w = {.p = text, .err = err};
    snprintf(w.path, sizeof w.path, "%s", path);
    return walk_value(&w);
}

int sgd_json_check_plain(const char *s, const char *path, sgd_err_t *err)
{
    const char *end;
    return check_string(s, false, &end, path, false, err);
}

/* ---- exact printing and the canonical form -------------------------------------------- */

char *sgd_json_format_number(double d, char buf[SGD_JSON_NUMBER_MAX])
{
    if (!isfinite(d)) {
        snprintf(buf, SGD_JSON_NUMBER_MAX, "null");
    } else if (d == 0 && signbit(d)) {
        snprintf(buf, SGD_JSON_NUMBER_MAX, "-0");
    } else if (d == floor(d) && fabs(d) < 9007199254740992.0) {
        snprintf(buf, SGD_JSON_NUMBER_MAX, "%lld", (long long)d);
    } else {
        /* 17 significant digits always read back; take the first shorter form that does.
         * This is the canonical form's rule, fixed because configuration hashes are taken of
         * it; sgd_fmt_double (common/number.h), for exchanging numbers, finds the shortest
         * text, which differs from this only for subnormals. */
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, SGD_JSON_NUMBER_MAX, "%.*g", digits, d);
            if (strtod(buf, NULL) == d) break;
        }
    }
    return buf;
}

/* A growing text buffer. */
typedef struct jbuf {
    char *p;
    size_t len, cap;
} jbuf_t;

static void jb_put(jbuf_t *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        while (b->len + n + 1 > b->cap) b->cap = b->cap ? 2 * b->cap : 256;
        b->p = sgd_xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void jb_puts(jbuf_t *b, const char *s) { jb_put(b, s, strlen(s)); }

/* A string as cJSON escapes it: quote, backslash and control characters; UTF-8 as is. */
static void jb_string(jbuf_t *b, const char *s)
{
    jb_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        const char *short_esc = *p == '"' ? "\\\"" : *p == '\\' ? "\\\\" : *p == '\b' ? "\\b"
                                : *p == '\f' ? "\\f" : *p == '\n' ? "\\n" : *p == '\r' ? "\\r"
                                : *p == '\t' ? "\\t" : NULL;
        if (short_esc) {
            jb_puts(b, short_esc);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            jb_puts(b, esc);
        } else {
            jb_put(b, (const char *)p, 1);
        }
    }
    jb_put(b, "\"", 1);
}

static void jb_value(jbuf_t *b, const cJSON *v, bool sorted);

/* Byte order of keys; members with equal keys (never in a checked tree) keep their order,
 * so the output is a function of the tree alone. */
static int member_cmp(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    int c = strcmp(x->string ? x->string : "", y->string ? y->string : "");
    if (c) return c;
    for (const cJSON *it = x->next; it; it = it->next)
        if (it == y) return -1;
    return 1;
}

static void jb_object(jbuf_t *b, const cJSON *v, bool sorted)
{
    size_t n = 0;
    for (const cJSON *it = v->child; it; it = it->next) n++;
    const cJSON **m = sgd_xmalloc((n ? n : 1) * sizeof *m);
    n = 0;
    for (const cJSON *it = v->child; it; it = it->next) m[n++] = it;
    if (sorted) qsort(m, n, sizeof *m, member_cmp);
    jb_put(b, "{", 1);
    for (size_t i = 0; i < n; i++) {
        if (i) jb_put(b, ",", 1);
        jb_string(b, m[i]->string ? m[i]->string : "");
        jb_put(b, ":", 1);
        jb_value(b, m[i], sorted);
    }
    jb_put(b, "}", 1);
    free(m);
}

static void jb_value(jbuf_t *b, const cJSON *v, bool sorted)
{
    char num[SGD_JSON_NUMBER_MAX];
    if (cJSON_IsObject(v)) {
        jb_object(b, v, sorted);
    } else if (cJSON_IsArray(v)) {
        jb_put(b, "[", 1);
        for (const cJSON *it = v->child; it; it = it->next) {
            if (it != v->child) jb_put(b, ",", 1);
            jb_value(b, it, sorted);
        }
        jb_put(b, "]", 1);
    } else if (cJSON_IsString(v)) {
        jb_string(b, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        jb_puts(b, sgd_json_format_number(v->valuedouble, num));
    } else if (cJSON_IsTrue(v)) {
        jb_puts(b, "true");
    } else if (cJSON_IsFalse(v)) {
        jb_puts(b, "false");
    } else {
        /* null, and cJSON's raw/invalid kinds, which no parsed or resolved tree holds */
        SGD_ASSERT(cJSON_IsNull(v));
        jb_puts(b, "null");
    }
}

char *sgd_json_print(const cJSON *v, bool sorted)
{
    jbuf_t b = {0};
    jb_value(&b, v, sorted);
    return b.p;
}

const char *const sgd_config_unhashed[] = {"numerics.threads", NULL};

/* Removes "a.b" (one level of nesting, as every unhashed path has) from a copy. */
static void remove_path(cJSON *root, const char *path)
{
    const char *dot = strchr(path, '.');
    SGD_ASSERT(dot && !strchr(dot + 1, '.'));
    char parent[SGD_JPATH_MAX];
    snprintf(parent, sizeof parent, "%.*s", (int)(dot - path), path);
    cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, parent);
    if (cJSON_IsObject(obj)) cJSON_DeleteItemFromObjectCaseSensitive(obj, dot + 1);
}

void sgd_config_hash_tree(const cJSON *config, char hex[SGD_SHA256_HEX_LEN + 1])
{
    cJSON *copy = cJSON_Duplicate(config, true);
    SGD_ASSERT(copy);
    for (const char *const *p = sgd_config_unhashed; *p; p++) remove_path(copy, *p);
    char *canon = sgd_json_print(copy, true);
    sgd_sha256_hex(canon, strlen(canon), hex);
    free(canon);
    cJSON_Delete(copy);
}

int sgd_config_hash_text(const char *json, char hex[SGD_SHA256_HEX_LEN + 1])
{
    cJSON *v = json ? cJSON_ParseWithOpts(json, NULL, true) : NULL;
    int rc = cJSON_IsObject(v) ? 0 : -1;
    if (rc == 0) sgd_config_hash_tree(v, hex);
    cJSON_Delete(v);
    return rc;
}
