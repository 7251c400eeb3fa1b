/* Model kind "cnn": convolutional networks (model_kind.h) -- the scenario's model.layers and
 * model.input, the shapes checked with the JSON path of the layer that does not fit, and the
 * numerics of models/cnn.c, whose header describes the layers and the parameter layout.
 * docs/scenario.md#convolutional-networks lists every field. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/cnn.h"
#include "models/model_kind.h"

/* ---- the scenario's keys ------------------------------------------------------------------
 * model.layers: a list of {"conv": {"out", "k", "stride", "pad"}}, {"pool": {"max" | "avg":
 * window, "stride"}} and {"fc": units}, or the name of a built-in list; model.input: the
 * sample's shape.  The resolved configuration holds the list with every default filled in,
 * so a named list and the same list written out are the same configuration. */
static const char *const cnn_keys[] = {"layers", "input", NULL};
static const char *const cnn_list_names[] = {"lenet5", NULL};
static const char *const cnn_lists[] = {
    "[{\"conv\":{\"out\":6,\"k\":5,\"pad\":2}},{\"pool\":{\"max\":2}},{\"conv\":{\"out\":16,"
    "\"k\":5}},{\"pool\":{\"max\":2}},{\"fc\":120},{\"fc\":84}]",
};

static int parse_window(const sgd_jobj_t *el, const char *type, cnn_layer_spec_t *l,
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

static int parse_layer(const cJSON *e, cJSON *out, const char *path, int i,
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
    return parse_window(&el, v->string, l, err);
}

static int parse_layers(const sgd_jobj_t *m, cnn_spec_t *c, sgd_err_t *err)
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
        rc = parse_layer(e, resolved, path, i, &c->layer[i], err);
    c->nlayers = i;
    if (m->out && rc == 0) cJSON_AddItemToObject(m->out, "layers", resolved);
    else cJSON_Delete(resolved);
    cJSON_Delete(named);
    return rc;
}

/* model.input, or what the data says: synthetic samples are 1 x 1 x dim unless told; an IDX
 * set's shape is taken from its images when the run loads them (fit_input). */
static int parse_input(const sgd_jobj_t *m, const model_data_shape_t *data, cnn_spec_t *c,
                       sgd_err_t *err)
{
    const bool given = sgd_jobj_has(m, "input"), known = data->dim > 0;
    if (!given && !known) return 0;
    sgd_jobj_t in;
    static const char *const keys[] = {"height", "width", "channels", NULL};
    int64_t h, w, ch;
    if (sgd_jobj_child(m, "input", &in, err) || sgd_jobj_check_keys(&in, keys, err))
        return -1;
    if (given ? sgd_jobj_int_req(&in, "height", 1, INT32_MAX, &h, err) ||
                    sgd_jobj_int_req(&in, "width", 1, INT32_MAX, &w, err) ||
                    sgd_jobj_int(&in, "channels", 1, 1, INT32_MAX, &ch, err)
              : sgd_jobj_int(&in, "height", 1, 1, 1, &h, err) ||
                    sgd_jobj_int(&in, "width", 1, 1, 1, &w, err) ||
                    sgd_jobj_int(&in, "channels", data->dim, 1, INT32_MAX, &ch, err))
        return -1;
    if (known && h * w * ch != data->dim)
        return sgd_errf(err, "%s: %lld x %lld x %lld values per sample, data.dim is %d", in.path,
                        (long long)h, (long long)w, (long long)ch, data->dim);
    c->in_h = (int)h;
    c->in_w = (int)w;
    c->in_c = (int)ch;
    return 0;
}

/* The layers, the input and, when the input's shape is known here, every layer's shape (else
 * the run checks them when it has loaded the data, before it allocates the model). */
static int cnn_parse(const sgd_jobj_t *m, const model_data_shape_t *data, model_spec_t *spec,
                     sgd_err_t *err)
{
    if (parse_layers(m, &spec->cnn, err) || parse_input(m, data, &spec->cnn, err)) return -1;
    if (spec->cnn.in_h == 0) return 0;
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n;
    if (cnn_geometry(&spec->cnn, data->classes, g, &n, err)) {
        char tmp[SGD_ERR_MAX];
        snprintf(tmp, sizeof tmp, "%s", err->msg);
        return sgd_errf(err, "%s.%s", m->path, tmp);
    }
    return 0;
}

/* ---- checks and estimates ---------------------------------------------------------------- */

/* The spec's shape checks, with cnn_geometry's messages. */
static int cnn_check(const model_spec_t *spec, sgd_err_t *err)
{
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n;
    if (cnn_geometry(&spec->cnn, spec->nclasses, g, &n, err)) return -1;
    if ((int64_t)spec->cnn.in_h * spec->cnn.in_w * spec->cnn.in_c != spec->ninputs)
        return sgd_errf(err, "input: %d x %d x %d values per sample, but ninputs = %d",
                        spec->cnn.in_h, spec->cnn.in_w, spec->cnn.in_c, spec->ninputs);
    return 0;
}

/* The input shape from the data's ninputs values per sample: spec->cnn's in_h, in_w, in_c
 * when set (their product must be ninputs), else a square image of one channel when ninputs
 * is a square (the IDX image sets: 784 = 28 x 28), else 1 x 1 x ninputs; then the layers'
 * shapes on it. */
