/* Sweep planning (see sweep_plan.h): --set list splitting, the cartesian product of the
 * axes in canonical order, validation of every point and its run key. */
#include "cli/sweep_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"
#include "config/scenario.h"

int cli_sweep_split(const char *assignment, char **key, char ***values, int *nvalues,
                    sgd_err_t *err)
{
    *key = NULL;
    *values = NULL;
    *nvalues = 0;
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return sgd_errf(err, "--set %s: expected key.path=value or key.path=v1,v2,...",
                        assignment);
    /* First pass: find the separating commas and check brackets and strings balance. */
    const char *v = eq + 1;
    size_t len = strlen(v);
    char stack[64];
    int depth = 0, in_str = 0, n = 1;
    for (size_t i = 0; i < len; i++) {
        char c = v[i];
        if (in_str) {
            if (c == '\\' && i + 1 < len) i++;
            else if (c == '"') in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '[' || c == '{') {
            if (depth == (int)sizeof stack)
                return sgd_errf(err, "--set %s: brackets nested too deeply", assignment);
            stack[depth++] = c == '[' ? ']' : '}';
        } else if (c == ']' || c == '}') {
            if (depth == 0 || stack[depth - 1] != c)
                return sgd_errf(err, "--set %s: unbalanced '%c' at character %zu of the value",
                                assignment, c, i + 1);
            depth--;
        } else if (c == ',' && depth == 0) {
            n++;
        }
    }
    if (in_str) return sgd_errf(err, "--set %s: unterminated string in the value", assignment);
    if (depth)
        return sgd_errf(err, "--set %s: missing '%c' in the value", assignment,
                        stack[depth - 1]);

    char **vals = sgd_xcalloc((size_t)n, sizeof *vals);
    int k = 0;
    const char *start = v;
    depth = 0;
    in_str = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = v[i];
        if (i < len && in_str) {
            if (c == '\\' && i + 1 < len) i++;
            else if (c == '"') in_str = 0;
            continue;
        }
        if (c == '"') in_str = 1;
        else if (c == '[' || c == '{') depth++;
        else if (c == ']' || c == '}') depth--;
        else if ((c == ',' && depth == 0) || c == '\0') {
            size_t m = (size_t)(v + i - start);
            if (m == 0) {
                for (int j = 0; j < k; j++) free(vals[j]);
                free(vals);
                return sgd_errf(err, "--set %s: empty value in the list (value %d)",
                                assignment, k + 1);
            }
            vals[k] = sgd_xmalloc(m + 1);
            memcpy(vals[k], start, m);
            vals[k][m] = '\0';
            k++;
            start = v + i + 1;
        }
    }
    SGD_ASSERT(k == n);
    size_t klen = (size_t)(eq - assignment);
    *key = sgd_xmalloc(klen + 1);
    memcpy(*key, assignment, klen);
    (*key)[klen] = '\0';
    *values = vals;
    *nvalues = n;
    return 0;
}

typedef struct axis {
    char *key;
    char **values;
    int nvalues;
} axis_t;

static void axis_free(axis_t *a)
{
    for (int i = 0; i < a->nvalues; i++) free(a->values[i]);
    free(a->values);
    free(a->key);
}

typedef struct key_index {
    const char *key;
    int index;
} key_index_t;

