/* Scenario loader: JSON text -> validated scn_t + resolved canonical JSON + hash.  This file
 * holds the --set overrides, the top level, the sweep block, loading and numerics
 * resolution; each section is read by scenario_sections.c or scenario_model.c.
 *
 * The order in which fields are read (parse_root calls the sections in order, each reads its
 * keys in order) is the order of keys in the stored resolved JSON, for people reading it.
 * The configuration hash is taken of the canonical form (keys sorted, numbers exact:
 * sgd_config_hash_tree), so reading fields in another order changes no run key. */
#include "config/scenario.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "common/json.h"
#include "common/sha256.h"
#include "config/scenario_sections.h"
#include "config/set_value.h"
#include "models/backend.h"

/* A scenario is a few kilobytes; anything past this is a mistake (or an attack on the
 * loader), refused before reading it into memory. */
#define SCN_MAX_FILE_BYTES (16L * 1024 * 1024)


/* ---- --set overrides --------------------------------------------------------------- */

/* The string checks of a file (sgd_json_check_strings) for a --set value: its JSON text, or
 * (json NULL) the plain text taken as a string.  Errors name the key, not the value's bytes. */
static int check_set_strings(const char *json, const char *plain, const char *key,
                             sgd_err_t *err)
{
    if (json ? sgd_json_check_strings(json, key, err) : sgd_json_check_plain(plain, key, err)) {
        char prefix[SGD_JPATH_MAX + 16];
        snprintf(prefix, sizeof prefix, "--set %s=...", key);
        return sgd_err_prefix(err, prefix);
    }
    return 0;
}

/* The value of a --set: the whole text as JSON (trailing text is an error, so "8abc" is not
 * 8), or, when it is not JSON, the text itself as a string, but only if it starts like a
 * word or a path (a letter, '_', '/', "./", ...): a value that starts with a digit, a sign,
 * a quote, a bracket or a brace was meant as JSON, and taking "4 garbage" or "[16],[8]" as
 * a string would hide the typo.  An empty value is the empty string.  NULL after an error
 * naming the argument. */
static cJSON *parse_set_value(const char *assignment, const char *key, const char *text,
                              sgd_err_t *err)
{
    cJSON *v = cJSON_ParseWithOpts(text, NULL, true);
    if (check_set_strings(v ? text : NULL, text, key, err)) {
        cJSON_Delete(v);
        return NULL;
    }
    if (v) return v;
    unsigned char c = (unsigned char)text[0];
    bool numeric_dot = c == '.' && text[1] >= '0' && text[1] <= '9';
    if ((c >= '0' && c <= '9') || (c && strchr("-+\"[]{}", c)) || numeric_dot ||
        (c && c <= ' ')) {
        scn_set_value_error(assignment, key, text, err);
        return NULL;
    }
    return cJSON_CreateString(text);
}

/* Splits "a.b.c=value" and writes value into the tree, creating intermediate objects;
 * key_out gets "a.b.c" and created_out the path of the first object it had to create ("a"
 * when the file has no "a"), "" if none (both SGD_JPATH_MAX).  Returns -1 with a message
 * naming the argument for malformed assignments: no '=', an empty key segment ("a..b",
 * ".a", "a."), a value that is not a whole JSON value. */
