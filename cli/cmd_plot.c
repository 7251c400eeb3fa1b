/* `sgdsim plot DB --x update|vtime --y METRIC [--by k1,k2] [--logx] [--logy] -o FIG`: draws
 * a metric's curves from a results database with gnuplot (the Debian package gnuplot-nox),
 * one line per group of runs, with legend and axis labels, as PNG, SVG or PDF by the output
 * file's extension.  Runs of one group (e.g. several seeds) are averaged per update.
 *
 * A database's strings are whatever its writer put there, so the script comes from
 * gnuplot_script.c, which makes every string inert (no command, variable or markup) and
 * writes the data as numbers in inline datablocks.  The script goes to gnuplot as its
 * standard input from a temporary file that is unlinked as soon as it is opened, so nothing
 * is left behind on any path; gnuplot's standard output is FIG.tmp, opened here, renamed to
 * FIG once gnuplot succeeds, so the figure's name never reaches gnuplot and a failed plot
 * never leaves a half-written figure under the requested name. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gnuplot_script.h"
#include "cli/options.h"
#include "cli/plot_draw.h"
#include "cli/text.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim plot DB --y METRIC [--x update|vtime] [--by KEY,...] [--logx] [--logy]\n"
        "                  [--title TEXT] -o FIG.png|FIG.svg|FIG.pdf\n\n"
        "Draws METRIC (e.g. val_error, train_loss) of the finished runs in DB against the\n"
        "update index (default) or virtual time in seconds, one line per group of runs.\n"
        "  --by KEY,...  group by runs columns (algorithm, workers or lambda, seed, ...) or\n"
        "                configuration keys (cluster.workers, optimizer.lr, ...); runs of a\n"
        "                group are averaged per update.  Default: one line per run\n"
        "  --logx, --logy  logarithmic axes (points <= 0 are left out)\n"
        "Text is drawn as it is (no gnuplot markup); control characters show as spaces.\n"
        "Needs gnuplot (Debian: apt-get install gnuplot-nox).\n\n"
        "exit codes: 0 drawn, 2 bad input (unknown metric or key, not a results database,\n"
        "unknown figure type, gnuplot missing or failing)\n");
}

typedef struct plot_args {
    const char *db, *x, *y, *by, *out, *title;
    bool logx, logy, help;
    gp_format_t format;
} plot_args_t;

/* One line of the figure: its legend entry and points (all owned). */
typedef struct line {
    char *label;
    double *x, *y;
    int n, cap;
} line_t;

static const cli_opt_t plot_opts[] = {
    {.name = "--y", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, y), .metavar = "METRIC",
     .flags = CLI_ARG_REQUIRED},
    {.name = "--output", .alias = "-o", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, out),
     .metavar = "FIG.png|FIG.svg|FIG.pdf", .flags = CLI_ARG_REQUIRED},
    {.name = "--x", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, x)},
    {.name = "--by", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, by)},
    {.name = "--title", .kind = CLI_ARG_STRING, .off = offsetof(plot_args_t, title)},
    {.name = "--logx", .kind = CLI_ARG_FLAG, .off = offsetof(plot_args_t, logx)},
    {.name = "--logy", .kind = CLI_ARG_FLAG, .off = offsetof(plot_args_t, logy)},
    {.name = NULL},
};

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
    if (strcmp(a->x, "update") != 0 && strcmp(a->x, "vtime") != 0)
        return cli_bad_input("plot: --x %s: expected update or vtime", a->x);
    if (!gp_format_for(a->out, &a->format))
        return cli_bad_input("plot: -o %s: the figure's name must end in .png, .svg or .pdf",
                             a->out);
    return SGD_EXIT_OK;
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

/* The keys' names tab-separated, for the lines' labels ("run" without keys). */
static void label_keys(const char *const *keys, int nkeys, char *out, size_t size)
{
    snprintf(out, size, "%s", nkeys ? "" : "run");
    size_t len = strlen(out);
    for (int i = 0; i < nkeys && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "\t" : "", keys[i]);
}

/* "key=value key=value" for the current row's group columns (malloc'ed). */
static char *group_label(sqlite3_stmt *st, const char *keys, int ngroups)
{
    size_t cap = 64, len = 0;
    char *label = sgd_xmalloc(cap);
    label[0] = '\0';
    for (int g = 0; g < ngroups; g++) {
        size_t kl = strcspn(keys, "\t");
        const char *v = (const char *)sqlite3_column_text(st, g);
        if (!v) v = "NULL";
        size_t need = len + kl + strlen(v) + 3;
        if (need > cap) label = sgd_xrealloc(label, cap = 2 * need);
        len += (size_t)snprintf(label + len, cap - len, "%s%.*s=%s", g ? " " : "", (int)kl,
                                keys, v);
        keys += kl + (keys[kl] ? 1 : 0);
    }
    return label;
}

