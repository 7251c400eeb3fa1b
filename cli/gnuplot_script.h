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

typedef enum { GP_PNG, GP_SVG, GP_PDF } gp_format_t;

typedef struct gp_series {
    const char *label; /* legend entry */
    const double *x, *y; /* n points; non-finite ones are left out */
    const double *lo, *hi; /* a band from lo to hi at each x, drawn under the line; or NULL */
    int n;
    int color; /* index into the figure's palette (cycled), from 0; a band takes its line's */
    int dash;  /* 0 solid, then dashed, dotted, ... (cycled) */
    int panel; /* with panels: the index of the panel it is drawn in; else 0 */
} gp_series_t;

/* Where the legend goes: right of the axes (default), below them, or inside (over the
 * curves, top right). */
typedef enum { GP_KEY_OUTSIDE, GP_KEY_BELOW, GP_KEY_INSIDE } gp_key_place_t;

/* An axis range; a side not set is left to the data. */
typedef struct gp_range {
    bool has_lo, has_hi;
    double lo, hi;
} gp_range_t;

typedef struct gp_plot {
    gp_format_t format;
    const char *title, *xlabel, *ylabel;
    const char *key_title; /* the legend's title, or NULL for none */
    bool logx, logy;       /* log axes, with minor ticks at 2..9 of each decade; a log
                            * axis's unset sides are the data's extent, not whole decades */
    gp_key_place_t key_place;
    gp_range_t xrange, yrange;
    int width, height;     /* pixels (PNG, SVG) or hundredths of an inch (PDF); 0: default */
    const gp_series_t *series; /* nseries lines, drawn in this order */
    int nseries;
    /* Small multiples: npanels > 1 panels in a grid (as near square as can be, filled row
     * by row) under the title, each with its title and its series; every panel has the
     * same axis ranges (an unset side is the extent of all panels' data), so panels compare
     * at a glance.  npanels 0 or 1: one plot. */
    const char *const *panel_titles;
    int npanels;
} gp_plot_t;

/* The figure format for a file name by its extension (.png, .svg, .pdf); false for any
 * other name. */
bool gp_format_for(const char *path, gp_format_t *format);

/* s as an inert gnuplot string expression, quotes included (rules above). */
char *gp_quote(const char *s);

/* The whole script for p: terminal, labels, one datablock per series, the plot command
 * (one per panel, in a multiplot, with panels). */
char *gp_script_build(const gp_plot_t *p);

#endif
