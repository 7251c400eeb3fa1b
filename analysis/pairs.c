/* Which configurations compare sets side by side (pairs.h): the key lists of --match-on
 * and --ignore, each side's configurations x seeds with their signatures, the pairs, and
 * for a configuration without a partner the keys in which the nearest one differs. */
#include "analysis/pairs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "common/json.h"

/* ---- key lists ------------------------------------------------------------------------ */

/* A key path: words of letters, digits and '_' joined by single dots. */
static bool key_well_formed(const char *k, size_t len)
{
    static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_";
    if (len == 0 || k[0] == '.' || k[len - 1] == '.') return false;
    for (size_t i = 0; i < len; i++)
        if (k[i] == '.' ? k[i + 1] == '.' : !strchr(word, k[i])) return false;
    return true;
}

int ana_keys_parse(const char *value, const char *opt, ana_keys_t *keys, sgd_err_t *err)
{
    for (const char *p = value;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!key_well_formed(p, len))
            return sgd_errf(err, "%s %s: expected configuration keys (like optimizer.lr) "
                                 "separated by commas", opt, value);
        keys->v = sgd_xrealloc(keys->v, (size_t)(keys->n + 1) * sizeof *keys->v);
        keys->v[keys->n] = sgd_xmalloc(len + 1);
        memcpy(keys->v[keys->n], p, len);
        keys->v[keys->n++][len] = '\0';
        if (!comma) return 0;
        p = comma + 1;
    }
}

void ana_keys_free(ana_keys_t *keys)
{
    for (int i = 0; i < keys->n; i++) free(keys->v[i]);
    free(keys->v);
    *keys = (ana_keys_t){0};
}

static bool keys_have(const ana_keys_t *keys, const char *k)
{
    for (int i = 0; i < keys->n; i++)
        if (strcmp(keys->v[i], k) == 0) return true;
    return false;
}

/* ---- key paths in a configuration ----------------------------------------------------- */

/* The object member at dotted path `path` of `root` (objects only), or NULL. */
static cJSON *config_at(cJSON *root, const char *path)
{
    cJSON *node = root;
    for (const char *p = path; node && *p;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char name[SGD_JPATH_MAX];
        if (!cJSON_IsObject(node) || len >= sizeof name) return NULL;
        memcpy(name, p, len);
        name[len] = '\0';
        node = cJSON_GetObjectItemCaseSensitive(node, name);
        p = dot ? dot + 1 : p + len;
    }
    return node;
}

/* Removes the member at `path` of `root`, if there is one. */
static void config_remove(cJSON *root, const char *path)
{
    const char *dot = strrchr(path, '.');
    cJSON *parent = root;
    if (dot) {
        char head[SGD_JPATH_MAX];
        size_t len = (size_t)(dot - path);
        if (len >= sizeof head) return;
        memcpy(head, path, len);
        head[len] = '\0';
        parent = config_at(root, head);
    }
    if (cJSON_IsObject(parent))
        cJSON_DeleteItemFromObjectCaseSensitive(parent, dot ? dot + 1 : path);
}

/* Whether some run of runs[0..n) has configuration key k (a leaf or an object). */
static bool runs_have_key(const ana_pair_run_t *runs, int n, const char *k)
{
    bool found = false;
    for (int i = 0; i < n && !found; i++) {
        cJSON *c = cJSON_Parse(runs[i].config_json ? runs[i].config_json : "");
        found = config_at(c, k) != NULL;
        cJSON_Delete(c);
    }
    return found;
}

/* ---- the rule's checks ---------------------------------------------------------------- */

static int check_keys(const ana_keys_t *keys, const char *opt, const ana_pair_run_t *b,
                      int nb, const ana_pair_run_t *c, int nc, sgd_err_t *err)
{
    for (int i = 0; i < keys->n; i++)
        if (!runs_have_key(b, nb, keys->v[i]) && !runs_have_key(c, nc, keys->v[i]))
            return sgd_errf(err, "%s %s: no finished run of either database has this "
                                 "configuration key", opt, keys->v[i]);
    return 0;
}

