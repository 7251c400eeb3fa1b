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

#include "analysis/clock.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report_html.h"
#include "cli/report_json.h"
#include "cli/report_sweep.h"
#include "cli/table.h"
#include "cli/text.h"
#include "results/rdb.h"
#include "results/rdb_rows.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim report DB [--wide | --json]\n"
               "       sgdsim report DB... --html FILE\n\n"
               "Prints every run of the results database DB (status, updates, virtual time,\n"
               "final val_error, staleness) and, per scenario swept over several\n"
               "configurations, pivot tables of final val_error, virtual time and scaling\n"
               "efficiency by the swept keys (e.g. cluster.workers x algorithm.name): each\n"
               "cell the mean +- std over the runs that differ only by seed, and their number.\n"
               "  --wide  the per-run table with every final metric, the run key and traffic\n"
               "  --json  instead of the tables, per scenario its axes and per configuration\n"
               "          (the latest finished run of each seed) the mean, sample sd and 95%%\n"
               "          interval (Student's t) of every final metric, as JSON numbers\n"
               "  --html FILE  instead, the results browser's page for the databases DB...\n"
               "          (with two: the first the baseline, with compare's verdicts): one\n"
               "          self-contained HTML file that opens offline (sgdsim serve: live)\n\n"
               "exit codes: 0 ok, 2 bad input (not a results database)\n");
}

/* ---- per-run table -------------------------------------------------------------------- */

/* The run's columns of the per-run table, in the order of init_runs_table's names. */
typedef enum {
    COL_ID, COL_KEY, COL_SCENARIO, COL_ALGORITHM, COL_WORKERS, COL_STATUS, COL_UPDATES,
    COL_VTIME_S
} run_col_t;

/* What the per-run table shows: the run's columns fixed[0..nfixed), the final value of
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

/* An integer cell, or a NULL one when the database holds none. */
static void int_cell(cli_table_t *t, int r, int c, bool has, int64_t v)
{
    if (has) cli_table_int(t, r, c, v);
    else cli_table_text(t, r, c, NULL);
}

/* Text, shown as the database holds it: NULL stays NULL. */
static void text_cell(cli_table_t *t, int r, int c, const char *s)
{
    cli_table_text(t, r, c, s);
}

/* Column `which` of the run: the run key shortened to its first 12 characters. */
static void run_cell(cli_table_t *t, int r, int c, const rdb_run_row_t *run, run_col_t which)
{
    char key[13];
    switch (which) {
    case COL_ID: cli_table_int(t, r, c, run->id); break;
    case COL_KEY:
        if (run->run_key) snprintf(key, sizeof key, "%s", run->run_key);
        text_cell(t, r, c, run->run_key ? key : NULL);
        break;
    case COL_SCENARIO: text_cell(t, r, c, run->scenario); break;
    case COL_ALGORITHM: text_cell(t, r, c, run->algorithm); break;
    case COL_WORKERS: int_cell(t, r, c, run->has_workers, run->workers); break;
    case COL_STATUS: text_cell(t, r, c, run->status); break;
    case COL_UPDATES: int_cell(t, r, c, run->has_updates, run->updates); break;
    case COL_VTIME_S:
        if (!ana_config_has_clock(run->config_json)) text_cell(t, r, c, "no clock");
        else if (run->has_vtime_ns) cli_table_real(t, r, c, (double)run->vtime_ns / 1e9);
        else text_cell(t, r, c, NULL);
        break;
    }
}

/* The final value of metric `name`: the number, or nan / inf / -inf as text; no cell when
 * the run has no row of it. */
static int final_cell(cli_table_t *t, int r, int c, rdb_run_facts_t *f, int64_t id,
                      const char *name, sgd_err_t *err)
{
    rdb_metric_row_t m;
    int found = rdb_run_final(f, id, name, &m, err);
    if (found > 0 && m.nonfinite) cli_table_text(t, r, c, m.nonfinite);
    else if (found > 0) cli_table_real(t, r, c, m.value);
    return found < 0 ? -1 : 0;
}

/* mean_tau, max_tau, then with ntail > 2 sent_MB, sent_msgs, skipped_MB, from column c. */
static int tail_cells(cli_table_t *t, int r, int c, int ntail, rdb_run_facts_t *f, int64_t id,
                      sgd_err_t *err)
{
    rdb_staleness_row_t s;
    if (rdb_run_staleness(f, id, &s, err)) return -1;
    cli_table_real(t, r, c, s.mean_tau); /* NaN: a NULL cell */
    int_cell(t, r, c + 1, s.has_max_tau, s.max_tau);
    if (ntail <= 2) return 0;
    rdb_traffic_row_t tr;
    if (rdb_run_traffic(f, id, &tr, err)) return -1;
    cli_table_real(t, r, c + 2, tr.sent_mb);
    int_cell(t, r, c + 3, tr.has_sent_msgs, tr.sent_msgs);
    cli_table_real(t, r, c + 4, tr.skipped_mb);
    return 0;
}

