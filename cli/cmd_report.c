/* `sgdsim report DB [--wide]`: what a results database holds, for reading in a terminal.
 *
 *   Runs    one line per run: status, updates, virtual time, the final val_error and
 *           staleness (mean and max tau), within 100 columns; --wide adds the run key, the
 *           final value of every other metric (not staleness_mean / staleness_max, which
 *           repeat mean_tau / max_tau) and traffic (bytes and messages sent and skipped).
 *   Sweeps  for each scenario with several finished runs, the sweep's axes and pivot tables
 *           of final val_error, virtual time and — when cluster.workers is an axis — scaling
 *           efficiency, with algorithm.name (else the last axis) across and the first other
 *           axis down; further axes get a table each (cli/report_sweep.c).  The seed is never
 *           an axis: a cell is the mean +- std over the runs that differ only by seed.
 *
 * Scaling efficiency of a run = its throughput per worker (samples per virtual second per
 * worker) divided by the mean of the runs with the fewest workers in the same column: 1.0
 * means perfect linear scaling. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report_sweep.h"
#include "cli/table.h"
#include "cli/text.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim report DB [--wide]\n\n"
               "Prints every run of the results database DB (status, updates, virtual time,\n"
               "final val_error, staleness) and, per scenario swept over several\n"
               "configurations, pivot tables of final val_error, virtual time and scaling\n"
               "efficiency by the swept keys (e.g. cluster.workers x algorithm.name): each\n"
               "cell the mean +- std over the runs that differ only by seed, and their number.\n"
               "  --wide  the per-run table with every final metric, the run key and traffic\n\n"
               "exit codes: 0 ok, 2 bad input (not a results database)\n");
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

/* What the per-run table shows: RDB_Q_RUNS' columns fixed[0..nfixed), the final value of
 * each metric in metric[0..nmetric), then the first ntail of mean_tau, max_tau, sent_MB,
 * sent_msgs, skipped_MB. */
typedef struct run_cols {
    const int *fixed;
    int nfixed;
    char **metric;
    int nmetric;
    int ntail;
    bool wide; /* metric columns are named final_<metric>; else the one is val_error */
} run_cols_t;

/* Metrics that repeat a column of the table: the staleness histogram's mean and max. */
static bool duplicate_metric(const char *name)
{
    return strcmp(name, "staleness_mean") == 0 || strcmp(name, "staleness_max") == 0;
}

/* --wide: every column but the duplicates; else what fits 80-100 columns: the run, its
 * final val_error and its staleness.  names[0..nnames) are the database's metrics, sorted;
 * l->metric points into it (the caller frees names). */
static void choose_run_cols(char **names, int nnames, bool wide, run_cols_t *l)
{
    static const int all[] = {0, 1, 2, 3, 4, 5, 6, 7};   /* id, key, ..., vtime_s */
    static const int narrow[] = {0, 2, 3, 4, 5, 6, 7};   /* without key */
    *l = (run_cols_t){.fixed = wide ? all : narrow, .nfixed = wide ? 8 : 7,
                      .metric = sgd_xcalloc((size_t)nnames + 1, sizeof *l->metric),
                      .ntail = wide ? 5 : 2, .wide = wide};
    for (int i = 0; i < nnames; i++)
        if (wide ? !duplicate_metric(names[i]) : strcmp(names[i], "val_error") == 0)
            l->metric[l->nmetric++] = names[i];
}

static void init_runs_table(cli_table_t *t, const run_cols_t *l)
{
    static const char *const fixed[] = {"id", "key", "scenario", "algorithm", "workers",
                                        "status", "updates", "vtime_s"};
    static const char *const tail[] = {"mean_tau", "max_tau", "sent_MB", "sent_msgs",
                                       "skipped_MB"};
    int ncols = l->nfixed + l->nmetric + l->ntail;
    const char **head = sgd_xcalloc((size_t)ncols, sizeof *head);
    char **owned = sgd_xcalloc((size_t)l->nmetric + 1, sizeof *owned);
    for (int i = 0; i < l->nfixed; i++) head[i] = fixed[l->fixed[i]];
    for (int i = 0; i < l->nmetric; i++) {
        size_t n = strlen(l->metric[i]) + 7;
        owned[i] = sgd_xmalloc(n);
        snprintf(owned[i], n, "%s%s", l->wide ? "final_" : "", l->metric[i]);
        head[l->nfixed + i] = owned[i];
    }
    for (int i = 0; i < l->ntail; i++) head[l->nfixed + l->nmetric + i] = tail[i];
    cli_table_init(t, ncols, head);
    free(head);
    for (int i = 0; i < l->nmetric; i++) free(owned[i]);
    free(owned);
}

