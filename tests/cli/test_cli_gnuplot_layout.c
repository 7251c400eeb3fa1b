/* What can be checked of plot's figures without gnuplot (cli/gnuplot_axis.h,
 * cli/gnuplot_layout.h, cli/gnuplot_script.h): every axis, log axes of any range included,
 * has at least two labelled ticks inside its range; the legend never overlaps a panel and
 * leaves the plot most of the width; panels line up inside the figure; and the script sets
 * every plot's margins, draws one legend per figure (each entry once) and one y label, and
 * labels the ticks of shared axes on the outer panels only. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gnuplot_script.h"
#include "tests/check.h"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* An axis over [lo, hi] has >= 2 labelled ticks, ascending, inside its range, which is
 * finite with lo < hi (lo > 0 on a log axis). */
static void check_axis(double lo, double hi, bool log, int target)
{
    gp_range_t none = {0};
    gp_axis_t a;
    gp_axis_init(&a, lo, hi, &none, log, target);
    bool ok = isfinite(a.lo) && isfinite(a.hi) && a.lo < a.hi && (!log || a.lo > 0) &&
              a.nmajor >= 2 && a.label_chars > 0;
    for (int i = 0; i < a.nmajor; i++) {
        double slack = 1e-9 * fmax(fabs(a.lo), fabs(a.hi));
        ok = ok && a.major[i] >= a.lo - slack && a.major[i] <= a.hi + slack &&
             (i == 0 || a.major[i] > a.major[i - 1]);
    }
    if (!ok) {
        fprintf(stderr, "axis [%g, %g] %s: range [%g, %g], %d ticks:", lo, hi,
                log ? "log" : "linear", a.lo, a.hi, a.nmajor);
        for (int i = 0; i < a.nmajor; i++) fprintf(stderr, " %g", a.major[i]);
        fprintf(stderr, "\n");
    }
    CHECK(ok);
    gp_axis_free(&a);
}

