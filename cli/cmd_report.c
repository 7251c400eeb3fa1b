/* `sgdsim report DB [--wide]`: what a results database holds, for reading in a terminal.
 *
 *   Runs    one line per run: seed, status, updates, virtual time, the final val_error and
 *           staleness (mean and max tau), within 100 columns (long text cut with an
 *           ellipsis: rnd_table_print_fitted); --wide adds the run key, the
 *           final value of every other metric (not staleness_mean / staleness_max, which
 *           repeat mean_tau / max_tau) and traffic (bytes and messages sent and skipped).
 *   Sweeps  for each scenario with several finished runs, the sweep's axes and pivot tables
 *           of final val_error, virtual time and — when cluster.workers is an axis — scaling
 *           efficiency, with algorithm.name (else the last axis) across and the first other
 *           axis down; further axes get a table each (render/report_sweep.c).  The seed is never
 *           an axis: a cell is the mean +- std over the runs that differ only by seed.
 *
 * --json gives the seed statistics to programs (render/report_json.c) and --welch A B tests two
 * settings against each other (render/report_welch.c); this file parses and dispatches.
 *
 * Scaling efficiency of a run = its throughput per worker (samples per virtual second per
 * worker) divided by the mean of the runs with the fewest workers in the same column: 1.0
 * means perfect linear scaling. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "analysis/verdict.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report_html.h"
#include "render/report_json.h"
#include "render/report_sweep.h"
#include "render/report_welch.h"
#include "render/table.h"
#include "render/text.h"
#include "common/number.h"
#include "results/rdb.h"
#include "results/rdb_rows.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim report DB [--wide]\n"
               "       sgdsim report DB --json [--last K] [--updates N] [--at U,...]\n"
               "       sgdsim report DB --welch A B [--metric NAME] [--last K | --final]\n"
               "                     [--updates N] [--json]\n"
               "       sgdsim report DB... --html FILE [--match-on KEYS | --ignore KEYS]\n"
               "       (each form also takes --pool-builds)\n\n"
               "Prints every run of the results database DB (seed, status, updates, virtual\n"
               "time, final val_error, staleness; within 100 columns, long names cut) and,\n"
               "per scenario swept over several configurations, pivot tables of final\n"
               "val_error, virtual time and scaling efficiency by the swept keys (e.g.\n"
               "cluster.workers x algorithm.name): each cell the mean +- std over the runs\n"
               "that differ only by seed (each seed once), and their number. Runs of one\n"
               "configuration made by different builds (runs.git_rev) are never averaged:\n"
               "the build is then an axis of the tables.\n"
               "  --wide       the per-run table with every final metric, the run key and\n"
               "               traffic, nothing cut\n"
               "  --json       instead of the tables, per scenario its axes and per\n"
               "               configuration (the latest finished run of each seed; runs that\n"
               "               diverged counted, and left out of the statistics) the mean,\n"
               "               sample sd, min, max and 95%% interval (Student's t) of every\n"
               "               metric's final value, mean of its last K rows, min and max, of\n"
               "               staleness (mean, max, p50/p90/p99) and traffic, and each run's\n"
               "               own values, as JSON numbers\n"
               "  --last K     rows averaged at each curve's end (default 10, as compare)\n"
               "  --updates N  only runs whose configuration has stop.updates = N\n"
               "  --at U,...   also each metric's value at these updates (--json)\n"
               "  --welch A B  Welch's t test of mean(A) - mean(B) over the seeds, A and B\n"
               "               scenario names: the difference of means, t, df and the\n"
               "               two-sided p (--json: as JSON); fewer than 2 seeds a side is\n"
               "               an error\n"
               "  --metric M   the metric --welch compares (default val_error)\n"
               "  --final      --welch compares final values, not last-K means\n"
               "  --html FILE  instead, the results browser's page for the databases DB...\n"
               "               (with two: the first the baseline, with compare's verdicts):\n"
               "               one self-contained HTML file that opens offline (sgdsim\n"
               "               serve: live); each baseline configuration and the candidate\n"
               "               one paired with it share a colour (the candidate dashed)\n"
               "  --match-on KEYS, --ignore KEYS  with two databases and --html: how the\n"
               "               configurations pair, as for sgdsim compare\n"
               "  --pool-builds  a configuration's runs of several builds form one sample\n"
               "               (each seed once: its latest run), and the output says so;\n"
               "               by default runs of different builds are never pooled\n\n"
               "exit codes: 0 ok, 2 bad input (not a results database)\n");
}

/* ---- per-run table -------------------------------------------------------------------- */

