/* From the series `sgdsim plot` read to what it writes: the gnuplot script of the figure
 * (colours, dashes and panels mapped from the series' key values, default axis labels with
 * units) and the CSV of exactly the points drawn (--data).
 *
 * Style mapping: series that share their value of the colour key share a colour, and those
 * that share the dash key's value a dash pattern, ranked in legend order; without a colour
 * key each legend entry gets its own colour (in panels, a legend entry repeated in several
 * panels keeps its colour and is listed once).  Without a dash key, legend entries that
 * would look alike (one colour: the colour key's value, or the palette cycled past its
 * GP_NPALETTE colours) get the next dash pattern each, so up to GP_NPALETTE x GP_NDASHES
 * entries look different.  Facets: one panel per value of the facet key, in legend order,
 * titled KEY=VALUE.
 *
 * Legend: without --legend-title, entries that all name the same two or more keys
 * ("cluster.workers=2 algorithm.name=fasgd") are drawn as their values ("2, fasgd") under
 * a title naming the keys ("cluster.workers, algorithm.name"); --data keeps the entries
 * whole. */
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
    gp_share_t share;    /* with facets: the axes the panels share */
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
