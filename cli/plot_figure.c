/* The figure and the data of `sgdsim plot` (plot_figure.h). */
#include "cli/plot_figure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/number.h"

/* The text a series is ranked by: its value of key k, or with k < 0 its legend entry. */
static const char *rank_text(const plot_series_t *s, int k)
{
    return k < 0 ? s->label : s->values[k];
}

/* The rank of series s's text (rank_text) among the distinct texts of the series, in legend
 * order: series that share it share the rank.  By a key's value: --color-by, --dash-by,
 * --facet; by the legend entry: the colours of panels, so an entry repeated in several
 * panels is one colour. */
static int value_rank(const plot_data_t *d, int k, int s)
{
    int rank = 0;
    for (int i = 0; i < s; i++) {
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = strcmp(rank_text(&d->series[j], k), rank_text(&d->series[i], k)) != 0;
        if (!first) continue;
        if (strcmp(rank_text(&d->series[i], k), rank_text(&d->series[s], k)) == 0) return rank;
        rank++;
    }
    return rank;
}

/* The y axis's default label: the metric's name, what it is, and its unit. */
static const char *metric_label(const char *metric)
{
    static const char *const names[][2] = {
        {"val_error", "val_error: validation error (fraction misclassified)"},
        {"val_loss", "val_loss: validation loss (cross-entropy, nats)"},
        {"train_loss", "train_loss: training loss (cross-entropy, nats)"},
        {"lr", "lr: learning rate"},
        {"images_per_s", "images_per_s: samples per second of virtual time"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i][0], metric) == 0) return names[i][1];
    return metric;
}

static int series_color(const plot_figure_t *f, const plot_data_t *d, int s)
{
    if (f->color_key >= 0) return value_rank(d, f->color_key, s);
    return f->facet_key >= 0 ? value_rank(d, -1, s) : s;
}

/* The first series with series s's legend entry and colour (s itself when none is earlier). */
static int first_alike(const gp_series_t *series, int s)
{
    for (int j = 0; j < s; j++)
        if (series[j].color == series[s].color && strcmp(series[j].label, series[s].label) == 0)
            return j;
    return s;
}

/* Without a dash key: an entry's dash is the number of earlier entries drawn in its
 * palette colour, so no two entries look alike until colours and dashes both run out. */
static void assign_dashes(gp_series_t *series, int n)
{
    for (int s = 0; s < n; s++) {
        int first = first_alike(series, s);
        series[s].legend_dup = first < s;
        if (first < s) {
            series[s].dash = series[first].dash;
            continue;
        }
        series[s].dash = 0;
        for (int j = 0; j < s; j++)
            if (!series[j].legend_dup &&
                series[j].color % GP_NPALETTE == series[s].color % GP_NPALETTE)
                series[s].dash++;
    }
}

/* A label made of words KEY=VALUE, single spaces apart: its keys as "K1, K2, ..." and its
 * values as "V1, V2, ..." (malloc'ed, the caller frees both); the number of words, or 0
 * (nothing set) when a word is not KEY=VALUE with both sides non-empty. */
static int split_label(const char *label, char **keys, char **values)
{
    size_t size = 2 * strlen(label) + 1;
    char *k = sgd_xcalloc(size, 1), *v = sgd_xcalloc(size, 1);
    int words = 0;
    for (const char *w = label;; words++) {
        size_t len = strcspn(w, " ");
        const char *eq = memchr(w, '=', len);
        if (!eq || eq == w || eq == w + len - 1) {
            free(k), free(v);
            return 0;
        }
        if (words) strcat(k, ", "), strcat(v, ", ");
        strncat(k, w, (size_t)(eq - w));
        strncat(v, eq + 1, len - (size_t)(eq - w) - 1);
        if (!w[len]) break;
        w += len + 1;
    }
    *keys = k, *values = v;
    return words + 1;
}

/* Legend entries that all name the same two or more keys ("K1=V1 K2=V2") are drawn as
 * their values ("V1, V2") under a legend title naming the keys ("K1, K2"), as a table's
 * rows under its header, so the keys are not repeated in every entry; NULL (and no *title)
 * when the entries are anything else.  Both are malloc'ed. */
static char **factored_labels(const plot_data_t *d, char **title)
{
    *title = NULL;
    char **values = sgd_xcalloc((size_t)d->nseries + 1, sizeof *values);
    bool same = d->nseries > 0;
    for (int s = 0; s < d->nseries && same; s++) {
        char *keys = NULL;
        same = split_label(d->series[s].label, &keys, &values[s]) >= 2 &&
               (!*title || strcmp(keys, *title) == 0);
        if (same && !*title) *title = keys, keys = NULL;
        free(keys);
    }
    if (same) return values;
    for (int s = 0; s < d->nseries; s++) free(values[s]);
    free(values);
    free(*title);
    *title = NULL;
    return NULL;
}