/* The per-run table's lines fit this many columns; --wide cuts nothing. */
enum { REPORT_WIDTH = 100 };

/* The run's columns of the per-run table, in the order of init_runs_table's names. */
typedef enum {
    COL_ID, COL_KEY, COL_SCENARIO, COL_ALGORITHM, COL_WORKERS, COL_SEED, COL_STATUS,
    COL_UPDATES, COL_VTIME_S
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
    static const int all[] = {0, 1, 2, 3, 4, 5, 6, 7, 8}; /* id, key, ..., vtime_s */
    static const int narrow[] = {0, 2, 3, 4, 5, 6, 7, 8};  /* without key */
    *l = (run_cols_t){.fixed = wide ? all : narrow, .nfixed = wide ? 9 : 8,
                      .metric = sgd_xcalloc((size_t)nnames + 1, sizeof *l->metric),
                      .ntail = wide ? 5 : 2, .wide = wide};
    for (int i = 0; i < nnames; i++)
        if (wide ? !duplicate_metric(names[i]) : strcmp(names[i], "val_error") == 0)
            l->metric[l->nmetric++] = names[i];
}

static void init_runs_table(rnd_table_t *t, const run_cols_t *l)
{
    static const char *const fixed[] = {"id", "key", "scenario", "algorithm", "workers",
                                        "seed", "status", "updates", "vtime_s"};
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
    rnd_table_init(t, ncols, head);
    free(head);
    for (int i = 0; i < l->nmetric; i++) free(owned[i]);
    free(owned);
}

/* An integer cell, or a NULL one when the database holds none. */
static void int_cell(rnd_table_t *t, int r, int c, bool has, int64_t v)
{
    if (has) rnd_table_int(t, r, c, v);
    else rnd_table_text(t, r, c, NULL);
}

/* Text, shown as the database holds it: NULL stays NULL. */
static void text_cell(rnd_table_t *t, int r, int c, const char *s)
{
    rnd_table_text(t, r, c, s);
}

/* Column `which` of the run: the run key shortened to its first 12 characters. */
static void run_cell(rnd_table_t *t, int r, int c, const rdb_run_row_t *run, run_col_t which)
{
    char key[13];
    switch (which) {
    case COL_ID: rnd_table_int(t, r, c, run->id); break;
    case COL_KEY:
        if (run->run_key) snprintf(key, sizeof key, "%s", run->run_key);
        text_cell(t, r, c, run->run_key ? key : NULL);
        break;
    case COL_SCENARIO: text_cell(t, r, c, run->scenario); break;
    case COL_ALGORITHM: text_cell(t, r, c, run->algorithm); break;
    case COL_WORKERS: int_cell(t, r, c, run->has_workers, run->workers); break;
    case COL_SEED: rnd_table_int(t, r, c, run->seed); break;
    case COL_STATUS: text_cell(t, r, c, run->status); break;
    case COL_UPDATES: int_cell(t, r, c, run->has_updates, run->updates); break;
    case COL_VTIME_S:
        if (!ana_run_has_clock(run)) text_cell(t, r, c, "no clock");
        else if (run->has_vtime_ns) rnd_table_real(t, r, c, (double)run->vtime_ns / 1e9);
        else text_cell(t, r, c, NULL);
        break;
    }
}

/* The final value of metric `name`: the number, or nan / inf / -inf as text; no cell when
 * the run has no row of it. */
static int final_cell(rnd_table_t *t, int r, int c, rdb_run_facts_t *f, int64_t id,
                      const char *name, sgd_err_t *err)
{
    rdb_metric_row_t m;
    int found = rdb_run_final(f, id, name, &m, err);
    if (found > 0 && m.nonfinite) rnd_table_text(t, r, c, m.nonfinite);
    else if (found > 0) rnd_table_real(t, r, c, m.value);
    return found < 0 ? -1 : 0;
}

