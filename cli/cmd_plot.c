/* `sgdsim plot DB --y METRIC [--x update|vtime] [--by KEY,...] [--where COND] [--band
 * std|minmax] [--follow] -o FIG`: draws a metric's curves from a results database with
 * gnuplot (the Debian package gnuplot-nox), one line per series of runs, as PNG, SVG or PDF
 * by the output file's extension.  The series and their legend order come from
 * plot_series.c, --where and --label from plot_select.c, and the figure is drawn by
 * plot_draw.c into a temporary file beside FIG and renamed to FIG, so a reader of FIG never sees half a figure
 * (which is what lets --follow redraw it in place).
 *
 * A database's strings are whatever its writer put there, so the script comes from
 * gnuplot_script.c, which makes every string inert (no command, variable or markup) and
 * writes the data as numbers in inline datablocks. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/gnuplot_script.h"
#include "cli/options.h"
#include "cli/outpath.h"
#include "cli/plot_draw.h"
#include "cli/plot_select.h"
#include "cli/plot_series.h"
#include "cli/text.h"
#include "results/rdb.h"
#include "results/rdb_meta.h"
#include "results/rdb_read.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim plot DB --y METRIC [--x update|vtime] [--by KEY,...] [--where COND]...\n"
        "                  [--band std|minmax] [--label NAME=TEXT]... [--legend-title TEXT]\n"
        "                  [--title TEXT] [--size W,H] [--logx] [--logy]\n"
        "                  [--follow [--every SECONDS]] [--record] -o FIG.png|FIG.svg|FIG.pdf\n\n"
        "Draws METRIC (e.g. val_error, train_loss) of the finished runs in DB against the\n"
        "update index (default) or virtual time in seconds, one line per series of runs.\n"
        "  --by KEY,...  series by runs columns (algorithm, workers or lambda, seed, ...) or\n"
        "                configuration keys (cluster.workers, optimizer.lr, ...); runs of a\n"
        "                series are averaged per update.  Default: one line per run.  The\n"
        "                legend sorts numbers numerically (250, 500, 1000)\n"
        "  --where COND  only runs where every term of COND holds: KEY OP VALUE separated by\n"
        "                commas, OP one of = != < <= > >= (seed<=3,cluster.workers=1000);\n"
        "                repeatable (all must hold).  Never SQL: values are compared as\n"
        "                numbers or text\n"
        "  --band std|minmax  a filled band around each mean: ± the sample standard deviation\n"
        "                over seeds, or their min to max; a series' runs may differ only by\n"
        "                seed, and some series must have several\n"
        "  --label KEY=TEXT  shows KEY as TEXT in the legend (empty TEXT: values alone);\n"
        "  --label KEY:VALUE=TEXT  shows TEXT for the series with KEY=VALUE; repeatable\n"
        "  --legend-title TEXT, --title TEXT  (default title: the runs' scenario name)\n"
        "  --size W,H    pixels for PNG and SVG (default 960,640), inches for PDF (6,4)\n"
        "  --logx, --logy  logarithmic axes with minor ticks (points <= 0 are left out)\n"
        "  --follow      draws running runs too and redraws FIG every --every SECONDS\n"
        "                (default 5) as rows arrive, until no selected run is running or\n"
        "                Ctrl-C; FIG is replaced whole each time\n"
        "  --record      afterwards, records FIG (absolute path, size, SHA-256) as a \"figure\"\n"
        "                artifact of every run it draws, in DB's table artifacts: the one\n"
        "                option that opens DB for writing\n"
        "Text is drawn as it is (no gnuplot markup); control characters show as spaces.\n"
        "Needs gnuplot (Debian: apt-get install gnuplot-nox).\n\n"
        "exit codes: 0 drawn (also when --follow is stopped), 2 bad input (unknown metric\n"
        "or key, bad condition, no runs selected, --band without repeated seeds, not a\n"
        "results database, unknown figure type, gnuplot missing or failing)\n");
}

typedef struct plot_args {
    const char *db, *x, *y, *by, *out, *title, *legend_title, *size, *band;
    cli_list_t where, label;
    bool logx, logy, follow, record, help;
    double every;
    gp_format_t format;
    int width, height;
    plot_band_t band_kind;
} plot_args_t;

static const cli_opt_t plot_opts[] = {
    {.name = "--y", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, y), .metavar = "METRIC",
     .flags = CLI_ARG_REQUIRED},
    {.name = "--output", .alias = "-o", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, out),
     .metavar = "FIG.png|FIG.svg|FIG.pdf", .flags = CLI_ARG_REQUIRED},
    {.name = "--x", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, x)},
    {.name = "--by", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, by)},
    {.name = "--where", .kind = CLI_ARG_LIST, .off = offsetof(plot_args_t, where)},
    {.name = "--band", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, band)},
    {.name = "--label", .kind = CLI_ARG_LIST, .off = offsetof(plot_args_t, label)},
    {.name = "--legend-title", .kind = CLI_ARG_STRING,
     .off = offsetof(plot_args_t, legend_title)},
    {.name = "--title", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, title)},
    {.name = "--size", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, size)},
    {.name = "--logx", .kind = CLI_ARG_FLAG, .off = offsetof(plot_args_t, logx)},
    {.name = "--logy", .kind = CLI_ARG_FLAG, .off = offsetof(plot_args_t, logy)},
    {.name = "--follow", .kind = CLI_ARG_FLAG, .off = offsetof(plot_args_t, follow)},
    {.name = "--record", .kind = CLI_ARG_FLAG, .off = offsetof(plot_args_t, record)},
    {.name = "--every", .kind = CLI_ARG_DOUBLE, .off = offsetof(plot_args_t, every),
     .expect = "expected seconds between redraws, at least 0.05", .min = 0.05},
    {.name = NULL},
};

/* --size W,H: whole pixels for PNG and SVG, inches (hundredths kept) for PDF. */
static int parse_size(plot_args_t *a)
{
    if (!a->size) return SGD_EXIT_OK;
    bool pdf = a->format == GP_PDF;
    double lo = pdf ? 0.5 : 64, hi = pdf ? 100 : 16384, w = 0, h = 0;
    char *end = NULL;
    w = strtod(a->size, &end);
    bool ok = end != a->size && *end == ',';
    if (ok) {
        const char *hs = end + 1;
        h = strtod(hs, &end);
        ok = end != hs && !*end && a->size[0] != ' ' && hs[0] != ' ';
    }
    ok = ok && w >= lo && w <= hi && h >= lo && h <= hi;
    ok = ok && (pdf || (w == floor(w) && h == floor(h)));
    if (!ok) {
        char *shown = cli_text_escape(a->size);
        int rc = cli_bad_input("plot: --size %s: expected W,H in %s, each %g to %g", shown,
                               pdf ? "inches (a PDF figure)" : "whole pixels", lo, hi);
        free(shown);
        return rc;
    }
    a->width = (int)lround(pdf ? w * 100 : w);
    a->height = (int)lround(pdf ? h * 100 : h);
    return SGD_EXIT_OK;
}

