/* `sgdsim plot DB --y METRIC [--x update|vtime] [--by KEY,...] [--where COND] [--band
 * std|minmax] [--facet KEY] [--follow] -o FIG`: draws a metric's curves from a results database with
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

#include "analysis/clock.h"
#include "analysis/series.h"
#include "cli/cli.h"
#include "cli/gnuplot_script.h"
#include "cli/options.h"
#include "cli/outpath.h"
#include "cli/plot_draw.h"
#include "cli/plot_figure.h"
#include "cli/plot_select.h"
#include "cli/plot_series.h"
#include "cli/text.h"
#include "common/number.h"
#include "common/outpath.h"
#include "results/rdb.h"
#include "results/rdb_meta.h"
#include "results/rdb_curves.h"
#include "results/rdb_read.h"
#include "results/rdb_rows.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim plot DB --y METRIC [--x update|vtime] [--by KEY,...] [--where COND]...\n"
        "                  [--band std|minmax] [--pool] [--color-by KEY] [--dash-by KEY]\n"
        "                  [--facet KEY] [--label NAME=TEXT]... [--legend-title TEXT]\n"
        "                  [--legend outside|below|inside] [--title TEXT] [--xlabel TEXT]\n"
        "                  [--ylabel TEXT] [--xrange LO:HI] [--yrange LO:HI] [--size W,H]\n"
        "                  [--logx] [--logy] [--data FILE.csv]\n"
        "                  [--follow [--every SECONDS]] [--record] -o FIG.png|FIG.svg|FIG.pdf\n\n"
        "Draws METRIC (e.g. val_error, train_loss) of the finished runs in DB against the\n"
        "update index (default) or virtual time in seconds, one line per series of runs.\n"
        "  --by KEY,...  series by runs columns (algorithm, workers or lambda, seed, ...) or\n"
        "                configuration keys (cluster.workers, optimizer.lr, ...); runs of a\n"
        "                series are averaged per update.  Default: one line per run.  The\n"
        "                legend sorts numbers numerically (250, 500, 1000).  Runs that differ\n"
        "                in more than their seed are never averaged: such a series is split\n"
        "                by the keys that tell them apart, which the legend names and stderr\n"
        "                reports\n"
        "  --where COND  only runs where every term of COND holds: KEY OP VALUE separated by\n"
        "                commas, OP one of = != < <= > >= (seed<=3,cluster.workers=1000);\n"
        "                repeatable (all must hold).  Never SQL: values are compared as\n"
        "                numbers or text\n"
        "  --band std|minmax  a filled band around each mean: ± the sample standard deviation\n"
        "                over seeds, or their min to max; a series' runs may differ only by\n"
        "                seed (else exit 2 naming the keys), and some series must have several\n"
        "  --pool        averages each series' runs, which may differ only by seed (else\n"
        "                exit 2 naming the keys); all runs form one series with no --by\n"
        "  --color-by KEY, --dash-by KEY  series with one value of KEY share a colour (a\n"
        "                dash pattern); KEY is added to the keys of --by, where missing\n"
        );
    fprintf(f,
        "  --facet KEY   small multiples: one panel per value of KEY (titled KEY=VALUE),\n"
        "                all with the same axis ranges; KEY is added to the keys of --by\n"
        "                where missing and left out of the legend entries\n"
        "  --label KEY=TEXT  shows KEY as TEXT in the legend (empty TEXT: values alone);\n"
        "  --label KEY:VALUE=TEXT  shows TEXT for the series with KEY=VALUE; repeatable\n"
        "  --legend-title TEXT, --title TEXT  (default title: the runs' scenario name)\n"
        "  --legend outside|below|inside  where the legend goes (default outside, right\n"
        "                of the axes, so it hides no curve; below each panel with --facet)\n"
        "  --xlabel TEXT, --ylabel TEXT  axis labels (default: the axis and the metric,\n"
        "                with their units)\n"
        "  --xrange LO:HI, --yrange LO:HI  axis ranges; either side may be empty (0:)\n"
        "  --size W,H    pixels for PNG and SVG (default 960,640), inches for PDF (6,4)\n"
        "  --logx, --logy  logarithmic axes with minor ticks (points <= 0 are left out),\n"
        "                spanning the data (not whole decades) unless a range is given\n"
        "  --data FILE.csv  also writes the points drawn: series, label, x, y (and lo, hi\n"
        "                with --band; first panel with --facet), one row per point,\n"
        "                exactly as drawn\n"
        "  --follow      draws running runs too and redraws FIG every --every SECONDS\n"
        "                (default 5) as rows arrive, until no selected run is running or\n"
        "                Ctrl-C; FIG is replaced whole each time\n"
        "  --record      afterwards, records FIG (absolute path, size, SHA-256) as a \"figure\"\n"
        "                artifact of every run it draws, in DB's table artifacts: the one\n"
        "                option that opens DB for writing\n"
        "Text is drawn as it is (no gnuplot markup); control characters show as spaces.\n"
        "Needs gnuplot (Debian: apt-get install gnuplot-nox).\n\n"
        "exit codes: 0 drawn (also when --follow is stopped), 2 bad input (unknown metric\n"
        "or key, bad condition, no runs selected, --band without repeated seeds, --band or\n"
        "--pool over runs of different configurations, --x vtime over runs without a clock\n"
        "(the uniform driver), not a results database, unknown figure type, gnuplot missing\n"
        "or failing)\n");
}

typedef struct plot_args {
    const char *db, *x, *y, *by, *out, *title, *legend_title, *size, *band;
    const char *color_by, *dash_by, *facet, *legend, *xlabel, *ylabel, *xrange_s, *yrange_s;
    const char *data;
    cli_list_t where, label;
    bool logx, logy, follow, record, help, pool;
    gp_key_place_t key_place;
    gp_range_t xrange, yrange;
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
    {.name = "--pool", .kind = CLI_ARG_FLAG, .off = offsetof(plot_args_t, pool)},
    {.name = "--color-by", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, color_by),
     .metavar = "KEY"},
    {.name = "--dash-by", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, dash_by),
     .metavar = "KEY"},
    {.name = "--facet", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, facet),
     .metavar = "KEY"},
    {.name = "--legend", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, legend)},
    {.name = "--xlabel", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, xlabel)},
    {.name = "--ylabel", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, ylabel)},
    {.name = "--xrange", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, xrange_s),
     .metavar = "LO:HI"},
    {.name = "--yrange", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, yrange_s),
     .metavar = "LO:HI"},
    {.name = "--data", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, data),
     .metavar = "FILE.csv"},
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

/* --xrange/--yrange LO:HI, either side empty for the data's; on a log axis LO > 0. */
static int parse_range(const char *opt, const char *text, bool log, gp_range_t *r)
{
    memset(r, 0, sizeof *r);
    if (!text) return SGD_EXIT_OK;
    const char *colon = strchr(text, ':');
    char *lo = colon ? sgd_xstrdup(text) : NULL;
    bool ok = colon && !strchr(colon + 1, ':');
    if (ok) {
        lo[colon - text] = '\0';
        const char *hi = colon + 1;
        r->has_lo = *lo != '\0', r->has_hi = *hi != '\0';
        ok = (!r->has_lo || sgd_parse_decimal(lo, &r->lo)) &&
             (!r->has_hi || sgd_parse_decimal(hi, &r->hi)) && (r->has_lo || r->has_hi) &&
             (!r->has_lo || isfinite(r->lo)) && (!r->has_hi || isfinite(r->hi)) &&
             (!r->has_lo || !r->has_hi || r->lo < r->hi) && (!log || !r->has_lo || r->lo > 0);
    }
    free(lo);
    if (ok) return SGD_EXIT_OK;
    char *shown = cli_text_escape(text);
    int rc = cli_bad_input("plot: %s %s: expected LO:HI, plain numbers with LO < HI, either "
                           "side may be empty (0:)%s", opt, shown,
                           log ? ", and LO > 0 on a log axis" : "");
    free(shown);
    return rc;
}

