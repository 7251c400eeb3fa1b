/* `sgdsim plot DB --y METRIC [--x update|vtime] [--by KEY,...] [--where COND] [--band
 * std|minmax] [--facet KEY] [--follow] -o FIG`: draws a metric's curves from a results
 * database with gnuplot (the Debian package gnuplot-nox), one line per series of runs, as
 * PNG, SVG or PDF by the output file's extension.  The arguments come checked from
 * plot_args.c, the series and their legend order from plot_series.c, --where and --label
 * from plot_select.c, the script and --data from plot_figure.c, and the figure is drawn by
 * plot_draw.c into a temporary file beside FIG and renamed to FIG, so a reader of FIG never
 * sees half a figure (which is what lets --follow redraw it in place).
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
#include "cli/plot_args.h"
#include "cli/plot_draw.h"
#include "cli/plot_figure.h"
#include "cli/plot_select.h"
#include "cli/plot_series.h"
#include "cli/text.h"
#include "common/outpath.h"
#include "results/rdb.h"
#include "results/rdb_meta.h"
#include "results/rdb_curves.h"
#include "results/rdb_read.h"
#include "results/rdb_rows.h"

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
    while (s < d->nseries - 1 && !d->series[s].mixed && !d->series[s].builds_differ) s++;
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

/* The keys that tell apart runs of one series that differ in more than their seed
 * (analysis/series.h), and git_rev when runs of one series come from several builds (never
 * averaged, unless --pool-builds); the runs another run of their seed stands in for are
 * left out.  *split: malloc'ed keys (ana_series_keys_free). */
static int split_keys(const plot_ctx_t *c, const plot_data_t *d, char ***split)
{
    const char **cfg = sgd_xcalloc((size_t)d->nruns + 1, sizeof *cfg);
    int *ser = sgd_xcalloc((size_t)d->nruns + 1, sizeof *ser), n = 0;
    for (int r = 0; r < d->nruns; r++)
        if (d->run_series[r] >= 0) cfg[n] = d->run_config[r], ser[n++] = d->run_series[r];
    int nsplit = ana_series_split_keys(cfg, ser, n, split);
    free(cfg), free(ser);
    bool builds = false, there = false;
    for (int s = 0; s < d->nseries && !c->q.pool_builds; s++) builds |= d->series[s].builds_differ;
    for (int k = 0; k < c->q.nkeys; k++) there |= strcmp(c->q.keys[k], "git_rev") == 0;
    if (builds && !there) {
        *split = sgd_xrealloc(*split, (size_t)(nsplit + 1) * sizeof **split);
        (*split)[nsplit++] = sgd_xstrdup("git_rev");
    }
    return nsplit;
}

/* Series whose runs differ in more than their seed, or come from several builds: with
 * --band or --pool exit 2 naming the keys; otherwise the runs are read again split by those
 * keys too, which the legend names, and stderr says so (once per split, also when
 * following). */
static int split_series(rdb_t *db, plot_ctx_t *c, plot_data_t *d, const char *const **keys,
                        int *nkeys, sgd_err_t *err)
{
    char **split = NULL;
    int nsplit = split_keys(c, d, &split);
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
                             "their seed, in %s; add %s to --by, or narrow them with --where%s",
                             opt, *shown ? " " : "", shown, series, names, by,
                             strstr(names, "git_rev") ? " (git_rev: runs of several builds, "
                                                        "which --pool-builds pools)" : "");
        free(series);
    } else {
        if (!c->split_told || strcmp(c->split_told, names) != 0)
            fprintf(stderr, "plot: series split by %s: their runs differ in more than the "
                    "seed, and runs of different configurations or builds are never averaged "
                    "(name the keys in --by to order the legend, narrow the runs with --where, "
                    "or pool builds with --pool-builds)\n", names);
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
                           .key_place = a->key_place, .share = a->share,
                           .xrange = a->xrange, .yrange = a->yrange,
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
                         .pool = a->pool, .pool_builds = a->pool_builds,
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
    int rc = plot_args_parse(argc, argv, &a);
    if (!rc && !a.help) rc = check_out(&a);
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    int64_t *runs = NULL;
    int nruns = 0;
    if (!rc && !a.help && rdb_open_readonly(a.db, &db, &err))
        rc = cli_bad_input("plot: %s", err.msg);
    if (a.help) plot_args_usage(stdout);
    if (db) rc = plot_db(db, &a, &runs, &nruns);
    if (db) rdb_close(db);
    if (!rc && a.record && nruns > 0) rc = record_figure(&a, runs, nruns);
    free(runs);
    cli_list_free(&a.where);
    cli_list_free(&a.label);
    return rc;
}
