/* `sgdsim report`'s sweep tables (see cmd_report.c's opening comment): for each scenario
 * with several finished runs, its axes (the keys the sweep varied, as stored with its runs,
 * or for runs without them the keys that vary between the runs' resolved configurations,
 * less those that follow another), and pivot tables of final val_error, virtual time and
 * scaling efficiency — the last two only for runs with a clock (analysis/clock.h).  The seed
 * is never an axis: runs that differ only by it are one cell, shown as mean +- std and the
 * number of seeds, each seed counted once (its latest run).  The build is: runs of one
 * configuration made by different builds (runs.git_rev) are never averaged, so when a
 * scenario's runs come from several builds, "build" is an axis of its tables -- unless
 * --pool-builds pools them, and the tables say so. */
#include "cli/report_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "analysis/groups.h"
#include "analysis/seed_stats.h"
#include "analysis/sweep_axes.h"
#include "cli/cli.h"
#include "cli/table.h"
#include "cli/text.h"
#include "results/rdb_rows.h"

/* Prints s escaped for the terminal (cli/text.h), as the tables print their cells: a
 * scenario name or configuration value from the database may hold control characters. */
void report_print_escaped(const char *s)
{
    char *e = cli_text_escape(s);
    fputs(e, stdout);
    free(e);
}

/* ---- sweeps: the runs and their cells ------------------------------------------------- */

/* A finished run of a sweep: its configuration (analysis/groups.h) and the quantities the
 * tables show. */
typedef struct srun {
    ana_run_t a;    /* its configuration, and "build" = its git revision (an axis when the
                       scenario's runs come from several builds) */
    int64_t id, seed;
    double val_error; /* NaN when absent or not finite */
    double vtime_s;
    double per_worker_rate; /* samples per virtual second per worker; NaN if unknown */
    int64_t workers;
    bool clock; /* analysis/clock.h: without one, no virtual time or efficiency */
} srun_t;

static const char *cfg_get(const srun_t *r, const char *key)
{
    return ana_config_get(&r->a.cfg, key);
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

/* What one cell shows: mean, sample standard deviation and number of the runs' values. */
typedef struct cell {
    double mean, std;
    int n;
} cell_t;

/* Whether run r matches every key/value and has a finite value of q (/ scale) in *x. */
static bool cell_value(const srun_t *r, const char *const *keys, const char *const *vals,
                       int nkeys, quantity_t q, double scale, double *x)
{
    for (int k = 0; k < nkeys; k++)
        if (strcmp(cfg_get(r, keys[k]), vals[k]) != 0) return false;
    *x = (q == Q_VAL_ERROR ? r->val_error : q == Q_VTIME ? r->vtime_s : r->per_worker_rate) /
         scale;
    return isfinite(*x);
}

/* Whether a later run of runs[0..n) (they are in id order) has run i's seed and matches
 * the same keys: then run i does not count, so that no seed counts twice. */
static bool seed_repeated(const srun_t *runs, int n, int i, const char *const *keys,
                          const char *const *vals, int nkeys)
{
    for (int k = i + 1; k < n; k++) {
        if (runs[k].seed != runs[i].seed) continue;
        bool match = true;
        for (int j = 0; j < nkeys && match; j++)
            match = strcmp(cfg_get(&runs[k], keys[j]), vals[j]) == 0;
        if (match) return true;
    }
    return false;
}

/* The values of q (each / scale) over the runs matching keys/vals, each seed once (its
 * latest run), summarised as every seed statistic is (analysis/seed_stats.h). */
static cell_t cell_stats(const srun_t *runs, int n, const char *const *keys,
                         const char *const *vals, int nkeys, quantity_t q, double scale)
{
    double *v = sgd_xcalloc((size_t)n + 1, sizeof *v), x;
    int nv = 0;
    for (int i = 0; i < n; i++)
        if (cell_value(&runs[i], keys, vals, nkeys, q, scale, &x) &&
            !seed_repeated(runs, n, i, keys, vals, nkeys))
            v[nv++] = x;
    ana_summary_t s = ana_summarize(v, nv);
    free(v);
    return (cell_t){s.mean, s.sd, s.n};
}

/* Scaling efficiency of the runs matching keys/vals: each run's throughput per worker over
 * the mean of the runs with the fewest workers among those matching every key but
 * cluster.workers (the same line of the sweep). */
static cell_t efficiency(srun_t *runs, int n, const char **keys, const char **vals, int nk)
{
    const char **k2 = sgd_xcalloc((size_t)nk + 2, sizeof *k2);
    const char **v2 = sgd_xcalloc((size_t)nk + 2, sizeof *v2);
    int n2 = 0;
    for (int i = 0; i < nk; i++)
        if (strcmp(keys[i], "cluster.workers") != 0) k2[n2] = keys[i], v2[n2++] = vals[i];
    int64_t pmin = INT64_MAX;
    double x;
    for (int i = 0; i < n; i++)
        if (cell_value(&runs[i], k2, v2, n2, Q_EFFICIENCY, 1.0, &x) && runs[i].workers < pmin)
            pmin = runs[i].workers;
    char pbuf[32];
    snprintf(pbuf, sizeof pbuf, "%lld", (long long)pmin);
    k2[n2] = "cluster.workers", v2[n2++] = pbuf;
    cell_t base = cell_stats(runs, n, k2, v2, n2, Q_EFFICIENCY, 1.0);
    free(k2);
    free(v2);
    if (!base.n) return (cell_t){NAN, NAN, 0};
    return cell_stats(runs, n, keys, vals, nk, Q_EFFICIENCY, base.mean);
}

/* "0.0123 ± 0.0004 (n=2)"; "0.0123 (n=1)" for a single run. */
static void cell_text(const cell_t *c, char *out, size_t size)
{
    if (c->n > 1)
        snprintf(out, size, "%.4g \u00b1 %.2g (n=%d)", c->mean, c->std, c->n);
    else
        snprintf(out, size, "%.4g (n=1)", c->mean);
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
            int nk = nf;
            keys[nk] = row_key, vals[nk++] = rv[r];
            if (cv) keys[nk] = col_key, vals[nk++] = cv[c];
            cell_t m = q == Q_EFFICIENCY ? efficiency(runs, n, keys, vals, nk)
                                         : cell_stats(runs, n, keys, vals, nk, q, 1.0);
            char text[96];
            cell_text(&m, text, sizeof text);
            if (m.n) cli_table_text(&t, row, 1 + c, text);
        }
    }
    cli_table_print(&t, CLI_FMT_TEXT, stdout);
    cli_table_free(&t);
    free(keys);
    free(vals);
    free(rv);
    free(cv);
}

