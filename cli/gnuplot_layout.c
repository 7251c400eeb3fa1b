/* The layout of a `sgdsim plot` figure (gnuplot_layout.h). */
#include "cli/gnuplot_layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

/* gnuplot's estimate of a character's width and a line's height on each terminal, in the
 * figure's units (pixels; hundredths of an inch for PDF), at its default font: pngcairo
 * and pdfcairo "sans,12", svg "Arial,12" (gnuplot 5.4's GPVAL_TERM_HCHAR and _VCHAR). */
static const struct {
    double hchar, vchar;
} metrics[] = {[GP_PNG] = {10.0, 18.625}, [GP_SVG] = {8.39, 18.0}, [GP_PDF] = {7.09, 12.98}};

#define MIN_ENTRY_CHARS 12 /* a legend entry is never shortened below this */
#define KEY_SAMPLE_CHARS 7 /* a legend entry's line sample and the space around it */
#define KEY_LINE 1.1       /* a legend line's height in text lines (its "spacing") */

/* The figure in screen fractions: the size of text, and the margins around the grid of
 * panels before the legend takes its room. */
typedef struct frame {
    double cw, vy, vx; /* a character's width; a line's height; a line's height across */
    double left, right, top, bottom;
    double colgap, rowgap, titleband; /* between panels; above each panel, its title */
} frame_t;

void gp_layout_grid(int npanels, int *cols, int *rows)
{
    int n = npanels > 1 ? npanels : 1;
    *cols = 1;
    while (*cols * *cols < n) ++*cols;
    *rows = (n + *cols - 1) / *cols;
}

static int grid_side(int base, int n)
{
    return n == 1 ? base : base * 5 * n / 8;
}

void gp_layout_size(gp_format_t format, int npanels, int *width, int *height)
{
    int cols, rows;
    gp_layout_grid(npanels, &cols, &rows);
    if (!*width) *width = grid_side(format == GP_PDF ? 600 : 960, cols);
    if (!*height) *height = grid_side(format == GP_PDF ? 400 : 640, rows);
}

void gp_layout_char_size(gp_format_t format, double *hchar, double *vchar)
{
    *hchar = metrics[format].hchar, *vchar = metrics[format].vchar;
}

static frame_t frame_of(const gp_layout_in_t *in)
{
    SGD_ASSERT(in->width > 0 && in->height > 0);
    double hchar = metrics[in->format].hchar, vchar = metrics[in->format].vchar;
    bool panels = in->npanels > 1;
    bool share_x = in->share == GP_SHARE_BOTH || in->share == GP_SHARE_X;
    bool share_y = in->share == GP_SHARE_BOTH || in->share == GP_SHARE_Y;
    frame_t f = {.cw = hchar / in->width, .vy = vchar / in->height, .vx = vchar / in->width};
    /* the y label (its lines across), the tick labels */
    f.left = (0.6 + in->ylabel_lines) * f.vx + (in->ytick_chars + 1.5) * f.cw;
    f.right = fmax(2.5, in->xtick_chars / 2.0 + 1) * f.cw; /* the last x tick's overhang */
    f.top = (in->title_lines ? in->title_lines + (panels ? 1.6 : 1.2) : 0.8) * f.vy;
    f.bottom = (2.2 + in->xlabel_lines) * f.vy; /* the x tick labels and the x label */
    f.titleband = panels ? 1.6 * f.vy : 0;
    /* Side by side, panels keep apart their x tick labels (the last of one panel, the first
     * of the next) and, unshared, the y tick labels of the one on the right. */
    f.colgap = (fmax(2.5, in->xtick_chars + 1.0) + (share_y ? 0 : in->ytick_chars + 1.5)) * f.cw;
    f.rowgap = share_x ? 0.8 * f.vy : 2.2 * f.vy;
    return f;
}

void gp_layout_tick_targets(const gp_layout_in_t *in, int *xticks, int *yticks)
{
    int cols, rows;
    gp_layout_grid(in->npanels, &cols, &rows);
    double hchar = metrics[in->format].hchar, vchar = metrics[in->format].vchar;
    double panel_chars = (in->width / hchar - 16) / cols - 4;
    double panel_lines = (in->height / vchar - 4) / rows - (in->npanels > 1 ? 2 : 0);
    *xticks = (int)fmin(10, fmax(2, panel_chars / 12));
    *yticks = (int)fmin(10, fmax(2, panel_lines / 3));
}

