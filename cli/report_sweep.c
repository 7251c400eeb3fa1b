/* `sgdsim report`'s sweep tables (see cmd_report.c's opening comment): for each scenario
 * with several finished runs, the configuration keys that vary between them are the sweep's
 * axes, and pivot tables show final val_error, virtual time and scaling efficiency. */
#include "cli/report_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "cli/text.h"
#include "results/rdb_read.h"

/* Prints s escaped for the terminal (cli/text.h), as the tables print their cells: a
 * scenario name or configuration value from the database may hold control characters. */
void report_print_escaped(const char *s)
{
    char *e = cli_text_escape(s);
    fputs(e, stdout);
    free(e);
}

/* ---- sweeps: axes from the runs' configurations --------------------------------------- */

typedef struct kv {
    char *key, *value; /* "cluster.workers", "250" (value as compact JSON) */
} kv_t;

typedef struct srun {
    char *scenario;
    kv_t *cfg;
    int ncfg;
    double val_error; /* NaN when absent or not finite */
    double vtime_s;
    double per_worker_rate; /* samples per virtual second per worker; NaN if unknown */
    int64_t workers;
} srun_t;

static void flatten(const cJSON *v, const char *prefix, kv_t **out, int *n)
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

static const char *cfg_get(const srun_t *r, const char *key)
{
    for (int i = 0; i < r->ncfg; i++)
        if (strcmp(r->cfg[i].key, key) == 0) return r->cfg[i].value;
    return "(absent)";
}

static bool all_numeric(char **v, int n)
{
    for (int i = 0; i < n; i++) {
        char *end;
        strtod(v[i], &end);
        if (end == v[i] || *end) return false;
    }
    return true;
}

static bool sort_numeric;
static int cmp_values(const void *pa, const void *pb)
{
    const char *a = *(char *const *)pa, *b = *(char *const *)pb;
    if (sort_numeric) {
        double x = strtod(a, NULL), y = strtod(b, NULL);
        return (x > y) - (x < y);
    }
    return strcmp(a, b);
}

/* Distinct values of `key` over runs[0..n), sorted (numerically when all are numbers). */
static char **distinct_values(srun_t *runs, int n, const char *key, int *nout)
{
    char **v = sgd_xcalloc((size_t)n + 1, sizeof *v);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const char *x = cfg_get(&runs[i], key);
        int j = 0;
        while (j < k && strcmp(v[j], x) != 0) j++;
        if (j == k) v[k++] = (char *)x;
    }
    sort_numeric = all_numeric(v, k);
    qsort(v, (size_t)k, sizeof *v, cmp_values);
    *nout = k;
    return v;
}

typedef enum { Q_VAL_ERROR, Q_VTIME, Q_EFFICIENCY } quantity_t;

static double cell_mean(srun_t *runs, int n, const char *const *keys, const char *const *vals,
                        int nkeys, quantity_t q, int *count)
{
    double sum = 0;
    *count = 0;
    for (int i = 0; i < n; i++) {
        bool match = true;
        for (int k = 0; k < nkeys && match; k++)
            match = strcmp(cfg_get(&runs[i], keys[k]), vals[k]) == 0;
        if (!match) continue;
        double x = q == Q_VAL_ERROR ? runs[i].val_error
                   : q == Q_VTIME ? runs[i].vtime_s : runs[i].per_worker_rate;
        if (!isfinite(x)) continue;
        sum += x;
        (*count)++;
    }
    return *count ? sum / *count : NAN;
}

/* Scaling efficiency of the runs matching keys/vals: their mean throughput per worker over
 * that of the runs with the fewest workers among those matching every key but
 * cluster.workers (the same line of the sweep). */
static double efficiency(srun_t *runs, int n, const char **keys, const char **vals, int nk)
{
    int cnt;
    double m = cell_mean(runs, n, keys, vals, nk, Q_EFFICIENCY, &cnt);
    if (!cnt) return NAN;
    const char **k2 = sgd_xcalloc((size_t)nk + 2, sizeof *k2);
    const char **v2 = sgd_xcalloc((size_t)nk + 2, sizeof *v2);
    int n2 = 0;
    for (int i = 0; i < nk; i++)
        if (strcmp(keys[i], "cluster.workers") != 0) k2[n2] = keys[i], v2[n2++] = vals[i];
    int64_t pmin = INT64_MAX;
    for (int i = 0; i < n; i++) {
        bool match = isfinite(runs[i].per_worker_rate);
        for (int k = 0; k < n2 && match; k++) match = strcmp(cfg_get(&runs[i], k2[k]), v2[k]) == 0;
        if (match && runs[i].workers < pmin) pmin = runs[i].workers;
    }
    char pbuf[32];
    snprintf(pbuf, sizeof pbuf, "%lld", (long long)pmin);
    k2[n2] = "cluster.workers", v2[n2++] = pbuf;
    double base = cell_mean(runs, n, k2, v2, n2, Q_EFFICIENCY, &cnt);
    free(k2);
    free(v2);
    return cnt ? m / base : NAN;
}

