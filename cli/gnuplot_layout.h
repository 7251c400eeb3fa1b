/* Where everything goes in a `sgdsim plot` figure, decided before gnuplot draws: the panels,
 * the one legend, the figure's title and its one pair of axis labels, all in screen
 * coordinates (0 to 1 across and up the figure), from the terminal's character size as
 * gnuplot estimates it (gnuplot sizes its legend with the same estimate, so a legend this
 * module sizes is the size gnuplot draws).  Every margin is set here, not left to gnuplot,
 * so panels line up, and a long y label or a wide legend can never run into a panel.
 *
 * Panels: a grid as near square as can be, filled row by row; each panel has its title
 * above it.  With a shared x axis only the lowest panel of each column labels its x ticks,
 * with a shared y axis only the first column its y ticks, and the gaps between panels
 * shrink to match.
 *
 * The legend, one per figure:
 *   - auto (default): with panels, in the empty cells of the grid's last row when it fits
 *     there; else right of the panels when it takes at most 30% of the width; else below
 *     them, in as many columns as fit, unless that takes more than 45% of the height and
 *     the legend right of the panels at most half the width;
 *   - outside: right of the panels, entries longer than 45% of the width shortened;
 *   - below: under the x axis label, in columns;
 *   - inside: over the top right panel's top right corner, boxed.
 * An entry too long for the room it has is shortened in the middle ("…"), to at least 12
 * characters.
 *
 * Ownership: gp_layout_init allocates the panel rectangles, gp_layout_free frees them. */
#ifndef SGDSIM_CLI_GNUPLOT_LAYOUT_H
#define SGDSIM_CLI_GNUPLOT_LAYOUT_H

#include <stdbool.h>

typedef enum { GP_PNG, GP_SVG, GP_PDF } gp_format_t;

/* Where the legend goes (see above). */
typedef enum { GP_KEY_AUTO, GP_KEY_OUTSIDE, GP_KEY_BELOW, GP_KEY_INSIDE } gp_key_place_t;

/* Which axes panels share: the same range, tick labels on the outer panels only. */
typedef enum { GP_SHARE_BOTH, GP_SHARE_X, GP_SHARE_Y, GP_SHARE_NONE } gp_share_t;

typedef struct gp_rect {
    double l, r, b, t;
} gp_rect_t;

typedef struct gp_layout_in {
    gp_format_t format;
    int width, height;      /* the figure's size (gp_layout_size) */
    int npanels;            /* 1: one plot, no panel titles */
    int title_lines;        /* the figure's title (0: none) and axis labels, in lines */
    int xlabel_lines, ylabel_lines;
    gp_share_t share;
    int xtick_chars, ytick_chars; /* the widest tick labels of any panel */
    gp_key_place_t key_place;
    const int *entry_chars; /* each legend entry's length in characters */
    int nentries;
    int key_title_chars;    /* the legend title's longest line; -1: no title */
    int key_title_lines;
} gp_layout_in_t;

typedef struct gp_layout {
    int cols, rows;
    gp_rect_t *panel;        /* npanels of them */
    gp_rect_t grid;          /* the panels' extent */
    double hchar, vchar;     /* a character's width and a line's height, in the figure's
                              * units (gnuplot's estimate) */
    double title_y;          /* the centre of the figure title's first line */
    double xlabel_x, xlabel_y, ylabel_x, ylabel_y; /* and of the axis labels' first lines */
    double key_x, key_y;     /* the legend's top left corner (inside: top right) */
    bool key_inside;
    int key_rows;            /* legend entries per column */
    int entry_max_chars;     /* longer entries are shortened to this many characters */
} gp_layout_t;

/* The grid for npanels panels: columns, then rows. */
void gp_layout_grid(int npanels, int *cols, int *rows);

/* The figure's size: width, height as given, or where 0 the default for the format (a lone
 * plot 960x640 pixels or 6x4 inches, in hundredths), each side 5/8 of that per panel. */
void gp_layout_size(gp_format_t format, int npanels, int *width, int *height);

/* gnuplot's estimate of a character's width and a line's height for the format, in the
 * figure's units. */
void gp_layout_char_size(gp_format_t format, double *hchar, double *vchar);

/* About how many ticks each axis of a panel has room for, before the layout is known. */
void gp_layout_tick_targets(const gp_layout_in_t *in, int *xticks, int *yticks);

void gp_layout_init(gp_layout_t *l, const gp_layout_in_t *in);
void gp_layout_free(gp_layout_t *l);

#endif