/* The values that need no database: --x, -o's type, --size, --band, --every, --legend,
 * the ranges, --data's name. */
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
    /* Panels side by side keep their widths equal with each legend below its panel. */
    if (!a->legend) a->key_place = a->facet ? GP_KEY_BELOW : GP_KEY_OUTSIDE;
    else if (strcmp(a->legend, "outside") == 0) a->key_place = GP_KEY_OUTSIDE;
    else if (strcmp(a->legend, "below") == 0) a->key_place = GP_KEY_BELOW;
    else if (strcmp(a->legend, "inside") == 0) a->key_place = GP_KEY_INSIDE;
    else return cli_bad_input("plot: --legend %s: expected outside, below or inside", a->legend);
    const char *ext = a->data ? strrchr(a->data, '.') : NULL;
    if (a->data && (!ext || strcmp(ext, ".csv") != 0))
        return cli_bad_input("plot: --data %s: the file's name must end in .csv", a->data);
    if (a->data && strcmp(a->data, a->out) == 0)
        return cli_bad_input("plot: --data %s: is the figure -o; name another file", a->data);
    int rc = parse_range("--xrange", a->xrange_s, a->logx, &a->xrange);
    if (!rc) rc = parse_range("--yrange", a->yrange_s, a->logy, &a->yrange);
    return rc ? rc : parse_size(a);
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
    sgd_err_t err = {{0}};
    char **name = NULL;
    int n = 0;
    size_t len = 0;
    names[0] = '\0';
    if (rdb_metric_names(db, &name, &n, &err) == 0)
        for (int i = 0; i < n && len + 64 < size; i++) {
            char *e = cli_text_escape(name[i]);
            len += (size_t)snprintf(names + len, size - len, "%s%s", len ? ", " : "", e);
            free(e);
        }
    rdb_names_free(name, n);
    if (len >= size) len = size - 1;
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

