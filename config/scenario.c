/* Scenario loader: JSON text -> validated scn_t + resolved canonical JSON + hash.
 *
 * The order in which fields are read below is the order of keys in the resolved JSON, so it
 * is part of the config hash: append new fields, do not reorder existing ones. */
#include "config/scenario.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "common/json.h"
#include "common/sha256.h"
#include "models/backend.h"
#include "models/preset.h"
#include "sim/collective.h"
#include "sim/dist.h"

/* A scenario is a few kilobytes; anything past this is a mistake (or an attack on the
 * loader), refused before reading it into memory. */
#define SCN_MAX_FILE_BYTES (16L * 1024 * 1024)

static char *resolve_path(const char *base_dir, const char *p)
{
    if (p[0] == '/' || !base_dir || !base_dir[0] || strcmp(base_dir, ".") == 0)
        return sgd_xstrdup(p);
    size_t n = strlen(base_dir) + strlen(p) + 2;
    char *out = sgd_xmalloc(n);
    snprintf(out, n, "%s/%s", base_dir, p);
    return out;
}

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

/* Splits "a.b.c=value" and writes value into the tree, creating intermediate objects.
 * Returns -1 with a message naming the argument for malformed assignments. */
static int apply_override(cJSON *root, const char *assignment, char *key_out, size_t key_size,
                          sgd_err_t *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return sgd_errf(err, "--set %s: expected key.path=value", assignment);
    size_t klen = (size_t)(eq - assignment);
    if (klen >= key_size) return sgd_errf(err, "--set %s: key path too long", assignment);
    memcpy(key_out, assignment, klen);
    key_out[klen] = '\0';

    char key[SGD_JPATH_MAX];
    memcpy(key, key_out, klen + 1);
    cJSON *obj = root;
    char *save = NULL;
    char *part = strtok_r(key, ".", &save);
    while (part) {
        char *next = strtok_r(NULL, ".", &save);
        if (!part[0]) return sgd_errf(err, "--set %s: empty component in key path", assignment);
        if (!next) {
            const char *text = eq + 1;
            cJSON *v = cJSON_Parse(text);
            if (check_set_strings(v ? text : NULL, text, key_out, err)) {
                cJSON_Delete(v);
                return -1;
            }
            if (!v) v = cJSON_CreateString(text);
            if (cJSON_GetObjectItemCaseSensitive(obj, part))
                cJSON_ReplaceItemInObjectCaseSensitive(obj, part, v);
            else
                cJSON_AddItemToObject(obj, part, v);
            return 0;
        }
        cJSON *child = cJSON_GetObjectItemCaseSensitive(obj, part);
        if (!child) {
            child = cJSON_CreateObject();
            cJSON_AddItemToObject(obj, part, child);
        } else if (!cJSON_IsObject(child)) {
            return sgd_errf(err, "--set %s: %s is not an object in the scenario", assignment,
                            part);
        }
        obj = child;
        part = next;
    }
    return sgd_errf(err, "--set %s: empty key path", assignment);
}

/* ---- field-by-field validation ------------------------------------------------------ */

static const char *const top_keys[] = {"schema_version", "name", "description", "seed",
                                       "algorithm", "backend", "cluster", "data", "model",
                                       "batch", "optimizer", "compute", "io", "network",
                                       "stop", "eval", "topology", "sweep", "numerics",
                                       NULL};

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

static int parse_cluster(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t c;
    static const char *const keys[] = {"workers", "time_factor", NULL};
    /* Any int32 is accepted here; whether that many workers fit in memory is checked, with
     * an estimate, before the run allocates them (algorithms/runner.c). */
    if (sgd_jobj_child(root, "cluster", &c, err) || sgd_jobj_check_keys(&c, keys, err) ||
        sgd_jobj_int(&c, "workers", 4, 1, INT32_MAX, &s->workers, err) ||
        sim_dist_parse(&c, "time_factor", 1.0, &s->time_factor, err))
        return -1;
    return 0;
}

/* data.cache and data.cache_dir, read through a context without a resolved object: they are
 * checked like every field but left out of resolved_json (scenario.h says why). */
static int parse_data_cache(const sgd_jobj_t *d, const char *base_dir, scn_t *s,
                            sgd_err_t *err)
{
    sgd_jobj_t unhashed = *d;
    unhashed.out = NULL;
    const char *dir;
    if (sgd_jobj_bool(&unhashed, "cache", true, &s->data.cache, err) ||
        sgd_jobj_str(&unhashed, "cache_dir", "", &dir, err))
        return -1;
    if (dir[0]) s->data.cache_dir = resolve_path(base_dir, dir);
    return 0;
}