static void line_add(line_t *l, double x, double y)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->x = sgd_xrealloc(l->x, (size_t)l->cap * sizeof *l->x);
        l->y = sgd_xrealloc(l->y, (size_t)l->cap * sizeof *l->y);
    }
    l->x[l->n] = x;
    l->y[l->n++] = y;
}

static void lines_free(line_t *lines, int n)
{
    for (int i = 0; i < n; i++) {
        free(lines[i].label);
        free(lines[i].x);
        free(lines[i].y);
    }
    free(lines);
}

/* Reads the rows of st (group columns, update, vtime, value) into lines, one per group, and
 * counts the points kept: on log axes points <= 0 are left out, and non-finite values
 * always.  Returns the last sqlite3_step() code. */
static int read_lines(sqlite3_stmt *st, const plot_args_t *a, const char *keys, int ngroups,
                      line_t **lines, int *nlines, int *npoints)
{
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        char *label = group_label(st, keys, ngroups);
        if (*nlines == 0 || strcmp(label, (*lines)[*nlines - 1].label) != 0) {
            *lines = sgd_xrealloc(*lines, (size_t)(*nlines + 1) * sizeof **lines);
            (*lines)[(*nlines)++] = (line_t){.label = label};
        } else {
            free(label);
        }
        double xv = strcmp(a->x, "vtime") == 0 ? sqlite3_column_double(st, ngroups + 1)
                                               : (double)sqlite3_column_int64(st, ngroups);
        double yv = sqlite3_column_double(st, ngroups + 2);
        if ((a->logx && !(xv > 0)) || (a->logy && !(yv > 0)) || !isfinite(xv) || !isfinite(yv))
            continue;
        line_add(&(*lines)[*nlines - 1], xv, yv);
        (*npoints)++;
    }
    return s;
}

/* The script for the lines read (malloc'ed). */
static char *build_script(const plot_args_t *a, const line_t *lines, int nlines)
{
    gp_series_t *series = sgd_xcalloc((size_t)nlines + 1, sizeof *series);
    for (int i = 0; i < nlines; i++)
        series[i] = (gp_series_t){lines[i].label, lines[i].x, lines[i].y, lines[i].n};
    gp_plot_t p = {
        .format = a->format,
        .title = a->title ? a->title : a->db,
        .xlabel = strcmp(a->x, "vtime") == 0 ? "virtual time (s)" : "update",
        .ylabel = a->y,
        .logx = a->logx,
        .logy = a->logy,
        .series = series,
        .nseries = nlines,
    };
    char *script = gp_script_build(&p);
    free(series);
    return script;
}

static int plot_db(rdb_t *db, const plot_args_t *a)
{
    char labels[2048], gnuplot[4096], *by_copy = NULL;
    const char **keys = NULL;
    int nkeys = 0, nlines = 0, npoints = 0, rc = check_metric(db, a);
    if (!rc) rc = group_keys(db, a->by, &by_copy, &keys, &nkeys);
    sqlite3_stmt *st = NULL;
    sgd_err_t err = {{0}};
    if (!rc && rdb_read_prepare_curves(db, a->y, keys, nkeys, &st, &err))
        rc = cli_bad_input("plot: %s", err.msg);
    label_keys(keys, nkeys, labels, sizeof labels);
    int ngroups = nkeys ? nkeys : 1;
    if (!rc && !plot_find_in_path("gnuplot", gnuplot, sizeof gnuplot))
        rc = cli_bad_input("plot: gnuplot is not installed, so nothing was drawn (Debian: "
                           "apt-get install gnuplot-nox); the data is available with sgdsim "
                           "query or export");
    line_t *lines = NULL;
    if (!rc && read_lines(st, a, labels, ngroups, &lines, &nlines, &npoints) != SQLITE_DONE)
        rc = cli_bad_input("plot: %s: %s", a->db, sqlite3_errmsg(sqlite3_db_handle(st)));
    else if (!rc && npoints == 0)
        rc = cli_bad_input("plot: --y %s: no finite values to draw in finished runs of %s%s",
                           a->y, a->db,
                           a->logx || a->logy ? " (points <= 0 are left out on log axes)" : "");
    sqlite3_finalize(st);
    free(keys);
    free(by_copy);
    if (!rc) {
        char *script = build_script(a, lines, nlines);
        rc = plot_draw(gnuplot, script, a->out);
        free(script);
    }
    if (!rc) {
        char *shown = cli_text_escape(a->out);
        printf("%s: %d line%s, %d points\n", shown, nlines, nlines == 1 ? "" : "s", npoints);
        free(shown);
    }
    lines_free(lines, nlines);
    return rc;
}

int cli_plot_main(int argc, char **argv)
{
    plot_args_t a;
    int rc = parse_args(argc, argv, &a);
    if (rc || a.help) {
        if (a.help) usage(stdout);
        return rc;
    }
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(a.db, &db, &err)) return cli_bad_input("plot: %s", err.msg);
    rc = plot_db(db, &a);
    rdb_close(db);
    return rc;
}