static int apply_override(cJSON *root, const char *assignment, char *key_out,
                          char *created_out, sgd_err_t *err)
{
    const size_t key_size = SGD_JPATH_MAX;
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return sgd_errf(err, "--set %s: expected key.path=value", assignment);
    size_t klen = (size_t)(eq - assignment);
    if (klen >= key_size) return sgd_errf(err, "--set %s: key path too long", assignment);
    memcpy(key_out, assignment, klen);
    key_out[klen] = '\0';
    if (key_out[0] == '.' || key_out[klen - 1] == '.' || strstr(key_out, ".."))
        return sgd_errf(err, "--set %s: empty key segment", assignment);

    char key[SGD_JPATH_MAX];
    memcpy(key, key_out, klen + 1);
    cJSON *obj = root;
    for (char *part = key;;) {
        char *dot = strchr(part, '.');
        if (!dot) {
            cJSON *v = parse_set_value(assignment, key_out, eq + 1, err);
            if (!v) return -1;
            if (cJSON_GetObjectItemCaseSensitive(obj, part))
                cJSON_ReplaceItemInObjectCaseSensitive(obj, part, v);
            else
                cJSON_AddItemToObject(obj, part, v);
            return 0;
        }
        *dot = '\0';
        cJSON *child = cJSON_GetObjectItemCaseSensitive(obj, part);
        if (!child) {
            child = cJSON_CreateObject();
            cJSON_AddItemToObject(obj, part, child);
            if (!created_out[0]) { /* the path so far: key_out up to this part */
                size_t plen = (size_t)(part - key) + strlen(part);
                memcpy(created_out, key_out, plen);
                created_out[plen] = '\0';
            }
        } else if (!cJSON_IsObject(child)) {
            return sgd_errf(err, "--set %s: %s is not an object in the scenario", assignment,
                            part);
        }
        obj = child;
        part = dot + 1;
    }
}

/* ---- field-by-field validation ------------------------------------------------------ */

static const char *const top_keys[] = {"schema_version", "name", "description", "seed",
                                       "algorithm", "backend", "cluster", "data", "model",
                                       "batch", "optimizer", "compute", "io", "network",
                                       "stop", "eval", "topology", "sweep", "numerics",
                                       "clients", NULL};

/* algorithm.name now; the algorithm's own keys once everything else is known. */
static int parse_algorithm_name(const sgd_jobj_t *root, const scn_algorithm_t *const *algs,
                                const scn_algorithm_t **alg, sgd_err_t *err)
{
    sgd_jobj_t a;
    const char *names[64];
    int n = 0, idx;
    for (; algs[n] && n < 63; n++) names[n] = algs[n]->name;
    names[n] = NULL;
    if (sgd_jobj_child(root, "algorithm", &a, err) ||
        sgd_jobj_enum(&a, "name", names, 0, &idx, err))
        return -1;
    *alg = algs[idx];
    return 0;
}

static int parse_algorithm_options(const sgd_jobj_t *root, const scn_algorithm_t *alg,
                                   scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t a;
    static const char *const keys[] = {"name", NULL};
    if (sgd_jobj_child(root, "algorithm", &a, err)) return -1;
    if (!alg->parse_options) return sgd_jobj_check_keys(&a, keys, err);
    return alg->parse_options(&a, s, err);
}

/* data.partition and clients are read by the algorithms that take them (takes_clients): the
 * others refuse them, naming those that do. */
static int check_clients(const scn_algorithm_t *const *algs, const scn_algorithm_t *alg,
                         const scn_t *s, sgd_err_t *err)
{
    if (alg->takes_clients || (!s->clients.given && !s->partition.given)) return 0;
    char names[512] = "";
    for (; *algs; algs++) {
        if (!(*algs)->takes_clients) continue;
        if (names[0]) strncat(names, ", ", sizeof names - strlen(names) - 1);
        strncat(names, (*algs)->name, sizeof names - strlen(names) - 1);
    }
    return sgd_errf(err, "%s: only valid with name %s, not \"%s\"",
                    s->clients.given ? "clients" : "data.partition", names, alg->name);
}