/* One pivot table: rows = values of row_key, columns = values of col_key (one column when
 * NULL), restricted to runs matching the fixed keys/values. */
static void pivot(srun_t *runs, int n, const char *row_key, const char *col_key,
                  const char *const *fkeys, const char *const *fvals, int nf, quantity_t q)
{
    int nrv, ncv = 1;
    char **rv = distinct_values(runs, n, row_key, &nrv);
    char **cv = col_key ? distinct_values(runs, n, col_key, &ncv) : NULL;
    const char **head = sgd_xcalloc((size_t)ncv + 1, sizeof *head);
    char corner[160];
    snprintf(corner, sizeof corner, "%s%s%s", row_key, col_key ? " \\ " : "",
             col_key ? col_key : "");
    head[0] = corner;
    for (int c = 0; c < ncv; c++) head[1 + c] = cv ? cv[c] : "mean";
    cli_table_t t;
    cli_table_init(&t, ncv + 1, head);
    free(head);
    const char **keys = sgd_xcalloc((size_t)nf + 2, sizeof *keys);
    const char **vals = sgd_xcalloc((size_t)nf + 2, sizeof *vals);
    for (int i = 0; i < nf; i++) keys[i] = fkeys[i], vals[i] = fvals[i];
    for (int r = 0; r < nrv; r++) {
        int row = cli_table_row(&t);
        cli_table_text(&t, row, 0, rv[r]);
        for (int c = 0; c < ncv; c++) {
            int nk = nf, cnt = 1;
            keys[nk] = row_key, vals[nk++] = rv[r];
            if (cv) keys[nk] = col_key, vals[nk++] = cv[c];
            double m = q == Q_EFFICIENCY ? efficiency(runs, n, keys, vals, nk)
                                         : cell_mean(runs, n, keys, vals, nk, q, &cnt);
            if (cnt) cli_table_real(&t, row, 1 + c, m);
        }
    }
    cli_table_print(&t, CLI_FMT_TEXT, stdout);
    cli_table_free(&t);
    free(keys);
    free(vals);
    free(rv);
    free(cv);
}

/* Axes: keys whose value is not the same in every run, in resolved-configuration order
 * (the caller frees the array; the keys are runs[0]'s). */
static const char **find_axes(const srun_t *runs, int n, int *naxes)
{
    const char **axes = sgd_xcalloc((size_t)runs[0].ncfg + 1, sizeof *axes);
    *naxes = 0;
    for (int k = 0; k < runs[0].ncfg; k++) {
        const char *key = runs[0].cfg[k].key;
        for (int i = 1; i < n; i++)
            if (strcmp(cfg_get(&runs[i], key), runs[0].cfg[k].value) != 0) {
                axes[(*naxes)++] = key;
                break;
            }
    }
    return axes;
}

/* ", axes: a (3) b (2)" */
static void print_axes(srun_t *runs, int n, const char **axes, int naxes)
{
    printf(", axes:");
    for (int a = 0; a < naxes; a++) {
        int nv;
        char **v = distinct_values(runs, n, axes[a], &nv);
        printf(" ");
        report_print_escaped(axes[a]);
        printf(" (%d)", nv);
        free(v);
    }
    printf("\n");
}

/* How a sweep's axes are laid out over its tables. */
typedef struct layout {
    const char *row, *col; /* col NULL: a single column */
    const char **extra;    /* further axes, one set of tables per combination (owned) */
    int nextra;
    bool seeds;            /* seed is an axis: cells average over it */
    bool workers_axis;     /* cluster.workers is an axis: scaling efficiency is shown */
} layout_t;

/* Column axis: the algorithm if it varies, else the last axis; row axis: the first other
 * one that is not the seed; seeds are averaged; any further axis splits the tables. */
static void choose_layout(const char **axes, int naxes, layout_t *l)
{
    memset(l, 0, sizeof *l);
    l->col = axes[naxes - 1];
    for (int a = 0; a < naxes; a++)
        if (strcmp(axes[a], "algorithm.name") == 0) l->col = axes[a];
    for (int a = 0; a < naxes && !l->row; a++)
        if (axes[a] != l->col && strcmp(axes[a], "seed") != 0) l->row = axes[a];
    if (!l->row) { /* a single axis besides seeds: list it down */
        l->row = l->col;
        l->col = NULL;
    }
    l->extra = sgd_xcalloc((size_t)naxes + 1, sizeof *l->extra);
    for (int a = 0; a < naxes; a++) {
        l->workers_axis |= strcmp(axes[a], "cluster.workers") == 0;
        if (axes[a] == l->col || axes[a] == l->row) continue;
        if (strcmp(axes[a], "seed") == 0) l->seeds = true;
        else l->extra[l->nextra++] = axes[a];
    }
}