/* One row for the run. */
static int add_run_row(cli_table_t *t, rdb_run_facts_t *f, const rdb_run_row_t *run,
                       const run_cols_t *l, sgd_err_t *err)
{
    int r = cli_table_row(t);
    for (int c = 0; c < l->nfixed; c++) run_cell(t, r, c, run, (run_col_t)l->fixed[c]);
    for (int i = 0; i < l->nmetric; i++)
        if (final_cell(t, r, l->nfixed + i, f, run->id, l->metric[i], err)) return -1;
    return tail_cells(t, r, l->nfixed + l->nmetric, l->ntail, f, run->id, err);
}

/* Every run into t, in id order; *nclockless: how many have no clock (analysis/clock.h). */
static int fill_runs_table(rdb_t *db, cli_table_t *t, const run_cols_t *l, int *nclockless,
                           sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    rdb_run_facts_t *f = NULL;
    int rc = rdb_runs_open(db, &(rdb_runs_query_t){0}, &it, err) ||
             rdb_run_facts_open(db, &f, err) ? -1 : 1;
    rdb_run_row_t run;
    while (rc > 0 && (rc = rdb_runs_next(it, &run, err)) > 0) {
        *nclockless += !ana_config_has_clock(run.config_json);
        if (add_run_row(t, f, &run, l, err)) rc = -1;
    }
    rdb_run_facts_close(f);
    rdb_rows_close(it);
    return rc;
}

static int report_runs(rdb_t *db, const char *path, bool wide)
{
    sgd_err_t err = {{0}};
    char **name = NULL;
    int nnames = 0;
    if (rdb_metric_names(db, &name, &nnames, &err)) {
        rdb_names_free(name, nnames);
        return cli_bad_input("report: %s", err.msg);
    }
    run_cols_t l;
    choose_run_cols(name, nnames, wide, &l);
    cli_table_t t;
    init_runs_table(&t, &l);
    int nclockless = 0, rc = fill_runs_table(db, &t, &l, &nclockless, &err);
    if (rc == 0) {
        printf("Runs (%d) in ", t.nrows);
        report_print_escaped(path);
        printf(wide ? "\n\n" : " (--wide: every column)\n\n");
        cli_table_print(&t, CLI_FMT_TEXT, stdout);
        if (nclockless)
            printf("vtime_s \"no clock\": %d run%s with %s: vtime_ns counts iterations\n",
                   nclockless, nclockless == 1 ? "" : "s", ANA_NO_CLOCK_TEXT);
    }
    cli_table_free(&t);
    free(l.metric);
    rdb_names_free(name, nnames);
    return rc ? cli_bad_input("report: %s", err.msg) : SGD_EXIT_OK;
}

typedef struct report_args {
    const char *db_path;
    bool wide; /* --wide: the per-run table with every column */
    bool json; /* --json: the seed statistics as JSON (cli/report_json.c) */
    const char *html;  /* --html FILE: the results browser's page (cli/report_html.c) */
    cli_args_t pos;    /* DB... (several only with --html) */
} report_args_t;

static const cli_opt_t report_opts[] = {
    {.name = "--wide", .kind = CLI_ARG_FLAG, .off = offsetof(report_args_t, wide)},
    {.name = "--html", .kind = CLI_ARG_STRING, .off = offsetof(report_args_t, html),
     .metavar = "FILE"},
    {.name = NULL},
};

/* "DB [--wide] [--json]"; 0, or the exit code (with --help: after the usage text). */
static int parse_report_args(int argc, char **argv, report_args_t *a, bool *help)
{
    static const char *const missing[] = {"DB"};
    int fmt = CLI_FMT_TEXT;
    *a = (report_args_t){0};
    cli_opt_set_t sets[] = {{report_opts, a, 0}, {cli_format_opts, &fmt, 0}};
    cli_cmd_spec_t spec = {.cmd = "report", .npos = 1, .more_pos = true, .missing = missing,
                           .sets = sets, .nsets = 2};
    int rc = cli_args_parse(&spec, argc, argv, &a->pos);
    *help = a->pos.help;
    if (rc == 0 && *help) usage(stdout);
    if (rc == 0 && !*help) a->db_path = a->pos.pos[0];
    if (rc == 0 && !*help && fmt == CLI_FMT_CSV)
        rc = cli_bad_input("report: prints text or --json; use sgdsim query or export for CSV");
    a->json = fmt == CLI_FMT_JSON;
    if (rc == 0 && !*help) rc = report_html_check_args(a->html, a->pos.npos, a->json, a->wide);
    return rc;
}

int cli_report_main(int argc, char **argv)
{
    report_args_t a;
    bool help;
    int rc = parse_report_args(argc, argv, &a, &help);
    if (rc || help || a.html) {
        if (rc == 0 && !help) rc = report_html(a.pos.pos, a.pos.npos, a.html);
        cli_args_free(&a.pos);
        return rc;
    }
    cli_args_free(&a.pos);
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(a.db_path, &db, &err)) return cli_bad_input("report: %s", err.msg);
    if (a.json) {
        rc = report_json(db, a.db_path);
    } else {
        rc = report_runs(db, a.db_path, a.wide);
        if (rc == SGD_EXIT_OK) rc = report_sweeps(db);
    }
    rdb_close(db);
    return rc;
}