static int parse_data(const sgd_jobj_t *root, const char *base_dir, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t d;
    static const char *const keys[] = {"source", "train_images", "train_labels",
                                       "test_images", "test_labels", "train_size",
                                       "validation", "validation_size", "n_train",
                                       "n_validation", "dim", "classes", "separation",
                                       "cache", "cache_dir", NULL};
    static const char *const sources[] = {"idx", "synthetic", NULL};
    static const char *const val_from[] = {"test", "train_tail", NULL};
    int src, vf;
    if (sgd_jobj_child(root, "data", &d, err) || sgd_jobj_check_keys(&d, keys, err) ||
        sgd_jobj_enum(&d, "source", sources, SCN_DATA_SYNTHETIC, &src, err))
        return -1;
    s->data.source = (scn_data_source_t)src;
    if (s->data.source == SCN_DATA_IDX) {
        const char *ti, *tl, *vi, *vl;
        if (sgd_jobj_str(&d, "train_images", NULL, &ti, err) ||
            sgd_jobj_str(&d, "train_labels", NULL, &tl, err) ||
            sgd_jobj_str(&d, "test_images", "", &vi, err) ||
            sgd_jobj_str(&d, "test_labels", "", &vl, err) ||
            sgd_jobj_int(&d, "train_size", 0, 0, INT32_MAX, &s->data.train_size, err) ||
            sgd_jobj_enum(&d, "validation", val_from, SCN_VAL_TEST, &vf, err) ||
            sgd_jobj_int(&d, "validation_size", 0, 0, INT32_MAX, &s->data.val_size, err) ||
            parse_data_cache(&d, base_dir, s, err))
            return -1;
        s->data.val_from = (scn_val_from_t)vf;
        if (s->data.val_from == SCN_VAL_TEST && (!vi[0] || !vl[0]))
            return sgd_errf(err, "%s: validation \"test\" needs test_images and test_labels",
                            d.path);
        if (s->data.val_from == SCN_VAL_TRAIN_TAIL && s->data.val_size == 0)
            return sgd_errf(err, "%s.validation_size: must be >= 1 with validation "
                                 "\"train_tail\"", d.path);
        s->data.train_images = resolve_path(base_dir, ti);
        s->data.train_labels = resolve_path(base_dir, tl);
        if (vi[0]) s->data.test_images = resolve_path(base_dir, vi);
        if (vl[0]) s->data.test_labels = resolve_path(base_dir, vl);
        for (const char *const *k = (const char *const[]){"n_train", "n_validation", "dim",
                                                         "classes", "separation", NULL};
             *k; k++)
            if (sgd_jobj_has(&d, *k))
                return sgd_errf(err, "%s.%s: only valid with source \"synthetic\"", d.path, *k);
    } else {
        int64_t dim, classes;
        if (sgd_jobj_int(&d, "n_train", 4096, 1, INT32_MAX, &s->data.synth_train, err) ||
            sgd_jobj_int(&d, "n_validation", 1024, 1, INT32_MAX, &s->data.synth_val, err) ||
            sgd_jobj_int(&d, "dim", 32, 1, 1 << 20, &dim, err) ||
            sgd_jobj_int(&d, "classes", 10, 2, 1 << 16, &classes, err) ||
            sgd_jobj_num(&d, "separation", 1.0, 0.0, false, 1e6, &s->data.synth_separation,
                         err))
            return -1;
        s->data.synth_dim = (int)dim;
        s->data.synth_classes = (int)classes;
        for (const char *const *k = (const char *const[]){"train_images", "train_labels",
                                                         "test_images", "test_labels",
                                                         "train_size", "validation",
                                                         "validation_size", "cache",
                                                         "cache_dir", NULL};
             *k; k++)
            if (sgd_jobj_has(&d, *k))
                return sgd_errf(err, "%s.%s: only valid with source \"idx\"", d.path, *k);
    }
    return 0;
}

/* ---- model.kind "cnn" (docs/scenario.md#convolutional-networks) ----------------------
 * model.layers: a list of {"conv": {"out", "k", "stride", "pad"}}, {"pool": {"max" | "avg":
 * window, "stride"}} and {"fc": units}, or the name of a built-in list; model.input: the
 * sample's shape.  The resolved configuration holds the list with every default filled in,
 * so a named list and the same list written out are the same configuration. */
static const char *const cnn_list_names[] = {"lenet5", NULL};
static const char *const cnn_lists[] = {
    "[{\"conv\":{\"out\":6,\"k\":5,\"pad\":2}},{\"pool\":{\"max\":2}},{\"conv\":{\"out\":16,"
    "\"k\":5}},{\"pool\":{\"max\":2}},{\"fc\":120},{\"fc\":84}]",
};

