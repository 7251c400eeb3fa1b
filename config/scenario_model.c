/* The scenario loader's model section (scenario_sections.h): softmax, MLP, cost-only
 * presets and convolutional networks, their shapes checked with the JSON path of the layer
 * that does not fit.  docs/scenario.md lists every field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "common/json.h"
#include "config/scenario_sections.h"
#include "models/preset.h"

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

/* model.kind "preset": a cost-only model, which has no numerics, so nothing of a real model
 * applies; the preset says what it costs. */
static int parse_cost_only(const sgd_jobj_t *m, scn_t *s, sgd_err_t *err)
{
    static const char *const real_only[] = {"hidden", "init", "cost_preset", "layers", "input",
                                            NULL};
    for (const char *const *k = real_only; *k; k++)
        if (sgd_jobj_has(m, *k))
            return sgd_errf(err, "%s.%s: not valid with kind \"preset\" (a cost-only "
                                 "model has no numerics)", m->path, *k);
    if (sgd_jobj_enum(m, "preset", model_preset_names, -1, &s->cost_preset, err)) return -1;
    s->cost_only = true;
    s->model.kind = MODEL_MLP;
    return 0;
}

/* The widths of an MLP's model.hidden (at path): an array of 1..MODEL_MAX_LAYERS - 1
 * integers >= 1, into s->model.hidden. */
static int parse_hidden_widths(const cJSON *h, const char *path, scn_t *s, sgd_err_t *err)
{
    char desc[96];
    if (!cJSON_IsArray(h) || cJSON_GetArraySize(h) < 1 ||
        cJSON_GetArraySize(h) > MODEL_MAX_LAYERS - 1) {
        sgd_json_describe(h, desc, sizeof desc);
        return sgd_errf(err, "%s: expected an array of 1..%d layer widths, got %s", path,
                        MODEL_MAX_LAYERS - 1, desc);
    }
    int i = 0;
    for (const cJSON *e = h->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) ||
            e->valuedouble < 1 || e->valuedouble > INT32_MAX) {
            sgd_json_describe(e, desc, sizeof desc);
            return sgd_errf(err, "%s[%d]: expected integer >= 1, got %s", path, i, desc);
        }
        s->model.hidden[i] = (int)e->valuedouble;
    }
    s->model.nhidden = i;
    return 0;
}

/* model.hidden of a softmax regression (none, or an empty array) or an MLP (default: one
 * layer of 200, the FASGD experiments' 784-200-10 MLP); the resolved list goes to the
 * resolved configuration. */
static int parse_hidden(const sgd_jobj_t *m, scn_t *s, sgd_err_t *err)
{
    char path[SGD_JPATH_MAX];
    sgd_jpath_join(path, sizeof path, m->path, "hidden");
    const cJSON *h = m->in ? cJSON_GetObjectItemCaseSensitive(m->in, "hidden") : NULL;
    s->model.nhidden = 0;
    if (s->model.kind == MODEL_SOFTMAX) {
        if (h && !(cJSON_IsArray(h) && cJSON_GetArraySize(h) == 0))
            return sgd_errf(err, "%s: softmax regression has no hidden layers", path);
    } else if (!h) {
        s->model.hidden[0] = 200;
        s->model.nhidden = 1;
    } else if (parse_hidden_widths(h, path, s, err)) {
        return -1;
    }
    if (!m->out) return 0;
    cJSON *resolved = cJSON_CreateArray();
    for (int i = 0; i < s->model.nhidden; i++)
        cJSON_AddItemToArray(resolved, cJSON_CreateNumber(s->model.hidden[i]));
    cJSON_AddItemToObject(m->out, "hidden", resolved);
    return 0;
}

/* A model with numerics (kind softmax, mlp or cnn; kinds[] index `kind`): its
 * initialisation, the optional cost_preset it is timed as, and its layers. */
static int parse_real_model(const sgd_jobj_t *m, int kind, scn_t *s, sgd_err_t *err)
{
    static const char *const inits[] = {"normal01", "he", "glorot", NULL};
    int init;
    if (sgd_jobj_has(m, "preset"))
        return sgd_errf(err, "%s.preset: only valid with kind \"preset\" (for a real model "
                             "timed as a preset, use cost_preset)", m->path);
    if (sgd_jobj_enum(m, "init", inits, 1, &init, err)) return -1;
    s->model.kind = kind == 0 ? MODEL_SOFTMAX : kind == 3 ? MODEL_CNN : MODEL_MLP;
    s->init = init == 0 ? MODEL_INIT_NORMAL01 : init == 1 ? MODEL_INIT_HE : MODEL_INIT_GLOROT;
    if (sgd_jobj_has(m, "cost_preset") &&
        sgd_jobj_enum(m, "cost_preset", model_preset_names, -1, &s->cost_preset, err))
        return -1;
    if (s->model.kind == MODEL_CNN) return parse_cnn(m, s, err);
    for (const char *const *k = (const char *const[]){"layers", "input", NULL}; *k; k++)
        if (sgd_jobj_has(m, *k))
            return sgd_errf(err, "%s.%s: only valid with kind \"cnn\"", m->path, *k);
    return parse_hidden(m, s, err);
}

int scn_parse_model(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t m;
    static const char *const keys[] = {"kind", "hidden", "init", "preset", "cost_preset",
                                       "layers", "input", NULL};
    static const char *const kinds[] = {"softmax", "mlp", "preset", "cnn", NULL};
    int kind;
    if (sgd_jobj_child(root, "model", &m, err) || sgd_jobj_check_keys(&m, keys, err) ||
        sgd_jobj_enum(&m, "kind", kinds, 1, &kind, err))
        return -1;
    s->cost_preset = -1;
    return kind == 2 ? parse_cost_only(&m, s, err) : parse_real_model(&m, kind, s, err);
}