/* Equal keys sort by index, so the first occurrence of each key comes first. */
static int cmp_key_index(const void *pa, const void *pb)
{
    const key_index_t *a = pa, *b = pb;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

static char *join_assignment(const char *key, const char *value)
{
    size_t n = strlen(key) + strlen(value) + 2;
    char *s = sgd_xmalloc(n);
    snprintf(s, n, "%s=%s", key, value);
    return s;
}

/* A flag (--blas-core, --threads) over a key that an axis also sets would make every point
 * take the flag's value: refused, naming both. */
static int check_flags_against_axes(const axis_t *axes, int naxes, const cli_sweep_plan_opts_t *o,
                                    sgd_err_t *err)
{
    const scn_numerics_flags_t *f = o->flags;
    for (int i = 0; f && i < naxes; i++) {
        const char *k = axes[i].key, *flag = NULL;
        char threads[48];
        snprintf(threads, sizeof threads, "--threads %lld", (long long)f->threads);
        bool whole = strcmp(k, "numerics") == 0;
        if (f->blas_core && (whole || strcmp(k, "numerics.blas_core") == 0))
            flag = f->blas_core_label;
        else if (f->threads >= 0 && (whole || strcmp(k, "numerics.threads") == 0))
            flag = threads;
        if (flag)
            return sgd_errf(err, "%s: the sweep also has a %s axis (%d values); give one or "
                                 "the other", flag, k, axes[i].nvalues);
    }
    return 0;
}

/* Loads point p of `total` with its overrides, resolves its numerics and fills in what the
 * sweep needs to run it; errors name the point. */
static int load_point(const char *path, const scn_override_t *ov, int nov,
                      const cli_sweep_plan_opts_t *o, int64_t p, int64_t total,
                      cli_sweep_point_t *pt, sgd_err_t *err)
{
    scn_t s;
    int rc = scn_load(path, ov, nov, o->seed, alg_scenario_table, &s, err);
    if (rc == 0 && (rc = scn_resolve_numerics(&s, o->flags, o->machine, err)) != 0)
        scn_free(&s);
    if (rc == 0) {
        memcpy(pt->run_key, s.config_hash, sizeof pt->run_key);
        memcpy(pt->blas_core, s.numerics.blas_core, sizeof pt->blas_core);
        pt->threads_auto = s.numerics.threads == 0 ? s.numerics.threads_resolved : 0;
        scn_free(&s);
        return 0;
    }
    char prefix[SGD_ERR_MAX / 2];
    snprintf(prefix, sizeof prefix, "sweep point %lld of %lld (%s)", (long long)p + 1,
             (long long)total, pt->nsets ? pt->label : "the scenario as is");
    return sgd_err_prefix(err, prefix);
}

int cli_sweep_plan(const char *path, const cli_sweep_plan_opts_t *o, cli_sweep_plan_t *plan,
                   sgd_err_t *err)
{
    memset(plan, 0, sizeof *plan);
    const char *const *sets = o->lists;
    const uint64_t *seed = o->seed;
    int nsets = o->nlists;
    scn_t base;
    if (scn_load(path, NULL, 0, seed, alg_scenario_table, &base, err)) return -1;
    axis_t *axes = sgd_xcalloc((size_t)(base.nsweep + nsets) + 1, sizeof *axes);
    int naxes = 0, rc = -1;
    cli_sweep_point_t *all = NULL;
    int64_t total = 1;
    for (int i = 0; i < base.nsweep; i++) {
        axis_t *a = &axes[naxes++];
        a->key = sgd_xstrdup(base.sweep[i].key);
        a->nvalues = base.sweep[i].nvalues;
        a->values = sgd_xcalloc((size_t)a->nvalues, sizeof *a->values);
        for (int j = 0; j < a->nvalues; j++) a->values[j] = sgd_xstrdup(base.sweep[i].values[j]);
    }
    for (int i = 0; i < nsets; i++) {
        axis_t a;
        if (cli_sweep_split(sets[i], &a.key, &a.values, &a.nvalues, err)) goto out;
        int j = 0;
        while (j < naxes && strcmp(axes[j].key, a.key) != 0) j++;
        if (j < naxes) axis_free(&axes[j]); /* the command line overrides the file */
        else naxes++;
        axes[j] = a;
    }
    for (int i = 0; i < naxes; i++) {
        /* --seed is applied after every --set, so it would silently collapse a seed axis. */
        if (seed && strcmp(axes[i].key, "seed") == 0) {
            sgd_errf(err, "--seed %llu: the sweep also has a seed axis (%d values); give one "
                     "or the other", (unsigned long long)*seed, axes[i].nvalues);
            goto out;
        }
        total *= axes[i].nvalues;
        if (total > CLI_SWEEP_MAX_POINTS) {
            sgd_errf(err, "%s: the sweep has more than %d points; split it into several sweeps",
                     path, CLI_SWEEP_MAX_POINTS);
            goto out;
        }
    }
    if (check_flags_against_axes(axes, naxes, o, err)) goto out;

    all = sgd_xcalloc((size_t)total, sizeof *all);
    int *digit = sgd_xcalloc((size_t)naxes + 1, sizeof *digit);
    scn_override_t *ov = sgd_xcalloc((size_t)naxes + 1, sizeof *ov);
    int nbuilt = 0;
    for (int64_t p = 0; p < total; p++) {
        cli_sweep_point_t *pt = &all[nbuilt];
        pt->nsets = naxes;
        pt->sets = sgd_xcalloc((size_t)naxes + 1, sizeof *pt->sets);
        size_t label_len = 1;
        for (int a = 0; a < naxes; a++) {
            pt->sets[a] = join_assignment(axes[a].key, axes[a].values[digit[a]]);
            ov[a].assignment = pt->sets[a];
            label_len += strlen(pt->sets[a]) + 1;
        }
        pt->label = sgd_xmalloc(label_len);
        pt->label[0] = '\0';
        for (int a = 0; a < naxes; a++) {
            if (a) strcat(pt->label, " ");
            strcat(pt->label, pt->sets[a]);
        }
        nbuilt++;
        if (load_point(path, ov, naxes, o, p, total, pt, err)) {
            free(digit);
            free(ov);
            plan->points = all;
            plan->npoints = nbuilt;
            goto out;
        }
        /* Next point: the last axis varies fastest. */
        for (int a = naxes - 1; a >= 0; a--) {
            if (++digit[a] < axes[a].nvalues) break;
            digit[a] = 0;
        }
    }
    free(digit);
    free(ov);

    /* Drop repeated run keys (e.g. --set cluster.workers=4,4, or a value equal to the
     * default listed next to the default itself): one key is one run. */
    key_index_t *ki = sgd_xcalloc((size_t)total, sizeof *ki);
    for (int64_t p = 0; p < total; p++) ki[p] = (key_index_t){all[p].run_key, (int)p};
    qsort(ki, (size_t)total, sizeof *ki, cmp_key_index);
    char *dup = sgd_xcalloc((size_t)total, 1);
    for (int64_t p = 1; p < total; p++)
        if (strcmp(ki[p].key, ki[p - 1].key) == 0) dup[ki[p].index] = 1;
    free(ki);
    int kept = 0;
    for (int64_t p = 0; p < total; p++) {
        if (dup[p]) {
            for (int a = 0; a < all[p].nsets; a++) free(all[p].sets[a]);
            free(all[p].sets);
            free(all[p].label);
        } else {
            all[kept++] = all[p];
        }
    }
    free(dup);
    plan->points = all;
    plan->npoints = kept;
    plan->nproduct = total;
    plan->naxes = naxes;
    all = NULL;
    rc = 0;
out:
    for (int i = 0; i < naxes; i++) axis_free(&axes[i]);
    free(axes);
    scn_free(&base);
    if (rc) cli_sweep_plan_free(plan);
    return rc;
}

void cli_sweep_plan_free(cli_sweep_plan_t *plan)
{
    for (int p = 0; p < plan->npoints; p++) {
        for (int a = 0; a < plan->points[p].nsets; a++) free(plan->points[p].sets[a]);
        free(plan->points[p].sets);
        free(plan->points[p].label);
    }
    free(plan->points);
    memset(plan, 0, sizeof *plan);
}

int cli_sweep_parse_shard(const char *arg, int *index, int *count, sgd_err_t *err)
{
    const char *slash = strchr(arg, '/');
    char *end1 = NULL, *end2 = NULL;
    long i = -1, n = -1;
    if (slash && slash != arg && slash[1]) {
        errno = 0;
        i = strtol(arg, &end1, 10);
        n = strtol(slash + 1, &end2, 10);
        if (errno || end1 != slash || *end2 || arg[0] == '-' || arg[0] == '+' ||
            slash[1] == '-' || slash[1] == '+')
            i = n = -1;
    }
    if (i < 0 || n < 0)
        return sgd_errf(err, "--shard %s: expected I/N with integers 0 <= I < N, e.g. 0/4", arg);
    if (n < 1 || n > 1000000)
        return sgd_errf(err, "--shard %s: the number of shards N must be in 1..1000000", arg);
    if (i >= n)
        return sgd_errf(err, "--shard %s: shard index %ld out of range: shards are numbered "
                        "0..%ld", arg, i, n - 1);
    *index = (int)i;
    *count = (int)n;
    return 0;
}
