/* `sgdsim report DB`: what a results database holds, for reading in a terminal.
 *
 *   Runs    one line per run: status, updates, virtual time, the final value of every
 *           metric, staleness (mean and max tau) and traffic (bytes and messages sent and
 *           skipped).
 *   Sweeps  for each scenario with several finished runs, the configuration keys that vary
 *           between them are the sweep's axes (found by comparing the runs' resolved
 *           configurations, so sweeps made by `sgdsim sweep` and by hand look the same), and
 *           pivot tables show final val_error, virtual time and — when cluster.workers is an
 *           axis — scaling efficiency, with algorithm.name (else the last axis) across and
 *           the first other axis down; seeds are averaged, further axes get a table each.
 *
 * Scaling efficiency of a cell = its throughput per worker (samples per virtual second per
 * worker) divided by that of the cell with the fewest workers in the same column: 1.0 means
 * perfect linear scaling. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/table.h"
#include "cli/text.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim report DB\n\n"
               "Prints every run of the results database DB (status, updates, virtual time,\n"
               "final metrics, staleness, traffic) and, per scenario swept over several\n"
               "configurations, pivot tables of final val_error, virtual time and scaling\n"
               "efficiency by the swept keys (e.g. cluster.workers x algorithm.name).\n\n"
               "exit codes: 0 ok, 2 bad input (not a results database)\n");
}

/* Prints s escaped for the terminal (cli/text.h), as the tables print their cells: a
 * scenario name or configuration value from the database may hold control characters. */
static void print_escaped(const char *s)
{
    char *e = cli_text_escape(s);
    fputs(e, stdout);
    free(e);
}

/* ---- per-run table -------------------------------------------------------------------- */

/* The statements of the per-run table. */
typedef struct run_stmts {
    sqlite3_stmt *names, *runs, *fin, *stale, *traffic;
} run_stmts_t;

static int prepare_run_stmts(rdb_t *db, run_stmts_t *q, sgd_err_t *err)
{
    memset(q, 0, sizeof *q);
    if (rdb_read_prepare(db, RDB_Q_METRIC_NAMES, &q->names, err) ||
        rdb_read_prepare(db, RDB_Q_RUNS, &q->runs, err) ||
        rdb_read_prepare(db, RDB_Q_FINAL_VALUE, &q->fin, err) ||
        rdb_read_prepare(db, RDB_Q_STALENESS, &q->stale, err) ||
        rdb_read_prepare(db, RDB_Q_TRAFFIC, &q->traffic, err))
        return -1;
    return 0;
}

static void finalize_run_stmts(run_stmts_t *q)
{
    sqlite3_finalize(q->names);
    sqlite3_finalize(q->runs);
    sqlite3_finalize(q->fin);
    sqlite3_finalize(q->stale);
    sqlite3_finalize(q->traffic);
}

enum { RUN_FIXED_COLS = 8, RUN_TAIL_COLS = 5 };

/* The table's columns: the run's, final_<metric> for each of the nnames metrics, then
 * staleness and traffic. */
static void init_runs_table(cli_table_t *t, char **name, int nnames)
{
    static const char *const fixed[RUN_FIXED_COLS] = {"id", "key", "scenario", "algorithm",
                                                      "workers", "status", "updates",
                                                      "vtime_s"};
    static const char *const tail[RUN_TAIL_COLS] = {"mean_tau", "max_tau", "sent_MB",
                                                    "sent_msgs", "skipped_MB"};
    int ncols = RUN_FIXED_COLS + nnames + RUN_TAIL_COLS;
    const char **head = sgd_xcalloc((size_t)ncols, sizeof *head);
    char **owned = sgd_xcalloc((size_t)nnames + 1, sizeof *owned);
    for (int i = 0; i < RUN_FIXED_COLS; i++) head[i] = fixed[i];
    for (int i = 0; i < nnames; i++) {
        size_t n = strlen(name[i]) + 7;
        owned[i] = sgd_xmalloc(n);
        snprintf(owned[i], n, "final_%s", name[i]);
        head[RUN_FIXED_COLS + i] = owned[i];
    }
    for (int i = 0; i < RUN_TAIL_COLS; i++) head[RUN_FIXED_COLS + nnames + i] = tail[i];
    cli_table_init(t, ncols, head);
    free(head);
    for (int i = 0; i < nnames; i++) free(owned[i]);
    free(owned);
}