static int parse_root(const cJSON *in, cJSON *out, const char *default_name,
                      const char *base_dir, const scn_algorithm_t *const *algs, scn_t *s,
                      sgd_err_t *err)
{
    sgd_jobj_t root;
    int64_t version, seed;
    const char *name, *description;
    int backend;
    if (sgd_jobj_root(in, out, &root, err) || sgd_jobj_check_keys(&root, top_keys, err) ||
        sgd_jobj_int_req(&root, "schema_version", 1, INT32_MAX, &version, err))
        return -1;
    if (version != SCN_SCHEMA_VERSION)
        return sgd_errf(err, "schema_version: this sgdsim reads version %d, got %lld",
                        SCN_SCHEMA_VERSION, (long long)version);
    if (sgd_jobj_str(&root, "name", default_name, &name, err) ||
        sgd_jobj_str(&root, "description", "", &description, err))
        return -1;
    s->name = sgd_xstrdup(name);
    if (sgd_jobj_int(&root, "seed", 1, 0, SCN_SEED_MAX, &seed, err)) return -1;
    s->seed = (uint64_t)seed;
    const scn_algorithm_t *alg;
    if (parse_algorithm_name(&root, algs, &alg, err)) return -1;
    s->algorithm = sgd_xstrdup(alg->name);
    /* Any known backend is a valid scenario; whether this machine can run "cuda" is only
     * known when the run creates it (exit 2 there, naming the reason). */
    if (sgd_jobj_enum(&root, "backend", sgd_backend_names, 0, &backend, err)) return -1;
    s->backend = sgd_xstrdup(sgd_backend_names[backend]);
    if (scn_parse_cluster(&root, s, err) || scn_parse_data(&root, base_dir, s, err) ||
        scn_parse_model(&root, s, err) || scn_parse_batch(&root, s, err) ||
        scn_parse_optimizer(&root, s, err) || scn_parse_timing(&root, s, err) ||
        scn_parse_run_control(&root, s, err) || scn_parse_topology(&root, s, err) ||
        scn_parse_clients(&root, base_dir, s, err) || check_clients(algs, alg, s, err) ||
        parse_algorithm_options(&root, alg, s, err) || scn_parse_numerics(&root, s, err))
        return -1;
    return 0;
}

/* The "sweep" block: {"key.path": [value, ...], ...}.  Only its shape is checked here; each
 * value is validated when a sweep applies it as an override (the key may name any field,
 * including an algorithm's own options, which only that algorithm's parser knows). */
#define SCN_SWEEP_MAX_VALUES 100000

/* The group (index into s->sweep_zip, or -1) that already holds axis `key`. */
static int zip_group_of(const scn_t *s, const char *key)
{
    for (int g = 0; g < s->nsweep_zip; g++)
        for (int k = 0; k < s->sweep_zip[g].nkeys; k++)
            if (strcmp(s->sweep_zip[g].keys[k], key) == 0) return g;
    return -1;
}

static bool is_sweep_axis(const scn_t *s, const char *key)
{
    for (int i = 0; i < s->nsweep; i++)
        if (strcmp(s->sweep[i].key, key) == 0) return true;
    return false;
}

/* One zip group: two or more distinct axes of the block, none already in another group.
 * Equal lengths are checked by the sweep planner, after the command line's lists. */
static int parse_zip_group(const cJSON *grp, int g, scn_t *s, sgd_err_t *err)
{
    char desc[96];
    int nk = cJSON_GetArraySize(grp);
    if (!cJSON_IsArray(grp) || nk < 2) {
        sgd_json_describe(grp, desc, sizeof desc);
        return sgd_errf(err, "sweep.zip[%d]: expected an array of two or more axis keys of the "
                             "block, got %s", g, desc);
    }
    scn_sweep_zip_t *z = &s->sweep_zip[s->nsweep_zip];
    z->keys = sgd_xcalloc((size_t)nk, sizeof *z->keys);
    s->nsweep_zip++; /* from here freed by scn_free, whatever follows */
    for (const cJSON *k = grp->child; k; k = k->next) {
        int i = z->nkeys, other;
        if (!cJSON_IsString(k)) {
            sgd_json_describe(k, desc, sizeof desc);
            return sgd_errf(err, "sweep.zip[%d][%d]: expected an axis key, got %s", g, i, desc);
        }
        if (!is_sweep_axis(s, k->valuestring))
            return sgd_errf(err, "sweep.zip[%d][%d]: \"%s\" is not an axis of this sweep block",
                            g, i, k->valuestring);
        if ((other = zip_group_of(s, k->valuestring)) >= 0)
            return sgd_errf(err, "sweep.zip[%d][%d]: \"%s\" is already in sweep.zip[%d]; an "
                                 "axis can be in one zip group only", g, i, k->valuestring,
                            other);
        z->keys[z->nkeys++] = sgd_xstrdup(k->valuestring);
    }
    return 0;
}