static int parse_cnn_window(const sgd_jobj_t *el, const char *type, cnn_layer_spec_t *l,
                            sgd_err_t *err)
{
    sgd_jobj_t o;
    static const char *const conv_keys[] = {"out", "k", "stride", "pad", NULL};
    static const char *const pool_keys[] = {"max", "avg", "stride", NULL};
    int64_t out = 0, k, stride, pad = 0;
    bool conv = strcmp(type, "conv") == 0;
    if (sgd_jobj_child(el, type, &o, err) ||
        sgd_jobj_check_keys(&o, conv ? conv_keys : pool_keys, err))
        return -1;
    if (conv) {
        if (sgd_jobj_int_req(&o, "out", 1, INT32_MAX, &out, err) ||
            sgd_jobj_int_req(&o, "k", 1, INT32_MAX, &k, err) ||
            sgd_jobj_int(&o, "stride", 1, 1, INT32_MAX, &stride, err) ||
            sgd_jobj_int(&o, "pad", 0, 0, INT32_MAX / 4, &pad, err))
            return -1;
    } else {
        bool max = sgd_jobj_has(&o, "max");
        if (max == sgd_jobj_has(&o, "avg"))
            return sgd_errf(err, "%s: expected exactly one of \"max\" and \"avg\" (the window)",
                            o.path);
        if (sgd_jobj_int_req(&o, max ? "max" : "avg", 1, INT32_MAX, &k, err) ||
            sgd_jobj_int(&o, "stride", k, 1, INT32_MAX, &stride, err))
            return -1;
        l->op = max ? CNN_POOL_MAX : CNN_POOL_AVG;
    }
    if (conv) l->op = CNN_CONV;
    l->out = (int)out;
    l->k = (int)k;
    l->stride = (int)stride;
    l->pad = (int)pad;
    return 0;
}

static int parse_cnn_layer(const cJSON *e, cJSON *out, const char *path, int i,
                           cnn_layer_spec_t *l, sgd_err_t *err)
{
    char desc[96], at[SGD_JPATH_MAX + 16];
    sgd_json_describe(e, desc, sizeof desc);
    snprintf(at, sizeof at, "%s[%d]", path, i);
    if (!cJSON_IsObject(e) || cJSON_GetArraySize(e) != 1)
        return sgd_errf(err, "%s: expected one of {\"conv\": {...}}, {\"pool\": {...}}, "
                             "{\"fc\": units}, got %s", at, desc);
    const cJSON *v = e->child;
    cJSON *oe = cJSON_CreateObject();
    cJSON_AddItemToArray(out, oe);
    if (strcmp(v->string, "fc") == 0) {
        sgd_json_describe(v, desc, sizeof desc);
        if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
            v->valuedouble < 1 || v->valuedouble > INT32_MAX)
            return sgd_errf(err, "%s.fc: expected integer >= 1 (units), got %s", at, desc);
        *l = (cnn_layer_spec_t){.op = CNN_FC, .out = (int)v->valuedouble};
        cJSON_AddNumberToObject(oe, "fc", l->out);
        return 0;
    }
    if (strcmp(v->string, "conv") != 0 && strcmp(v->string, "pool") != 0)
        return sgd_errf(err, "%s.%s: unknown layer type (known: conv, pool, fc; ReLU and "
                             "flattening are implied)", at, v->string);
    sgd_jobj_t el;
    sgd_jobj_elem(e, oe, path, i, &el);
    return parse_cnn_window(&el, v->string, l, err);
}

static int parse_cnn_layers(const sgd_jobj_t *m, cnn_spec_t *c, sgd_err_t *err)
{
    char path[SGD_JPATH_MAX], desc[96];
    sgd_jpath_join(path, sizeof path, m->path, "layers");
    const cJSON *h = m->in ? cJSON_GetObjectItemCaseSensitive(m->in, "layers") : NULL;
    if (!h) return sgd_errf(err, "%s: required with kind \"cnn\" (a list, or \"lenet5\")", path);
    cJSON *named = NULL;
    if (cJSON_IsString(h)) {
        int k = 0;
        while (cnn_list_names[k] && strcmp(cnn_list_names[k], h->valuestring) != 0) k++;
        if (!cnn_list_names[k])
            return sgd_errf(err, "%s: unknown network \"%s\" (known: lenet5)", path,
                            h->valuestring);
        h = named = cJSON_Parse(cnn_lists[k]);
        SGD_ASSERT(named);
    }
    int rc = 0, n = cJSON_GetArraySize(h), i = 0;
    cJSON *resolved = cJSON_CreateArray();
    if (!cJSON_IsArray(h) || n < 1 || n > CNN_MAX_LAYERS) {
        sgd_json_describe(h, desc, sizeof desc);
        rc = sgd_errf(err, "%s: expected an array of 1..%d layers, got %s", path,
                      CNN_MAX_LAYERS, desc);
    }
    for (const cJSON *e = rc ? NULL : h->child; e && rc == 0; e = e->next, i++)
        rc = parse_cnn_layer(e, resolved, path, i, &c->layer[i], err);
    c->nlayers = i;
    if (m->out && rc == 0) cJSON_AddItemToObject(m->out, "layers", resolved);
    else cJSON_Delete(resolved);
    cJSON_Delete(named);
    return rc;
}

/* model.input, or what the data says: synthetic samples are 1 x 1 x dim unless told; an IDX
 * set's shape is taken from its images when the run loads them (model_cnn_fit_input). */