static int check_match(const ana_match_t *m, const ana_pair_run_t *b, int nb,
                       const ana_pair_run_t *c, int nc, sgd_err_t *err)
{
    if (keys_have(&m->match_on, "seed"))
        return sgd_errf(err, "--match-on seed: the seed is never matched on; each "
                             "configuration's seeds are the sample a verdict is drawn from");
    for (int i = 0; i < m->ignore.n; i++) {
        const char *k = m->ignore.v[i];
        if (keys_have(&m->match_on, k))
            return sgd_errf(err, "--ignore %s: the key is also in --match-on", k);
        /* --match-on leaves out every other key already: ignoring one would do nothing. */
        if (m->match_on.n && strcmp(k, "seed") != 0)
            return sgd_errf(err, "--ignore %s: with --match-on only the seed can be ignored "
                                 "(the other keys are not matched on)", k);
    }
    return check_keys(&m->match_on, "--match-on", b, nb, c, nc, err) ||
           check_keys(&m->ignore, "--ignore", b, nb, c, nc, err) ? -1 : 0;
}

/* ---- signatures ----------------------------------------------------------------------- */

/* --ignore: the canonical configuration without the ignored keys, the seed and the keys
 * that change no result. */
static char *sig_without(cJSON *config, const ana_keys_t *ignore)
{
    for (int i = 0; i < ignore->n; i++) config_remove(config, ignore->v[i]);
    config_remove(config, "seed");
    for (int i = 0; sgd_config_unhashed[i]; i++) config_remove(config, sgd_config_unhashed[i]);
    return sgd_json_print(config, true);
}

/* --match-on: an object of the matched keys' values (by path; an absent key is left out). */
static char *sig_of_keys(cJSON *config, const ana_keys_t *match_on)
{
    cJSON *o = cJSON_CreateObject();
    SGD_ASSERT(o);
    for (int i = 0; i < match_on->n; i++) {
        cJSON *v = config_at(config, match_on->v[i]);
        if (v) cJSON_AddItemToObject(o, match_on->v[i], cJSON_Duplicate(v, true));
    }
    char *sig = sgd_json_print(o, true);
    cJSON_Delete(o);
    return sig;
}

/* The signature of a configuration under m; a configuration that is not JSON matches
 * nothing but itself (its text). */
static char *signature(const char *config_json, const ana_match_t *m)
{
    cJSON *c = cJSON_Parse(config_json ? config_json : "");
    char *sig = !cJSON_IsObject(c) ? sgd_xstrdup(config_json ? config_json : "")
                : m->match_on.n    ? sig_of_keys(c, &m->match_on)
                                   : sig_without(c, &m->ignore);
    cJSON_Delete(c);
    return sig;
}

/* The distinct builds among the runs of identity id (before each seed's latest is kept). */
static int count_builds(const ana_pair_run_t *runs, char *const *identity, int n, const char *id)
{
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (!id || !identity[i] || strcmp(identity[i], id) != 0) continue;
        const char *b = ana_build_name(runs[i].build);
        int k = 0;
        while (k < i && !(identity[k] && strcmp(identity[k], id) == 0 &&
                          strcmp(ana_build_name(runs[k].build), b) == 0))
            k++;
        count += k == i;
    }
    return count;
}

