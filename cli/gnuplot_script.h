/* The gnuplot script that `sgdsim plot` feeds to gnuplot, built as text without running
 * gnuplot, so that a fuzz target can check it.
 *
 * Contract: nothing given to the builder is ever read by gnuplot as a command, a shell
 * command, a variable, a macro or enhanced-text markup, whatever its bytes:
 *   - every string (title, axis labels, legend title and entries) goes through gp_quote(), which
 *     writes it as gnuplot single-quoted strings, in which gnuplot does no backquote,
 *     macro (@) or backslash substitution; a ' inside ends one such piece and is joined in
 *     as "\047" (  'it'."\047".'s'  ), since gnuplot's own '' fails at a string's start
 *     and twice in a row.  Control characters (bytes below 0x20 and 0x7f, newlines
 *     included, and U+0080..U+009F) become spaces and bytes that are not well-formed UTF-8
 *     become '?', so every string opens and closes on one line;
 *   - every string is drawn with `noenhanced` (and the terminal is noenhanced), so ^ _ @ &
 *     { } show as themselves;
 *   - the builder's own strings are the tick labels' formats '%g' and '' (no labels);
 *   - the script's shape depends on a string only through its length in characters (a
 *     legend entry's decides the legend's size and whether it is shortened), never on its
 *     bytes;
 *   - data values are written by the builder, as finite numbers only (%.17g; NaN and
 *     infinities are left out), in inline datablocks: a datablock line is always two
 *     numbers (three for a band: x, lower and upper edge), never the end marker EOD and
 *     never a command;
 *   - the figure's file is not named in the script: gnuplot writes the figure to its
 *     standard output, which the caller connects to the file, so no path reaches gnuplot
 *     (a name starting with | would otherwise be a pipe to a shell command).
 *
 * Ownership: the builder copies nothing it is given; the strings it returns are malloc'ed
 * and freed by the caller. */
#ifndef SGDSIM_CLI_GNUPLOT_SCRIPT_H
#define SGDSIM_CLI_GNUPLOT_SCRIPT_H

#include <stdbool.h>

#include "cli/gnuplot_axis.h"
#include "cli/gnuplot_layout.h"

/* Colours and dash patterns: GP_NPALETTE colours (gp_series_t.color cycles through them)
 * and GP_NDASHES dash patterns, each with its own point type. */
#define GP_NPALETTE 8
#define GP_NDASHES 5

typedef struct gp_series {
    const char *label; /* legend entry */
    const double *x, *y; /* n points; non-finite ones are left out */
    const double *lo, *hi; /* a band from lo to hi at each x, drawn under the line; or NULL */
    int n;
    int color; /* index into the figure's palette (cycled), from 0; a band takes its line's */
    int dash;  /* 0 solid, then dashed, dotted, ... (cycled) */
    int panel; /* with panels: the index of the panel it is drawn in; else 0 */
    bool legend_dup; /* its legend entry is an earlier series' (in another panel): listed once */
} gp_series_t;

typedef struct gp_plot {
    gp_format_t format;
    const char *title, *xlabel, *ylabel; /* one of each per figure, panels or not */
    const char *key_title; /* the legend's title, or NULL for none */
    bool logx, logy;       /* log axes (gnuplot_axis.h) */
    gp_key_place_t key_place; /* gnuplot_layout.h */
    gp_range_t xrange, yrange;
    int width, height;     /* pixels (PNG, SVG) or hundredths of an inch (PDF); 0: default */
    const gp_series_t *series; /* nseries lines, drawn in this order */
    int nseries;
    /* Small multiples: npanels > 1 panels in a grid (gnuplot_layout.h) under the title,
     * each with its title and its series, sharing the axes share names (an unset side of a
     * shared axis is the extent of all panels' data).  npanels 0 or 1: one plot. */
    const char *const *panel_titles;
    int npanels;
    gp_share_t share;
} gp_plot_t;

/* The figure format for a file name by its extension (.png, .svg, .pdf); false for any
 * other name. */
bool gp_format_for(const char *path, gp_format_t *format);

/* s as an inert gnuplot string expression, quotes included (rules above). */
char *gp_quote(const char *s);

/* The whole script for p: terminal, one datablock per series, then a multiplot of one plot
 * per panel (margins, ranges and ticks set) and a last layer with the title, the axis labels
 * and the legend. */
char *gp_script_build(const gp_plot_t *p);

#endif
