/* The figure and the data of `sgdsim plot` (plot_figure.h). */
#include "cli/plot_figure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

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
    for (int i = 0; i < d->nseries; i++) {
        const plot_series_t *s = &d->series[i];
        series[i] = (gp_series_t){.label = s->label, .x = s->x, .y = s->y, .lo = s->lo,
                                  .hi = s->hi, .n = s->n, .color = series_color(f, d, i),
                                  .dash = f->dash_key < 0 ? 0 : value_rank(d, f->dash_key, i),
                                  .panel = f->facet_key < 0 ? 0 : value_rank(d, f->facet_key, i)};
    }
    int npanels;
    char **titles = panel_titles(f, d, &npanels);
    gp_plot_t p = {
        .format = f->format,
        .title = f->title ? f->title : d->scenario,
        .xlabel = f->xlabel ? f->xlabel : f->vtime ? "virtual time (s)" : "update",
        .ylabel = f->ylabel ? f->ylabel : metric_label(f->metric),
        .key_title = f->legend_title,
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
    };
    char *script = gp_script_build(&p);
    for (int k = 0; k < npanels; k++) free(titles[k]);
    free(titles);
    free(series);
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
            fprintf(out, ",%.17g,%.17g", ser->x[k], ser->y[k]);
            if (band) fprintf(out, ",%.17g,%.17g", ser->lo[k], ser->hi[k]);
            fputc('\n', out);
        }
    }
    for (int s = 0; s < d->nseries; s++) free(panel[s]);
    free(panel);
}