static int parse_cnn_input(const sgd_jobj_t *m, scn_t *s, sgd_err_t *err)
{
    cnn_spec_t *c = &s->model.cnn;
    if (!sgd_jobj_has(m, "input") && s->data.source == SCN_DATA_IDX) return 0;
    sgd_jobj_t in;
    static const char *const keys[] = {"height", "width", "channels", NULL};
    bool given = sgd_jobj_has(m, "input"), synth = s->data.source == SCN_DATA_SYNTHETIC;
    int64_t h, w, ch;
    if (sgd_jobj_child(m, "input", &in, err) || sgd_jobj_check_keys(&in, keys, err))
        return -1;
    if (given ? sgd_jobj_int_req(&in, "height", 1, INT32_MAX, &h, err) ||
                    sgd_jobj_int_req(&in, "width", 1, INT32_MAX, &w, err) ||
                    sgd_jobj_int(&in, "channels", 1, 1, INT32_MAX, &ch, err)
              : sgd_jobj_int(&in, "height", 1, 1, 1, &h, err) ||
                    sgd_jobj_int(&in, "width", 1, 1, 1, &w, err) ||
                    sgd_jobj_int(&in, "channels", s->data.synth_dim, 1, INT32_MAX, &ch, err))
        return -1;
    if (synth && h * w * ch != s->data.synth_dim)
        return sgd_errf(err, "%s: %lld x %lld x %lld values per sample, data.dim is %d", in.path,
                        (long long)h, (long long)w, (long long)ch, s->data.synth_dim);
    c->in_h = (int)h;
    c->in_w = (int)w;
    c->in_c = (int)ch;
    return 0;
}

/* The layers, the input and, when the input's shape is known here, every layer's shape (else
 * the run checks them when it has loaded the data, before it allocates the model). */
static int parse_cnn(const sgd_jobj_t *m, scn_t *s, sgd_err_t *err)
{
    if (sgd_jobj_has(m, "hidden"))
        return sgd_errf(err, "%s.hidden: not valid with kind \"cnn\" (list the layers in "
                             "%s.layers)", m->path, m->path);
    if (parse_cnn_layers(m, &s->model.cnn, err) || parse_cnn_input(m, s, err)) return -1;
    if (s->model.cnn.in_h == 0) return 0;
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n, classes = s->data.source == SCN_DATA_SYNTHETIC ? s->data.synth_classes
                                                         : DATASET_IDX_MAX_CLASSES;
    if (cnn_geometry(&s->model.cnn, classes, g, &n, err)) {
        char tmp[SGD_ERR_MAX];
        snprintf(tmp, sizeof tmp, "%s", err->msg);
        return sgd_errf(err, "%s.%s", m->path, tmp);
    }
    return 0;
}

static int parse_model(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t m;
    static const char *const keys[] = {"kind", "hidden", "init", "preset", "cost_preset",
                                       "layers", "input", NULL};
    static const char *const kinds[] = {"softmax", "mlp", "preset", "cnn", NULL};
    static const char *const inits[] = {"normal01", "he", "glorot", NULL};
    int kind, init;
    if (sgd_jobj_child(root, "model", &m, err) || sgd_jobj_check_keys(&m, keys, err) ||
        sgd_jobj_enum(&m, "kind", kinds, 1, &kind, err))
        return -1;
    s->cost_preset = -1;
    if (kind == 2) {
        /* Cost-only: no numerics, so nothing of a real model applies. */
        static const char *const real_only[] = {"hidden", "init", "cost_preset", "layers",
                                                "input", NULL};
        for (const char *const *k = real_only; *k; k++)
            if (sgd_jobj_has(&m, *k))
                return sgd_errf(err, "%s.%s: not valid with kind \"preset\" (a cost-only "
                                     "model has no numerics)", m.path, *k);
        if (sgd_jobj_enum(&m, "preset", model_preset_names, -1, &s->cost_preset, err))
            return -1;
        s->cost_only = true;
        s->model.kind = MODEL_MLP;
        return 0;
    }
    if (sgd_jobj_has(&m, "preset"))
        return sgd_errf(err, "%s.preset: only valid with kind \"preset\" (for a real model "
                             "timed as a preset, use cost_preset)", m.path);
    if (sgd_jobj_enum(&m, "init", inits, 1, &init, err)) return -1;
    s->model.kind = kind == 0 ? MODEL_SOFTMAX : kind == 3 ? MODEL_CNN : MODEL_MLP;
    s->init = init == 0 ? MODEL_INIT_NORMAL01 : init == 1 ? MODEL_INIT_HE : MODEL_INIT_GLOROT;
    if (sgd_jobj_has(&m, "cost_preset") &&
        sgd_jobj_enum(&m, "cost_preset", model_preset_names, -1, &s->cost_preset, err))
        return -1;
    if (s->model.kind == MODEL_CNN) return parse_cnn(&m, s, err);
    for (const char *const *k = (const char *const[]){"layers", "input", NULL}; *k; k++)
        if (sgd_jobj_has(&m, *k))
            return sgd_errf(err, "%s.%s: only valid with kind \"cnn\"", m.path, *k);

    char path[SGD_JPATH_MAX];
    sgd_jpath_join(path, sizeof path, m.path, "hidden");
    const cJSON *h = m.in ? cJSON_GetObjectItemCaseSensitive(m.in, "hidden") : NULL;
    cJSON *resolved = cJSON_CreateArray();
    s->model.nhidden = 0;
    if (s->model.kind == MODEL_SOFTMAX) {
        if (h && !(cJSON_IsArray(h) && cJSON_GetArraySize(h) == 0)) {
            cJSON_Delete(resolved);
            return sgd_errf(err, "%s: softmax regression has no hidden layers", path);
        }
    } else {
        if (!h) {
            s->model.hidden[0] = 200; /* the FASGD experiments' 784-200-10 MLP */
            s->model.nhidden = 1;
        } else if (!cJSON_IsArray(h) || cJSON_GetArraySize(h) < 1 ||
                   cJSON_GetArraySize(h) > MODEL_MAX_LAYERS - 1) {
            char desc[96];
            sgd_json_describe(h, desc, sizeof desc);
            cJSON_Delete(resolved);
            return sgd_errf(err, "%s: expected an array of 1..%d layer widths, got %s", path,
                            MODEL_MAX_LAYERS - 1, desc);
        } else {
            int i = 0;
            for (const cJSON *e = h->child; e; e = e->next, i++) {
                if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) ||
                    e->valuedouble < 1 || e->valuedouble > INT32_MAX) {
                    char desc[96];
                    sgd_json_describe(e, desc, sizeof desc);
                    cJSON_Delete(resolved);
                    return sgd_errf(err, "%s[%d]: expected integer >= 1, got %s", path, i,
                                    desc);
                }
                s->model.hidden[i] = (int)e->valuedouble;
            }
            s->model.nhidden = i;
        }
    }
    for (int i = 0; i < s->model.nhidden; i++)
        cJSON_AddItemToArray(resolved, cJSON_CreateNumber(s->model.hidden[i]));
    if (m.out) cJSON_AddItemToObject(m.out, "hidden", resolved);
    else cJSON_Delete(resolved);
    return 0;
}

