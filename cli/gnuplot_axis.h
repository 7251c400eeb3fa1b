/* The axes of a `sgdsim plot` figure: each axis's range and ticks, chosen here rather than
 * left to gnuplot, so that panels can share them exactly and the figure's margins can be
 * sized for the tick labels before gnuplot draws anything.
 *
 * Linear axis: ticks at multiples of a step of 1, 2 or 5 times a power of ten, the one
 * nearest to giving the number asked for; a side the user did not set is widened to the next tick (as gnuplot's
 * own autoscaling does).
 * Log axis: spans the data (not whole decades) unless a side is set; major ticks at the
 * decades (thinned when there are more than asked for) when there are three, else at 1, 2
 * and 5, or at 1 to 9 times each power of ten, whichever first gives three ticks, or else
 * two, without passing twice the number asked for; a range where none does (inside one
 * decade) gets linear ticks, at least two.  Every major tick is labelled (gnuplot's own
 * log ticks label only powers of ten, so a range without one had none); minor ticks at
 * 1..9 times each power of ten that is not major, for up to 15 decades.
 *
 * Ownership: the tick arrays are malloc'ed, freed by gp_axis_free. */
#ifndef SGDSIM_CLI_GNUPLOT_AXIS_H
#define SGDSIM_CLI_GNUPLOT_AXIS_H

#include <stdbool.h>

/* An axis range as the user gave it; a side not set is left to the data. */
typedef struct gp_range {
    bool has_lo, has_hi;
    double lo, hi;
} gp_range_t;

typedef struct gp_axis {
    bool log;
    double lo, hi;       /* the range drawn, lo < hi (lo > 0 on a log axis) */
    double *major;       /* labelled ticks, ascending */
    int nmajor;
    double *minor;       /* unlabelled ticks (log axes) */
    int nminor;
    int label_chars;     /* the widest major tick's label, as "%g" writes it */
} gp_axis_t;

/* The axis over the data's extent [lo, hi] (lo > hi: no data; on a log axis only points
 * > 0 count) and the user's range r, with about target major ticks (at least 2). */
void gp_axis_init(gp_axis_t *a, double lo, double hi, const gp_range_t *r, bool log, int target);

void gp_axis_free(gp_axis_t *a);

#endif