static void test_axes(void)
{
    static const double ranges[][2] = {
        {0.071, 0.089}, {0.03, 0.83}, {0.07, 0.3}, {0.5, 3}, {1e-5, 1}, {2, 2},
        {1, 1e300}, {4.9e-324, 1e-300}, {1e15, 1e15 + 1}, {0.9, 0.95}, {5, 200}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        for (int target = 2; target <= 10; target += 4) {
            check_axis(ranges[i][0], ranges[i][1], true, target);
            check_axis(ranges[i][0], ranges[i][1], false, target);
        }
    check_axis(-DBL_MAX, DBL_MAX, false, 6);
    check_axis(0, 0, false, 6);
    check_axis(1, 0, true, 6); /* no data */

    /* A linear axis widens to the next ticks, like gnuplot's own autoscaling. */
    gp_range_t none = {0}, user = {.has_hi = true, .hi = 0.5};
    gp_axis_t a;
    gp_axis_init(&a, 0.0703, 0.83, &none, false, 8);
    CHECK_NEAR(a.lo, 0, 1e-12);
    CHECK_NEAR(a.hi, 0.9, 1e-12);
    CHECK_INT_EQ(a.nmajor, 10);
    gp_axis_free(&a);
    /* A side the user sets is kept as given; the other still widens (steps of 0.05). */
    gp_axis_init(&a, 0.0703, 0.83, &user, false, 8);
    CHECK_NEAR(a.hi, 0.5, 0);
    CHECK_NEAR(a.lo, 0.05, 1e-12);
    gp_axis_free(&a);
    /* A log axis spans the data, its majors at 1, 2 and 5 where decades are too few. */
    gp_axis_init(&a, 0.03, 0.83, &none, true, 8);
    CHECK_NEAR(a.lo, 0.03, 0);
    CHECK_NEAR(a.hi, 0.83, 0);
    CHECK_INT_EQ(a.nmajor, 4); /* 0.05 0.1 0.2 0.5 */
    CHECK(a.nminor > 0);
    gp_axis_free(&a);
}

/* Rectangles that share no area. */
static bool apart(gp_rect_t a, gp_rect_t b)
{
    return a.r <= b.l + 1e-9 || b.r <= a.l + 1e-9 || a.t <= b.b + 1e-9 || b.t <= a.b + 1e-9;
}

static gp_layout_in_t layout_in(int npanels, const int *entries, int n, gp_key_place_t place)
{
    gp_layout_in_t in = {.format = GP_PNG, .npanels = npanels, .title_lines = 1,
                         .xlabel_lines = 1, .ylabel_lines = 1, .share = GP_SHARE_BOTH,
                         .xtick_chars = 3, .ytick_chars = 4, .key_place = place,
                         .entry_chars = entries, .nentries = n, .key_title_chars = -1};
    gp_layout_size(GP_PNG, npanels, &in.width, &in.height);
    return in;
}

static void check_panels(const gp_layout_t *l, int npanels)
{
    for (int k = 0; k < npanels; k++) {
        gp_rect_t p = l->panel[k];
        CHECK(p.l > 0 && p.r < 1 && p.b > 0 && p.t < 1 && p.l < p.r && p.b < p.t);
        CHECK_NEAR(p.r - p.l, l->panel[0].r - l->panel[0].l, 1e-9); /* all one size */
        CHECK_NEAR(p.t - p.b, l->panel[0].t - l->panel[0].b, 1e-9);
        for (int j = 0; j < k; j++) CHECK(apart(p, l->panel[j]));
    }
}

static void test_layout(void)
{
    int shorts[12], longs[9];
    for (int i = 0; i < 12; i++) shorts[i] = 8;
    for (int i = 0; i < 9; i++) longs[i] = 45;
    gp_layout_t l;

    /* 12 short entries: right of the plot, within 30% of the width. */
    gp_layout_in_t in = layout_in(1, shorts, 12, GP_KEY_AUTO);
    gp_layout_init(&l, &in);
    check_panels(&l, 1);
    CHECK(l.key_x >= l.panel[0].r && !l.key_inside);
    CHECK(l.panel[0].r - l.panel[0].l >= 0.6);
    gp_layout_free(&l);

    /* Long entries: below the plot, which keeps most of the width; the legend is under
     * the x label, and fits the figure. */
    in = layout_in(1, longs, 9, GP_KEY_AUTO);
    gp_layout_init(&l, &in);
    CHECK(l.panel[0].r - l.panel[0].l >= 0.75);
    CHECK(l.key_y < l.xlabel_y && l.xlabel_y < l.panel[0].b && l.key_x >= 0);
    CHECK_INT_EQ(l.entry_max_chars, 45); /* nothing shortened */
    gp_layout_free(&l);

    /* --legend outside with long entries: right, shortened to fit 45% of the width. */
    in = layout_in(1, longs, 9, GP_KEY_OUTSIDE);
    gp_layout_init(&l, &in);
    CHECK(l.key_x >= l.panel[0].r);
    CHECK(l.entry_max_chars < 45 && l.entry_max_chars >= 12);
    gp_layout_free(&l);

    /* Three panels in a 2 x 2 grid: the legend in the empty cell, clear of every panel. */
    in = layout_in(3, shorts, 3, GP_KEY_AUTO);
    gp_layout_init(&l, &in);
    CHECK_INT_EQ(l.cols, 2);
    CHECK_INT_EQ(l.rows, 2);
    check_panels(&l, 3);
    CHECK(l.key_x >= l.panel[2].r && l.key_y <= l.panel[1].b);
    CHECK(l.ylabel_x < l.panel[0].l && l.ylabel_y > l.panel[2].b && l.ylabel_y < l.panel[0].t);
    gp_layout_free(&l);

    /* Inside: over the top right panel. */
    in = layout_in(4, shorts, 3, GP_KEY_INSIDE);
    gp_layout_init(&l, &in);
    check_panels(&l, 4);
    CHECK(l.key_inside && l.key_x <= l.panel[1].r && l.key_y <= l.panel[1].t);
    gp_layout_free(&l);

    /* The smallest figure --size allows still gives panels of some size. */
    in = layout_in(5, longs, 9, GP_KEY_AUTO);
    in.width = in.height = 64;
    gp_layout_init(&l, &in);
    for (int k = 0; k < 5; k++)
        CHECK(l.panel[k].r > l.panel[k].l && l.panel[k].t > l.panel[k].b);
    gp_layout_free(&l);
}

static const double xs[] = {1, 2, 3, 4}, ys[] = {0.9, 0.3, 0.08, 0.05};

/* A script of n series in npanels panels (0: one plot); series i is in panel i % npanels,
 * and with dup its legend entry is entry i / npanels, first listed in panel 0. */
static char *script(int n, int npanels, bool logy, gp_share_t share, bool dup)
{
    static const char *const labels[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j",
                                         "k", "l", "m", "n", "o", "p"};
    static const char *const titles[] = {"P=1", "P=2", "P=3", "P=4"};
    gp_series_t s[16];
    for (int i = 0; i < n; i++) {
        int entry = dup && npanels ? i / npanels : i;
        s[i] = (gp_series_t){.label = labels[entry], .x = xs, .y = ys, .n = 4, .color = entry,
                             .panel = npanels ? i % npanels : 0,
                             .legend_dup = dup && npanels && i % npanels != 0};
    }
    gp_plot_t p = {.format = GP_SVG, .title = "T", .xlabel = "update",
                   .ylabel = "the y label", .logy = logy, .series = s, .nseries = n,
                   .panel_titles = titles, .npanels = npanels, .share = share};
    return gp_script_build(&p);
}

/* Every plot command follows the four margins of its plot. */
static void check_margins(const char *sc)
{
    int plots = 0;
    const char *from = sc;
    for (const char *p = strstr(sc, "\nplot "); p; p = strstr(p + 1, "\nplot ")) {
        size_t len = (size_t)(p - from);
        char *part = strndup(from, len);
        for (int m = 0; m < 4; m++) {
            static const char *const margins[] = {"set lmargin at screen ", "set rmargin at screen ",
                                                  "set bmargin at screen ", "set tmargin at screen "};
            CHECK_STR_CONTAINS(part, margins[m]);
        }
        free(part);
        from = p + 1;
        plots++;
    }
    CHECK(plots >= 2); /* the panels, then the layer of labels and legend */
}

static void test_script(void)
{
    /* One plot, log y: its margins, one legend, one y label, labelled log ticks. */
    char *sc = script(3, 0, true, GP_SHARE_BOTH, false);
    check_margins(sc);
    CHECK_INT_EQ(count(sc, "set key at screen"), 1);
    CHECK_INT_EQ(count(sc, "keyentry"), 3);
    CHECK_INT_EQ(count(sc, "'the y label'"), 1);
    CHECK_STR_CONTAINS(sc, "set logscale y\n");
    CHECK_STR_CONTAINS(sc, "set format y '%g'\n");
    const char *ytics = strstr(sc, "set ytics (");
    CHECK(ytics && strchr(ytics, ',') < strchr(ytics, ')')); /* at least two ticks */
    CHECK_INT_EQ(count(sc, "set format y ''"), 0);
    free(sc);

    /* Four panels, each legend entry in every panel: listed once; shared axes label only
     * the outer panels (x: the lower row; y: the left column). */
    sc = script(8, 4, false, GP_SHARE_BOTH, true);
    check_margins(sc);
    CHECK_INT_EQ(count(sc, "set key at screen"), 1);
    CHECK_INT_EQ(count(sc, "keyentry"), 2);
    CHECK_INT_EQ(count(sc, "'the y label'"), 1);
    CHECK_INT_EQ(count(sc, "'update'"), 1);
    CHECK_INT_EQ(count(sc, "set format x ''"), 2);
    CHECK_INT_EQ(count(sc, "set format y ''"), 2);
    CHECK_INT_EQ(count(sc, "set lmargin at screen"), 5);
    free(sc);

    /* Nothing shared: every panel labels both axes. */
    sc = script(8, 4, true, GP_SHARE_NONE, true);
    CHECK_INT_EQ(count(sc, "set format x ''"), 0);
    CHECK_INT_EQ(count(sc, "set format y ''"), 0);
    CHECK_INT_EQ(count(sc, "set format y '%g'"), 4);
    free(sc);

    /* No series: nothing drawn at all (gnuplot then writes no figure). */
    sc = script(0, 0, false, GP_SHARE_BOTH, false);
    CHECK_INT_EQ(count(sc, "plot"), 0);
    free(sc);
}

int main(void)
{
    test_axes();
    test_layout();
    test_script();
    return check_exit();
}