/* --color-by/--dash-by KEY: a known key, which joins the group keys when --by lacks it;
 * *at its index there. */
static int style_key(rdb_t *db, const char *opt, const char *key, const char ***keys,
                     int *nkeys, int *at)
{
    *at = -1;
    if (!key) return SGD_EXIT_OK;
    for (int k = 0; k < *nkeys; k++)
        if (strcmp((*keys)[k], key) == 0) *at = k;
    if (*at >= 0) return SGD_EXIT_OK;
    if (!rdb_curve_key_known(db, key)) {
        char *shown = cli_text_escape(key);
        int rc = cli_bad_input("plot: %s %s: neither a column of runs (algorithm, workers, "
                               "seed, ...) nor a configuration key of any run "
                               "(cluster.workers, algorithm.name, ...)", opt, shown);
        free(shown);
        return rc;
    }
    *keys = sgd_xrealloc(*keys, (size_t)(*nkeys + 2) * sizeof **keys);
    (*keys)[*nkeys] = key;
    *at = (*nkeys)++;
    return SGD_EXIT_OK;
}

/* Everything a drawing needs besides the data, checked once. */
typedef struct plot_ctx {
    const plot_args_t *a;
    plot_query_t q;
    plot_labels_t labels;
    char gnuplot[4096];
    plot_figure_t fig; /* its color_key, dash_key and facet_key index q.keys */
    char *split_told; /* the split last reported on stderr (owned) */
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

/* --x vtime: every run must have a clock (analysis/clock.h). */
static int check_clock(const plot_data_t *d)
{
    for (int r = 0; r < d->nruns; r++)
        if (!ana_config_has_clock(d->run_config[r]))
            return cli_bad_input("plot: --x vtime: run %lld has no clock (uniform driver): its "
                                 "virtual time counts iterations, not seconds; draw it with "
                                 "--x update, or leave it out with --where "
                                 "algorithm.driver=timed", (long long)d->run_id[r]);
    return SGD_EXIT_OK;
}

/* "key=value ..." of the first series whose runs differ in more than their seed, escaped
 * for the terminal (malloc'ed). */
static char *mixed_series_name(const plot_ctx_t *c, const plot_data_t *d)
{
    int s = 0;
    while (s < d->nseries - 1 && !d->series[s].mixed) s++;
    size_t len = 1;
    for (int k = 0; k < c->q.nkeys && d->nseries; k++)
        len += strlen(c->q.keys[k]) + strlen(d->series[s].values[k]) + 2;
    char *name = sgd_xcalloc(len, 1);
    for (int k = 0; k < c->q.nkeys && d->nseries; k++) {
        if (k) strcat(name, " ");
        strcat(name, c->q.keys[k]);
        strcat(name, "=");
        strcat(name, d->series[s].values[k]);
    }
    char *shown = cli_text_escape(name);
    free(name);
    return shown;
}

/* Series whose runs differ in more than their seed (analysis/series.h): with --band or
 * --pool exit 2 naming the keys; otherwise the runs are read again split by those keys too,
 * which the legend names, and stderr says so (once per split, also when following). */
static int split_series(rdb_t *db, plot_ctx_t *c, plot_data_t *d, const char *const **keys,
                        int *nkeys, sgd_err_t *err)
{
    char **split = NULL;
    int nsplit = ana_series_split_keys((const char *const *)d->run_config, d->run_series,
                                       d->nruns, &split);
    if (!nsplit) return SGD_EXIT_OK;
    char *names = ana_keys_join(split, nsplit, ", "), *by = ana_keys_join(split, nsplit, ",");
    const char *opt = c->a->band ? "--band" : "--pool";
    int rc = SGD_EXIT_OK;
    if (c->a->band || c->a->pool) {
        const char *shown = c->a->band ? c->a->band : "";
        char *series = mixed_series_name(c, d);
        rc = c->q.nkeys == 0
             ? cli_bad_input("plot: %s%s%s: the selected runs differ by more than their seed, "
                             "in %s; name what tells their series apart with --by %s, or "
                             "narrow them with --where", opt, *shown ? " " : "", shown,
                             names, by)
             : cli_bad_input("plot: %s%s%s: the runs of series \"%s\" differ by more than "
                             "their seed, in %s; add %s to --by, or narrow them with --where",
                             opt, *shown ? " " : "", shown, series, names, by);
        free(series);
    } else {
        if (!c->split_told || strcmp(c->split_told, names) != 0)
            fprintf(stderr, "plot: series split by %s: their runs differ in more than the "
                    "seed, and runs of different configurations are never averaged (name "
                    "the keys in --by to order the legend, or narrow the runs with --where)\n",
                    names);
        free(c->split_told);
        c->split_told = sgd_xstrdup(names);
        const char **all = sgd_xcalloc((size_t)(c->q.nkeys + nsplit) + 1, sizeof *all);
        for (int k = 0; k < c->q.nkeys; k++) all[k] = c->q.keys[k];
        for (int k = 0; k < nsplit; k++) all[c->q.nkeys + k] = split[k];
        plot_query_t q = c->q;
        q.keys = all;
        q.nkeys = c->q.nkeys + nsplit;
        plot_data_free(d);
        if (plot_series_read_runs(db, &q, d, err)) rc = cli_bad_input("plot: %s", err->msg);
        for (int k = 0; k < nsplit; k++) all[c->q.nkeys + k] = sgd_xstrdup(split[k]);
        *keys = all;
        *nkeys = q.nkeys;
    }
    free(names);
    free(by);
    ana_series_keys_free(split, nsplit);
    return rc;
}

/* --data: the points drawn, one CSV row each (plot_figure.h), through a temporary file
 * renamed into place (common/outpath.h). */
static int write_data(const plot_ctx_t *c, const plot_data_t *d)
{
    const plot_args_t *a = c->a;
    sgd_outfile_t o;
    sgd_err_t err = {{0}};
    if (sgd_outfile_open(&o, a->data, &err)) return cli_bad_input("plot: --data %s", err.msg);
    FILE *f = fdopen(o.fd, "w");
    if (!f) {
        sgd_outfile_abort(&o, false);
        return cli_bad_input("plot: --data %s: cannot write: %s", a->data, strerror(errno));
    }
    plot_figure_write_csv(&c->fig, d, a->band_kind != PLOT_BAND_NONE, f);
    bool ok = fflush(f) == 0 && !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) {
        sgd_outfile_abort(&o, true);
        return cli_bad_input("plot: --data %s: cannot write: %s", a->data, strerror(errno));
    }
    if (sgd_outfile_commit(&o, true, &err)) return cli_bad_input("plot: --data %s", err.msg);
    return SGD_EXIT_OK;
}