/* The tables of one combination of the extra axes' values (fvals). */
static void print_combination(srun_t *runs, int n, const layout_t *l, const char **fvals)
{
    static const struct { quantity_t q; const char *title; } qs[] = {
        {Q_VAL_ERROR, "final val_error"}, {Q_VTIME, "virtual time, s"},
        {Q_EFFICIENCY, "scaling efficiency (throughput per worker / at fewest workers)"}};
    for (int qi = 0; qi < 3; qi++) {
        if (qs[qi].q == Q_EFFICIENCY && !l->workers_axis) continue;
        printf("\n%s%s", qs[qi].title, l->seeds ? " (mean over seeds)" : "");
        for (int e = 0; e < l->nextra; e++) {
            printf("%s ", e ? "," : " with");
            report_print_escaped(l->extra[e]);
            printf("=");
            report_print_escaped(fvals[e]);
        }
        printf("\n");
        pivot(runs, n, l->row, l->col, l->extra, fvals, l->nextra, qs[qi].q);
    }
}

/* Every combination of the extra axes' values, odometer order. */
static void print_combinations(srun_t *runs, int n, const layout_t *l)
{
    char ***ev = sgd_xcalloc((size_t)l->nextra + 1, sizeof *ev);
    int *nev = sgd_xcalloc((size_t)l->nextra + 1, sizeof *nev);
    int *digit = sgd_xcalloc((size_t)l->nextra + 1, sizeof *digit);
    const char **fvals = sgd_xcalloc((size_t)l->nextra + 1, sizeof *fvals);
    for (int e = 0; e < l->nextra; e++) ev[e] = distinct_values(runs, n, l->extra[e], &nev[e]);
    for (;;) {
        for (int e = 0; e < l->nextra; e++) fvals[e] = ev[e][digit[e]];
        print_combination(runs, n, l, fvals);
        int e = l->nextra - 1;
        while (e >= 0 && ++digit[e] == nev[e]) digit[e--] = 0;
        if (e < 0) break;
    }
    for (int e = 0; e < l->nextra; e++) free(ev[e]);
    free(fvals);
    free(ev);
    free(nev);
    free(digit);
}

static void report_group(srun_t *runs, int n)
{
    int naxes;
    const char **axes = find_axes(runs, n, &naxes);
    printf("\nSweep: scenario \"");
    report_print_escaped(runs[0].scenario);
    printf("\", %d finished runs", n);
    if (naxes == 0) {
        printf(", all with the same configuration (repeats)\n");
    } else {
        print_axes(runs, n, axes, naxes);
        layout_t l;
        choose_layout(axes, naxes, &l);
        print_combinations(runs, n, &l);
        free(l.extra);
    }
    free(axes);
}

int report_sweeps(rdb_t *db)
{
    sqlite3_stmt *st = NULL;
    sgd_err_t err = {{0}};
    if (rdb_read_prepare(db, RDB_Q_SWEEP_RUNS, &st, &err))
        return cli_bad_input("report: %s", err.msg);
    srun_t *runs = NULL;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        runs = sgd_xrealloc(runs, (size_t)(n + 1) * sizeof *runs);
        srun_t *r = &runs[n++];
        memset(r, 0, sizeof *r);
        const char *sc = (const char *)sqlite3_column_text(st, 0);
        r->scenario = sgd_xstrdup(sc ? sc : "");
        cJSON *cfg = cJSON_Parse((const char *)sqlite3_column_text(st, 1));
        if (cfg) flatten(cfg, "", &r->cfg, &r->ncfg);
        cJSON_Delete(cfg);
        r->vtime_s = sqlite3_column_double(st, 2);
        int64_t updates = sqlite3_column_int64(st, 3);
        r->workers = sqlite3_column_int64(st, 4);
        r->val_error =
            sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 5);
        double b = sqlite3_column_type(st, 6) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 6);
        r->per_worker_rate = r->vtime_s > 0 ? (double)updates * b / r->vtime_s : NAN;
    }
    sqlite3_finalize(st);
    int ngroups = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && strcmp(runs[j].scenario, runs[i].scenario) == 0) j++;
        if (j - i >= 2) {
            report_group(runs + i, j - i);
            ngroups++;
        }
        i = j;
    }
    if (ngroups == 0) printf("\nNo sweeps (no scenario has two or more finished runs).\n");
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < runs[i].ncfg; k++) free(runs[i].cfg[k].key), free(runs[i].cfg[k].value);
        free(runs[i].cfg);
        free(runs[i].scenario);
    }
    free(runs);
    return SGD_EXIT_OK;
}

