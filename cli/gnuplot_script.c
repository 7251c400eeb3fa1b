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

/* Text as gnuplot draws it: control characters as spaces, each byte that is not part of
 * well-formed UTF-8 as '?' (malloc'ed). */
static char *clean_text(const char *s)
{
    if (!s) s = "";
    char *out = sgd_xmalloc(strlen(s) + 1), *o = out;
    while (*s) {
        size_t len = sgd_utf8_len(s);
        if (len == 0) {
            *o++ = '?';
            len = 1;
        } else if (cli_is_control(s, len)) {
            *o++ = ' ';
        } else {
            memcpy(o, s, len);
            o += len;
        }
        s += len;
    }
    *o = '\0';
    return out;
}

/* The characters of well-formed UTF-8 text (its bytes that do not continue one). */
static int text_chars(const char *s)
{
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The byte offset of character k of well-formed UTF-8 text. */
static size_t char_offset(const char *s, int k)
{
    size_t i = 0;
    for (int n = 0; s[i] && n <= k; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && n++ == k) return i;
    return i;
}

/* Clean text of at most max characters: a longer one keeps its start and its end around
 * "…", which is where names that share a prefix or a suffix still differ (malloc'ed). */
static char *shortened(const char *clean, int max)
{
    int n = text_chars(clean);
    if (n <= max) return sgd_xstrdup(clean);
    static const char ellipsis[] = "\xe2\x80\xa6";
    int head = max / 2, tail = max - 1 - head;
    size_t h = char_offset(clean, head), t = char_offset(clean, n - tail);
    char *out = sgd_xmalloc(h + sizeof ellipsis + strlen(clean + t));
    memcpy(out, clean, h);
    memcpy(out + h, ellipsis, sizeof ellipsis - 1);
    strcpy(out + h + sizeof ellipsis - 1, clean + t);
    return out;
}

/* Why not gnuplot's own '' for a quote: gnuplot 5.4's scanner takes '' as a quote only
 * right after another character of the string, so a string starting with ' or holding ''
 * ends early (a syntax error, text lost).  Why "\047" and not "'": gnuplot's macro pass
 * tracks single quotes without regard to double quotes, so a raw ' there would make it
 * see the next piece as outside quotes and expand an @name in it. */
/* Clean text as a gnuplot string expression, a line break where brk marks a space (or
 * nowhere, brk NULL) (malloc'ed). */
static char *quote_clean(const char *clean, const bool *brk)
{
    static const char quote[] = "'.\"\\047\".'"; /* ends a piece, adds ', opens the next */
    static const char newline[] = "'.\"\\n\".'";
    char *out = sgd_xmalloc(sizeof quote * strlen(clean) + 3), *o = out;
    *o++ = '\'';
    for (size_t i = 0; clean[i]; i++) {
        const char *join = brk && brk[i] ? newline : clean[i] == '\'' ? quote : NULL;
        if (join) {
            memcpy(o, join, strlen(join));
            o += strlen(join);
        } else {
            *o++ = clean[i];
        }
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

char *gp_quote(const char *s)
{
    char *clean = clean_text(s), *out = quote_clean(clean, NULL);
    free(clean);
    return out;
}

/* The lines clean text takes at most max characters a line: broken at spaces, greedily (a
 * word longer than max has a line of its own); the breaking spaces are marked in brk (a
 * flag per byte) and the longest line's characters put in *widest, when given.  0 for
 * empty text. */
static int wrap_text(const char *clean, int max, bool *brk, int *widest)
{
    int lines = *clean != '\0', line = -1, word = 0; /* line: its characters so far */
    int wide = 0;
    size_t space = 0; /* the space before the current word */
    for (size_t i = 0;; i++) {
        char c = clean[i];
        if (c != ' ' && c != '\0') {
            word += ((unsigned char)c & 0xC0) != 0x80;
            continue;
        }
        if (line < 0) {
            line = word;
        } else if (line + 1 + word <= max) {
            line += 1 + word;
        } else {
            if (brk) brk[space] = true;
            lines++;
            line = word;
        }
        if (line > wide) wide = line;
        if (c == '\0') break;
        space = i, word = 0;
    }
    if (widest) *widest = wide;
    return lines;
}

/* The lines text takes, wrapped at max characters. */
static int text_lines(const char *s, int max)
{
    char *clean = clean_text(s);
    int n = wrap_text(clean, max, NULL, NULL);
    free(clean);
    return n;
}

/* The length in characters of text as drawn; -1 for none. */
static int drawn_chars(const char *s)
{
    if (!s) return -1;
    char *clean = clean_text(s);
    int n = text_chars(clean);
    free(clean);
    return n;
}

/* The legend title's width a line: its entries' column (at least 20 characters), so that
 * a long title (the keys of a factored legend) wraps rather than widens the legend. */
static int key_title_wrap(const gp_plot_t *p)
{
    int w = 20;
    for (int i = 0; i < p->nseries; i++)
        if (!p->series[i].legend_dup && drawn_chars(p->series[i].label) + 7 > w)
            w = drawn_chars(p->series[i].label) + 7;
    return w;
}

/* s quoted (gp_quote), wrapped at max characters a line. */
static void put_wrapped(buf_t *b, const char *s, int max)
{
    char *clean = clean_text(s);
    bool *brk = sgd_xcalloc(strlen(clean) + 1, sizeof *brk);
    wrap_text(clean, max, brk, NULL);
    char *q = quote_clean(clean, brk);
    put_str(b, q);
    free(q);
    free(brk);
    free(clean);
}

/* The terminal at the figure's size. */
static void put_terminal(buf_t *b, gp_format_t format, int w, int h)
{
    SGD_ASSERT(format == GP_PNG || format == GP_SVG || format == GP_PDF);
    if (format == GP_PNG) putf(b, "set terminal pngcairo size %d,%d noenhanced\n", w, h);
    if (format == GP_SVG) putf(b, "set terminal svg size %d,%d dynamic noenhanced\n", w, h);
    if (format == GP_PDF)
        putf(b, "set terminal pdfcairo size %d.%02din,%d.%02din noenhanced\n", w / 100,
             w % 100, h / 100, h % 100);
}

/* Whether series i is drawn in panel `panel` (-1: any). */
static bool in_panel(const gp_plot_t *p, int i, int panel)
{
    return panel < 0 || p->npanels <= 1 || p->series[i].panel == panel;
}

static void extend(double v, bool log, double *lo, double *hi)
{
    if (!isfinite(v) || (log && v <= 0)) return;
    *lo = fmin(*lo, v), *hi = fmax(*hi, v);
}

/* The extent of the data drawn in a panel (-1: all) on one axis (x: 0, y: 1): finite
 * points, band edges included, only values > 0 on a log axis; lo > hi when there is none. */
static void data_extent(const gp_plot_t *p, int panel, int axis, double *lo, double *hi)
{
    bool log = axis ? p->logy : p->logx;
    *lo = INFINITY, *hi = -INFINITY;
    for (int i = 0; i < p->nseries; i++) {
        const gp_series_t *s = &p->series[i];
        if (!in_panel(p, i, panel)) continue;
        for (int k = 0; k < s->n; k++) {
            if (!isfinite(s->x[k]) || !isfinite(s->y[k])) continue;
            extend(axis ? s->y[k] : s->x[k], log, lo, hi);
            if (axis && s->lo) extend(s->lo[k], log, lo, hi);
            if (axis && s->hi) extend(s->hi[k], log, lo, hi);
        }
    }
}

static bool shares(const gp_plot_t *p, char axis)
{
    return p->share == GP_SHARE_BOTH || p->share == (axis == 'x' ? GP_SHARE_X : GP_SHARE_Y);
}

/* Each panel's axis (one panel without panels): a shared axis spans all panels' data. */
static gp_axis_t *panel_axes(const gp_plot_t *p, char axis, int npanels, int target)
{
    gp_axis_t *a = sgd_xcalloc((size_t)npanels, sizeof *a);
    bool shared = npanels == 1 || shares(p, axis);
    for (int k = 0; k < npanels; k++) {
        double lo, hi;
        data_extent(p, shared ? -1 : k, axis == 'y', &lo, &hi);
        gp_axis_init(&a[k], lo, hi, axis == 'x' ? &p->xrange : &p->yrange,
                     axis == 'x' ? p->logx : p->logy, target);
    }
    return a;
}

static int widest_label(const gp_axis_t *a, int n)
{
    int w = 0;
    for (int k = 0; k < n; k++)
        if (a[k].label_chars > w) w = a[k].label_chars;
    return w;
}

/* "set xrange [lo:hi]", the ticks (labelled or not) and their format. */
static void put_axis(buf_t *b, char axis, const gp_axis_t *a, bool labels)
{
    putf(b, "set %crange [%.17g:%.17g]\n", axis, a->lo, a->hi);
    putf(b, "set %ctics (", axis);
    for (int i = 0; i < a->nmajor; i++) putf(b, "%s%.17g", i ? ", " : "", a->major[i]);
    for (int i = 0; i < a->nminor; i++) putf(b, ", %.17g 1", a->minor[i]);
    putf(b, ")\nset format %c %s\n", axis, labels ? "'%g'" : "''");
}

/* Colours told apart in print and by most colour-blind readers (Okabe and Ito), then grey. */
static const unsigned palette[GP_NPALETTE] = {0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7,
                                              0xe69f00, 0x56b4e9, 0x000000, 0x999999};
/* A point type per dash pattern (filled circle, square, triangles, diamond), so that
 * series of one colour differ in their points too. */
static const int point_types[GP_NDASHES] = {7, 5, 9, 11, 13};

static unsigned series_rgb(const gp_series_t *s)
{
    SGD_ASSERT(s->color >= 0 && s->dash >= 0);
    return palette[s->color % GP_NPALETTE];
}

/* A series' line: its colour, dash pattern and, for short series, points. */
static void put_style(buf_t *b, const gp_series_t *s)
{
    int dash = s->dash % GP_NDASHES;
    if (s->n > 40) put_str(b, "with lines");
    else putf(b, "with linespoints pt %d ps 0.5", point_types[dash]);
    putf(b, " lc rgb 0x%06x dt %d lw 1.5", series_rgb(s), dash + 1);
}

/* Bands first, so that every line is drawn over every band; a series' band and line share
 * its colour.  The legend is drawn apart (put_legend), so no line has a title here. */
static void put_plot(buf_t *b, const gp_plot_t *p, int panel)
{
    bool first = true;
    for (int i = 0; i < p->nseries; i++) {
        if (!in_panel(p, i, panel) || !p->series[i].lo || !p->series[i].hi) continue;
        put_str(b, first ? "plot " : ", \\\n     ");
        first = false;
        putf(b, "$b%d using 1:2:3 with filledcurves lc rgb 0x%06x fs transparent solid 0.2 "
             "noborder notitle", i, series_rgb(&p->series[i]));
    }
    for (int i = 0; i < p->nseries; i++) {
        if (!in_panel(p, i, panel)) continue;
        put_str(b, first ? "plot " : ", \\\n     ");
        first = false;
        putf(b, "$g%d using 1:2 ", i);
        put_style(b, &p->series[i]);
        put_str(b, " notitle");
    }
    if (!first) put_str(b, "\n");
}

/* Panel k: its rectangle, ranges, ticks (labelled on the outer panels of a shared axis),
 * title and curves. */
static void put_panel(buf_t *b, const gp_plot_t *p, const gp_layout_t *l, const gp_axis_t *x,
                      const gp_axis_t *y, int k)
{
    bool panels = p->npanels > 1;
    int n = panels ? p->npanels : 1;
    const gp_rect_t *r = &l->panel[k];
    putf(b, "set lmargin at screen %.5f\nset rmargin at screen %.5f\n"
         "set bmargin at screen %.5f\nset tmargin at screen %.5f\n", r->l, r->r, r->b, r->t);
    put_axis(b, 'x', x, !shares(p, 'x') || k + l->cols >= n);
    put_axis(b, 'y', y, !shares(p, 'y') || k % l->cols == 0);
    if (panels) {
        SGD_ASSERT(p->panel_titles && p->panel_titles[k]);
        put_str(b, "set title ");
        put_quoted(b, p->panel_titles[k]);
        put_str(b, " noenhanced\n");
    }
    put_plot(b, p, panels ? k : -1);
}

/* A label of the figure, centred at (x, y) of the screen, wrapped at max characters. */
static void put_label(buf_t *b, int tag, const char *text, int max, double x, double y,
                      const char *extra)
{
    putf(b, "set label %d ", tag);
    put_wrapped(b, text, max);
    putf(b, " at screen %.5f,%.5f center%s noenhanced\n", x, y, extra);
}

/* The last layer, over the whole figure: its title, its axis labels and its one legend,
 * each series' entry listed once (keyentry: a sample and a title, no data). */
static void put_legend(buf_t *b, const gp_plot_t *p, const gp_layout_t *l, const int *wrap,
                       int nentries)
{
    put_str(b, "unset logscale\nunset grid\nunset border\nunset tics\nunset title\n"
               "set lmargin at screen 0\nset rmargin at screen 1\n"
               "set bmargin at screen 0\nset tmargin at screen 1\n"
               "set xrange [0:1]\nset yrange [0:1]\n");
    put_label(b, 1, p->title, wrap[0], 0.5, l->title_y, "");
    put_label(b, 2, p->xlabel, wrap[1], l->xlabel_x, l->xlabel_y, "");
    put_label(b, 3, p->ylabel, wrap[2], l->ylabel_x, l->ylabel_y, " rotate by 90");
    if (nentries) {
        putf(b, "set key at screen %.5f,%.5f %s top vertical Left reverse noenhanced "
             "samplen 3 spacing 1.1 maxrows %d%s\n", l->key_x, l->key_y,
             l->key_inside ? "right" : "left", l->key_rows, l->key_inside ? " opaque box" : "");
        if (p->key_title) {
            put_str(b, "set key title ");
            put_wrapped(b, p->key_title, key_title_wrap(p));
            put_str(b, " noenhanced left\n");
        }
    }
    /* gnuplot 5.4 fails an assertion on a plot of keyentry items alone: the constant 2,
     * outside the y range, is drawn nowhere. */
    put_str(b, "plot 2 notitle");
    for (int i = 0; i < p->nseries; i++) {
        if (p->series[i].legend_dup) continue;
        char *clean = clean_text(p->series[i].label);
        char *entry = shortened(clean, l->entry_max_chars);
        put_str(b, ", \\\n     keyentry ");
        put_style(b, &p->series[i]);
        put_str(b, " title ");
        put_quoted(b, entry);
        put_str(b, " noenhanced");
        free(entry);
        free(clean);
    }
    put_str(b, "\n");
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

/* The layout's input: the figure, its widest tick labels and its legend entries (the
 * caller frees *entry_chars). */
static gp_layout_in_t layout_input(const gp_plot_t *p, int **entry_chars)
{
    int npanels = p->npanels > 1 ? p->npanels : 1;
    gp_layout_in_t in = {.format = p->format, .width = p->width, .height = p->height,
                         .npanels = npanels,
                         .share = p->share, .key_place = p->key_place,
                         .key_title_chars = -1};
    SGD_ASSERT(in.width >= 0 && in.height >= 0);
    gp_layout_size(p->format, npanels, &in.width, &in.height);
    *entry_chars = sgd_xcalloc((size_t)p->nseries + 1, sizeof **entry_chars);
    for (int i = 0; i < p->nseries; i++)
        if (!p->series[i].legend_dup) (*entry_chars)[in.nentries++] = drawn_chars(p->series[i].label);
    in.entry_chars = *entry_chars;
    if (p->key_title) {
        char *clean = clean_text(p->key_title);
        in.key_title_lines = wrap_text(clean, key_title_wrap(p), NULL, &in.key_title_chars);
        free(clean);
    }
    return in;
}

/* The layout, with the title wrapped at the figure's width, the x label at the panels'
 * width and the y label at their height (wrap[]: each one's characters a line); laid out
 * again while wrapping changes the lines they take (a label's lines take room from the
 * panels). */
static void lay_out(const gp_plot_t *p, gp_layout_in_t *in, gp_layout_t *l, int wrap[3])
{
    double hchar, vchar;
    gp_layout_char_size(p->format, &hchar, &vchar);
    hchar *= 0.9; /* drawn text is narrower than gnuplot's estimate (0.75 to 0.9 of it) */
    wrap[0] = (int)(in->width / hchar) - 4;
    in->title_lines = text_lines(p->title, wrap[0]);
    in->xlabel_lines = drawn_chars(p->xlabel) > 0, in->ylabel_lines = drawn_chars(p->ylabel) > 0;
    for (int pass = 0;; pass++) {
        gp_layout_init(l, in);
        wrap[1] = (int)((l->grid.r - l->grid.l) * in->width / hchar);
        wrap[2] = (int)((l->grid.t - l->grid.b) * in->height / hchar);
        int x = text_lines(p->xlabel, wrap[1]), y = text_lines(p->ylabel, wrap[2]);
        if ((x == in->xlabel_lines && y == in->ylabel_lines) || pass == 2) return;
        gp_layout_free(l);
        in->xlabel_lines = x, in->ylabel_lines = y;
    }
}

char *gp_script_build(const gp_plot_t *p)
{
    buf_t b = {0};
    int *entry_chars, xt, yt, n = p->npanels > 1 ? p->npanels : 1, wrap[3];
    gp_layout_in_t in = layout_input(p, &entry_chars);
    put_str(&b, "set encoding utf8\n"); /* every string is well-formed UTF-8 (gp_quote) */
    put_terminal(&b, p->format, in.width, in.height);
    for (int i = 0; i < p->nseries; i++) put_data(&b, i, &p->series[i]);
    if (p->nseries > 0) { /* nothing to draw: gnuplot writes no figure */
        gp_layout_tick_targets(&in, &xt, &yt);
        gp_axis_t *x = panel_axes(p, 'x', n, xt), *y = panel_axes(p, 'y', n, yt);
        in.xtick_chars = widest_label(x, n), in.ytick_chars = widest_label(y, n);
        gp_layout_t l;
        lay_out(p, &in, &l, wrap);
        put_str(&b, "set multiplot\nunset key\n");
        if (p->logx) put_str(&b, "set logscale x\n");
        if (p->logy) put_str(&b, "set logscale y\n");
        putf(&b, "set grid xtics ytics%s%s lc rgb 0xc8c8c8 lw 1, lc rgb 0xe8e8e8 lw 0.5\n",
             p->logx ? " mxtics" : "", p->logy ? " mytics" : "");
        for (int k = 0; k < n; k++) put_panel(&b, p, &l, &x[k], &y[k], k);
        put_legend(&b, p, &l, wrap, in.nentries);
        put_str(&b, "unset multiplot\n");
        for (int k = 0; k < n; k++) gp_axis_free(&x[k]), gp_axis_free(&y[k]);
        free(x);
        free(y);
        gp_layout_free(&l);
    }
    free(entry_chars);
    return b.s;
}