/* A panel's title: KEY=VALUE (malloc'ed). */
static char *panel_title(const char *key, const char *value)
{
    size_t len = strlen(key) + strlen(value) + 2;
    char *t = sgd_xmalloc(len);
    snprintf(t, len, "%s=%s", key, value);
    return t;
}

/* The panels' titles, KEY=VALUE in legend order (*n of them; plot_figure_script frees). */
static char **panel_titles(const plot_figure_t *f, const plot_data_t *d, int *n)
{
    *n = 0;
    if (f->facet_key < 0) return NULL;
    char **titles = sgd_xcalloc((size_t)d->nseries + 1, sizeof *titles);
    for (int s = 0; s < d->nseries; s++) {
        if (value_rank(d, f->facet_key, s) < *n) continue;
        titles[(*n)++] = panel_title(f->facet_name, d->series[s].values[f->facet_key]);
    }
    return titles;
}

char *plot_figure_script(const plot_figure_t *f, const plot_data_t *d)
{
    gp_series_t *series = sgd_xcalloc((size_t)d->nseries + 1, sizeof *series);
    char *keys = NULL, **values = f->legend_title ? NULL : factored_labels(d, &keys);
    for (int i = 0; i < d->nseries; i++) {
        const plot_series_t *s = &d->series[i];
        series[i] = (gp_series_t){.label = values ? values[i] : s->label, .x = s->x, .y = s->y, .lo = s->lo,
                                  .hi = s->hi, .n = s->n, .color = series_color(f, d, i),
                                  .dash = f->dash_key < 0 ? 0 : value_rank(d, f->dash_key, i),
                                  .panel = f->facet_key < 0 ? 0 : value_rank(d, f->facet_key, i)};
    }
    if (f->dash_key < 0) assign_dashes(series, d->nseries);
    for (int i = 0; f->dash_key >= 0 && f->facet_key >= 0 && i < d->nseries; i++)
        series[i].legend_dup = first_alike(series, i) < i && series[first_alike(series, i)].dash ==
                               series[i].dash;
    int npanels;
    char **titles = panel_titles(f, d, &npanels);
    gp_plot_t p = {
        .format = f->format,
        .title = f->title ? f->title : d->scenario,
        .xlabel = f->xlabel ? f->xlabel : f->vtime ? "virtual time (s)" : "update",
        .ylabel = f->ylabel ? f->ylabel : metric_label(f->metric),
        .key_title = f->legend_title ? f->legend_title : keys,
        .logx = f->logx,
        .logy = f->logy,
        .key_place = f->key_place,
        .xrange = f->xrange,
        .yrange = f->yrange,
        .width = f->width,
        .height = f->height,
        .series = series,
        .nseries = d->nseries,
        .panel_titles = (const char *const *)titles,
        .npanels = npanels,
        .share = f->share,
    };
    char *script = gp_script_build(&p);
    for (int k = 0; k < npanels; k++) free(titles[k]);
    free(titles);
    free(series);
    for (int i = 0; values && i < d->nseries; i++) free(values[i]);
    free(values);
    free(keys);
    return script;
}

/* A CSV field: quoted (quotes doubled) when it holds a comma, quote or line break. */
static void put_csv_field(const char *s, FILE *out)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void plot_figure_write_csv(const plot_figure_t *f, const plot_data_t *d, bool band, FILE *out)
{
    bool panels = f->facet_key >= 0;
    char **panel = sgd_xcalloc((size_t)d->nseries + 1, sizeof *panel); /* each series' */
    for (int s = 0; panels && s < d->nseries; s++)
        panel[s] = panel_title(f->facet_name, d->series[s].values[f->facet_key]);
    fprintf(out, "%sseries,label,x,y%s\n", panels ? "panel," : "", band ? ",lo,hi" : "");
    for (int s = 0; s < d->nseries; s++) {
        const plot_series_t *ser = &d->series[s];
        for (int k = 0; k < ser->n; k++) {
            if (panels) {
                put_csv_field(panel[s], out);
                fputc(',', out);
            }
            fprintf(out, "%d,", s + 1);
            put_csv_field(ser->label, out);
            double v[4] = {ser->x[k], ser->y[k], band ? ser->lo[k] : 0, band ? ser->hi[k] : 0};
            for (int i = 0; i < (band ? 4 : 2); i++) {
                char buf[SGD_FMT_DOUBLE_MAX];
                fprintf(out, ",%s", sgd_fmt_double(buf, sizeof buf, v[i]));
            }
            fputc('\n', out);
        }
    }
    for (int s = 0; s < d->nseries; s++) free(panel[s]);
    free(panel);
}
