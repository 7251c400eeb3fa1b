/* Sweep planning (see sweep/plan.h): --set list splitting, the cartesian product of the
 * axes in canonical order, validation of every point and its run key.
 *
 * Cost: every point is loaded like `run` would load it.  Loading the file as it is would
 * re-read its sweep block at every point (an axis of n values costs O(n) per load, so
 * O(n^2) for the sweep: 5,000 seeds took a minute), so points are loaded from the file's
 * JSON with the sweep block taken out — which the loader ignores for the configuration
 * anyway — and duplicates are found by sorting the run keys: O(n log n) in all. */
#include "sweep/plan.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "algorithms/alg.h"
#include "sweep/zip.h"
#include "common/error.h"
#include "common/number.h"
#include "config/scenario.h"

int sweep_split(const char *assignment, char **key, char ***values, int *nvalues,
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
    int dim; /* the dimension it belongs to (sweep/zip.h) */
} axis_t;

/* The dimensions of the product: how many values each has. */
typedef struct dims {
    int *len;
    int n;
} dims_t;

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

/* How the points of one sweep are loaded: from `text` (the scenario without its sweep
 * block, resolved against `dir` like the file itself) when that gives the same base
 * configuration as the file, else from the file. */
typedef struct point_loader {
    const char *path;
    char *text;     /* NULL: load the file itself */
    char *dir_copy; /* dirname()'s storage */
    const char *dir;
} point_loader_t;

/* The scenario file's JSON without its "sweep" member, or NULL if the file cannot be read
 * again (it was just loaded, so the caller then simply loads the file per point). */
static char *text_without_sweep(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) text = sgd_xrealloc(text, cap = 2 * cap + 65536 + 1);
        size_t got = fread(text + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    text[n] = '\0';
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return NULL;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "sweep");
    char *out = sgd_json_print(doc, false); /* exact numbers: the same configuration */
    cJSON_Delete(doc);
    return out;
}

static void loader_init(point_loader_t *l, const char *path, const scn_t *base,
                        const uint64_t *seed)
{
    memset(l, 0, sizeof *l);
    l->path = path;
    l->dir_copy = sgd_xstrdup(path);
    l->dir = dirname(l->dir_copy); /* as scn_load resolves relative paths */
    if (base->nsweep == 0) return;  /* nothing to take out: the file is as quick */
    l->text = text_without_sweep(path);
    if (!l->text) return;
    /* Reprinting the JSON must not change the configuration (it keeps every number's
     * value; this makes sure), or the keys would not be those `run` computes. */
    scn_t check;
    sgd_err_t err = {{0}};
    bool same = scn_load_text(l->text, path, l->dir, NULL, 0, seed, alg_scenario_table, &check,
                              &err) == 0 &&
                strcmp(check.config_hash, base->config_hash) == 0;
    scn_free(&check); /* zeroed by a failed load, so freeing it is safe either way */
    if (!same) {
        free(l->text);
        l->text = NULL;
    }
}

static int loader_load(const point_loader_t *l, const scn_override_t *ov, int n,
                       const uint64_t *seed, scn_t *s, sgd_err_t *err)
{
    if (l->text)
        return scn_load_text(l->text, l->path, l->dir, ov, n, seed, alg_scenario_table, s, err);
    return scn_load(l->path, ov, n, seed, alg_scenario_table, s, err);
}

static void loader_free(point_loader_t *l)
{
    free(l->text);
    free(l->dir_copy);
    memset(l, 0, sizeof *l);
}

static char *join_assignment(const char *key, const char *value)
{
    size_t n = strlen(key) + strlen(value) + 2;
    char *s = sgd_xmalloc(n);
    snprintf(s, n, "%s=%s", key, value);
    return s;
}

/* The axes: the scenario's sweep block in file order, then the command line's lists (one
 * of the same key replaces the block's).  Returns the number of axes or -1. */