static int parse_batch(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t b;
    static const char *const keys[] = {"per_worker", "sampling", NULL};
    static const char *const samplings[] = {"shuffle", "sequential", NULL};
    int sampling;
    if (sgd_jobj_child(root, "batch", &b, err) || sgd_jobj_check_keys(&b, keys, err) ||
        sgd_jobj_int(&b, "per_worker", 32, 1, 1 << 20, &s->batch_per_worker, err) ||
        sgd_jobj_enum(&b, "sampling", samplings, 0, &sampling, err))
        return -1;
    s->sampling = (scn_sampling_t)sampling;
    return 0;
}

static int parse_optimizer(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t o, sch;
    static const char *const keys[] = {"lr", "momentum", "weight_decay", "nesterov",
                                       "schedule", NULL};
    static const char *const sch_keys[] = {"scaling", "ref_batch", "warmup_updates",
                                           "warmup_start_factor", "milestones", "gamma", NULL};
    static const char *const scalings[] = {"none", "linear", NULL};
    int scaling;
    lr_schedule_t *lr = &s->lr;
    if (sgd_jobj_child(root, "optimizer", &o, err) || sgd_jobj_check_keys(&o, keys, err) ||
        sgd_jobj_num(&o, "lr", 0.1, 0.0, true, HUGE_VAL, &lr->base_lr, err) ||
        sgd_jobj_num(&o, "momentum", 0.0, 0.0, false, 0.999999, &s->sgd.momentum, err) ||
        sgd_jobj_num(&o, "weight_decay", 0.0, 0.0, false, 1e3, &s->sgd.weight_decay, err) ||
        sgd_jobj_bool(&o, "nesterov", false, &s->sgd.nesterov, err) ||
        sgd_jobj_child(&o, "schedule", &sch, err) || sgd_jobj_check_keys(&sch, sch_keys, err) ||
        sgd_jobj_enum(&sch, "scaling", scalings, 0, &scaling, err) ||
        sgd_jobj_int(&sch, "ref_batch", 256, 1, INT32_MAX, &lr->ref_batch, err) ||
        sgd_jobj_int(&sch, "warmup_updates", 0, 0, INT64_MAX, &lr->warmup_updates, err) ||
        sgd_jobj_num(&sch, "warmup_start_factor", 0.0, 0.0, false, 1.0,
                     &lr->warmup_start_lr_factor, err) ||
        sgd_jobj_num(&sch, "gamma", 0.1, 0.0, true, 1.0, &lr->gamma, err))
        return -1;
    lr->scale_kind = scaling == 0 ? LR_SCALE_NONE : LR_SCALE_LINEAR;
    if (s->sgd.nesterov && s->sgd.momentum == 0.0)
        return sgd_errf(err, "%s.nesterov: needs momentum > 0", o.path);

    char path[SGD_JPATH_MAX];
    sgd_jpath_join(path, sizeof path, sch.path, "milestones");
    const cJSON *ms = sch.in ? cJSON_GetObjectItemCaseSensitive(sch.in, "milestones") : NULL;
    lr->nmilestones = 0;
    if (ms) {
        if (!cJSON_IsArray(ms) || cJSON_GetArraySize(ms) > LR_MAX_MILESTONES) {
            char desc[96];
            sgd_json_describe(ms, desc, sizeof desc);
            return sgd_errf(err, "%s: expected an array of at most %d update indices, got %s",
                            path, LR_MAX_MILESTONES, desc);
        }
        int i = 0;
        for (const cJSON *e = ms->child; e; e = e->next, i++) {
            char desc[96];
            sgd_json_describe(e, desc, sizeof desc);
            if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) ||
                e->valuedouble < 1 || e->valuedouble > 9007199254740992.0)
                return sgd_errf(err, "%s[%d]: expected integer >= 1, got %s", path, i, desc);
            lr->milestones[i] = (int64_t)e->valuedouble;
            if (i > 0 && lr->milestones[i] <= lr->milestones[i - 1])
                return sgd_errf(err, "%s[%d]: milestones must increase, got %s after %lld",
                                path, i, desc, (long long)lr->milestones[i - 1]);
        }
        lr->nmilestones = i;
    }
    if (sch.out) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = 0; i < lr->nmilestones; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)lr->milestones[i]));
        cJSON_AddItemToObject(sch.out, "milestones", arr);
    }
    return 0;
}