/* mean_tau, max_tau, then with ntail > 2 sent_MB, sent_msgs, skipped_MB, from column c. */
static int tail_cells(rnd_table_t *t, int r, int c, int ntail, rdb_run_facts_t *f, int64_t id,
                      sgd_err_t *err)
{
    rdb_staleness_row_t s;
    if (rdb_run_staleness(f, id, &s, err)) return -1;
    rnd_table_real(t, r, c, s.mean_tau); /* NaN: a NULL cell */
    int_cell(t, r, c + 1, s.has_max_tau, s.max_tau);
    if (ntail <= 2) return 0;
    rdb_traffic_row_t tr;
    if (rdb_run_traffic(f, id, &tr, err)) return -1;
    rnd_table_real(t, r, c + 2, tr.sent_mb);
    int_cell(t, r, c + 3, tr.has_sent_msgs, tr.sent_msgs);
    rnd_table_real(t, r, c + 4, tr.skipped_mb);
    return 0;
}

/* One row for the run. */
static int add_run_row(rnd_table_t *t, rdb_run_facts_t *f, const rdb_run_row_t *run,
                       const run_cols_t *l, sgd_err_t *err)
{
    int r = rnd_table_row(t);
    for (int c = 0; c < l->nfixed; c++) run_cell(t, r, c, run, (run_col_t)l->fixed[c]);
    for (int i = 0; i < l->nmetric; i++)
        if (final_cell(t, r, l->nfixed + i, f, run->id, l->metric[i], err)) return -1;
    return tail_cells(t, r, l->nfixed + l->nmetric, l->ntail, f, run->id, err);
}

/* Every run into t, in id order; *nclockless: how many have no clock (analysis/clock.h). */
static int fill_runs_table(rdb_t *db, rnd_table_t *t, const run_cols_t *l, int *nclockless,
                           sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    rdb_run_facts_t *f = NULL;
    int rc = rdb_runs_open(db, &(rdb_runs_query_t){0}, &it, err) ||
             rdb_run_facts_open(db, &f, err) ? -1 : 1;
    rdb_run_row_t run;
    while (rc > 0 && (rc = rdb_runs_next(it, &run, err)) > 0) {
        *nclockless += !ana_run_has_clock(&run);
        if (add_run_row(t, f, &run, l, err)) rc = -1;
    }
    rdb_run_facts_close(f);
    rdb_rows_close(it);
    return rc;
}

/* The per-run table of l's columns into t; without --wide, when its lines would not fit
 * REPORT_WIDTH even with the text cut (numbers are never cut: a 16-digit seed), the
 * staleness columns are left out, the last first, and *dropped says how many. */
static int build_runs_table(rdb_t *db, const run_cols_t *l, rnd_table_t *t, int *nclockless,
                            int *dropped, sgd_err_t *err)
{
    init_runs_table(t, l);
    *dropped = 0;
    if (fill_runs_table(db, t, l, nclockless, err)) return -1;
    while (!l->wide && *dropped < l->ntail &&
           rnd_table_fitted_width(t, REPORT_WIDTH) > REPORT_WIDTH) {
        rnd_table_keep_cols(t, t->ncols - 1);
        (*dropped)++;
    }
    return 0;
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
    rnd_table_t t;
    int nclockless = 0, dropped = 0, rc = build_runs_table(db, &l, &t, &nclockless, &dropped, &err);
    if (rc == 0) {
        printf("Runs (%d) in ", t.nrows);
        report_print_escaped(path);
        printf(wide ? "\n\n" : " (--wide: every column, nothing cut)\n\n");
        if (wide) rnd_table_print(&t, RND_FMT_TEXT, stdout);
        else rnd_table_print_fitted(&t, REPORT_WIDTH, stdout);
        if (dropped)
            printf("%s left out to fit %d columns (--wide shows %s)\n",
                   dropped == 2 ? "mean_tau and max_tau" : "max_tau", REPORT_WIDTH,
                   dropped == 2 ? "them" : "it");
        if (nclockless)
            printf("vtime_s \"no clock\": %d run%s with %s: vtime_ns counts iterations\n",
                   nclockless, nclockless == 1 ? "" : "s", ANA_NO_CLOCK_TEXT);
    }
    rnd_table_free(&t);
    free(l.metric);
    rdb_names_free(name, nnames);
    return rc ? cli_bad_input("report: %s", err.msg) : SGD_EXIT_OK;
}