static int build_axes(const scn_t *base, const char *const *sets, int nsets, axis_t *axes,
                      sgd_err_t *err)
{
    int naxes = 0;
    for (int i = 0; i < base->nsweep; i++) {
        axis_t *a = &axes[naxes++];
        a->key = sgd_xstrdup(base->sweep[i].key);
        a->nvalues = base->sweep[i].nvalues;
        a->values = sgd_xcalloc((size_t)a->nvalues, sizeof *a->values);
        for (int j = 0; j < a->nvalues; j++) a->values[j] = sgd_xstrdup(base->sweep[i].values[j]);
    }
    for (int i = 0; i < nsets; i++) {
        axis_t a;
        if (sweep_split(sets[i], &a.key, &a.values, &a.nvalues, err)) return -1 - naxes;
        int j = 0;
        while (j < naxes && strcmp(axes[j].key, a.key) != 0) j++;
        if (j < naxes) axis_free(&axes[j]); /* the command line overrides the file */
        else naxes++;
        axes[j] = a;
    }
    return naxes;
}

/* Groups the axes into dimensions (zip groups of the file and of --zip). */
static int group_axes(const char *path, const scn_t *base, const sweep_plan_opts_t *o,
                      axis_t *axes, int naxes, dims_t *dims, sgd_err_t *err)
{
    sweep_axis_shape_t *shape = sgd_xcalloc((size_t)naxes + 1, sizeof *shape);
    int *dim_of = sgd_xcalloc((size_t)naxes + 1, sizeof *dim_of);
    dims->len = sgd_xcalloc((size_t)naxes + 1, sizeof *dims->len);
    for (int a = 0; a < naxes; a++)
        shape[a] = (sweep_axis_shape_t){axes[a].key, axes[a].nvalues};
    int rc = sweep_dims(path, base, o->zips, o->nzips, shape, naxes, dim_of, dims->len,
                        &dims->n, err);
    for (int a = 0; rc == 0 && a < naxes; a++) axes[a].dim = dim_of[a];
    free(dim_of);
    free(shape);
    return rc;
}

/* The size of the product, refusing a seed axis next to --seed and too many points. */
static int count_points(const char *path, const axis_t *axes, int naxes, const dims_t *dims,
                        const uint64_t *seed, int64_t *total, sgd_err_t *err)
{
    *total = 1;
    for (int i = 0; i < naxes; i++)
        /* --seed is applied after every --set, so it would silently collapse a seed axis. */
        if (seed && strcmp(axes[i].key, "seed") == 0)
            return sgd_errf(err, "--seed %llu: the sweep also has a seed axis (%d values); give "
                            "one or the other", (unsigned long long)*seed, axes[i].nvalues);
    for (int d = 0; d < dims->n; d++) {
        *total *= dims->len[d];
        if (*total > SWEEP_MAX_POINTS)
            return sgd_errf(err, "%s: the sweep has more than %d points; split it into several "
                            "sweeps", path, SWEEP_MAX_POINTS);
    }
    return 0;
}

/* Fills pt's assignments and label for the dimensions' values digit[]; ov[] points at them. */
static void fill_point(sweep_point_t *pt, const axis_t *axes, int naxes, const int *digit,
                       scn_override_t *ov)
{
    pt->nsets = naxes;
    pt->sets = sgd_xcalloc((size_t)naxes + 1, sizeof *pt->sets);
    size_t label_len = 1;
    for (int a = 0; a < naxes; a++) {
        pt->sets[a] = join_assignment(axes[a].key, axes[a].values[digit[axes[a].dim]]);
        ov[a].assignment = pt->sets[a];
        label_len += strlen(pt->sets[a]) + 1;
    }
    pt->label = sgd_xmalloc(label_len);
    char *o = pt->label;
    for (int a = 0; a < naxes; a++) {
        size_t n = strlen(pt->sets[a]);
        if (a) *o++ = ' ';
        memcpy(o, pt->sets[a], n);
        o += n;
    }
    *o = '\0';
}

static void point_free(sweep_point_t *pt)
{
    for (int a = 0; a < pt->nsets; a++) free(pt->sets[a]);
    free(pt->sets);
    free(pt->label);
}

/* A flag (--blas-core, --threads) over a key that an axis also sets would make every point
 * take the flag's value: refused, naming both. */