/* ---- axes (inferred in analysis/sweep_axes.c) ----------------------------------------- */

/* ", axes: a (3) b (2); 2 seeds" */
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
    int nseeds;
    free(distinct_values(runs, n, "seed", &nseeds));
    printf("; %d seed%s\n", nseeds, nseeds == 1 ? "" : "s");
}

/* How a sweep's axes are laid out over its tables. */
typedef struct layout {
    const char *row, *col; /* col NULL: a single column */
    const char **extra;    /* further axes, one set of tables per combination (owned) */
    int nextra;
    bool workers_axis;     /* cluster.workers is an axis: scaling efficiency is shown */
    bool clock;            /* some run has a clock: virtual time is shown */
} layout_t;

/* Column axis: the algorithm if it varies, else the last axis; row axis: the first other
 * one; any further axis splits the tables.  Without axes (runs that differ only by seed, or
 * repeats), one row: the algorithm. */
static void choose_layout(const char **axes, int naxes, layout_t *l)
{
    memset(l, 0, sizeof *l);
    l->extra = sgd_xcalloc((size_t)naxes + 1, sizeof *l->extra);
    if (naxes == 0) {
        l->row = "algorithm.name";
        return;
    }
    l->col = axes[naxes - 1];
    for (int a = 0; a < naxes; a++)
        if (strcmp(axes[a], "algorithm.name") == 0) l->col = axes[a];
    for (int a = 0; a < naxes && !l->row; a++)
        if (axes[a] != l->col) l->row = axes[a];
    if (!l->row) { /* a single axis: list it down */
        l->row = l->col;
        l->col = NULL;
    }
    for (int a = 0; a < naxes; a++) {
        l->workers_axis |= strcmp(axes[a], "cluster.workers") == 0;
        if (axes[a] != l->col && axes[a] != l->row) l->extra[l->nextra++] = axes[a];
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
        if (qs[qi].q != Q_VAL_ERROR && !l->clock) continue;
        printf("\n%s (mean \u00b1 std over seeds, n seeds)", qs[qi].title);
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

/* How many builds made runs[0..n). */
static int count_builds(srun_t *runs, int n)
{
    int nb;
    free(distinct_values(runs, n, "build", &nb));
    return nb;
}

static void report_group(srun_t *runs, int n, bool pool_builds)
{
    const ana_run_t **a = sgd_xcalloc((size_t)n, sizeof *a);
    for (int i = 0; i < n; i++) a[i] = &runs[i].a;
    int naxes;
    const char **axes = ana_sweep_axes(a, n, &naxes);
    free(a);
    int nbuilds = count_builds(runs, n), m = 0;
    for (int k = 0; k < naxes; k++) /* inferred from the runs, the build may be one already */
        if (strcmp(axes[k], "build") != 0) axes[m++] = axes[k];
    naxes = m;
    if (nbuilds > 1 && !pool_builds) { /* never averaged: the build is an axis */
        bool there = false;
        for (int k = 0; k < naxes; k++) there |= strcmp(axes[k], "build") == 0;
        if (!there) {
            axes = sgd_xrealloc(axes, (size_t)(naxes + 1) * sizeof *axes);
            axes[naxes++] = "build";
        }
    }
    printf("\nSweep: scenario \"");
    report_print_escaped(runs[0].a.scenario);
    printf("\", %d finished runs", n);
    if (naxes == 0) printf(", no axis besides the seed (repeats or seeds only)\n");
    else print_axes(runs, n, axes, naxes);
    if (nbuilds > 1 && pool_builds)
        printf("builds pooled (--pool-builds): the runs come from %d builds, and a cell counts "
               "each seed once (its latest run, of whichever build)\n", nbuilds);
    else if (nbuilds > 1)
        printf("the runs come from %d builds: \"build\" (runs.git_rev) is an axis, since runs "
               "of different builds are never averaged (--pool-builds pools them)\n", nbuilds);
    layout_t l;
    choose_layout(axes, naxes, &l);
    for (int i = 0; i < n; i++) l.clock |= runs[i].clock;
    if (!l.clock) printf("virtual time and scaling efficiency: " ANA_NO_CLOCK_TEXT "\n");
    print_combinations(runs, n, &l);
    free(l.extra);
    free(axes);
}

/* A number of the configuration (batch.per_worker), NaN when absent. */
static double config_number(const ana_run_t *r, const char *key)
{
    const char *v = ana_config_get(&r->cfg, key);
    char *end;
    double x = strtod(v, &end);
    return end == v ? NAN : x;
}

/* A finished run with its final val_error and throughput per worker: samples per virtual
 * second over the workers, the samples being the gradients applied (the staleness
 * histogram's total in the parameter-server family; updates x workers in the synchronous
 * algorithms, which write none) times batch.per_worker. */
static int load_run(rdb_run_facts_t *f, const rdb_run_row_t *row, srun_t *r, sgd_err_t *err)
{
    memset(r, 0, sizeof *r);
    ana_run_init(&r->a, row->scenario, row->config_json, row->sweep_axes);
    r->id = row->id, r->seed = row->seed;
    ana_config_t *c = &r->a.cfg; /* the build, as a key of its own */
    c->kv = sgd_xrealloc(c->kv, (size_t)(c->n + 1) * sizeof *c->kv);
    c->kv[c->n++] = (ana_kv_t){sgd_xstrdup("build"), sgd_xstrdup(ana_build_name(row->git_rev)),
                               sgd_xstrdup("null")};
    r->clock = ana_flat_has_clock(&r->a.cfg);
    /* Without a clock vtime_ns counts iterations: no time, no rate. */
    r->vtime_s = !r->clock ? NAN : row->has_vtime_ns ? (double)row->vtime_ns / 1e9 : 0.0;
    double updates = row->has_updates ? (double)row->updates : 0.0;
    r->workers = row->has_workers ? row->workers : 0;
    rdb_metric_row_t fin;
    rdb_staleness_row_t st;
    int found = rdb_run_final(f, row->id, "val_error", &fin, err);
    if (found < 0 || rdb_run_staleness(f, row->id, &st, err)) return -1;
    r->val_error = found ? fin.value : NAN;
    double b = config_number(&r->a, "batch.per_worker"), grads = st.gradients;
    if (isnan(grads)) grads = updates * (double)r->workers;
    r->per_worker_rate = r->clock && r->vtime_s > 0 && r->workers > 0
                             ? grads * b / r->vtime_s / (double)r->workers : NAN;
    return 0;
}

static void free_run(srun_t *r)
{
    ana_run_free(&r->a);
}

/* Every finished run of db, by scenario then id, into *runs (*n of them). */
static int load_runs(rdb_t *db, srun_t **runs, int *n, sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    rdb_run_facts_t *f = NULL;
    rdb_runs_query_t q = {.finished_only = true, .by_scenario = true};
    int rc = rdb_runs_open(db, &q, &it, err) || rdb_run_facts_open(db, &f, err) ? -1 : 1;
    rdb_run_row_t row;
    while (rc > 0 && (rc = rdb_runs_next(it, &row, err)) > 0) {
        *runs = sgd_xrealloc(*runs, (size_t)(*n + 1) * sizeof **runs);
        if (load_run(f, &row, &(*runs)[(*n)++], err)) rc = -1;
    }
    rdb_run_facts_close(f);
    rdb_rows_close(it);
    return rc;
}

int report_sweeps(rdb_t *db, bool pool_builds)
{
    sgd_err_t err = {{0}};
    srun_t *runs = NULL;
    int n = 0;
    if (load_runs(db, &runs, &n, &err)) {
        for (int i = 0; i < n; i++) free_run(&runs[i]);
        free(runs);
        return cli_bad_input("report: %s", err.msg);
    }
    int ngroups = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && strcmp(runs[j].a.scenario, runs[i].a.scenario) == 0) j++;
        if (j - i >= 2) {
            report_group(runs + i, j - i, pool_builds);
            ngroups++;
        }
        i = j;
    }
    if (ngroups == 0) printf("\nNo sweeps (no scenario has two or more finished runs).\n");
    for (int i = 0; i < n; i++) free_run(&runs[i]);
    free(runs);
    return SGD_EXIT_OK;
}
