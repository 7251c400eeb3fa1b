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

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report_sweep.h"
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
    report_print_escaped(path);
    printf("\n\n");
    cli_table_print(&t, CLI_FMT_TEXT, stdout);
    cli_table_free(&t);
    for (int i = 0; i < nnames; i++) free(name[i]);
    free(name);
    finalize_run_stmts(&q);
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