/* "zip": [["batch.per_worker", "cluster.workers"], ...]: groups of axes that advance together. */
static int parse_sweep_zip(const cJSON *zip, scn_t *s, sgd_err_t *err)
{
    if (!zip) return 0;
    char desc[96];
    int ng = cJSON_GetArraySize(zip);
    if (!cJSON_IsArray(zip) || ng < 1) {
        sgd_json_describe(zip, desc, sizeof desc);
        return sgd_errf(err, "sweep.zip: expected a non-empty array of groups of axis keys, "
                             "e.g. [[\"batch.per_worker\", \"cluster.workers\"]], got %s", desc);
    }
    s->sweep_zip = sgd_xcalloc((size_t)ng, sizeof *s->sweep_zip);
    int g = 0;
    for (const cJSON *grp = zip->child; grp; grp = grp->next, g++)
        if (parse_zip_group(grp, g, s, err)) return -1;
    return 0;
}

static int parse_sweep(const cJSON *in, scn_t *s, sgd_err_t *err)
{
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(in, "sweep");
    if (!sw) return 0;
    char desc[96];
    if (!cJSON_IsObject(sw)) {
        sgd_json_describe(sw, desc, sizeof desc);
        return sgd_errf(err, "sweep: expected an object {\"key.path\": [values...]}, got %s",
                        desc);
    }
    int n = cJSON_GetArraySize(sw);
    if (n == 0) return 0;
    s->sweep = sgd_xcalloc((size_t)n, sizeof *s->sweep);
    for (const cJSON *ax = sw->child; ax; ax = ax->next) {
        const char *key = ax->string;
        if (key && strcmp(key, "zip") == 0) continue; /* not an axis: parse_sweep_zip */
        if (!key || !key[0] || key[0] == '.' || key[strlen(key) - 1] == '.' || strstr(key, "..") ||
            strlen(key) >= SGD_JPATH_MAX)
            return sgd_errf(err, "sweep.%s: expected a key path such as \"cluster.workers\"",
                            key ? key : "");
        if (strcmp(key, "sweep") == 0 || strncmp(key, "sweep.", 6) == 0)
            return sgd_errf(err, "sweep.%s: a sweep cannot sweep itself", key);
        for (int i = 0; i < s->nsweep; i++)
            if (strcmp(s->sweep[i].key, key) == 0)
                return sgd_errf(err, "sweep.%s: key appears more than once", key);
        int nv = cJSON_GetArraySize(ax);
        if (!cJSON_IsArray(ax) || nv < 1 || nv > SCN_SWEEP_MAX_VALUES) {
            sgd_json_describe(ax, desc, sizeof desc);
            return sgd_errf(err, "sweep.%s: expected an array of 1..%d values, got %s", key,
                            SCN_SWEEP_MAX_VALUES, desc);
        }
        scn_sweep_axis_t *a = &s->sweep[s->nsweep++];
        a->key = sgd_xstrdup(key);
        a->values = sgd_xcalloc((size_t)nv, sizeof *a->values);
        for (const cJSON *v = ax->child; v; v = v->next) {
            /* Exact text: 0.3 and 0.30000000000000004 are two points. */
            a->values[a->nvalues] = sgd_json_print(v, false);
            a->nvalues++;
        }
    }
    return parse_sweep_zip(cJSON_GetObjectItemCaseSensitive(sw, "zip"), s, err);
}