/* The panels in a grid right of f.left, under f.top, left of grid_r and above grid_b. */
static void place_panels(gp_layout_t *l, const frame_t *f, int npanels, double grid_r,
                         double grid_b)
{
    double grid_t = 1 - f->top;
    double pw = (grid_r - f->left - (l->cols - 1) * f->colgap) / l->cols;
    double ph = (grid_t - grid_b - l->rows * f->titleband - (l->rows - 1) * f->rowgap) / l->rows;
    pw = fmax(pw, 0.01), ph = fmax(ph, 0.01); /* a figure too small: panels overlap text */
    for (int k = 0; k < npanels; k++) {
        int col = k % l->cols, row = k / l->cols;
        gp_rect_t *p = &l->panel[k];
        p->l = f->left + col * (pw + f->colgap);
        p->r = p->l + pw;
        p->t = grid_t - f->titleband - row * (ph + f->titleband + f->rowgap);
        p->b = p->t - ph;
    }
}

/* The legend's shape: columns of rows entries, its width and height. */
typedef struct key_box {
    int cols, rows;
    double w, h;
} key_box_t;

static int longest_entry(const gp_layout_in_t *in)
{
    int n = 0;
    for (int i = 0; i < in->nentries; i++)
        if (in->entry_chars[i] > n) n = in->entry_chars[i];
    return n;
}

static double column_width(const frame_t *f, int chars)
{
    return (chars + KEY_SAMPLE_CHARS) * f->cw;
}

/* The legend in columns of at most rows entries, balanced, entries up to chars long. */
static key_box_t key_in_rows(const gp_layout_in_t *in, const frame_t *f, int rows, int chars)
{
    int n = in->nentries;
    key_box_t k = {.rows = rows < 1 ? 1 : rows > n ? n : rows};
    k.cols = (n + k.rows - 1) / k.rows;
    k.rows = (n + k.cols - 1) / k.cols;
    k.w = fmax(k.cols * column_width(f, chars), (in->key_title_chars + 2) * f->cw);
    k.h = (k.rows + in->key_title_lines) * KEY_LINE * f->vy + 0.5 * f->vy;
    return k;
}

/* How many legend rows fit in height (at least 1). */
static int rows_fitting(const gp_layout_in_t *in, const frame_t *f, double height)
{
    int rows = (int)floor((height - 0.5 * f->vy) / (KEY_LINE * f->vy)) - in->key_title_lines;
    return rows < 1 ? 1 : rows;
}

/* The legend in the empty cells of the last row, when it fits there unshortened. */
static bool key_in_cell(gp_layout_t *l, const gp_layout_in_t *in, const frame_t *f,
                        double grid_r, double grid_b)
{
    int last = in->npanels - 1, longest = longest_entry(in);
    double cell_l = l->panel[last].r + f->colgap, cell_t = l->panel[last].t;
    double room_w = grid_r - cell_l - 2 * f->cw, room_h = cell_t - grid_b;
    int rows = rows_fitting(in, f, room_h);
    key_box_t k = key_in_rows(in, f, rows, longest);
    if (k.w > room_w || k.h > room_h) return false;
    l->key_x = cell_l + 2 * f->cw;
    l->key_y = cell_t;
    l->key_rows = k.rows;
    l->entry_max_chars = longest;
    return true;
}

/* The legend right of the panels: columns as the height allows, entries up to chars. */
static double key_right(gp_layout_t *l, const gp_layout_in_t *in, const frame_t *f, int chars)
{
    double room_h = 1 - f->top - f->titleband - f->bottom;
    key_box_t k = key_in_rows(in, f, rows_fitting(in, f, room_h), chars);
    double grid_r = 1 - f->right - k.w - f->cw;
    l->key_x = grid_r + f->right;
    l->key_y = 1 - f->top - f->titleband;
    l->key_rows = k.rows;
    l->entry_max_chars = chars;
    return grid_r;
}

/* The legend under the x label, as many columns as the width takes, entries up to
 * *chars long. */
static key_box_t key_below_box(const gp_layout_in_t *in, const frame_t *f, int *chars)
{
    double room_w = 1 - f->left - f->right;
    int longest = longest_entry(in);
    *chars = (int)floor(room_w / f->cw) - KEY_SAMPLE_CHARS;
    if (*chars < MIN_ENTRY_CHARS) *chars = MIN_ENTRY_CHARS;
    if (*chars > longest) *chars = longest;
    int cols = (int)floor(room_w / column_width(f, *chars));
    if (cols < 1) cols = 1;
    return key_in_rows(in, f, (in->nentries + cols - 1) / cols, *chars);
}