static int cnn_fit_input(model_spec_t *spec, sgd_err_t *err)
{
    cnn_spec_t *c = &spec->cnn;
    const int dim = spec->ninputs;
    if (c->in_h > 0 || c->in_w > 0 || c->in_c > 0) {
        if ((int64_t)c->in_h * c->in_w * c->in_c != dim)
            return sgd_errf(err, "input: %d x %d x %d = %lld values per sample, the data has %d",
                            c->in_h, c->in_w, c->in_c, (long long)c->in_h * c->in_w * c->in_c,
                            dim);
    } else {
        int side = (int)lround(sqrt((double)dim));
        c->in_h = c->in_w = side * side == dim ? side : 1;
        c->in_c = side * side == dim ? 1 : dim;
    }
    return cnn_check(spec, err);
}

/* The resolved layers of a spec that has passed cnn_fit_input (asserted). */
static int geometry(const model_spec_t *spec, cnn_geom_t *g)
{
    int n;
    sgd_err_t err = {{0}};
    SGD_ASSERT(cnn_geometry(&spec->cnn, spec->nclasses, g, &n, &err) == 0);
    return n;
}

static double cnn_nparams_of(const model_spec_t *spec)
{
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n = geometry(spec, g);
    double np = 0.0;
    for (int i = 0; i < n; i++)
        if (g[i].wl >= 0) np += (double)g[i].kdim * g[i].oc + g[i].oc;
    return np;
}

static double cnn_workspace_bytes(const model_spec_t *spec, int64_t max_batch)
{
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n = geometry(spec, g);
    return 4.0 * (double)max_batch * cnn_workspace_floats_per_sample(g, n);
}

static double cnn_flops(const model_spec_t *spec, const model_layout_t *lay)
{
    (void)spec;
    return cnn_flops_per_sample(lay->geom, lay->ngeoms);
}

/* "cnn 28x28x1: conv 6@5x5 pad 2, max pool 2, conv 16@5x5, max pool 2, fc 120, fc 84,
 * output 10" (strides other than 1, and a pool's other than its window, are said). */
static void cnn_describe(const model_spec_t *spec, char *buf, size_t size)
{
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n = geometry(spec, g);
    int k = snprintf(buf, size, "cnn %dx%dx%d:", g[0].ih, g[0].iw, g[0].ic);
    for (int i = 0; i < n && k > 0 && (size_t)k < size; i++) {
        char pad[32] = "", stride[32] = "";
        if (g[i].pad) snprintf(pad, sizeof pad, " pad %d", g[i].pad);
        if (g[i].op != CNN_FC && g[i].stride != (g[i].op == CNN_CONV ? 1 : g[i].k))
            snprintf(stride, sizeof stride, " stride %d", g[i].stride);
        k += g[i].op == CNN_FC ? snprintf(buf + k, size - (size_t)k, "%s %s %d", i ? "," : "",
                                          i == n - 1 ? "output" : "fc", g[i].oc)
             : g[i].op == CNN_CONV
                 ? snprintf(buf + k, size - (size_t)k, "%s conv %d@%dx%d%s%s", i ? "," : "",
                            g[i].oc, g[i].k, g[i].k, stride, pad)
                 : snprintf(buf + k, size - (size_t)k, "%s %s pool %d%s", i ? "," : "",
                            g[i].op == CNN_POOL_MAX ? "max" : "avg", g[i].k, stride);
    }
}

/* ---- the model ---------------------------------------------------------------------------- */

/* The layout from the network's weight layers; the state is the cnn_t. */
static void *cnn_kind_create(const model_spec_t *spec, int max_batch, model_layout_t *lay)
{
    cnn_t *c = cnn_create(&spec->cnn, spec->nclasses, max_batch);
    lay->nlayers = cnn_nweight_layers(c);
    for (int l = 0; l < lay->nlayers; l++) {
        lay->width[l] = cnn_fan_in(c, l);
        lay->fan_out[l] = cnn_fan_out(c, l);
        lay->kernel_area[l] = cnn_kernel_area(c, l);
        lay->woff[l] = cnn_offset(c, l, false);
        lay->boff[l] = cnn_offset(c, l, true);
    }
    lay->width[lay->nlayers] = spec->nclasses;
    lay->nparams = cnn_nparams(c);
    const cnn_geom_t *g = cnn_layers(c, &lay->ngeoms);
    memcpy(lay->geom, g, (size_t)lay->ngeoms * sizeof *g);
    return c;
}

static void cnn_kind_destroy(void *state) { cnn_destroy(state); }

static double cnn_kind_loss_grad(void *state, const float *params, const float *x,
                                 const int32_t *y, int batch, float *grad)
{
    return cnn_loss_grad(state, params, x, y, batch, grad);
}

static int64_t cnn_kind_evaluate_rows(void *state, const float *params, const float *x,
                                      const int32_t *y, int rows, double *row_loss)
{
    return cnn_evaluate_rows(state, params, x, y, rows, row_loss);
}

const model_kind_t model_kind_cnn = {
    .name = "cnn",
    .example = "{\"kind\": \"cnn\", \"input\": {\"height\": 6, \"width\": 6},"
               " \"layers\": [{\"conv\": {\"out\": 3, \"k\": 3, \"pad\": 1}},"
               " {\"pool\": {\"max\": 2}}, {\"conv\": {\"out\": 4, \"k\": 2}}, {\"fc\": 5}]}",
    .keys = cnn_keys,
    .parse = cnn_parse,
    .check = cnn_check,
    .fit_input = cnn_fit_input,
    .nparams = cnn_nparams_of,
    .workspace_bytes = cnn_workspace_bytes,
    .create = cnn_kind_create,
    .destroy = cnn_kind_destroy,
    .loss_grad = cnn_kind_loss_grad,
    .evaluate_rows = cnn_kind_evaluate_rows,
    .flops_per_sample = cnn_flops,
    .describe = cnn_describe,
    .cuda = MODEL_CUDA_LAYERS,
};