/* Whether an error message is about `path` or lies inside it ("path: ", "path.x: ",
 * "path[2]: "). */
static bool error_is_about(const char *msg, const char *path)
{
    size_t k = strlen(path);
    return k && strncmp(msg, path, k) == 0 && (msg[k] == ':' || msg[k] == '.' || msg[k] == '[');
}

/* Where an error is about a key the user set on the command line (keys[i]), or lies in an
 * object that only the override created (keys[nsets + i]: "a: unknown key" for --set a.b=1
 * when the file has no "a"), blame the argument. */
static void blame(sgd_err_t *err, const char *display_name, char keys[][SGD_JPATH_MAX],
                  const scn_override_t *sets, int nsets)
{
    for (int i = 0; i < nsets; i++) {
        if (error_is_about(err->msg, keys[i]) || error_is_about(err->msg, keys[nsets + i])) {
            char prefix[SGD_JPATH_MAX + 16];
            snprintf(prefix, sizeof prefix, "--set %s", sets[i].assignment);
            sgd_err_prefix(err, prefix);
            return;
        }
    }
    sgd_err_prefix(err, display_name);
}

/* Records who asked for numerics.blas_core: the last override that set it (or the whole
 * numerics object), else the file. */
static void note_blas_core_origin(scn_t *s, const char *display_name,
                                  char keys[][SGD_JPATH_MAX], const scn_override_t *sets,
                                  int nsets)
{
    char *from = s->numerics.blas_core_from;
    size_t size = sizeof s->numerics.blas_core_from;
    for (int i = nsets - 1; i >= 0; i--) {
        if (strcmp(keys[i], "numerics.blas_core") != 0 && strcmp(keys[i], "numerics") != 0)
            continue;
        snprintf(from, size, "--set %.*s: numerics.blas_core", SGD_JPATH_MAX, sets[i].assignment);
        return;
    }
    snprintf(from, size, "%s: numerics.blas_core", display_name);
}

/* The resolved configuration as stored (every field, in reading order, numbers exact) and
 * its hash, which identifies what a run computes: the canonical form without the fields that
 * change no result (sgd_config_hash_tree, docs/results.md). */
static void finish_resolved(const cJSON *resolved, scn_t *out)
{
    out->resolved_json = sgd_json_print(resolved, false);
    sgd_config_hash_tree(resolved, out->config_hash);
}

/* Scenario files nest four or five levels deep.  Deeper input is refused before parsing,
 * with its position, so a pathological file cannot drive the parser's recursion. */
#define SCN_MAX_DEPTH 32

static int check_depth(const char *text, const char *display_name, sgd_err_t *err)
{
    int depth = 0, line = 1;
    bool in_string = false;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') line++;
        if (in_string) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') in_string = false;
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '{' || *p == '[') {
            if (++depth > SCN_MAX_DEPTH)
                return sgd_errf(err, "%s:%d: JSON nested deeper than %d levels", display_name,
                                line, SCN_MAX_DEPTH);
        } else if (*p == '}' || *p == ']') {
            depth--;
        }
    }
    return 0;
}