static int parse_timing(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t c, io, n;
    static const char *const ckeys[] = {"kind", "time_s", "device_gflops", "update_time_s",
                                        NULL};
    static const char *const kinds[] = {"time", "flops", NULL};
    static const char *const iokeys[] = {"time_s", NULL};
    static const char *const nkeys[] = {"bandwidth_gbps", "latency_us", "fidelity",
                                        "allreduce", "granularity", "bucket_bytes", NULL};
    static const char *const fidelities[] = {"message", "analytic", NULL};
    static const char *const grans[] = {"fused", "per_tensor", NULL};
    int kind, fid, gran;
    double gbps, lat_us;
    if (sgd_jobj_child(root, "compute", &c, err) || sgd_jobj_check_keys(&c, ckeys, err) ||
        sgd_jobj_enum(&c, "kind", kinds, 0, &kind, err))
        return -1;
    s->compute_kind = (scn_compute_kind_t)kind;
    if (s->compute_kind == SCN_COMPUTE_TIME) {
        if (sgd_jobj_has(&c, "device_gflops"))
            return sgd_errf(err, "%s.device_gflops: only valid with kind \"flops\"", c.path);
        if (sim_dist_parse(&c, "time_s", 0.01, &s->compute_time_s, err)) return -1;
    } else {
        if (sgd_jobj_has(&c, "time_s"))
            return sgd_errf(err, "%s.time_s: only valid with kind \"time\"", c.path);
        if (sgd_jobj_num_req(&c, "device_gflops", 0.0, true, 1e9, &s->device_gflops, err))
            return -1;
    }
    if (sim_dist_parse(&c, "update_time_s", 0.0, &s->update_time_s, err)) return -1;

    if (sgd_jobj_child(root, "io", &io, err) || sgd_jobj_check_keys(&io, iokeys, err) ||
        sim_dist_parse(&io, "time_s", 0.0, &s->io_time_s, err))
        return -1;

    if (sgd_jobj_child(root, "network", &n, err) || sgd_jobj_check_keys(&n, nkeys, err) ||
        sgd_jobj_num(&n, "bandwidth_gbps", 10.0, 0.0, true, 1e9, &gbps, err) ||
        sgd_jobj_num(&n, "latency_us", 5.0, 0.0, false, 1e9, &lat_us, err) ||
        sgd_jobj_enum(&n, "fidelity", fidelities, 0, &fid, err) ||
        sgd_jobj_enum(&n, "allreduce", sim_allreduce_names, SIM_AR_RING, &s->allreduce_alg,
                      err) ||
        sgd_jobj_enum(&n, "granularity", grans, SCN_GRAN_FUSED, &gran, err) ||
        sgd_jobj_int(&n, "bucket_bytes", 25 << 20, 1, INT64_MAX / 2, &s->bucket_bytes, err))
        return -1;
    s->granularity = (scn_granularity_t)gran;
    s->bandwidth_Bps = gbps * 1e9 / 8.0;
    s->latency_ns = llround(lat_us * 1e3);
    s->fidelity = (scn_fidelity_t)fid;
    return 0;
}

static int parse_run_control(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t st, ev;
    static const char *const skeys[] = {"updates", "vtime_s", NULL};
    static const char *const ekeys[] = {"every", "train_loss_every", NULL};
    double vtime_s;
    if (sgd_jobj_child(root, "stop", &st, err) || sgd_jobj_check_keys(&st, skeys, err) ||
        sgd_jobj_int(&st, "updates", 100, 1, INT64_MAX / 2, &s->stop_updates, err) ||
        sgd_jobj_num(&st, "vtime_s", 0.0, 0.0, false, SIM_VTIME_MAX_S, &vtime_s, err))
        return -1;
    s->stop_vtime_ns = sim_seconds_to_ns(vtime_s);
    if (sgd_jobj_child(root, "eval", &ev, err) || sgd_jobj_check_keys(&ev, ekeys, err) ||
        sgd_jobj_int(&ev, "every", 50, 0, INT64_MAX, &s->eval_every, err) ||
        sgd_jobj_int(&ev, "train_loss_every", 1, 1, INT64_MAX, &s->train_loss_every, err))
        return -1;
    return 0;
}

