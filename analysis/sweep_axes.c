/* A sweep's axes (sweep_axes.h): stored, or inferred from which keys vary and which follow
 * another. */
#include "analysis/sweep_axes.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"

static const char *cfg_get(const ana_run_t *r, const char *key)
{
    return ana_config_get(&r->cfg, key);
}

static bool varies(const ana_run_t *const *runs, int n, const char *key)
{
    for (int i = 1; i < n; i++)
        if (strcmp(cfg_get(runs[i], key), cfg_get(runs[0], key)) != 0) return true;
    return false;
}

static bool has_key(const char **keys, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0) return true;
    return false;
}

/* Whether key k's value follows key j's over the runs: runs that agree on j agree on k. */
static bool follows(const ana_run_t *const *runs, int n, const char *k, const char *j)
{
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (strcmp(cfg_get(runs[a], j), cfg_get(runs[b], j)) == 0 &&
                strcmp(cfg_get(runs[a], k), cfg_get(runs[b], k)) != 0)
                return false;
    return true;
}

/* Keys a runs column mirrors (runs.workers, runs.algorithm): of two keys that follow each
 * other, one of these is the one swept (algorithm.n defaults to cluster.workers, never the
 * other way). */
static bool primary_key(const char *key)
{
    return strcmp(key, "cluster.workers") == 0 || strcmp(key, "algorithm.name") == 0;
}

/* Whether candidate c[i] follows another candidate that stays an axis: one it follows
 * without that one following it back, or, when both follow each other, a primary key or
 * else the earlier one. */
static bool is_derived(const ana_run_t *const *runs, int n, const char **c, int nc, int i)
{
    for (int j = 0; j < nc; j++) {
        if (j == i || !follows(runs, n, c[i], c[j])) continue;
        if (!follows(runs, n, c[j], c[i])) return true;
        bool pi = primary_key(c[i]), pj = primary_key(c[j]);
        if (pj != pi ? pj : j < i) return true;
    }
    return false;
}

const char **ana_sweep_axes(const ana_run_t *const *runs, int n, int *naxes)
{
    bool stored = true;
    int cap = 1;
    for (int i = 0; i < n; i++) stored &= runs[i]->has_axes, cap += runs[i]->naxes;
    if (!stored) cap = runs[0]->cfg.n + 1;
    const char **c = sgd_xcalloc((size_t)cap, sizeof *c);
    int nc = 0;
    for (int i = 0; stored && i < n; i++)
        for (int a = 0; a < runs[i]->naxes; a++)
            if (!has_key(c, nc, runs[i]->axes[a])) c[nc++] = runs[i]->axes[a];
    for (int k = 0; !stored && k < runs[0]->cfg.n; k++) c[nc++] = runs[0]->cfg.kv[k].key;
    int m = 0;
    for (int i = 0; i < nc; i++)
        if (strcmp(c[i], "seed") != 0 && varies(runs, n, c[i])) c[m++] = c[i];
    const char **axes = sgd_xcalloc((size_t)m + 1, sizeof *axes);
    *naxes = 0;
    for (int i = 0; i < m; i++)
        if (stored || !is_derived(runs, n, c, m, i)) axes[(*naxes)++] = c[i];
    free(c);
    return axes;
}
