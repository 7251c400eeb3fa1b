/* Splitting would-be series that mix configurations (series.h). */
#include "analysis/series.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/groups.h"
#include "common/error.h"

typedef struct runs {
    char **identity; /* ana_config_identity, NULL for text that is not an object */
    ana_config_t *cfg; /* the identity flattened */
    const int *group;
    int n;
} runs_t;

static bool same_identity(const runs_t *r, int i, int j)
{
    return r->identity[i] && r->identity[j] && strcmp(r->identity[i], r->identity[j]) == 0;
}

static bool same_values(const runs_t *r, int i, int j, char *const *keys, const bool *on,
                        int nkeys)
{
    for (int k = 0; k < nkeys; k++)
        if (on[k] && strcmp(ana_config_get(&r->cfg[i], keys[k]),
                            ana_config_get(&r->cfg[j], keys[k])) != 0)
            return false;
    return true;
}

/* Whether the keys switched on leave every series with runs of one configuration. */
static bool separates(const runs_t *r, char *const *keys, const bool *on, int nkeys)
{
    for (int i = 0; i < r->n; i++)
        for (int j = i + 1; j < r->n; j++)
            if (r->group[i] == r->group[j] && !same_identity(r, i, j) &&
                same_values(r, i, j, keys, on, nkeys))
                return false;
    return true;
}

static bool has_key(char *const *keys, int n, const char *key)
{
    for (int k = 0; k < n; k++)
        if (strcmp(keys[k], key) == 0) return true;
    return false;
}

/* Every key whose value differs between two runs of one series, in the order of the first
 * run that has it. */
static int candidates(const runs_t *r, char ***keys)
{
    int n = 0;
    *keys = NULL;
    for (int i = 0; i < r->n; i++)
        for (int j = 0; j < r->n; j++) {
            if (i == j || r->group[i] != r->group[j] || same_identity(r, i, j)) continue;
            const ana_config_t *c = &r->cfg[i];
            for (int k = 0; k < c->n; k++) {
                const char *key = c->kv[k].key;
                if (has_key(*keys, n, key) ||
                    strcmp(c->kv[k].value, ana_config_get(&r->cfg[j], key)) == 0)
                    continue;
                *keys = sgd_xrealloc(*keys, (size_t)(n + 1) * sizeof **keys);
                (*keys)[n++] = sgd_xstrdup(key);
            }
        }
    return n;
}

/* How much a key is wanted in a legend, the higher the better: the algorithm's name, then
 * the driver, the number of workers, then keys every run has (a key some runs lack, such as one algorithm's own
 * option, follows from the name). */
static int preference(const runs_t *r, const char *key)
{
    if (strcmp(key, "algorithm.name") == 0) return 4;
    if (strcmp(key, "algorithm.driver") == 0) return 3;
    if (strcmp(key, "cluster.workers") == 0) return 2; /* rather than algorithm.n, which follows */
    for (int i = 0; i < r->n; i++)
        if (r->identity[i] && strcmp(ana_config_get(&r->cfg[i], key), "(absent)") == 0)
            return 0;
    return 1;
}

/* Orders the keys by preference, keeping their order within one (a stable insertion sort). */
static void prefer(const runs_t *r, char **keys, int n)
{
    int *pref = sgd_xcalloc((size_t)n + 1, sizeof *pref);
    for (int i = 0; i < n; i++) pref[i] = preference(r, keys[i]);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && pref[j - 1] < pref[j]; j--) {
            char *k = keys[j];
            int p = pref[j];
            keys[j] = keys[j - 1], pref[j] = pref[j - 1];
            keys[j - 1] = k, pref[j - 1] = p;
        }
    free(pref);
}

int ana_series_split_keys(const char *const *config_json, const int *group, int n,
                          char ***keys)
{
    *keys = NULL;
    runs_t r = {sgd_xcalloc((size_t)n + 1, sizeof *r.identity),
                sgd_xcalloc((size_t)n + 1, sizeof *r.cfg), group, n};
    for (int i = 0; i < n; i++) {
        r.identity[i] = ana_config_identity(config_json[i]);
        ana_config_flatten(r.identity[i], &r.cfg[i]);
    }
    char **cand = NULL;
    int ncand = candidates(&r, &cand);
    prefer(&r, cand, ncand);
    bool *on = sgd_xcalloc((size_t)ncand + 1, sizeof *on);
    for (int k = 0; k < ncand; k++) on[k] = true;
    /* Minimal: drop each key, the last first, that the others do without. */
    if (ncand && separates(&r, cand, on, ncand))
        for (int k = ncand - 1; k >= 0; k--) {
            on[k] = false;
            if (!separates(&r, cand, on, ncand)) on[k] = true;
        }
    int nkeys = 0;
    for (int k = 0; k < ncand; k++) {
        if (on[k]) cand[nkeys++] = cand[k];
        else free(cand[k]);
    }
    if (nkeys) *keys = cand;
    else free(cand);
    free(on);
    for (int i = 0; i < n; i++) {
        free(r.identity[i]);
        ana_config_free(&r.cfg[i]);
    }
    free(r.identity);
    free(r.cfg);
    return nkeys;
}

char *ana_keys_join(char *const *keys, int n, const char *sep)
{
    size_t len = 1;
    for (int k = 0; k < n; k++) len += strlen(keys[k]) + strlen(sep);
    char *s = sgd_xmalloc(len);
    s[0] = '\0';
    for (int k = 0; k < n; k++) {
        if (k) strcat(s, sep);
        strcat(s, keys[k]);
    }
    return s;
}

void ana_series_keys_free(char **keys, int n)
{
    for (int k = 0; k < n; k++) free(keys[k]);
    free(keys);
}