int scn_load_text(const char *text, const char *display_name, const char *base_dir,
                  const scn_override_t *sets, int nsets, const uint64_t *seed_override,
                  const scn_algorithm_t *const *algorithms, scn_t *out, sgd_err_t *err)
{
    SGD_ASSERT(algorithms && algorithms[0]);
    memset(out, 0, sizeof *out);
    size_t len = strlen(text);
    size_t ws = strspn(text, " \t\r\n");
    if (ws == len) return sgd_errf(err, "%s: empty file (expected a JSON object)", display_name);

    if (check_depth(text, display_name, err)) return -1;
    const char *end = NULL;
    cJSON *in = cJSON_ParseWithOpts(text, &end, true);
    if (!in) {
        size_t off = end ? (size_t)(end - text) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < off && i < len; i++) {
            if (text[i] == '\n') line++, col = 1;
            else col++;
        }
        return sgd_errf(err, "%s:%d:%d: malformed JSON near \"%.20s\"", display_name, line,
                        col, end && *end ? end : "end of file");
    }
    if (sgd_json_check_strings(text, "", err)) {
        cJSON_Delete(in);
        return sgd_err_prefix(err, display_name);
    }

    /* keys[i]: the key path of sets[i]; keys[nsets + i]: the object it created (blame). */
    char (*keys)[SGD_JPATH_MAX] = nsets ? sgd_xcalloc(2 * (size_t)nsets, SGD_JPATH_MAX) : NULL;
    cJSON *resolved = cJSON_CreateObject();
    char base_name[256];
    {
        const char *slash = strrchr(display_name, '/');
        snprintf(base_name, sizeof base_name, "%s", slash ? slash + 1 : display_name);
        char *dot = strstr(base_name, ".json");
        if (dot && dot[5] == '\0') *dot = '\0';
    }
    int rc = 0;
    if (cJSON_IsObject(in)) {
        for (int i = 0; i < nsets && rc == 0; i++)
            rc = apply_override(in, sets[i].assignment, keys[i], keys[nsets + i], err);
        /* Seeds are JSON numbers in the resolved configuration, exact below 2^53; the
         * file's limit (SCN_SEED_MAX), so --seed and "seed" accept the same values. */
        if (rc == 0 && seed_override && *seed_override > (uint64_t)SCN_SEED_MAX)
            rc = sgd_errf(err, "--seed %llu: must be <= 2^53 - 1 (%lld)",
                          (unsigned long long)*seed_override, (long long)SCN_SEED_MAX);
        else if (rc == 0 && seed_override) {
            cJSON_DeleteItemFromObjectCaseSensitive(in, "seed");
            cJSON_AddItemToObject(in, "seed", cJSON_CreateNumber((double)*seed_override));
        }
        if (rc == 0) {
            rc = parse_root(in, resolved, base_name, base_dir, algorithms, out, err);
            if (rc) blame(err, display_name, keys, sets, nsets);
            else note_blas_core_origin(out, display_name, keys, sets, nsets);
        }
        if (rc == 0 && (rc = parse_sweep(in, out, err)) != 0) sgd_err_prefix(err, display_name);
    } else {
        sgd_jobj_t dummy;
        rc = sgd_jobj_root(in, NULL, &dummy, err);
        sgd_err_prefix(err, display_name);
    }
    if (rc == 0) {
        out->path = sgd_xstrdup(display_name);
        finish_resolved(resolved, out);
    } else {
        scn_free(out);
    }
    free(keys);
    cJSON_Delete(resolved);
    cJSON_Delete(in);
    return rc;
}

int scn_load(const char *path, const scn_override_t *sets, int nsets,
             const uint64_t *seed_override, const scn_algorithm_t *const *algorithms,
             scn_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return sgd_errf(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return sgd_errf(err, "%s: not a regular file", path);
    }
    if (st.st_size > SCN_MAX_FILE_BYTES) {
        fclose(f);
        return sgd_errf(err, "%s: file is %lld bytes; scenario files are limited to %ld bytes",
                        path, (long long)st.st_size, SCN_MAX_FILE_BYTES);
    }
    char *text = sgd_xmalloc((size_t)st.st_size + 1);
    size_t n = fread(text, 1, (size_t)st.st_size, f);
    fclose(f);
    text[n] = '\0';
    if (memchr(text, '\0', n)) {
        free(text);
        return sgd_errf(err, "%s: contains a NUL byte; not a JSON text file", path);
    }
    char *dir_copy = sgd_xstrdup(path);
    int rc = scn_load_text(text, path, dirname(dir_copy), sets, nsets, seed_override,
                           algorithms, out, err);
    free(dir_copy);
    free(text);
    return rc;
}