/* Reads the series and draws them, unless nothing changed since the last drawing or there
 * is nothing yet (a followed run before its first row); *nrunning = the selected runs
 * still running. */
static int render(rdb_t *db, plot_ctx_t *c, int *nrunning)
{
    plot_data_t d;
    sgd_err_t err = {{0}};
    int rc = SGD_EXIT_OK;
    const char *const *keys = c->q.keys;
    const char **split_keys = NULL;
    int nkeys = c->q.nkeys;
    if (plot_series_read_runs(db, &c->q, &d, &err)) rc = cli_bad_input("plot: %s", err.msg);
    if (!rc && c->q.vtime) rc = check_clock(&d);
    if (!rc) rc = split_series(db, c, &d, (const char *const **)&split_keys, &nkeys, &err);
    if (split_keys) keys = split_keys;
    if (!rc && (plot_series_label(&d, keys, c->fig.facet_key, &c->labels, &err) ||
                plot_series_read_points(db, &c->q, &d, &err)))
        rc = cli_bad_input("plot: %s", err.msg);
    if (split_keys)
        for (int k = c->q.nkeys; k < nkeys; k++) free((char *)split_keys[k]);
    free(split_keys);
    if (!rc) rc = check_found(c, &d);
    if (!rc && c->q.band != PLOT_BAND_NONE) rc = check_band(c, &d);
    *nrunning = d.nrunning;
    double sig = data_signature(&d);
    if (!rc && d.npoints && (!c->drawn || sig != c->drawn_sig)) {
        char *script = plot_figure_script(&c->fig, &d);
        rc = plot_draw(c->gnuplot, script, c->a->out);
        free(script);
        if (!rc && c->a->data) rc = write_data(c, &d);
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
/* The figure's settings from the arguments; the style keys are set once known. */
static plot_figure_t figure_of(const plot_args_t *a)
{
    return (plot_figure_t){.format = a->format, .metric = a->y,
                           .vtime = strcmp(a->x, "vtime") == 0, .title = a->title,
                           .xlabel = a->xlabel, .ylabel = a->ylabel,
                           .legend_title = a->legend_title, .logx = a->logx, .logy = a->logy,
                           .key_place = a->key_place, .xrange = a->xrange, .yrange = a->yrange,
                           .width = a->width, .height = a->height, .color_key = -1,
                           .dash_key = -1, .facet_key = -1, .facet_name = a->facet};
}

static int plot_db(rdb_t *db, const plot_args_t *a, int64_t **runs, int *nruns)
{
    plot_ctx_t c = {.a = a, .fig = figure_of(a)};
    plot_where_t where = {0};
    char *by_copy = NULL;
    const char **keys = NULL;
    int nkeys = 0, rc = a->follow ? SGD_EXIT_OK : check_metric(db, a);
    if (!rc) rc = group_keys(db, a->by, &by_copy, &keys, &nkeys);
    if (!rc) rc = style_key(db, "--color-by", a->color_by, &keys, &nkeys, &c.fig.color_key);
    if (!rc) rc = style_key(db, "--dash-by", a->dash_by, &keys, &nkeys, &c.fig.dash_key);
    if (!rc) rc = style_key(db, "--facet", a->facet, &keys, &nkeys, &c.fig.facet_key);
    if (!rc) rc = plot_where_parse(db, &a->where, &where);
    if (!rc) rc = plot_labels_parse(&a->label, keys, nkeys, &c.labels);
    if (!rc && !plot_find_in_path("gnuplot", c.gnuplot, sizeof c.gnuplot))
        rc = cli_bad_input("plot: gnuplot is not installed, so nothing was drawn (Debian: "
                           "apt-get install gnuplot-nox); the data is available with sgdsim "
                           "query or export");
    c.q = (plot_query_t){.metric = a->y, .keys = keys, .nkeys = nkeys,
                         .sel = {where.conds, where.n, a->follow}, .band = a->band_kind,
                         .pool = a->pool,
                         .vtime = strcmp(a->x, "vtime") == 0, .logx = a->logx, .logy = a->logy};
    int nrunning;
    if (!rc) rc = a->follow ? follow(db, &c) : render(db, &c, &nrunning);
    *runs = c.drawn_runs;
    *nruns = c.ndrawn_runs;
    plot_labels_free(&c.labels);
    plot_where_free(&where);
    free(c.split_told);
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

/* -o and --data must be neither DB nor one of its companions (common/outpath.h), nor each
 * other. */
static int check_out(const plot_args_t *a)
{
    sgd_outpath_input_t in[] = {{a->db, "the results database DB", true},
                                {a->out, "the figure given with -o", false}};
    int rc = cli_outpath_refuse("plot", "-o", a->out, false, in, 1);
    if (!rc && a->data) rc = cli_outpath_refuse("plot", "--data", a->data, false, in, 2);
    return rc;
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
