/* The command line of `sgdsim plot` (plot_args.h). */
#include "cli/plot_args.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/text.h"
#include "common/number.h"

void plot_args_usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim plot DB --y METRIC [--x update|vtime] [--by KEY,...] [--where COND]...\n"
        "                  [--band std|minmax] [--pool] [--pool-builds] [--color-by KEY]\n"
        "                  [--dash-by KEY] [--facet KEY [--share-axes both|x|y|none]]\n"
        "                  [--label NAME=TEXT]... [--legend-title TEXT]\n"
        "                  [--legend auto|outside|below|inside] [--title TEXT] [--xlabel TEXT]\n"
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
        "  --pool-builds runs of different builds (runs.git_rev) may share a series, each\n"
        "                seed once (its latest run); by default a series whose runs come\n"
        "                from several builds is split by git_rev (--band, --pool: exit 2)\n"
        "  --color-by KEY, --dash-by KEY  series with one value of KEY share a colour (a\n"
        "                dash pattern); KEY is added to the keys of --by, where missing.\n"
        "                Without --dash-by, entries that would share a colour (past the\n"
        "                8th, or under one --color-by value) get the next dash pattern\n"
        );
    fprintf(f,
        "  --facet KEY   small multiples: one panel per value of KEY (titled KEY=VALUE) in a\n"
        "                grid, with one title, one x and one y label and one legend; KEY is\n"
        "                added to the keys of --by, where missing, and left out of the legend\n"
        "  --share-axes both|x|y|none  the axes the panels share (default both): one range,\n"
        "                tick labels on the outer panels only; an axis not shared spans each\n"
        "                panel's own data\n"
        "  --label KEY=TEXT  shows KEY as TEXT in the legend (empty TEXT: values alone);\n"
        "  --label KEY:VALUE=TEXT  shows TEXT for the series with KEY=VALUE; repeatable\n"
        "  --legend-title TEXT, --title TEXT  (default title: the runs' scenario name)\n"
        "  --legend auto|outside|below|inside  where the one legend goes: auto (default)\n"
        "                puts it in the grid's empty cells when it fits there, else right of\n"
        "                the axes when it takes at most 30%% of the width, else below them in\n"
        "                columns; outside: right; inside: over the top right corner.  An entry\n"
        "                too long for its room is shortened in the middle (…); --data has\n"
        "                the full names, --label gives shorter ones.  Entries that all name\n"
        "                the same two or more keys show their values under a legend title\n"
        "                naming the keys (unless --legend-title is given)\n"
        "  --xlabel TEXT, --ylabel TEXT  axis labels (default: the axis and the metric,\n"
        "                with their units)\n"
        "  --xrange LO:HI, --yrange LO:HI  axis ranges; either side may be empty (0:)\n"
        "  --size W,H    pixels for PNG and SVG (default 960,640), inches for PDF (6,4)\n"
        "  --logx, --logy  logarithmic axes with minor ticks (points <= 0 are left out),\n"
        "                spanning the data (not whole decades) unless a range is given;\n"
        "                every major tick is labelled, within one decade too\n"
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
    {.name = "--pool-builds", .kind = CLI_ARG_FLAG, .off = offsetof(plot_args_t, pool_builds)},
    {.name = "--color-by", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, color_by),
     .metavar = "KEY"},
    {.name = "--dash-by", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, dash_by),
     .metavar = "KEY"},
    {.name = "--facet", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, facet),
     .metavar = "KEY"},
    {.name = "--legend", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, legend)},
    {.name = "--share-axes", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, share_axes),
     .metavar = "both|x|y|none"},
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

/* --xrange/--yrange LO:HI, either side empty for the data's; on a log axis both > 0. */
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
             (!r->has_lo || !r->has_hi || r->lo < r->hi) && (!log || !r->has_lo || r->lo > 0) &&
             (!log || !r->has_hi || r->hi > 0);
    }
    free(lo);
    if (ok) return SGD_EXIT_OK;
    char *shown = cli_text_escape(text);
    int rc = cli_bad_input("plot: %s %s: expected LO:HI, plain numbers with LO < HI, either "
                           "side may be empty (0:)%s", opt, shown,
                           log ? ", and LO, HI > 0 on a log axis" : "");
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
    if (!a->legend || strcmp(a->legend, "auto") == 0) a->key_place = GP_KEY_AUTO;
    else if (strcmp(a->legend, "outside") == 0) a->key_place = GP_KEY_OUTSIDE;
    else if (strcmp(a->legend, "below") == 0) a->key_place = GP_KEY_BELOW;
    else if (strcmp(a->legend, "inside") == 0) a->key_place = GP_KEY_INSIDE;
    else return cli_bad_input("plot: --legend %s: expected auto, outside, below or inside",
                              a->legend);
    static const char *const shares[] = {[GP_SHARE_BOTH] = "both", [GP_SHARE_X] = "x",
                                         [GP_SHARE_Y] = "y", [GP_SHARE_NONE] = "none"};
    a->share = GP_SHARE_BOTH;
    for (int i = 0; a->share_axes && i < 4; i++)
        if (strcmp(a->share_axes, shares[i]) == 0) a->share = (gp_share_t)i;
    if (a->share_axes && strcmp(a->share_axes, shares[a->share]) != 0)
        return cli_bad_input("plot: --share-axes %s: expected both, x, y or none", a->share_axes);
    if (a->share_axes && !a->facet)
        return cli_bad_input("plot: --share-axes: only with --facet (it says what the panels "
                             "share)");
    const char *ext = a->data ? strrchr(a->data, '.') : NULL;
    if (a->data && (!ext || strcmp(ext, ".csv") != 0))
        return cli_bad_input("plot: --data %s: the file's name must end in .csv", a->data);
    if (a->data && strcmp(a->data, a->out) == 0)
        return cli_bad_input("plot: --data %s: is the figure -o; name another file", a->data);
    int rc = parse_range("--xrange", a->xrange_s, a->logx, &a->xrange);
    if (!rc) rc = parse_range("--yrange", a->yrange_s, a->logy, &a->yrange);
    return rc ? rc : parse_size(a);
}

int plot_args_parse(int argc, char **argv, plot_args_t *a)
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

