/* Runs as the analysis sees them (groups.h): configurations flattened to dotted keys, and
 * the sweep axes a run stored. */
#include "analysis/groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "common/error.h"

static void flatten(const cJSON *v, const char *prefix, ana_kv_t **out, int *n)
{
    if (cJSON_IsObject(v)) {
        for (const cJSON *c = v->child; c; c = c->next) {
            size_t len = strlen(prefix) + strlen(c->string) + 2;
            char *p = sgd_xmalloc(len);
            snprintf(p, len, "%s%s%s", prefix, prefix[0] ? "." : "", c->string);
            flatten(c, p, out, n);
            free(p);
        }
        return;
    }
    *out = sgd_xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
    (*out)[*n].key = sgd_xstrdup(prefix);
    /* Strings without their JSON quotes: table headers read csgd, not "csgd". */
    (*out)[*n].value = cJSON_IsString(v) ? sgd_xstrdup(v->valuestring) : cJSON_PrintUnformatted(v);
    SGD_ASSERT((*out)[*n].value);
    (*n)++;
}

void ana_config_flatten(const char *config_json, ana_config_t *c)
{
    memset(c, 0, sizeof *c);
    cJSON *cfg = cJSON_Parse(config_json);
    if (cfg) flatten(cfg, "", &c->kv, &c->n);
    cJSON_Delete(cfg);
}

const char *ana_config_get(const ana_config_t *c, const char *key)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->kv[i].key, key) == 0) return c->kv[i].value;
    return "(absent)";
}

void ana_config_free(ana_config_t *c)
{
    for (int k = 0; k < c->n; k++) free(c->kv[k].key), free(c->kv[k].value);
    free(c->kv);
    memset(c, 0, sizeof *c);
}

/* runs.sweep_axes (a JSON array of key paths, or NULL) into r; anything else reads as no
 * stored axes. */
static void parse_axes(const char *json, ana_run_t *r)
{
    cJSON *a = json ? cJSON_Parse(json) : NULL;
    r->has_axes = cJSON_IsArray(a);
    for (const cJSON *e = r->has_axes ? a->child : NULL; e; e = e->next) {
        if (!cJSON_IsString(e)) continue;
        r->axes = sgd_xrealloc(r->axes, (size_t)(r->naxes + 1) * sizeof *r->axes);
        r->axes[r->naxes++] = sgd_xstrdup(e->valuestring);
    }
    cJSON_Delete(a);
}

void ana_run_init(ana_run_t *r, const char *scenario, const char *config_json,
                  const char *sweep_axes)
{
    memset(r, 0, sizeof *r);
    r->scenario = sgd_xstrdup(scenario ? scenario : "");
    ana_config_flatten(config_json, &r->cfg);
    parse_axes(sweep_axes, r);
}

void ana_run_free(ana_run_t *r)
{
    ana_config_free(&r->cfg);
    for (int a = 0; a < r->naxes; a++) free(r->axes[a]);
    free(r->axes);
    free(r->scenario);
    memset(r, 0, sizeof *r);
}