/* The values that need no database: --x, -o's type, --size, --band, --every. */
static int check_args(plot_args_t *a)
{
    if (strcmp(a->x, "update") != 0 && strcmp(a->x, "vtime") != 0)
        return cli_bad_input("plot: --x %s: expected update or vtime", a->x);
    if (!gp_format_for(a->out, &a->format))
        return cli_bad_input("plot: -o %s: the figure's name must end in .png, .svg or .pdf",
                             a->out);
    if (a->band && strcmp(a->band, "std") == 0) a->band_kind = PLOT_BAND_STD;
    else if (a->band && strcmp(a->band, "minmax") == 0) a->band_kind = PLOT_BAND_MINMAX;
    else if (a->band) return cli_bad_input("plot: --band %s: expected std or minmax", a->band);
    if (a->every > 0 && !a->follow)
        return cli_bad_input("plot: --every: only with --follow (it sets how often to redraw)");
    if (!a->follow) a->every = 0;
    else if (a->every == 0) a->every = 5;
    return parse_size(a);
}

/* "DB --y METRIC -o FIG ..."; 0, or the exit code after the message. */
static int parse_args(int argc, char **argv, plot_args_t *a)
{
    static const char *const missing[] = {"DB"};
    memset(a, 0, sizeof *a);
    a->x = "update";
    cli_opt_set_t sets[] = {{plot_opts, a, 0}};
    cli_cmd_spec_t spec = {.cmd = "plot", .npos = 1, .missing = missing, .sets = sets,
                           .nsets = 1};
    int rc = cli_args_parse_fixed(&spec, argc, argv, &a->db, &a->help);
    if (rc || a->help) return rc;
    return check_args(a);
}