/* Groups one side's runs and signs each configuration. */
static void side_build(ana_side_t *s, const ana_pair_run_t *runs, int n, const ana_match_t *m)
{
    *s = (ana_side_t){.nruns = n};
    s->identity = sgd_xcalloc((size_t)n + 1, sizeof *s->identity);
    int64_t *id = sgd_xcalloc((size_t)n + 1, sizeof *id), *seed = sgd_xcalloc((size_t)n + 1,
                                                                               sizeof *seed);
    for (int i = 0; i < n; i++) {
        s->identity[i] = ana_run_identity(runs[i].config_json, runs[i].build, m->pool_builds);
        id[i] = runs[i].id, seed[i] = runs[i].seed;
    }
    s->ngroups = ana_group_seeds(s->identity, id, seed, n, &s->group);
    size_t ng = (size_t)s->ngroups + 1;
    s->sig = sgd_xcalloc(ng, sizeof *s->sig);
    s->flat = sgd_xcalloc(ng, sizeof *s->flat);
    s->config = sgd_xcalloc(ng, sizeof *s->config);
    s->build = sgd_xcalloc(ng, sizeof *s->build);
    s->nbuilds = sgd_xcalloc(ng, sizeof *s->nbuilds);
    for (int g = 0; g < s->ngroups; g++) {
        const ana_group_t *gr = &s->group[g];
        const char *json = runs[gr->idx[0]].config_json;
        s->sig[g] = signature(json, m);
        ana_config_flatten(json, &s->flat[g]);
        s->config[g] = ana_config_identity(json);
        s->build[g] = ana_build_name(runs[gr->idx[0]].build);
        s->nbuilds[g] = count_builds(runs, s->identity, n, gr->identity);
    }
    free(id);
    free(seed);
}

static void side_free(ana_side_t *s)
{
    for (int i = 0; i < s->nruns; i++) free(s->identity[i]);
    for (int g = 0; g < s->ngroups; g++)
        free(s->sig[g]), free(s->config[g]), ana_config_free(&s->flat[g]);
    ana_groups_free(s->group, s->ngroups);
    free(s->identity), free(s->sig), free(s->flat), free(s->config), free(s->build);
    free(s->nbuilds);
    *s = (ana_side_t){0};
}

/* How many configurations of s have signature sig; *first: the first of them; *one_config:
 * whether they all are one configuration (of several builds). */
static int side_count(const ana_side_t *s, const char *sig, int *first, bool *one_config)
{
    int n = 0;
    *first = -1;
    *one_config = true;
    for (int g = 0; g < s->ngroups; g++) {
        if (strcmp(s->sig[g], sig) != 0) continue;
        if (n++ == 0) *first = g;
        else *one_config &= s->config[g] && s->config[*first] &&
                            strcmp(s->config[g], s->config[*first]) == 0;
    }
    return n;
}

/* ---- what differs from the nearest configuration --------------------------------------- */

/* Whether key k takes part in the match under m (the seed and unhashed keys never do). */
static bool key_matched(const char *k, const ana_match_t *m)
{
    if (strcmp(k, "seed") == 0 || !ana_key_changes_results(k)) return false;
    if (m->match_on.n) return keys_have(&m->match_on, k);
    for (int i = 0; i < m->ignore.n; i++) {
        size_t len = strlen(m->ignore.v[i]);
        if (strncmp(k, m->ignore.v[i], len) == 0 && (k[len] == '\0' || k[len] == '.'))
            return false;
    }
    return true;
}

/* Appends "key=a->b" for each matched key in which a and b differ (keys of a, then those
 * only b has); returns how many. */
static int config_diff(const ana_config_t *a, const ana_config_t *b, const ana_match_t *m,
                       char *buf, size_t size)
{
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const ana_config_t *x = pass ? b : a, *y = pass ? a : b;
        for (int i = 0; i < x->n; i++) {
            const char *k = x->kv[i].key, *vy = ana_config_get(y, k);
            if (!key_matched(k, m) || (pass && strcmp(vy, "(absent)") != 0)) continue;
            if (strcmp(x->kv[i].value, vy) == 0) continue;
            size_t len = buf ? strlen(buf) : 0;
            if (buf && len < size)
                snprintf(buf + len, size - len, "%s%s=%s->%s", n ? "," : "", k,
                         pass ? vy : x->kv[i].value, pass ? x->kv[i].value : vy);
            n++;
        }
    }
    return n;
}

