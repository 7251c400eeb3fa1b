/* The gnuplot script of `sgdsim plot` (see gnuplot_script.h for what it guarantees). */
#include "cli/gnuplot_script.h"

#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/text.h"
#include "common/json.h"
#include "common/error.h"

typedef struct buf {
    char *s;
    size_t len, cap;
} buf_t;

static void put(buf_t *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = 2 * (b->len + n + 1);
        b->s = sgd_xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* Appends fixed text with numbers; never a string from the caller (those go through
 * put_quoted). */
static void putf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(buf_t *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    SGD_ASSERT(n >= 0 && (size_t)n < sizeof tmp);
    put(b, tmp, (size_t)n);
}

static void put_str(buf_t *b, const char *s) { put(b, s, strlen(s)); }

static void put_quoted(buf_t *b, const char *s)
{
    char *q = gp_quote(s);
    put_str(b, q);
    free(q);
}

bool gp_format_for(const char *path, gp_format_t *format)
{
    const char *ext = strrchr(path, '.');
    if (ext && strcmp(ext, ".png") == 0) *format = GP_PNG;
    else if (ext && strcmp(ext, ".svg") == 0) *format = GP_SVG;
    else if (ext && strcmp(ext, ".pdf") == 0) *format = GP_PDF;
    else return false;
    return true;
}

/* Why not gnuplot's own '' for a quote: gnuplot 5.4's scanner takes '' as a quote only
 * right after another character of the string, so a string starting with ' or holding ''
 * ends early (a syntax error, text lost).  Why "\047" and not "'": gnuplot's macro pass
 * tracks single quotes without regard to double quotes, so a raw ' there would make it
 * see the next piece as outside quotes and expand an @name in it. */
char *gp_quote(const char *s)
{
    static const char quote[] = "'.\"\\047\".'"; /* ends a piece, adds ', opens the next */
    if (!s) s = "";
    char *out = sgd_xmalloc(sizeof quote * strlen(s) + 3), *o = out;
    *o++ = '\'';
    while (*s) {
        size_t len = sgd_utf8_len(s);
        if (len == 0) {
            *o++ = '?';
            len = 1;
        } else if (cli_is_control(s, len)) {
            *o++ = ' ';
        } else if (*s == '\'') {
            memcpy(o, quote, sizeof quote - 1);
            o += sizeof quote - 1;
        } else {
            memcpy(o, s, len);
            o += len;
        }
        s += len;
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

/* The grid of panels: columns, then rows (1 x 1 without panels). */
static void panel_grid(const gp_plot_t *p, int *cols, int *rows)
{
    int n = p->npanels > 1 ? p->npanels : 1;
    *cols = 1;
    while (*cols * *cols < n) ++*cols;
    *rows = (n + *cols - 1) / *cols;
}

/* A side of the figure for n panels along it: each panel 5/8 of a lone plot's side. */
static int grid_size(int base, int n)
{
    return n == 1 ? base : base * 5 * n / 8;
}

/* The terminal with the figure's size (gp_plot_t.width, height; by default a lone plot's
 * size, scaled by the grid of panels). */
static void put_terminal(buf_t *b, const gp_plot_t *p)
{
    SGD_ASSERT(p->format == GP_PNG || p->format == GP_SVG || p->format == GP_PDF);
    SGD_ASSERT(p->width >= 0 && p->height >= 0);
    bool pdf = p->format == GP_PDF;
    int cols, rows;
    panel_grid(p, &cols, &rows);
    int w = p->width ? p->width : grid_size(pdf ? 600 : 960, cols);
    int h = p->height ? p->height : grid_size(pdf ? 400 : 640, rows);
    if (p->format == GP_PNG) putf(b, "set terminal pngcairo size %d,%d noenhanced\n", w, h);
    if (p->format == GP_SVG) putf(b, "set terminal svg size %d,%d dynamic noenhanced\n", w, h);
    if (pdf) putf(b, "set terminal pdfcairo size %d.%02din,%d.%02din noenhanced\n", w / 100,
                  w % 100, h / 100, h % 100);
}

/* The extent of the finite data on one axis (x: 0, y: 1), lo > hi when there is none. */
static void data_extent(const gp_plot_t *p, int axis, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (int i = 0; i < p->nseries; i++) {
        const gp_series_t *s = &p->series[i];
        for (int k = 0; k < s->n; k++) {
            double v = axis ? s->y[k] : s->x[k];
            if (!isfinite(s->x[k]) || !isfinite(s->y[k])) continue;
            if (axis && s->lo && isfinite(s->lo[k])) *lo = fmin(*lo, s->lo[k]);
            if (axis && s->hi && isfinite(s->hi[k])) *hi = fmax(*hi, s->hi[k]);
            *lo = fmin(*lo, v), *hi = fmax(*hi, v);
        }
    }
}

/* "set xrange [lo:hi]" from the range given, and on a log axis the data's extent for an
 * unset side (gnuplot would widen it to whole decades: 1 to 10^4 for data ending at 3000). */
static void put_range(buf_t *b, char axis, const gp_range_t *r, bool log, const gp_plot_t *p)
{
    gp_range_t use = *r;
    double lo, hi;
    data_extent(p, axis == 'y', &lo, &hi);
    bool fit = log || p->npanels > 1; /* panels share one range: the data's */
    if (fit && lo <= hi && (lo > 0 || !log)) {
        if (!use.has_lo) use.has_lo = true, use.lo = lo;
        if (!use.has_hi) use.has_hi = true, use.hi = hi;
        if (use.lo == use.hi) use.lo /= 2, use.hi *= 2; /* one value: a range around it */
    }
    if (!use.has_lo && !use.has_hi) return;
    putf(b, "set %crange [", axis);
    if (use.has_lo && isfinite(use.lo)) putf(b, "%.17g", use.lo);
    else put_str(b, "*");
    put_str(b, ":");
    if (use.has_hi && isfinite(use.hi)) putf(b, "%.17g", use.hi);
    else put_str(b, "*");
    put_str(b, "]\n");
}

/* The legend (outside the axes by default, so it never hides a curve) and a light grid;
 * log axes with minor ticks at 2..9 of each decade and their own fainter grid lines. */
static void put_axes(buf_t *b, const gp_plot_t *p)
{
    if (p->key_place == GP_KEY_INSIDE)
        put_str(b, "set key inside top right Left reverse noenhanced opaque box samplen 3 "
                   "spacing 1.1\n");
    else if (p->key_place == GP_KEY_BELOW)
        put_str(b, "set key below center horizontal Left reverse noenhanced samplen 3 "
                   "spacing 1.1 maxrows 4\n");
    else
        put_str(b, "set key outside right top vertical Left reverse noenhanced samplen 3 "
                   "spacing 1.1\n");
    if (p->key_title) {
        put_str(b, "set key title ");
        put_quoted(b, p->key_title);
        put_str(b, " noenhanced\n");
    }
    if (p->logx) put_str(b, "set logscale x\nset mxtics 10\n");
    if (p->logy) put_str(b, "set logscale y\nset mytics 10\n");
    put_range(b, 'x', &p->xrange, p->logx, p);
    put_range(b, 'y', &p->yrange, p->logy, p);
    putf(b, "set grid xtics ytics%s%s lc rgb 0xc8c8c8 lw 1, lc rgb 0xe8e8e8 lw 0.5\n",
         p->logx ? " mxtics" : "", p->logy ? " mytics" : "");
}

static void put_header(buf_t *b, const gp_plot_t *p)
{
    /* Every string is well-formed UTF-8 (gp_quote), which is what the terminals expect. */
    put_str(b, "set encoding utf8\n");
    put_terminal(b, p);
    static const char *const cmd[] = {"set title ", "set xlabel ", "set ylabel "};
    const char *text[] = {p->title, p->xlabel, p->ylabel};
    for (int i = p->npanels > 1; i < 3; i++) { /* with panels, the title heads the grid */
        put_str(b, cmd[i]);
        put_quoted(b, text[i]);
        put_str(b, " noenhanced\n");
    }
    put_axes(b, p); /* after the labels: strings in the order of gp_plot_t */
}

static bool finite3(double a, double b, double c)
{
    return isfinite(a) && isfinite(b) && isfinite(c);
}

/* Datablock $g<i> (x y), and $b<i> (x lo hi) for a band: only finite numbers the builder
 * formats itself, so no line is EOD. */
static void put_data(buf_t *b, int i, const gp_series_t *s)
{
    putf(b, "$g%d << EOD\n", i);
    for (int k = 0; k < s->n; k++)
        if (isfinite(s->x[k]) && isfinite(s->y[k])) putf(b, "%.17g %.17g\n", s->x[k], s->y[k]);
    put_str(b, "EOD\n");
    if (!s->lo || !s->hi) return;
    putf(b, "$b%d << EOD\n", i);
    for (int k = 0; k < s->n; k++)
        if (finite3(s->x[k], s->lo[k], s->hi[k]))
            putf(b, "%.17g %.17g %.17g\n", s->x[k], s->lo[k], s->hi[k]);
    put_str(b, "EOD\n");
}

/* Colours told apart in print and by most colour-blind readers (Okabe and Ito), then grey. */
static const unsigned palette[] = {0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7,
                                   0xe69f00, 0x56b4e9, 0x000000, 0x999999};
#define NPALETTE (int)(sizeof palette / sizeof palette[0])
#define NDASHES 5 /* gnuplot's dash types 1 (solid) to 5 */

static unsigned series_rgb(const gp_series_t *s)
{
    SGD_ASSERT(s->color >= 0 && s->dash >= 0);
    return palette[s->color % NPALETTE];
}

/* Whether series i is drawn in panel `panel` (-1: the one plot, every series). */
static bool in_panel(const gp_plot_t *p, int i, int panel)
{
    return panel < 0 || p->series[i].panel == panel;
}

/* Bands first, so that every line is drawn over every band; a series' band and line share
 * its colour.  Short series show their points. */
static void put_plot(buf_t *b, const gp_plot_t *p, int panel)
{
    int n = 0;
    for (int i = 0; i < p->nseries; i++) n += in_panel(p, i, panel);
    if (n == 0) return; /* nothing to draw: gnuplot writes no figure */
    put_str(b, "plot ");
    bool first = true;
    for (int i = 0; i < p->nseries; i++) {
        if (!in_panel(p, i, panel) || !p->series[i].lo || !p->series[i].hi) continue;
        if (!first) put_str(b, ", \\\n     ");
        first = false;
        putf(b, "$b%d using 1:2:3 with filledcurves lc rgb 0x%06x fs transparent solid 0.2 "
             "noborder notitle", i, series_rgb(&p->series[i]));
    }
    for (int i = 0; i < p->nseries; i++) {
        if (!in_panel(p, i, panel)) continue;
        if (!first) put_str(b, ", \\\n     ");
        first = false;
        putf(b, "$g%d using 1:2 with %s lc rgb 0x%06x dt %d lw 1.5 title ", i,
             p->series[i].n > 40 ? "lines" : "linespoints pt 7 ps 0.5",
             series_rgb(&p->series[i]), p->series[i].dash % NDASHES + 1);
        put_quoted(b, p->series[i].label);
        put_str(b, " noenhanced");
    }
    put_str(b, "\n");
}

/* The grid: a multiplot under the figure's title, a titled plot per panel. */
static void put_panels(buf_t *b, const gp_plot_t *p)
{
    int cols, rows;
    panel_grid(p, &cols, &rows);
    putf(b, "set multiplot layout %d,%d rowsfirst title ", rows, cols);
    put_quoted(b, p->title);
    put_str(b, " noenhanced\n");
    for (int k = 0; k < p->npanels; k++) {
        SGD_ASSERT(p->panel_titles && p->panel_titles[k]);
        put_str(b, "set title ");
        put_quoted(b, p->panel_titles[k]);
        put_str(b, " noenhanced\n");
        put_plot(b, p, k);
    }
    put_str(b, "unset multiplot\n");
}

char *gp_script_build(const gp_plot_t *p)
{
    buf_t b = {0};
    put_header(&b, p);
    for (int i = 0; i < p->nseries; i++) put_data(&b, i, &p->series[i]);
    if (p->npanels > 1) put_panels(&b, p);
    else put_plot(&b, p, -1);
    return b.s;
}