void scn_free(scn_t *s)
{
    free(s->path);
    free(s->name);
    free(s->algorithm);
    free(s->backend);
    free(s->data.train_images);
    free(s->data.train_labels);
    free(s->data.test_images);
    free(s->data.test_labels);
    free(s->data.cache_dir);
    free(s->clients.trace);
    free(s->clients.device_trace);
    free(s->resolved_json);
    for (int i = 0; i < s->nsweep; i++) {
        for (int j = 0; j < s->sweep[i].nvalues; j++) free(s->sweep[i].values[j]);
        free(s->sweep[i].values);
        free(s->sweep[i].key);
    }
    free(s->sweep);
    for (int g = 0; g < s->nsweep_zip; g++) {
        for (int k = 0; k < s->sweep_zip[g].nkeys; k++) free(s->sweep_zip[g].keys[k]);
        free(s->sweep_zip[g].keys);
    }
    free(s->sweep_zip);
    if (s->alg_opts_free) s->alg_opts_free(s->alg_opts);
    memset(s, 0, sizeof *s);
}

int64_t scn_threads_resolve(int64_t requested, int64_t cpus, int64_t jobs)
{
    if (requested > 0) return requested;
    int64_t t = jobs > 0 ? cpus / jobs : cpus;
    return t < 1 ? 1 : t > SCN_THREADS_MAX ? SCN_THREADS_MAX : t;
}

/* The flags win over the file and the --set overrides. */
static int apply_numerics_flags(scn_t *s, const scn_numerics_flags_t *f, sgd_err_t *err)
{
    scn_numerics_t *n = &s->numerics;
    if (f->threads > SCN_THREADS_MAX)
        return sgd_errf(err, "--threads %lld: at most %d", (long long)f->threads,
                        SCN_THREADS_MAX);
    if (f->threads >= 0) n->threads = f->threads;
    if (!f->blas_core) return 0;
    const blas_kernel_t *k = blas_kernel_find(f->blas_core);
    if (!k && strcasecmp(f->blas_core, "auto") != 0)
        return sgd_errf(err, "%s: unknown OpenBLAS kernel", f->blas_core_label);
    snprintf(n->blas_core, sizeof n->blas_core, "%s", k ? k->name : "auto");
    snprintf(n->blas_core_from, sizeof n->blas_core_from, "%s", f->blas_core_label);
    return 0;
}

int scn_resolve_numerics(scn_t *s, const scn_numerics_flags_t *flags, const scn_machine_t *m,
                         sgd_err_t *err)
{
    char core[BLAS_KERNEL_NAME_MAX];
    if (flags && apply_numerics_flags(s, flags, err)) return -1;
    if (blas_kernel_resolve(s->numerics.blas_core, s->numerics.blas_core_from, &m->blas, core,
                            err))
        return -1;
    int64_t threads = scn_threads_resolve(s->numerics.threads, m->cpus, m->jobs);
    /* Re-printing the parsed text reproduces every other field exactly (sgd_json_print
     * writes each number with as many digits as it takes to read back the same double). */
    cJSON *r = cJSON_Parse(s->resolved_json);
    SGD_ASSERT(r);
    cJSON *num = cJSON_GetObjectItemCaseSensitive(r, "numerics");
    SGD_ASSERT(num);
    cJSON_ReplaceItemInObjectCaseSensitive(num, "blas_core", cJSON_CreateString(core));
    cJSON_ReplaceItemInObjectCaseSensitive(num, "threads", cJSON_CreateNumber((double)threads));
    free(s->resolved_json);
    finish_resolved(r, s);
    cJSON_Delete(r);
    snprintf(s->numerics.blas_core, sizeof s->numerics.blas_core, "%s", core);
    s->numerics.threads_resolved = threads;
    s->numerics.resolved = true;
    return 0;
}