/* A link class of the cluster topology: {"bandwidth_gbps": > 0, "latency_us": >= 0}. */
static int parse_link(const sgd_jobj_t *t, const char *key, double def_gbps, double def_us,
                      double *Bps, int64_t *latency_ns, sgd_err_t *err)
{
    sgd_jobj_t l;
    static const char *const keys[] = {"bandwidth_gbps", "latency_us", NULL};
    double gbps, us;
    if (sgd_jobj_child(t, key, &l, err) || sgd_jobj_check_keys(&l, keys, err) ||
        sgd_jobj_num(&l, "bandwidth_gbps", def_gbps, 0.0, true, 1e9, &gbps, err) ||
        sgd_jobj_num(&l, "latency_us", def_us, 0.0, false, 1e9, &us, err))
        return -1;
    *Bps = gbps * 1e9 / 8.0;
    *latency_ns = llround(us * 1e3);
    return 0;
}

/* After cluster and network: G must divide the workers, and each kind takes only its keys. */
static int parse_topology(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t t, n;
    static const char *const keys[] = {"kind", "gpus_per_node", "nodes", "intra", "nic",
                                       "oversubscription", NULL};
    static const char *const kinds[] = {"flat", "cluster", NULL};
    int kind;
    scn_topology_t *tp = &s->topo;
    if (sgd_jobj_child(root, "topology", &t, err) || sgd_jobj_check_keys(&t, keys, err) ||
        sgd_jobj_enum(&t, "kind", kinds, SCN_TOPO_FLAT, &kind, err))
        return -1;
    tp->kind = (scn_topo_kind_t)kind;
    if (tp->kind == SCN_TOPO_FLAT) {
        for (const char *const *k = keys + 1; *k; k++)
            if (sgd_jobj_has(&t, *k))
                return sgd_errf(err, "%s.%s: only valid with kind \"cluster\" (a flat "
                                     "topology is the network section's star)", t.path, *k);
        tp->gpus_per_node = 1;
        tp->nodes = s->workers;
        return 0;
    }
    if (sgd_jobj_child(root, "network", &n, err)) return -1;
    for (const char *const *k = (const char *const[]){"bandwidth_gbps", "latency_us", NULL};
         *k; k++)
        if (sgd_jobj_has(&n, *k))
            return sgd_errf(err, "%s.%s: not used with topology.kind \"cluster\" (set "
                                 "topology.intra and topology.nic)", n.path, *k);
    /* The flat star's defaults were filled in before the topology was known: the resolved
     * configuration lists only what the run uses. */
    if (n.out) {
        cJSON_DeleteItemFromObjectCaseSensitive(n.out, "bandwidth_gbps");
        cJSON_DeleteItemFromObjectCaseSensitive(n.out, "latency_us");
    }
    if (sgd_jobj_int(&t, "gpus_per_node", 4, 1, 1 << 16, &tp->gpus_per_node, err)) return -1;
    if (s->workers % tp->gpus_per_node != 0)
        return sgd_errf(err, "%s.gpus_per_node: %lld GPUs per node does not divide "
                             "cluster.workers = %lld", t.path, (long long)tp->gpus_per_node,
                        (long long)s->workers);
    int64_t nodes = s->workers / tp->gpus_per_node;
    if (sgd_jobj_int(&t, "nodes", nodes, 1, INT32_MAX, &tp->nodes, err)) return -1;
    if (tp->nodes != nodes)
        return sgd_errf(err, "%s.nodes: %lld nodes x %lld GPUs per node = %lld workers, but "
                             "cluster.workers = %lld", t.path, (long long)tp->nodes,
                        (long long)tp->gpus_per_node,
                        (long long)(tp->nodes * tp->gpus_per_node), (long long)s->workers);
    /* Defaults: PCIe 3.0 x16 (~12 GB/s per direction in practice) and a 25 GbE NIC. */
    if (parse_link(&t, "intra", 96.0, 1.0, &tp->intra_Bps, &tp->intra_latency_ns, err) ||
        parse_link(&t, "nic", 25.0, 2.5, &tp->nic_Bps, &tp->nic_latency_ns, err) ||
        sgd_jobj_num(&t, "oversubscription", 1.0, 1.0, false, 1e6, &tp->oversubscription,
                     err))
        return -1;
    return 0;
}

/* numerics: the kernel request is checked against the kernels OpenBLAS knows and stored in
 * OpenBLAS's spelling; whether this machine runs it is decided by scn_resolve_numerics(). */