/* "key=b->c,..." against the candidate configuration with the fewest differing keys. */
static char *nearest_diff(const ana_config_t *b, const ana_side_t *cand, const ana_match_t *m)
{
    int best = -1, best_n = 0;
    for (int g = 0; g < cand->ngroups; g++) {
        int n = config_diff(b, &cand->flat[g], m, NULL, 0);
        if (best < 0 || n < best_n) best = g, best_n = n;
    }
    if (best < 0) return NULL;
    char buf[1024] = "";
    config_diff(b, &cand->flat[best], m, buf, sizeof buf);
    return sgd_xstrdup(buf);
}

/* ---- pairing -------------------------------------------------------------------------- */

static ana_pair_t pair_one(const ana_pairing_t *p, int g, const ana_match_t *m)
{
    int first, unused;
    bool one_c, one_b;
    ana_pair_t r = {.base = g, .cand = -1};
    r.ncand = side_count(&p->cand, p->base.sig[g], &first, &one_c);
    r.nbase = side_count(&p->base, p->base.sig[g], &unused, &one_b);
    if (r.ncand == 0) {
        r.kind = ANA_UNPAIRED;
        r.differs = nearest_diff(&p->base.flat[g], &p->cand, m);
    } else if (r.nbase > 1 || r.ncand > 1) {
        r.kind = ANA_AMBIGUOUS_PAIR;
        r.by_build = one_b && one_c;
    } else {
        r.kind = ANA_PAIRED, r.cand = first;
    }
    return r;
}

int ana_pair_runs(const ana_pair_run_t *base, int nb, const ana_pair_run_t *cand, int nc,
                  const ana_match_t *m, ana_pairing_t *p, sgd_err_t *err)
{
    *p = (ana_pairing_t){0};
    if (check_match(m, base, nb, cand, nc, err)) return -1;
    side_build(&p->base, base, nb, m);
    side_build(&p->cand, cand, nc, m);
    p->npairs = p->base.ngroups;
    p->pair = sgd_xcalloc((size_t)p->npairs + 1, sizeof *p->pair);
    for (int g = 0; g < p->npairs; g++) p->pair[g] = pair_one(p, g, m);
    for (int g = 0, unused; g < p->cand.ngroups; g++) {
        bool one;
        if (side_count(&p->base, p->cand.sig[g], &unused, &one) == 0) p->nnew++;
    }
    return 0;
}

void ana_pairing_free(ana_pairing_t *p)
{
    for (int i = 0; i < p->npairs; i++) free(p->pair[i].differs);
    free(p->pair);
    side_free(&p->base);
    side_free(&p->cand);
    *p = (ana_pairing_t){0};
}

bool ana_pair_kernel_only(const ana_pairing_t *p, const ana_pair_t *pair)
{
    if (pair->kind != ANA_PAIRED) return false;
    const ana_config_t *a = &p->base.flat[pair->base], *b = &p->cand.flat[pair->cand];
    if (strcmp(p->base.build[pair->base], p->cand.build[pair->cand]) != 0 ||
        p->base.nbuilds[pair->base] > 1 || p->cand.nbuilds[pair->cand] > 1 || a->n != b->n)
        return false;
    bool kernel = false;
    for (int i = 0; i < a->n; i++) {
        const char *k = a->kv[i].key, *vb = ana_config_get(b, k);
        if (strcmp(a->kv[i].value, vb) == 0 || !ana_key_changes_results(k) ||
            strcmp(k, "seed") == 0)
            continue;
        if (strcmp(k, "numerics.blas_core") != 0) return false;
        kernel = true;
    }
    return kernel;
}

/* ---- in words ------------------------------------------------------------------------- */

static void append_keys(char *buf, size_t size, const ana_keys_t *keys)
{
    for (int i = 0; i < keys->n; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", i ? ", " : "", keys->v[i]);
    }
}

void ana_match_describe(const ana_match_t *m, char *buf, size_t size)
{
    buf[0] = '\0';
    if (m->match_on.n) {
        snprintf(buf, size, "on ");
        append_keys(buf, size, &m->match_on);
    } else if (m->ignore.n) {
        snprintf(buf, size, "on the configuration without ");
        append_keys(buf, size, &m->ignore);
    } else {
        snprintf(buf, size, "on the configuration");
    }
}