typedef struct report_args {
    const char *db_path;
    bool wide;      /* --wide: the per-run table with every column */
    bool json;      /* --json: the seed statistics as JSON (render/report_json.c) */
    bool welch;     /* --welch A B: Welch's test (render/report_welch.c) */
    const char *setting[2];
    const char *metric; /* --metric NAME (with --welch) */
    bool final;         /* --final (with --welch) */
    uint64_t last;      /* --last K; 0: not given */
    uint64_t updates;   /* --updates N; 0: not given */
    rep_opts_t opts;    /* --at U,... goes straight here */
    bool has_at;
    const char *html;   /* --html FILE: the results browser's page (cli/report_html.c) */
    cli_list_t match_on, ignore; /* --match-on, --ignore: the A/B view of two databases */
    bool pool_builds;   /* --pool-builds */
    cli_args_t pos;     /* DB... (several only with --html; settings after DB with --welch) */
} report_args_t;

/* --at U,U,...: updates in increasing order, at most REP_MAX_AT. */
static bool opt_at(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    report_args_t *a = target;
    a->opts.nat = 0;
    for (const char *p = v;; p++) {
        size_t len = strcspn(p, ",");
        char word[24];
        uint64_t u = 0;
        bool ok = len > 0 && len < sizeof word && a->opts.nat < REP_MAX_AT;
        if (ok) memcpy(word, p, len), word[len] = '\0';
        ok = ok && sgd_parse_u64(word, &u) && u <= INT64_MAX &&
             (a->opts.nat == 0 || (int64_t)u > a->opts.at[a->opts.nat - 1]);
        if (!ok) {
            snprintf(msg, size, "%s %s: expected at most %d updates in increasing order, "
                     "separated by commas", opt, v, REP_MAX_AT);
            return false;
        }
        a->opts.at[a->opts.nat++] = (int64_t)u;
        p += len;
        if (!*p) break;
    }
    a->has_at = true;
    return true;
}

static const cli_opt_t report_opts[] = {
    {.name = "--wide", .kind = CLI_ARG_FLAG, .off = offsetof(report_args_t, wide)},
    {.name = "--welch", .kind = CLI_ARG_FLAG, .off = offsetof(report_args_t, welch)},
    {.name = "--metric", .kind = CLI_ARG_STRING, .off = offsetof(report_args_t, metric),
     .metavar = "NAME"},
    {.name = "--final", .kind = CLI_ARG_FLAG, .off = offsetof(report_args_t, final)},
    {.name = "--last", .kind = CLI_ARG_U64, .off = offsetof(report_args_t, last), .lo = 1,
     .hi = 1000000, .expect = "expected a whole number of rows >= 1"},
    {.name = "--updates", .kind = CLI_ARG_U64, .off = offsetof(report_args_t, updates),
     .lo = 1, .hi = INT64_MAX, .expect = "expected a whole number of updates >= 1"},
    {.name = "--at", .kind = CLI_ARG_CUSTOM, .parse = opt_at},
    {.name = "--html", .kind = CLI_ARG_STRING, .off = offsetof(report_args_t, html),
     .metavar = "FILE"},
    {.name = "--match-on", .kind = CLI_ARG_LIST, .off = offsetof(report_args_t, match_on),
     .metavar = "KEYS"},
    {.name = "--ignore", .kind = CLI_ARG_LIST, .off = offsetof(report_args_t, ignore),
     .metavar = "KEYS"},
    {.name = "--pool-builds", .kind = CLI_ARG_FLAG, .off = offsetof(report_args_t, pool_builds)},
    {.name = NULL},
};

/* The options that only --json or --welch take, and the combinations that make no sense;
 * 0 or the exit code. */
static int check_report_args(const report_args_t *a, int npos)
{
    if (!a->welch && npos > 1)
        return cli_bad_input("report: unexpected argument %s: several databases are read "
                             "only with --html FILE, two settings only with --welch A B (see "
                             "sgdsim report --help)", a->setting[0]);
    if (a->welch && npos != 3)
        return cli_bad_input("report: --welch needs two settings: report DB --welch A B");
    if (a->welch && a->wide) return cli_bad_input("report: --wide is not for --welch");
    if (!a->welch && (a->metric || a->final))
        return cli_bad_input("report: %s only with --welch", a->metric ? "--metric" : "--final");
    if (a->final && a->last) return cli_bad_input("report: --last and --final exclude each other");
    if (a->welch && a->has_at) return cli_bad_input("report: --at only with --json");
    if (a->match_on.n || a->ignore.n)
        return cli_bad_input("report: %s only with two databases and --html FILE (the A/B "
                             "view; compare takes it too)", a->match_on.n ? "--match-on"
                                                                          : "--ignore");
    if (!a->welch && !a->json && (a->last || a->updates || a->has_at))
        return cli_bad_input("report: %s only with --json or --welch",
                             a->last ? "--last" : a->updates ? "--updates" : "--at");
    return 0;
}

