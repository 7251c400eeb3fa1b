/* The scenario loader's model section (scenario_sections.h).  The model object's keys are
 * the common ones -- "kind", "init", "cost_preset" -- and each registered kind's own
 * (models/model_kind.h), which the kind's parser reads; the loader knows no kind by name: it
 * asks the registry (models/model_registry.c).  kind "preset" is not a model but a cost-only
 * run (models/preset.h), the one kind the loader handles itself.  docs/scenario.md lists
 * every field. */
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "common/json.h"
#include "config/scenario_sections.h"
#include "models/model_kind.h"
#include "models/preset.h"

/* kind "preset": a cost-only run, whose model object names a preset and nothing else. */
static const char *const cost_only_kind = "preset";
static const char *const common_keys[] = {"kind", "init", "preset", "cost_preset", NULL};

#define MODEL_KINDS_MAX 64
#define MODEL_KEYS_MAX 128

/* The registered kinds' names and then "preset", NULL-terminated, into names. */
static void kind_names(const char **names)
{
    int n = 0;
    for (const model_kind_t *const *k = model_kinds; *k; k++) {
        SGD_ASSERT(n < MODEL_KINDS_MAX);
        names[n++] = (*k)->name;
    }
    names[n++] = cost_only_kind;
    names[n] = NULL;
}

static bool listed(const char *const *list, const char *key)
{
    for (; *list; list++)
        if (strcmp(*list, key) == 0) return true;
    return false;
}

/* The common keys and every kind's own, each once, NULL-terminated, into keys. */
static void model_keys(const char **keys)
{
    int n = 0;
    for (const char *const *c = common_keys; *c; c++) keys[n++] = *c;
    for (const model_kind_t *const *k = model_kinds; *k; k++)
        for (const char *const *key = (*k)->keys; *key; key++) {
            keys[n] = NULL;
            if (listed(keys, *key)) continue;
            SGD_ASSERT(n < MODEL_KEYS_MAX);
            keys[n++] = *key;
        }
    keys[n] = NULL;
}

/* A key of the model object that kind `kind` does not take: the error names the kinds that
 * do. */
static int foreign_key(const sgd_jobj_t *m, const char *key, const char *kind, sgd_err_t *err)
{
    char takers[256] = "";
    size_t len = 0;
    int n = 0;
    for (const model_kind_t *const *k = model_kinds; *k && len < sizeof takers - 64; k++)
        if (listed((*k)->keys, key))
            len += (size_t)snprintf(takers + len, sizeof takers - len, "%s\"%s\"",
                                    n++ ? " or " : "", (*k)->name);
    return sgd_errf(err, "%s.%s: not valid with kind \"%s\" (only with kind %s)", m->path, key,
                    kind, takers);
}

/* Refuses every key of the other kinds that m holds. */
static int refuse_foreign_keys(const sgd_jobj_t *m, const model_kind_t *kind, sgd_err_t *err)
{
    const char *keys[MODEL_KEYS_MAX + 1];
    model_keys(keys);
    for (const char *const *key = keys; *key; key++)
        if (!listed(common_keys, *key) && !listed(kind->keys, *key) && sgd_jobj_has(m, *key))
            return foreign_key(m, *key, kind->name, err);
    return 0;
}

/* model.kind "preset": a cost-only model, which has no numerics, so nothing of a real model
 * applies; the preset says what it costs. */
static int parse_cost_only(const sgd_jobj_t *m, scn_t *s, sgd_err_t *err)
{
    const char *keys[MODEL_KEYS_MAX + 1];
    model_keys(keys);
    for (const char *const *k = keys; *k; k++)
        if (strcmp(*k, "kind") != 0 && strcmp(*k, "preset") != 0 && sgd_jobj_has(m, *k))
            return sgd_errf(err, "%s.%s: not valid with kind \"%s\" (a cost-only model has no "
                                 "numerics)", m->path, *k, cost_only_kind);
    if (sgd_jobj_enum(m, "preset", model_preset_names, -1, &s->cost_preset, err)) return -1;
    s->cost_only = true;
    s->model = (model_spec_t){.kind = NULL};
    return 0;
}

/* What the data section says of the data before it is read, for the kind's parser. */
static model_data_shape_t data_shape(const scn_t *s)
{
    if (s->data.source == SCN_DATA_SYNTHETIC)
        return (model_data_shape_t){.dim = s->data.synth_dim, .classes = s->data.synth_classes};
    return (model_data_shape_t){.dim = 0, .classes = DATASET_IDX_MAX_CLASSES};
}

/* A model with numerics: its initialisation, the optional cost_preset it is timed as, and
 * then the kind's own keys, which its parser reads. */
static int parse_real_model(const sgd_jobj_t *m, const model_kind_t *kind, scn_t *s,
                            sgd_err_t *err)
{
    static const char *const inits[] = {"normal01", "he", "glorot", NULL};
    static const model_init_t init_of[] = {MODEL_INIT_NORMAL01, MODEL_INIT_HE, MODEL_INIT_GLOROT};
    int init;
    if (sgd_jobj_has(m, "preset"))
        return sgd_errf(err, "%s.preset: only valid with kind \"%s\" (for a real model "
                             "timed as a preset, use cost_preset)", m->path, cost_only_kind);
    if (refuse_foreign_keys(m, kind, err) || sgd_jobj_enum(m, "init", inits, 1, &init, err))
        return -1;
    s->init = init_of[init];
    if (sgd_jobj_has(m, "cost_preset") &&
        sgd_jobj_enum(m, "cost_preset", model_preset_names, -1, &s->cost_preset, err))
        return -1;
    /* The "cuda" backend computes only the networks it has kernels for: a scenario's error,
     * whatever machine it is checked on. */
    if (kind->cuda == MODEL_CUDA_NONE && strcmp(s->backend, "cuda") == 0)
        return sgd_errf(err, "%s.kind: backend \"cuda\" has no kernels for kind \"%s\" (use "
                             "backend \"cpu\")", m->path, kind->name);
    s->model = (model_spec_t){.kind = kind};
    model_data_shape_t data = data_shape(s);
    return kind->parse(m, &data, &s->model, err);
}

int scn_parse_model(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t m;
    const char *names[MODEL_KINDS_MAX + 2], *keys[MODEL_KEYS_MAX + 1];
    kind_names(names);
    model_keys(keys);
    int def = 0, kind;
    while (names[def] && strcmp(names[def], model_kind_default) != 0) def++;
    SGD_ASSERT(names[def]);
    if (sgd_jobj_child(root, "model", &m, err) || sgd_jobj_check_keys(&m, keys, err) ||
        sgd_jobj_enum(&m, "kind", names, def, &kind, err))
        return -1;
    s->cost_preset = -1;
    if (strcmp(names[kind], cost_only_kind) == 0) return parse_cost_only(&m, s, err);
    return parse_real_model(&m, model_kind_find(names[kind]), s, err);
}
