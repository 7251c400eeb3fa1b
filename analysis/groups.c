/* Runs as the analysis sees them (groups.h): configurations flattened to dotted keys, and
 * the sweep axes a run stored; configurations x seeds. */
#include "analysis/groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "common/error.h"
#include "common/json.h"

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
    (*out)[*n].json = cJSON_PrintUnformatted(v);
    SGD_ASSERT((*out)[*n].json);
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
    for (int k = 0; k < c->n; k++) free(c->kv[k].key), free(c->kv[k].value), free(c->kv[k].json);
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

/* ---- configurations x seeds ----------------------------------------------------------- */

/* Removes the member at dotted path `path` of root, if there is one. */
static void remove_path(cJSON *root, const char *path)
{
    char buf[SGD_JPATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *node = root;
    char *p = buf, *dot;
    while (node && (dot = strchr(p, '.'))) {
        *dot = '\0';
        node = cJSON_GetObjectItemCaseSensitive(node, p);
        p = dot + 1;
    }
    if (cJSON_IsObject(node)) cJSON_DeleteItemFromObjectCaseSensitive(node, p);
}

bool ana_key_changes_results(const char *key)
{
    for (int i = 0; sgd_config_unhashed[i]; i++)
        if (strcmp(key, sgd_config_unhashed[i]) == 0) return false;
    return true;
}

char *ana_config_identity(const char *config_json)
{
    cJSON *c = config_json ? cJSON_Parse(config_json) : NULL;
    if (!cJSON_IsObject(c)) {
        cJSON_Delete(c);
        return NULL;
    }
    remove_path(c, "seed");
    for (int i = 0; sgd_config_unhashed[i]; i++) remove_path(c, sgd_config_unhashed[i]);
    char *s = sgd_json_print(c, true);
    cJSON_Delete(c);
    return s;
}

const char *ana_build_name(const char *build)
{
    return build && *build ? build : "(unknown build)";
}

char *ana_run_identity(const char *config_json, const char *build, bool pool_builds)
{
    char *config = ana_config_identity(config_json);
    if (!config || pool_builds) return config;
    /* A newline never occurs in canonical JSON, so the build cannot run into it. */
    size_t n = strlen(config) + strlen(ana_build_name(build)) + 9;
    char *id = sgd_xmalloc(n);
    snprintf(id, n, "%s\nbuild=%s", config, ana_build_name(build));
    free(config);
    return id;
}

static bool same_config(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Adds run i to g: replaces an earlier run of its seed with a larger id, else inserts it in
 * seed order. */
static void group_add(ana_group_t *g, const int64_t *id, const int64_t *seed, int i)
{
    for (int k = 0; k < g->n; k++)
        if (seed[g->idx[k]] == seed[i]) {
            if (id[i] > id[g->idx[k]]) g->idx[k] = i;
            return;
        }
    int at = g->n;
    while (at > 0 && seed[g->idx[at - 1]] > seed[i]) at--;
    memmove(g->idx + at + 1, g->idx + at, (size_t)(g->n - at) * sizeof *g->idx);
    g->idx[at] = i;
    g->n++;
}

int ana_group_seeds(char *const *identity, const int64_t *id, const int64_t *seed, int n,
                    ana_group_t **groups)
{
    ana_group_t *g = sgd_xcalloc((size_t)n + 1, sizeof *g);
    int ng = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < ng && !same_config(g[k].identity, identity[i])) k++;
        if (k == ng) {
            g[ng].identity = identity[i];
            g[ng++].idx = sgd_xcalloc((size_t)n, sizeof *g->idx);
        }
        group_add(&g[k], id, seed, i);
    }
    *groups = g;
    return ng;
}

void ana_groups_free(ana_group_t *g, int n)
{
    for (int k = 0; g && k < n; k++) free(g[k].idx);
    free(g);
}