/* --html's arguments: several databases, none of the text or statistics options. */
static int check_html_args(const report_args_t *a)
{
    if (a->welch || a->metric || a->final || a->last || a->updates || a->has_at)
        return cli_bad_input("report: --html writes the whole page; it takes none of --welch, "
                             "--metric, --final, --last, --updates, --at");
    if ((a->match_on.n || a->ignore.n) && a->pos.npos != 2)
        return cli_bad_input("report: %s pairs the configurations of two databases: give "
                             "exactly two with --html", a->match_on.n ? "--match-on"
                                                                      : "--ignore");
    return report_html_check_args(a->html, a->pos.npos, a->json, a->wide);
}

/* "DB [--wide] [--json ...]" or "DB --welch A B ..."; 0, or the exit code (with --help:
 * after the usage text). */
static int parse_report_args(int argc, char **argv, report_args_t *a, bool *help)
{
    static const char *const missing[] = {"DB"};
    int fmt = RND_FMT_TEXT;
    *a = (report_args_t){0};
    cli_opt_set_t sets[] = {{report_opts, a, 0}, {cli_format_opts, &fmt, 0}};
    cli_cmd_spec_t spec = {.cmd = "report", .npos = 1, .more_pos = true, .missing = missing,
                           .sets = sets, .nsets = 2};
    int rc = cli_args_parse(&spec, argc, argv, &a->pos);
    *help = a->pos.help;
    if (rc == 0 && *help) usage(stdout);
    if (rc == 0 && !*help) {
        a->db_path = a->pos.pos[0];
        a->json = fmt == RND_FMT_JSON;
        if (fmt == RND_FMT_CSV)
            rc = cli_bad_input("report: prints text or --json; use sgdsim query or export for CSV");
        for (int i = 1; !a->html && i < a->pos.npos && i < 3; i++)
            a->setting[i - 1] = a->pos.pos[i];
        if (rc == 0 && a->html) rc = check_html_args(a);
        else if (rc == 0) rc = check_report_args(a, a->pos.npos);
    }
    a->opts.last_k = a->last ? (int)a->last : ANA_LAST_DEFAULT;
    a->opts.pool_builds = a->pool_builds;
    a->opts.has_updates = a->updates > 0;
    a->opts.updates = (int64_t)a->updates;
    return rc;
}

int cli_report_main(int argc, char **argv)
{
    report_args_t a;
    bool help;
    int rc = parse_report_args(argc, argv, &a, &help);
    if (rc || help || a.html) {
        if (rc == 0 && !help)
            rc = report_html(a.pos.pos, a.pos.npos, a.html, &a.match_on, &a.ignore,
                             a.pool_builds);
        cli_list_free(&a.match_on), cli_list_free(&a.ignore);
        cli_args_free(&a.pos);
        return rc;
    }
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(a.db_path, &db, &err)) {
        rc = cli_bad_input("report: %s", err.msg);
        cli_list_free(&a.match_on), cli_list_free(&a.ignore);
        cli_args_free(&a.pos);
        return rc;
    }
    if (a.welch) {
        report_welch_args_t w = {a.setting[0], a.setting[1], a.metric ? a.metric : "val_error",
                                 a.final, a.json};
        rc = report_welch(db, a.db_path, &a.opts, &w);
    } else if (a.json) {
        rc = report_json(db, a.db_path, &a.opts);
    } else {
        rc = report_runs(db, a.db_path, a.wide);
        if (rc == SGD_EXIT_OK) rc = report_sweeps(db, a.pool_builds);
    }
    rdb_close(db);
    cli_list_free(&a.match_on), cli_list_free(&a.ignore);
    cli_args_free(&a.pos); /* a.db_path and the settings point into it */
    return rc;
}
