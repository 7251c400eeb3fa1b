/* From the series `sgdsim plot` read to what it writes: the gnuplot script of the figure
 * (colours, dashes and panels mapped from the series' key values, default axis labels with
 * units) and the CSV of exactly the points drawn (--data).
 *
 * Style mapping: series that share their value of the colour key share a colour, and those
 * that share the dash key's value a dash pattern, ranked in legend order; without a colour
 * key each legend entry gets its own colour (in panels, a legend entry repeated in several
 * panels keeps its colour).  Facets: one panel per value of the facet key, in legend order,
 * titled KEY=VALUE. */
#ifndef SGDSIM_CLI_PLOT_FIGURE_H
#define SGDSIM_CLI_PLOT_FIGURE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/gnuplot_script.h"
#include "cli/plot_series.h"

typedef struct plot_figure {
    gp_format_t format;
    const char *metric;  /* the y axis's metric (its default label) */
    bool vtime;          /* x is virtual time, else the update index */
    const char *title;   /* NULL: the runs' scenario */
    const char *xlabel, *ylabel, *legend_title; /* NULL: defaults, none for the legend */
    bool logx, logy;
    gp_key_place_t key_place;
    gp_range_t xrange, yrange;
    int width, height;   /* 0: gnuplot_script.h's default */
    int color_key, dash_key, facet_key; /* indices into the series' key values, or -1 */
    const char *facet_name; /* the facet key, for the panels' titles */
} plot_figure_t;

/* The script drawing d (malloc'ed). */
char *plot_figure_script(const plot_figure_t *f, const plot_data_t *d);

/* The points drawn, one CSV row each: panel (with facets), series, label, x, y, and lo, hi
 * with a band, into f. */
void plot_figure_write_csv(const plot_figure_t *f, const plot_data_t *d, bool band, FILE *out);

#endif