static int check_flags_against_axes(const axis_t *axes, int naxes, const sweep_plan_opts_t *o,
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

/* Keeps a point that did not load in plan->invalid (--skip-invalid) and frees the point. */
static void set_aside(sweep_plan_t *plan, int64_t index, sweep_point_t *pt,
                      const sgd_err_t *err)
{
    plan->invalid = sgd_xrealloc(plan->invalid, (size_t)(plan->ninvalid + 1) *
                                                    sizeof *plan->invalid);
    plan->invalid[plan->ninvalid++] = (sweep_invalid_t){
        .index = index, .label = sgd_xstrdup(pt->label), .error = sgd_xstrdup(err->msg)};
    point_free(pt);
    memset(pt, 0, sizeof *pt);
}

/* --skip-invalid: run's own check of the loaded point (alg_prepare_file), so that a point
 * its run would refuse is set aside too.  The CPU backend stands in for any other (planning
 * never starts a GPU); what this machine lacks keeps the point, for its run to report. */
static int check_point(const scn_t *s, sgd_err_t *err)
{
    alg_prepare_opts_t po = {.backend = ALG_BACKEND_CPU};
    alg_prepared_t *run = NULL;
    int rc = alg_prepare_file(s, &po, &run, err);
    alg_prepared_free(run);
    if (rc == 0 || !po.missing[0]) return rc;
    err->msg[0] = '\0';
    return 0;
}

/* Loads point pt as its run will and records its key, kernel, threads and length. */
static int load_point(const point_loader_t *l, const scn_override_t *ov, int nov,
                      const sweep_plan_opts_t *o, sweep_point_t *pt, sgd_err_t *err)
{
    scn_t s;
    if (loader_load(l, ov, nov, o->seed, &s, err)) return -1;
    if (scn_resolve_numerics(&s, o->flags, o->machine, err) ||
        (o->skip_invalid && check_point(&s, err))) {
        scn_free(&s);
        return -1;
    }
    memcpy(pt->run_key, s.config_hash, sizeof pt->run_key);
    memcpy(pt->blas_core, s.numerics.blas_core, sizeof pt->blas_core);
    pt->threads_auto = s.numerics.threads == 0 ? s.numerics.threads_resolved : 0;
    pt->updates = s.stop_updates;
    scn_free(&s);
    return 0;
}

/* Builds and validates every point in canonical order (the last dimension varies fastest);
 * with o->skip_invalid a point that does not load goes to plan->invalid.  On error *nbuilt
 * says how many points hold memory. */
static int build_points(const point_loader_t *l, const axis_t *axes, int naxes,
                        const dims_t *dims, int64_t total, const sweep_plan_opts_t *o,
                        sweep_point_t *all, int *nbuilt, sweep_plan_t *plan,
                        sgd_err_t *err)
{
    int *digit = sgd_xcalloc((size_t)dims->n + 1, sizeof *digit);
    scn_override_t *ov = sgd_xcalloc((size_t)naxes + 1, sizeof *ov);
    int rc = 0;
    *nbuilt = 0;
    for (int64_t p = 0; p < total && rc == 0; p++) {
        sweep_point_t *pt = &all[(*nbuilt)++];
        fill_point(pt, axes, naxes, digit, ov);
        if (load_point(l, ov, naxes, o, pt, err)) {
            char prefix[SGD_ERR_MAX / 2];
            snprintf(prefix, sizeof prefix, "sweep point %lld of %lld (%s)", (long long)p + 1,
                     (long long)total, naxes ? pt->label : "the scenario as is");
            rc = sgd_err_prefix(err, prefix);
            if (o->skip_invalid) {
                set_aside(plan, p, pt, err);
                (*nbuilt)--;
                rc = 0;
            }
        }
        for (int d = dims->n - 1; d >= 0; d--) {
            if (++digit[d] < dims->len[d]) break;
            digit[d] = 0;
        }
    }
    free(digit);
    free(ov);
    return rc;
}

/* Drops repeated run keys (e.g. --set cluster.workers=4,4, or a value equal to the default
 * listed next to the default itself): one key is one run, at its first occurrence, and the
 * others keep their canonical order.  Sorting (key, index) pairs finds them in
 * O(n log n).  Returns the number kept. */
static int drop_repeats(sweep_point_t *all, int total)
{
    key_index_t *ki = sgd_xcalloc((size_t)total, sizeof *ki);
    for (int p = 0; p < total; p++) ki[p] = (key_index_t){all[p].run_key, p};
    qsort(ki, (size_t)total, sizeof *ki, cmp_key_index);
    char *dup = sgd_xcalloc((size_t)total, 1);
    for (int p = 1; p < total; p++)
        if (strcmp(ki[p].key, ki[p - 1].key) == 0) dup[ki[p].index] = 1;
    free(ki);
    int kept = 0;
    for (int p = 0; p < total; p++) {
        if (dup[p]) point_free(&all[p]);
        else all[kept++] = all[p];
    }
    free(dup);
    return kept;
}

int sweep_plan(const char *path, const sweep_plan_opts_t *o, sweep_plan_t *plan,
               sgd_err_t *err)
{
    memset(plan, 0, sizeof *plan);
    const char *const *sets = o->lists;
    const uint64_t *seed = o->seed;
    int nsets = o->nlists;
    scn_t base;
    if (scn_load(path, NULL, 0, seed, alg_scenario_table, &base, err)) return -1;
    axis_t *axes = sgd_xcalloc((size_t)(base.nsweep + nsets) + 1, sizeof *axes);
    int naxes = build_axes(&base, sets, nsets, axes, err), rc = -1;
    int64_t total = 0;
    dims_t dims = {0};
    if (naxes < 0) {
        naxes = -1 - naxes; /* the axes built before the error, to free */
        goto out;
    }
    if (group_axes(path, &base, o, axes, naxes, &dims, err) ||
        count_points(path, axes, naxes, &dims, seed, &total, err) ||
        check_flags_against_axes(axes, naxes, o, err))
        goto out;

    point_loader_t loader;
    loader_init(&loader, path, &base, seed);
    sweep_point_t *all = sgd_xcalloc((size_t)total, sizeof *all);
    int nbuilt;
    rc = build_points(&loader, axes, naxes, &dims, total, o, all, &nbuilt, plan, err);
    loader_free(&loader);
    plan->points = all;
    plan->npoints = nbuilt;
    if (rc) goto out;
    plan->npoints = drop_repeats(all, nbuilt);
    plan->nproduct = total;
    plan->naxes = naxes;
out:
    for (int i = 0; i < naxes; i++) axis_free(&axes[i]);
    free(axes);
    free(dims.len);
    scn_free(&base);
    if (rc) sweep_plan_free(plan);
    return rc;
}

void sweep_plan_free(sweep_plan_t *plan)
{
    for (int p = 0; p < plan->npoints; p++) point_free(&plan->points[p]);
    free(plan->points);
    for (int i = 0; i < plan->ninvalid; i++) {
        free(plan->invalid[i].label);
        free(plan->invalid[i].error);
    }
    free(plan->invalid);
    memset(plan, 0, sizeof *plan);
}

int sweep_parse_shard(const char *arg, int *index, int *count, sgd_err_t *err)
{
    const char *slash = strchr(arg, '/');
    long long i = -1, n = -1;
    if (slash && (size_t)(slash - arg) < 32) {
        char first[32];
        uint64_t a, b;
        memcpy(first, arg, (size_t)(slash - arg));
        first[slash - arg] = '\0';
        if (sgd_parse_u64(first, &a) && sgd_parse_u64(slash + 1, &b) && a < INT64_MAX &&
            b < INT64_MAX)
            i = (long long)a, n = (long long)b;
    }
    if (i < 0 || n < 0)
        return sgd_errf(err, "--shard %s: expected I/N with integers 0 <= I < N, e.g. 0/4", arg);
    if (n < 1 || n > 1000000)
        return sgd_errf(err, "--shard %s: the number of shards N must be in 1..1000000", arg);
    if (i >= n)
        return sgd_errf(err, "--shard %s: shard index %lld out of range: shards are numbered "
                        "0..%lld", arg, i, n - 1);
    *index = (int)i;
    *count = (int)n;
    return 0;
}