/* One row for the run at q->runs' current row. */
static void add_run_row(cli_table_t *t, const run_stmts_t *q, const run_cols_t *l)
{
    int r = cli_table_row(t);
    for (int c = 0; c < l->nfixed; c++) cli_table_sql(t, r, c, q->runs, l->fixed[c]);
    int64_t id = sqlite3_column_int64(q->runs, 0);
    for (int i = 0; i < l->nmetric; i++) {
        sqlite3_bind_int64(q->fin, 1, id);
        sqlite3_bind_text(q->fin, 2, l->metric[i], -1, SQLITE_STATIC);
        if (sqlite3_step(q->fin) == SQLITE_ROW)
            cli_table_sql(t, r, l->nfixed + i, q->fin,
                          sqlite3_column_type(q->fin, 0) == SQLITE_NULL ? 1 : 0);
        sqlite3_reset(q->fin);
    }
    int tail = l->nfixed + l->nmetric;
    sqlite3_bind_int64(q->stale, 1, id);
    if (sqlite3_step(q->stale) == SQLITE_ROW)
        for (int c = 0; c < 2; c++) cli_table_sql(t, r, tail + c, q->stale, c);
    sqlite3_reset(q->stale);
    sqlite3_bind_int64(q->traffic, 1, id);
    if (l->ntail > 2 && sqlite3_step(q->traffic) == SQLITE_ROW)
        for (int c = 0; c < 3; c++) cli_table_sql(t, r, tail + 2 + c, q->traffic, c);
    sqlite3_reset(q->traffic);
}

static int report_runs(rdb_t *db, const char *path, bool wide)
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
    run_cols_t l;
    choose_run_cols(name, nnames, wide, &l);
    cli_table_t t;
    init_runs_table(&t, &l);
    while (sqlite3_step(q.runs) == SQLITE_ROW) add_run_row(&t, &q, &l);
    printf("Runs (%d) in ", t.nrows);
    report_print_escaped(path);
    printf(wide ? "\n\n" : " (--wide: every column)\n\n");
    cli_table_print(&t, CLI_FMT_TEXT, stdout);
    cli_table_free(&t);
    free(l.metric);
    for (int i = 0; i < nnames; i++) free(name[i]);
    free(name);
    finalize_run_stmts(&q);
    return SGD_EXIT_OK;
}

typedef struct report_args {
    const char *db_path;
    bool wide; /* --wide: the per-run table with every column */
} report_args_t;

static const cli_opt_t report_opts[] = {
    {.name = "--wide", .kind = CLI_ARG_FLAG, .off = offsetof(report_args_t, wide)},
    {.name = NULL},
};

/* "DB [--wide]"; 0, or the exit code (with --help: after the usage text). */
static int parse_report_args(int argc, char **argv, report_args_t *a, bool *help)
{
    static const char *const missing[] = {"DB"};
    int fmt = CLI_FMT_TEXT;
    *a = (report_args_t){0};
    cli_opt_set_t sets[] = {{report_opts, a, 0}, {cli_format_opts, &fmt, 0}};
    cli_cmd_spec_t spec = {.cmd = "report", .npos = 1, .missing = missing, .sets = sets,
                           .nsets = 2};
    int rc = cli_args_parse_fixed(&spec, argc, argv, &a->db_path, help);
    if (rc == 0 && *help) usage(stdout);
    if (rc == 0 && !*help && fmt != CLI_FMT_TEXT)
        rc = cli_bad_input("report: prints text only; use sgdsim query or export for CSV/JSON");
    return rc;
}

int cli_report_main(int argc, char **argv)
{
    report_args_t a;
    bool help;
    int rc = parse_report_args(argc, argv, &a, &help);
    if (rc || help) return rc;
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(a.db_path, &db, &err)) return cli_bad_input("report: %s", err.msg);
    rc = report_runs(db, a.db_path, a.wide);
    if (rc == SGD_EXIT_OK) rc = report_sweeps(db);
    rdb_close(db);
    return rc;
}