/* The metric's names in the database, escaped for the terminal, for the error message. */
static void metric_names(rdb_t *db, char *names, size_t size)
{
    sqlite3_stmt *st = NULL;
    sgd_err_t err = {{0}};
    size_t len = 0;
    names[0] = '\0';
    if (rdb_read_prepare(db, RDB_Q_METRIC_NAMES, &st, &err) == 0)
        while (sqlite3_step(st) == SQLITE_ROW && len + 64 < size) {
            char *e = cli_text_escape((const char *)sqlite3_column_text(st, 0));
            len += (size_t)snprintf(names + len, size - len, "%s%s", len ? ", " : "", e);
            free(e);
        }
    if (len >= size) len = size - 1;
    sqlite3_finalize(st);
    if (!len) snprintf(names, size, "no metrics at all");
}

/* The metric must exist: a typo would otherwise draw an empty figure. */
static int check_metric(rdb_t *db, const plot_args_t *a)
{
    if (rdb_has_metric(db, a->y)) return SGD_EXIT_OK;
    char names[512];
    metric_names(db, names, sizeof names);
    return cli_bad_input("plot: --y %s: no such metric in %s (it has: %s)", a->y, a->db, names);
}

/* The group keys of --by (keys[0..*nkeys), pointing into *copy, which the caller frees), each
 * checked with rdb_curve_key_known; without --by none (one line per run). */