static int parse_numerics(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t n;
    static const char *const keys[] = {"blas_core", "threads", NULL};
    const char *core;
    if (sgd_jobj_child(root, "numerics", &n, err) || sgd_jobj_check_keys(&n, keys, err) ||
        sgd_jobj_str(&n, "blas_core", "auto", &core, err) ||
        sgd_jobj_int(&n, "threads", 0, 0, SCN_THREADS_MAX, &s->numerics.threads, err))
        return -1;
    const blas_kernel_t *k = blas_kernel_find(core);
    if (!k && strcasecmp(core, "auto") != 0) {
        char known[512];
        blas_kernel_list(known, sizeof known);
        return sgd_errf(err, "%s.blas_core: unknown OpenBLAS kernel \"%s\" (known: auto, %s)",
                        n.path, core, known);
    }
    if (k && k->x86_32_only)
        return sgd_errf(err, "%s.blas_core: %s is a 32-bit x86 kernel; x86_64 builds of "
                             "OpenBLAS run Prescott when asked for it", n.path, k->name);
    const char *canonical = k ? k->name : "auto";
    snprintf(s->numerics.blas_core, sizeof s->numerics.blas_core, "%s", canonical);
    if (n.out)
        cJSON_ReplaceItemInObjectCaseSensitive(n.out, "blas_core", cJSON_CreateString(canonical));
    return 0;
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
    if (sgd_jobj_int(&root, "seed", 1, 0, 1LL << 53, &seed, err)) return -1;
    s->seed = (uint64_t)seed;
    const scn_algorithm_t *alg;
    if (parse_algorithm_name(&root, algs, &alg, err)) return -1;
    s->algorithm = sgd_xstrdup(alg->name);
    /* Any known backend is a valid scenario; whether this machine can run "cuda" is only
     * known when the run creates it (exit 2 there, naming the reason). */
    if (sgd_jobj_enum(&root, "backend", sgd_backend_names, 0, &backend, err)) return -1;
    s->backend = sgd_xstrdup(sgd_backend_names[backend]);
    if (parse_cluster(&root, s, err) || parse_data(&root, base_dir, s, err) ||
        parse_model(&root, s, err) || parse_batch(&root, s, err) ||
        parse_optimizer(&root, s, err) || parse_timing(&root, s, err) ||
        parse_run_control(&root, s, err) || parse_topology(&root, s, err) ||
        parse_algorithm_options(&root, alg, s, err) || parse_numerics(&root, s, err))
        return -1;
    return 0;
}

/* The "sweep" block: {"key.path": [value, ...], ...}.  Only its shape is checked here; each
 * value is validated when a sweep applies it as an override (the key may name any field,
 * including an algorithm's own options, which only that algorithm's parser knows). */
#define SCN_SWEEP_MAX_VALUES 100000

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
            a->values[a->nvalues] = cJSON_PrintUnformatted(v);
            SGD_ASSERT(a->values[a->nvalues]);
            a->nvalues++;
        }
    }
    return 0;
}

/* Where an error is about a key the user set on the command line, blame the argument. */
static void blame(sgd_err_t *err, const char *display_name, char keys[][SGD_JPATH_MAX],
                  const scn_override_t *sets, int nsets)
{
    for (int i = 0; i < nsets; i++) {
        size_t k = strlen(keys[i]);
        if (k && strncmp(err->msg, keys[i], k) == 0 &&
            (err->msg[k] == ':' || err->msg[k] == '.' || err->msg[k] == '[')) {
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

/* The resolved configuration as stored (every field) and its hash, which identifies what a
 * run computes: the same text without numerics.threads, since results are the same bits for
 * any thread count (docs/results.md).  Consumes numerics.threads of `resolved`. */
static void finish_resolved(cJSON *resolved, scn_t *out)
{
    out->resolved_json = cJSON_PrintUnformatted(resolved);
    SGD_ASSERT(out->resolved_json);
    cJSON *num = cJSON_GetObjectItemCaseSensitive(resolved, "numerics");
    if (num) cJSON_DeleteItemFromObjectCaseSensitive(num, "threads");
    char *identity = cJSON_PrintUnformatted(resolved);
    SGD_ASSERT(identity);
    sgd_sha256_hex(identity, strlen(identity), out->config_hash);
    free(identity);
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

    char (*keys)[SGD_JPATH_MAX] = nsets ? sgd_xcalloc((size_t)nsets, SGD_JPATH_MAX) : NULL;
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
            rc = apply_override(in, sets[i].assignment, keys[i], SGD_JPATH_MAX, err);
        /* Seeds are JSON numbers in the resolved configuration, exact up to 2^53. */
        if (rc == 0 && seed_override && *seed_override > (1ULL << 53))
            rc = sgd_errf(err, "--seed %llu: must be <= 2^53 (9007199254740992)",
                          (unsigned long long)*seed_override);
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
    free(s->resolved_json);
    for (int i = 0; i < s->nsweep; i++) {
        for (int j = 0; j < s->sweep[i].nvalues; j++) free(s->sweep[i].values[j]);
        free(s->sweep[i].values);
        free(s->sweep[i].key);
    }
    free(s->sweep);
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
    /* Re-printing the parsed text reproduces every other field exactly (cJSON prints each
     * number with as many digits as it takes to read back the same double). */
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
