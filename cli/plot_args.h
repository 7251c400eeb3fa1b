/* The command line of `sgdsim plot`: its usage text, its arguments and their checks (figure
 * type, --band, --legend, --data, ranges, size), so cmd_plot.c starts from checked values.
 *
 * Ownership: the strings point into argv; plot_args_parse's lists (where, label) are freed
 * by the caller with cli_list_free. */
#ifndef SGDSIM_CLI_PLOT_ARGS_H
#define SGDSIM_CLI_PLOT_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/gnuplot_script.h"
#include "cli/options.h"
#include "cli/plot_series.h"

typedef struct plot_args {
    const char *db, *x, *y, *by, *out, *title, *legend_title, *size, *band;
    const char *color_by, *dash_by, *facet, *legend, *xlabel, *ylabel, *xrange_s, *yrange_s;
    const char *data, *share_axes;
    cli_list_t where, label;
    bool logx, logy, follow, record, help, pool;
    bool pool_builds; /* --pool-builds: runs of several builds may share a series */
    gp_key_place_t key_place;
    gp_share_t share;
    gp_range_t xrange, yrange;
    double every;
    gp_format_t format;
    int width, height;
    plot_band_t band_kind;
} plot_args_t;

void plot_args_usage(FILE *f);

/* "DB --y METRIC -o FIG ..."; 0, or the exit code after the message (with --help, a->help
 * is set and nothing is checked). */
int plot_args_parse(int argc, char **argv, plot_args_t *a);

#endif