/* The legend under the x label (key_below_box); its height. */
static double key_below(gp_layout_t *l, const gp_layout_in_t *in, const frame_t *f)
{
    int chars;
    key_box_t k = key_below_box(in, f, &chars);
    double h = k.h + 0.2 * f->vy;
    l->key_x = fmax(0.005, (f->left + 1 - f->right) / 2 - k.w / 2);
    l->key_y = h;
    l->key_rows = k.rows;
    l->entry_max_chars = chars;
    return h;
}

/* The legend over the top right panel's corner; entries up to half its width. */
static void key_inside(gp_layout_t *l, const gp_layout_in_t *in, const frame_t *f)
{
    const gp_rect_t *p = &l->panel[(l->cols < in->npanels ? l->cols : in->npanels) - 1];
    int chars = (int)floor((p->r - p->l) / 2 / f->cw) - KEY_SAMPLE_CHARS;
    l->entry_max_chars = chars < MIN_ENTRY_CHARS ? MIN_ENTRY_CHARS : chars;
    l->key_x = p->r - 0.5 * f->cw;
    l->key_y = p->t - 0.3 * f->vy;
    l->key_inside = true;
    l->key_rows = in->nentries;
}

/* Where the legend goes and the panels' rectangles around it; the height of a legend
 * below the x label (0 for none). */
static double place_key(gp_layout_t *l, const gp_layout_in_t *in, const frame_t *f)
{
    double grid_r = 1 - f->right, grid_b = f->bottom;
    int npanels = in->npanels > 1 ? in->npanels : 1, longest = longest_entry(in);
    gp_key_place_t place = in->key_place;
    l->entry_max_chars = longest;
    place_panels(l, f, npanels, grid_r, grid_b);
    if (in->nentries == 0) return 0;
    if (place == GP_KEY_INSIDE) {
        key_inside(l, in, f);
        return 0;
    }
    if (place == GP_KEY_AUTO && l->cols * l->rows > npanels && key_in_cell(l, in, f, grid_r, grid_b))
        return 0;
    if (place == GP_KEY_AUTO) {
        double room_h = 1 - f->top - f->titleband - f->bottom;
        key_box_t k = key_in_rows(in, f, rows_fitting(in, f, room_h), longest);
        int chars;
        double below_h = key_below_box(in, f, &chars).h;
        place = k.w + f->cw <= 0.3 || (below_h > 0.45 && k.w + f->cw <= 0.5) ? GP_KEY_OUTSIDE
                                                                                 : GP_KEY_BELOW;
    }
    double below = 0;
    if (place == GP_KEY_OUTSIDE) {
        int chars = (int)floor(0.45 / f->cw) - KEY_SAMPLE_CHARS;
        if (chars < MIN_ENTRY_CHARS) chars = MIN_ENTRY_CHARS;
        grid_r = key_right(l, in, f, chars < longest ? chars : longest);
    } else {
        below = key_below(l, in, f);
        grid_b += below;
    }
    place_panels(l, f, npanels, grid_r, grid_b);
    return below;
}

void gp_layout_init(gp_layout_t *l, const gp_layout_in_t *in)
{
    memset(l, 0, sizeof *l);
    gp_layout_grid(in->npanels, &l->cols, &l->rows);
    l->panel = sgd_xcalloc((size_t)(in->npanels > 1 ? in->npanels : 1), sizeof *l->panel);
    frame_t f = frame_of(in);
    double below = place_key(l, in, &f);
    l->grid = l->panel[0];
    for (int k = 0; k < (in->npanels > 1 ? in->npanels : 1); k++) {
        l->grid.r = fmax(l->grid.r, l->panel[k].r);
        l->grid.b = fmin(l->grid.b, l->panel[k].b);
    }
    l->grid.t += f.titleband;
    l->hchar = metrics[in->format].hchar, l->vchar = metrics[in->format].vchar;
    /* gnuplot puts a label's first line at its position and the others after it (below;
     * right of it, rotated), so a label of n lines is placed by its first. */
    l->title_y = 1 - f.vy;
    l->xlabel_x = (l->grid.l + l->grid.r) / 2;
    l->xlabel_y = below + (in->xlabel_lines - 0.1) * f.vy;
    l->ylabel_x = 0.8 * f.vx;
    l->ylabel_y = (l->grid.b + l->grid.t) / 2;
}

void gp_layout_free(gp_layout_t *l)
{
    free(l->panel);
    l->panel = NULL;
}