/* One row for the run at q->runs' current row. */
static void add_run_row(cli_table_t *t, const run_stmts_t *q, char **name, int nnames)
{
    int r = cli_table_row(t);
    for (int c = 0; c < RUN_FIXED_COLS; c++) cli_table_sql(t, r, c, q->runs, c);
    int64_t id = sqlite3_column_int64(q->runs, 0);
    for (int i = 0; i < nnames; i++) {
        sqlite3_bind_int64(q->fin, 1, id);
        sqlite3_bind_text(q->fin, 2, name[i], -1, SQLITE_STATIC);
        if (sqlite3_step(q->fin) == SQLITE_ROW)
            cli_table_sql(t, r, RUN_FIXED_COLS + i, q->fin,
                          sqlite3_column_type(q->fin, 0) == SQLITE_NULL ? 1 : 0);
        sqlite3_reset(q->fin);
    }
    int tail = RUN_FIXED_COLS + nnames;
    sqlite3_bind_int64(q->stale, 1, id);
    if (sqlite3_step(q->stale) == SQLITE_ROW)
        for (int c = 0; c < 2; c++) cli_table_sql(t, r, tail + c, q->stale, c);
    sqlite3_reset(q->stale);
    sqlite3_bind_int64(q->traffic, 1, id);
    if (sqlite3_step(q->traffic) == SQLITE_ROW)
        for (int c = 0; c < 3; c++) cli_table_sql(t, r, tail + 2 + c, q->traffic, c);
    sqlite3_reset(q->traffic);
}

static int report_runs(rdb_t *db, const char *path)
{
    run_stmts_t q;
    sgd_err_t err = {{0}};
    if (prepare_run_stmts(db, &q, &err)) {
        int rc = cli_bad_input("report: %s", err.msg);
        finalize_run_stmts(&q);
        return rc;
    }
    char **name = NULL;
    int nnames = 0;
    while (sqlite3_step(q.names) == SQLITE_ROW) {
        name = sgd_xrealloc(name, (size_t)(nnames + 1) * sizeof *name);
        name[nnames++] = sgd_xstrdup((const char *)sqlite3_column_text(q.names, 0));
    }
    cli_table_t t;
    init_runs_table(&t, name, nnames);
    while (sqlite3_step(q.runs) == SQLITE_ROW) add_run_row(&t, &q, name, nnames);
    printf("Runs (%d) in ", t.nrows);
    print_escaped(path);
    printf("\n\n");
    cli_table_print(&t, CLI_FMT_TEXT, stdout);
    cli_table_free(&t);
    for (int i = 0; i < nnames; i++) free(name[i]);
    free(name);
    finalize_run_stmts(&q);
    return SGD_EXIT_OK;
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
        print_escaped(axes[a]);
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
            print_escaped(l->extra[e]);
            printf("=");
            print_escaped(fvals[e]);
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
    print_escaped(runs[0].scenario);
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

static int report_sweeps(rdb_t *db)
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

/* "DB"; 0, or the exit code (with --help: after the usage text). */
static int parse_report_args(int argc, char **argv, const char **db_path, bool *help)
{
    static const char *const missing[] = {"DB"};
    int fmt = CLI_FMT_TEXT;
    cli_opt_set_t sets[] = {{cli_format_opts, &fmt, 0}};
    cli_cmd_spec_t spec = {.cmd = "report", .npos = 1, .missing = missing, .sets = sets,
                           .nsets = 1};
    int rc = cli_args_parse_fixed(&spec, argc, argv, db_path, help);
    if (rc == 0 && *help) usage(stdout);
    if (rc == 0 && !*help && fmt != CLI_FMT_TEXT)
        rc = cli_bad_input("report: prints text only; use sgdsim query or export for CSV/JSON");
    return rc;
}

int cli_report_main(int argc, char **argv)
{
    const char *db_path;
    bool help;
    int rc = parse_report_args(argc, argv, &db_path, &help);
    if (rc || help) return rc;
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(db_path, &db, &err)) return cli_bad_input("report: %s", err.msg);
    rc = report_runs(db, db_path);
    if (rc == SGD_EXIT_OK) rc = report_sweeps(db);
    rdb_close(db);
    return rc;
}