static int group_keys(rdb_t *db, const char *by, char **copy, const char ***keys, int *nkeys)
{
    *copy = NULL;
    *keys = NULL;
    *nkeys = 0;
    if (!by) return SGD_EXIT_OK;
    if (!*by || strstr(by, ",,") || by[0] == ',' || by[strlen(by) - 1] == ',')
        return cli_bad_input("plot: --by %s: expected keys separated by commas", by);
    *copy = sgd_xstrdup(by);
    *keys = sgd_xcalloc(strlen(by) + 1, sizeof **keys);
    char *save = NULL;
    for (char *k = strtok_r(*copy, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        if (!rdb_curve_key_known(db, k))
            return cli_bad_input("plot: --by %s: \"%s\" is neither a column of runs (algorithm, "
                                 "workers, seed, ...) nor a configuration key of any run "
                                 "(cluster.workers, optimizer.lr, ...)", by, k);
        (*keys)[(*nkeys)++] = k;
    }
    return SGD_EXIT_OK;
}

/* Everything a drawing needs besides the data, checked once. */
typedef struct plot_ctx {
    const plot_args_t *a;
    plot_query_t q;
    plot_labels_t labels;
    char gnuplot[4096];
    bool drawn;      /* something was drawn */
    double drawn_sig; /* and what it was (data_signature) */
    int64_t *drawn_runs; /* the runs of the last drawing, for --record (owned) */
    int ndrawn_runs;
} plot_ctx_t;

/* Keeps the runs of the figure just drawn, for --record. */
static void keep_drawn_runs(plot_ctx_t *c, const plot_data_t *d)
{
    free(c->drawn_runs);
    c->drawn_runs = sgd_xcalloc((size_t)d->nruns + 1, sizeof *c->drawn_runs);
    memcpy(c->drawn_runs, d->run_id, (size_t)d->nruns * sizeof *d->run_id);
    c->ndrawn_runs = d->nruns;
}

/* --band's conditions on the series read; 0 or the exit code. */
static int check_band(const plot_ctx_t *c, const plot_data_t *d)
{
    const char *band = c->a->band;
    int most = 0;
    for (int s = 0; s < d->nseries; s++) {
        const plot_series_t *ser = &d->series[s];
        char *shown = cli_text_escape(ser->label);
        int rc = SGD_EXIT_OK;
        if (ser->mixed && c->q.nkeys == 0)
            rc = cli_bad_input("plot: --band %s: the selected runs differ by more than their "
                               "seed; name what tells their series apart with --by KEY,... "
                               "or narrow them with --where", band);
        else if (ser->mixed)
            rc = cli_bad_input("plot: --band %s: the runs of series \"%s\" differ by more "
                               "than their seed; add the key that tells them apart to --by "
                               "or narrow them with --where", band, shown);
        else if (ser->dup)
            rc = cli_bad_input("plot: --band %s: series \"%s\" has two runs with seed %lld "
                               "(the same configuration run twice); leave one out with "
                               "--where id!=ID", band, shown, (long long)ser->dup_seed);
        free(shown);
        if (rc) return rc;
        if (ser->nruns > most) most = ser->nruns;
    }
    if (most < 2 && !d->nrunning) /* a followed sweep may not have reached seed 2 yet */
        return cli_bad_input("plot: --band %s: no series has runs with different seeds (%d "
                             "series of one run each), so there is no spread to draw; run "
                             "more seeds (sgdsim sweep ... --set seed=1,2,3)", band, d->nseries);
    return SGD_EXIT_OK;
}

/* Changes whenever a series gains a point or a run, so --follow redraws only then. */
static double data_signature(const plot_data_t *d)
{
    double sig = d->npoints + 1e6 * d->nruns;
    for (int s = 0; s < d->nseries; s++) {
        const plot_series_t *ser = &d->series[s];
        if (ser->n) sig += (s + 1) * (ser->x[ser->n - 1] + ser->y[ser->n - 1]);
    }
    return sig;
}

/* The script for the series read (malloc'ed). */
static char *build_script(const plot_args_t *a, const plot_data_t *d)
{
    gp_series_t *series = sgd_xcalloc((size_t)d->nseries + 1, sizeof *series);
    for (int i = 0; i < d->nseries; i++) {
        const plot_series_t *s = &d->series[i];
        series[i] = (gp_series_t){s->label, s->x, s->y, s->lo, s->hi, s->n};
    }
    gp_plot_t p = {
        .format = a->format,
        .title = a->title ? a->title : d->scenario,
        .xlabel = strcmp(a->x, "vtime") == 0 ? "virtual time (s)" : "update",
        .ylabel = a->y,
        .key_title = a->legend_title,
        .logx = a->logx,
        .logy = a->logy,
        .width = a->width,
        .height = a->height,
        .series = series,
        .nseries = d->nseries,
    };
    char *script = gp_script_build(&p);
    free(series);
    return script;
}

/* No runs, or nothing to draw in them: exit 2 (with --follow only once no run is running). */
static int check_found(const plot_ctx_t *c, const plot_data_t *d)
{
    const plot_args_t *a = c->a;
    char *db = cli_text_escape(a->db);
    int rc = SGD_EXIT_OK;
    if (d->nruns == 0)
        rc = cli_bad_input("plot: %s: no %sruns%s", db, a->follow ? "running or finished "
                           : "finished ", a->where.n ? " match --where" : "");
    else if (d->npoints == 0 && !d->nrunning)
        rc = cli_bad_input("plot: --y %s: no finite values to draw in the %d selected "
                           "run%s of %s%s", a->y, d->nruns, d->nruns == 1 ? "" : "s", db,
                           a->logx || a->logy ? " (points <= 0 are left out on log axes)" : "");
    free(db);
    return rc;
}

/* Reads the series and draws them, unless nothing changed since the last drawing or there
 * is nothing yet (a followed run before its first row); *nrunning = the selected runs
 * still running. */
static int render(rdb_t *db, plot_ctx_t *c, int *nrunning)
{
    plot_data_t d;
    sgd_err_t err = {{0}};
    int rc = SGD_EXIT_OK;
    if (plot_series_read_runs(db, &c->q, &d, &err) ||
        plot_series_label(&d, c->q.keys, &c->labels, &err) ||
        plot_series_read_points(db, &c->q, &d, &err))
        rc = cli_bad_input("plot: %s", err.msg);
    if (!rc) rc = check_found(c, &d);
    if (!rc && c->q.band != PLOT_BAND_NONE) rc = check_band(c, &d);
    *nrunning = d.nrunning;
    double sig = data_signature(&d);
    if (!rc && d.npoints && (!c->drawn || sig != c->drawn_sig)) {
        char *script = build_script(c->a, &d);
        rc = plot_draw(c->gnuplot, script, c->a->out);
        free(script);
        c->drawn = !rc;
        c->drawn_sig = sig;
        if (!rc) keep_drawn_runs(c, &d);
        char *shown = cli_text_escape(c->a->out);
        if (!rc) printf("%s: %d line%s, %d point%s%s\n", shown, d.nseries,
                        d.nseries == 1 ? "" : "s", d.npoints, d.npoints == 1 ? "" : "s",
                        d.nrunning ? " (running)" : "");
        fflush(stdout);
        free(shown);
    }
    plot_data_free(&d);
    return rc;
}

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

/* Sleeps, waking early for SIGINT or SIGTERM (installed without SA_RESTART). */
static void wait_seconds(double s)
{
    struct timespec t = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (!stop_signal && nanosleep(&t, &t) != 0 && errno == EINTR) continue;
}

/* --follow: redraws until no selected run is running or a signal stops it. */
static int follow(rdb_t *db, plot_ctx_t *c)
{
    struct sigaction sa = {.sa_handler = on_stop_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int rc, nrunning;
    while (!(rc = render(db, c, &nrunning)) && nrunning && !stop_signal) wait_seconds(c->a->every);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (!rc && stop_signal)
        fprintf(stderr, "plot: stopped by signal %d; %s\n", (int)stop_signal,
                c->drawn ? "the figure shows the last rows read" : "nothing was drawn yet");
    return rc;
}

/* Checks the command line against db, then draws (once, or following the runs); *runs and
 * *nruns receive the runs of the last figure drawn (the caller frees *runs). */
static int plot_db(rdb_t *db, const plot_args_t *a, int64_t **runs, int *nruns)
{
    plot_ctx_t c = {.a = a};
    plot_where_t where = {0};
    char *by_copy = NULL;
    const char **keys = NULL;
    int nkeys = 0, rc = a->follow ? SGD_EXIT_OK : check_metric(db, a);
    if (!rc) rc = group_keys(db, a->by, &by_copy, &keys, &nkeys);
    if (!rc) rc = plot_where_parse(db, &a->where, &where);
    if (!rc) rc = plot_labels_parse(&a->label, keys, nkeys, &c.labels);
    if (!rc && !plot_find_in_path("gnuplot", c.gnuplot, sizeof c.gnuplot))
        rc = cli_bad_input("plot: gnuplot is not installed, so nothing was drawn (Debian: "
                           "apt-get install gnuplot-nox); the data is available with sgdsim "
                           "query or export");
    c.q = (plot_query_t){.metric = a->y, .keys = keys, .nkeys = nkeys,
                         .sel = {where.conds, where.n, a->follow}, .band = a->band_kind,
                         .vtime = strcmp(a->x, "vtime") == 0, .logx = a->logx, .logy = a->logy};
    int nrunning;
    if (!rc) rc = a->follow ? follow(db, &c) : render(db, &c, &nrunning);
    *runs = c.drawn_runs;
    *nruns = c.ndrawn_runs;
    plot_labels_free(&c.labels);
    plot_where_free(&where);
    free(keys);
    free(by_copy);
    return rc;
}

/* --record: the figure as an artifact of each of its runs, through a writer's handle opened
 * once the reader is closed. */
static int record_figure(const plot_args_t *a, const int64_t *runs, int nruns)
{
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    int rc = SGD_EXIT_OK;
    if (rdb_open(a->db, &db, &err) ||
        rdb_artifact_file_runs(db, runs, (size_t)nruns, "figure", a->out, &err))
        rc = cli_bad_input("plot: --record: %s (the figure is drawn; nothing was recorded)",
                           err.msg);
    if (db) rdb_close(db);
    if (!rc) printf("recorded as an artifact of %d run%s\n", nruns, nruns == 1 ? "" : "s");
    return rc;
}

/* -o must be neither DB nor one of its companions (common/outpath.h). */
static int check_out(const plot_args_t *a)
{
    sgd_outpath_input_t in = {a->db, "the results database DB", true};
    return cli_outpath_refuse("plot", "-o", a->out, false, &in, 1);
}

int cli_plot_main(int argc, char **argv)
{
    plot_args_t a;
    int rc = parse_args(argc, argv, &a);
    if (!rc && !a.help) rc = check_out(&a);
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    int64_t *runs = NULL;
    int nruns = 0;
    if (!rc && !a.help && rdb_open_readonly(a.db, &db, &err))
        rc = cli_bad_input("plot: %s", err.msg);
    if (a.help) usage(stdout);
    if (db) rc = plot_db(db, &a, &runs, &nruns);
    if (db) rdb_close(db);
    if (!rc && a.record && nruns > 0) rc = record_figure(&a, runs, nruns);
    free(runs);
    cli_list_free(&a.where);
    cli_list_free(&a.label);
    return rc;
}
