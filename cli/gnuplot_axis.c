/* Ranges and ticks of `sgdsim plot`'s axes (gnuplot_axis.h). */
#include "cli/gnuplot_axis.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#define FUZZ 1e-9 /* relative slack when comparing a tick with a range's end */

static void push(double **v, int *n, double x)
{
    *v = sgd_xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    (*v)[(*n)++] = x;
}

static double clamp_finite(double v)
{
    return v > DBL_MAX ? DBL_MAX : v < -DBL_MAX ? -DBL_MAX : v;
}

/* Half of |v| (1 for 0): how far a one-value range is widened on each side. */
static double widening(double v)
{
    return v != 0 ? fabs(v) / 2 : 1;
}

/* The range's sides: the user's, else the data's; a range of one value, or data beyond the
 * user's one side, is widened so that lo < hi. */
static void resolve_range(gp_axis_t *a, double lo, double hi, const gp_range_t *r)
{
    if (!(lo <= hi)) lo = a->log ? 1 : 0, hi = a->log ? 10 : 1;
    if (r->has_lo) lo = r->lo;
    if (r->has_hi) hi = r->hi;
    if (lo >= hi) {
        if (r->has_lo && !r->has_hi) hi = a->log ? lo * 10 : lo + widening(lo);
        else if (r->has_hi && !r->has_lo) lo = a->log ? hi / 10 : hi - widening(hi);
        else if (a->log) lo /= 2, hi *= 2;
        else lo -= widening(lo), hi += widening(hi);
    }
    a->lo = clamp_finite(lo), a->hi = clamp_finite(hi);
    if (a->log && !(a->lo > 0 && a->hi > a->lo)) a->lo = 1, a->hi = 10;
    if (!(a->lo < a->hi)) a->lo = 0, a->hi = 1;
}

/* 1, 2 or 5 times a power of ten, the nearest to raw (at most 5/3 of it). */
static double nice_step(double raw)
{
    if (!(raw > 0) || !isfinite(raw)) return 1;
    double p = pow(10, floor(log10(raw)));
    if (!(p > 0) || !isfinite(raw / p)) return raw;
    double f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

/* Ticks at the multiples of a nice step in [lo, hi], about target of them; with widen, a
 * side the user did not set moves out to the next multiple.  Where the multiples cannot be
 * counted exactly in a double (a range tiny next to its values), the ends alone. */
static void linear_ticks(gp_axis_t *a, const gp_range_t *r, int target, bool widen)
{
    double step = nice_step(a->hi / target - a->lo / target);
    double i0 = ceil(a->lo / step - FUZZ), i1 = floor(a->hi / step + FUZZ);
    if (!(fabs(i0) < 1e15 && fabs(i1) < 1e15 && i1 - i0 <= 4.0 * target + 4)) {
        push(&a->major, &a->nmajor, a->lo);
        push(&a->major, &a->nmajor, a->hi);
        return;
    }
    if (widen && !r->has_lo && isfinite(floor(a->lo / step + FUZZ) * step))
        a->lo = floor(a->lo / step + FUZZ) * step, i0 = ceil(a->lo / step - FUZZ);
    if (widen && !r->has_hi && isfinite(ceil(a->hi / step - FUZZ) * step))
        a->hi = ceil(a->hi / step - FUZZ) * step, i1 = floor(a->hi / step + FUZZ);
    for (double i = i0; i <= i1; i++)
        push(&a->major, &a->nmajor, fabs(i * step) < step * FUZZ ? 0 : i * step);
}

/* m times 10^e, as exact as a double holds it (0.07 rather than 7 * 0.01). */
static double decade_tick(int m, int e)
{
    return e >= 0 ? m * pow(10, e) : m / pow(10, -e);
}

static const int mantissas[3][9] = {{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
static const int nmantissas[3] = {1, 3, 9};

static bool in_range(const gp_axis_t *a, double v)
{
    return v >= a->lo * (1 - FUZZ) && v <= a->hi * (1 + FUZZ);
}

/* The ticks of mantissa set s (mantissas[s]) inside the range, every every-th of them kept
 * (counting from the first); their number. */
static int decade_ticks(gp_axis_t *a, int s, int every, bool keep)
{
    int e0 = (int)floor(log10(a->lo)), e1 = (int)floor(log10(a->hi)), n = 0, seen = 0;
    for (int e = e0; e <= e1; e++)
        for (int k = 0; k < nmantissas[s]; k++) {
            double v = decade_tick(mantissas[s][k], e);
            if (!in_range(a, v)) continue;
            if (seen++ % every) continue;
            n++;
            if (keep) push(&a->major, &a->nmajor, v);
        }
    return n;
}

/* Minor ticks at 1..9 times each power of ten that are not major, for up to 15 decades. */
static void decade_minors(gp_axis_t *a)
{
    int e0 = (int)floor(log10(a->lo)), e1 = (int)floor(log10(a->hi));
    if (e1 - e0 > 15) return;
    for (int e = e0; e <= e1; e++)
        for (int m = 1; m <= 9; m++) {
            double v = decade_tick(m, e);
            bool major = false;
            for (int i = 0; i < a->nmajor && !major; i++) major = a->major[i] == v;
            if (!major && in_range(a, v)) push(&a->minor, &a->nminor, v);
        }
}

static void log_ticks(gp_axis_t *a, const gp_range_t *r, int target)
{
    int decades = decade_ticks(a, 0, 1, false);
    if (decades >= 3) {
        int every = (decades + target - 1) / target;
        decade_ticks(a, 0, every, true);
        if (every == 1) decade_minors(a);
        return;
    }
    for (int least = 3; least >= 2; least--) /* three ticks if they fit, else two */
        for (int s = 1; s < 3; s++) {
            int n = decade_ticks(a, s, 1, false);
            if (n >= least && n <= 2 * target) {
                decade_ticks(a, s, 1, true);
                decade_minors(a);
                return;
            }
        }
    linear_ticks(a, r, 5, false); /* inside one decade: steps of at most a third of it */
}

void gp_axis_init(gp_axis_t *a, double lo, double hi, const gp_range_t *r, bool log, int target)
{
    memset(a, 0, sizeof *a);
    a->log = log;
    if (target < 2) target = 2;
    resolve_range(a, lo, hi, r);
    if (log) log_ticks(a, r, target);
    else linear_ticks(a, r, target, true);
    if (a->nmajor == 0) { /* not expected; an axis always labels something */
        push(&a->major, &a->nmajor, a->lo);
        push(&a->major, &a->nmajor, a->hi);
    }
    for (int i = 0; i < a->nmajor; i++) {
        char label[64];
        int n = snprintf(label, sizeof label, "%g", a->major[i]);
        if (n > a->label_chars) a->label_chars = n;
    }
}

void gp_axis_free(gp_axis_t *a)
{
    free(a->major);
    free(a->minor);
    a->major = a->minor = NULL;
    a->nmajor = a->nminor = 0;
}
