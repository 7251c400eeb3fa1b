/* The JSON data model of a study (web/model_json.h), written straight into a buffer: a
 * study of a million rows would be millions of cJSON nodes, and every string goes through
 * web/escape.h's script-safe JSON. */
#include "web/model_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sweep_axes.h"
#include "web/bands.h"
#include "web/decimate.h"
#include "web/escape.h"
#include "web/pack.h"

static void key(sgd_strbuf_t *b, const char *k, bool first)
{
    sgd_strbuf_printf(b, "%s\"%s\":", first ? "" : ",", k); /* keys are this file's literals */
}

static void str_field(sgd_strbuf_t *b, const char *k, const char *v)
{
    key(b, k, false);
    web_json_string(b, v);
}

static void num_field(sgd_strbuf_t *b, const char *k, double v)
{
    key(b, k, false);
    web_json_number(b, v);
}

static void int_field(sgd_strbuf_t *b, const char *k, bool has, int64_t v)
{
    key(b, k, false);
    if (has) sgd_strbuf_printf(b, "%lld", (long long)v);
    else sgd_strbuf_puts(b, "null");
}

static void bool_field(sgd_strbuf_t *b, const char *k, bool v)
{
    key(b, k, false);
    sgd_strbuf_puts(b, v ? "true" : "false");
}

static void string_array(sgd_strbuf_t *b, char *const *v, int n)
{
    sgd_strbuf_put(b, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i) sgd_strbuf_put(b, ",", 1);
        web_json_string(b, v[i]);
    }
    sgd_strbuf_put(b, "]", 1);
}

/* ---- series --------------------------------------------------------------------------- */

/* Digits of what is only drawn (a band), half the text of 17 (docs/performance.md): a step
 * of the 7th digit is 1e-7 of the value, so it stays under a pixel of a 1,000-pixel chart
 * unless the chart is zoomed into a span under 1e-4 of the values' magnitude. */
#define DRAWN_DIGITS 7

static void int_list(sgd_strbuf_t *b, const int64_t *v, const int *idx, int n)
{
    sgd_strbuf_put(b, "[", 1);
    for (int i = 0; i < n; i++) sgd_strbuf_printf(b, i ? ",%lld" : "%lld", (long long)v[idx[i]]);
    sgd_strbuf_put(b, "]", 1);
}

static void drawn_list(sgd_strbuf_t *b, const double *v, const int *idx, int n)
{
    sgd_strbuf_put(b, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i) sgd_strbuf_put(b, ",", 1);
        web_json_number_digits(b, v[idx[i]], DRAWN_DIGITS);
    }
    sgd_strbuf_put(b, "]", 1);
}

/* The runs' series: the decimated ones as drawn (single precision) into drawn, every one
 * whole and exact into exact. */
typedef struct packs {
    web_pack_t *drawn, *exact;
    int *idx, *all; /* room for the longest series; all[i] = i */
} packs_t;

/* ---- runs ----------------------------------------------------------------------------- */

static void pairs_json(sgd_strbuf_t *b, const ana_kv_t *kv, int n)
{
    sgd_strbuf_put(b, "[", 1);
    for (int i = 0; i < n; i++) {
        sgd_strbuf_puts(b, i ? ",[" : "[");
        web_json_string(b, kv[i].key);
        sgd_strbuf_put(b, ",", 1);
        web_json_string(b, kv[i].value);
        sgd_strbuf_put(b, "]", 1);
    }
    sgd_strbuf_put(b, "]", 1);
}

static void bins_json(sgd_strbuf_t *b, const web_bin_t *bin, int n)
{
    sgd_strbuf_put(b, "[", 1);
    for (int i = 0; i < n; i++)
        sgd_strbuf_printf(b, "%s[%lld,%lld]", i ? "," : "", (long long)bin[i].at,
                       (long long)bin[i].count);
    sgd_strbuf_put(b, "]", 1);
}

static void traffic_json(sgd_strbuf_t *b, const web_run_t *r)
{
    sgd_strbuf_put(b, "[", 1);
    for (int i = 0; i < r->ntraffic; i++) {
        const web_traffic_t *t = &r->traffic[i];
        sgd_strbuf_puts(b, i ? ",[" : "[");
        web_json_string(b, t->kind);
        sgd_strbuf_printf(b, ",%lld,%lld,%lld,%lld]", (long long)t->sent_msgs,
                       (long long)t->sent_bytes, (long long)t->skipped_msgs,
                       (long long)t->skipped_bytes);
    }
    sgd_strbuf_put(b, "]", 1);
}

static void run_text_json(sgd_strbuf_t *b, const web_run_t *r)
{
    static const char *const names[] = {"command_line", "status_detail", "started_at",
                                        "git_rev", "host", "digest"};
    key(b, "text", false);
    sgd_strbuf_put(b, "{", 1);
    for (int k = 0; k < 6; k++) {
        key(b, names[k], k == 0);
        web_json_string(b, r->text[k]);
    }
    sgd_strbuf_put(b, "}", 1);
}

/* "final", one value per metric of the study, into b; the run's series into the packs. */
static void run_series(sgd_strbuf_t *b, const web_study_t *s, int ri, int columns, packs_t *pk)
{
    const web_run_t *r = &s->run[ri];
    key(b, "final", false);
    sgd_strbuf_put(b, "[", 1);
    for (int m = 0; m < s->nmetrics; m++) {
        const rdb_series_t *sr = web_run_series(r, s->metric[m]);
        if (m) sgd_strbuf_put(b, ",", 1);
        if (sr && sr->n && !sr->kind[sr->n - 1]) web_json_number(b, sr->value[sr->n - 1]);
        else sgd_strbuf_puts(b, "null");
    }
    sgd_strbuf_put(b, "]", 1);
    for (int m = 0; m < s->nmetrics; m++) {
        const rdb_series_t *sr = web_run_series(r, s->metric[m]);
        if (!sr) continue;
        int n = web_decimate(sr->update, sr->value, sr->kind, sr->n, columns, pk->idx);
        if (n < sr->n) web_pack_add(pk->drawn, ri, m, sr, r->clock, pk->idx, n, true);
        web_pack_add(pk->exact, ri, m, sr, r->clock, pk->all, sr->n, false);
    }
}

static void run_json(sgd_strbuf_t *b, const web_study_t *s, int ri, int columns, packs_t *pk)
{
    const web_run_t *r = &s->run[ri];
    sgd_strbuf_printf(b, "{\"db\":%d,\"id\":%lld", r->db, (long long)r->id);
    str_field(b, "scenario", r->scenario);
    str_field(b, "algorithm", r->algorithm);
    str_field(b, "status", r->status);
    int_field(b, "seed", true, r->seed);
    int_field(b, "workers", r->has_workers, r->workers);
    int_field(b, "updates", r->has_updates, r->updates);
    num_field(b, "vtime_s", r->clock && r->has_vtime_ns ? (double)r->vtime_ns / 1e9 : NAN);
    bool_field(b, "clock", r->clock);
    num_field(b, "wall_s", r->wall_s);
    str_field(b, "run_key", r->run_key);
    str_field(b, "backend", r->backend);
    str_field(b, "blas_core", r->blas_core);
    int_field(b, "group", true, r->group);
    int_field(b, "last_update", r->has_last_update, r->last_update);
    int_field(b, "stop_updates", r->has_stop_updates, r->stop_updates);
    key(b, "config", false);
    pairs_json(b, r->a.cfg.kv, r->a.cfg.n);
    key(b, "tags", false);
    pairs_json(b, r->tag, r->ntags);
    run_text_json(b, r);
    key(b, "staleness", false);
    bins_json(b, r->staleness, r->nstaleness);
    key(b, "versionAge", false);
    bins_json(b, r->version_age, r->nversion_age);
    key(b, "traffic", false);
    traffic_json(b, r);
    run_series(b, s, ri, columns, pk);
    sgd_strbuf_put(b, "}", 1);
}

/* ---- groups --------------------------------------------------------------------------- */

static void summary_json(sgd_strbuf_t *b, const ana_summary_t *x)
{
    sgd_strbuf_printf(b, "{\"n\":%d", x->n);
    num_field(b, "mean", x->mean);
    num_field(b, "sd", x->sd);
    num_field(b, "ci_low", x->ci_low);
    num_field(b, "ci_high", x->ci_high);
    sgd_strbuf_put(b, "}", 1);
}

/* The band at idx[0..n): mean -+ sd at each kept update. */
static void band_json(sgd_strbuf_t *b, const web_band_t *d, bool clock, const int *idx, int n)
{
    sgd_strbuf_printf(b, "{\"n\":%d,\"dec\":%s", d->n, n < d->n ? "true" : "false");
    key(b, "u", false);
    int_list(b, d->update, idx, n);
    if (clock) {
        key(b, "t", false);
        drawn_list(b, d->vtime_s, idx, n);
    }
    static const char *const part[] = {"mean", "lo", "hi"};
    for (int p = 0; p < 3; p++) {
        key(b, part[p], false);
        sgd_strbuf_put(b, "[", 1);
        for (int i = 0; i < n; i++) {
            const ana_summary_t *x = &d->sum[idx[i]];
            double sd = x->n > 1 ? x->sd : 0;
            if (i) sgd_strbuf_put(b, ",", 1);
            web_json_number_digits(b, p == 0 ? x->mean : p == 1 ? x->mean - sd : x->mean + sd,
                                   DRAWN_DIGITS);
        }
        sgd_strbuf_put(b, "]", 1);
    }
    sgd_strbuf_puts(b, ",\"k\":[");
    for (int i = 0; i < n; i++) sgd_strbuf_printf(b, i ? ",%d" : "%d", d->sum[idx[i]].n);
    sgd_strbuf_puts(b, "]}");
}

static const web_band_t *band_of(const web_group_t *g, const char *name)
{
    for (int i = 0; i < g->nbands; i++)
        if (strcmp(g->band[i].name, name) == 0) return &g->band[i];
    return NULL;
}

static void group_json(sgd_strbuf_t *b, const web_study_t *s, const web_group_t *g, int color,
                       int columns, int *idx)
{
    sgd_strbuf_printf(b, "{\"db\":%d,\"color\":%d", g->db, color);
    str_field(b, "label", g->label);
    sgd_strbuf_puts(b, ",\"runs\":[");
    for (int i = 0; i < g->n; i++) sgd_strbuf_printf(b, i ? ",%d" : "%d", g->run[i]);
    sgd_strbuf_puts(b, "],\"seeds\":[");
    for (int i = 0; i < g->n; i++)
        sgd_strbuf_printf(b, i ? ",%lld" : "%lld", (long long)s->run[g->run[i]].seed);
    sgd_strbuf_put(b, "]", 1);
    str_field(b, "seedsText", g->seeds);
    bool_field(b, "clock", g->clock);
    for (int part = 0; part < 2; part++) {
        key(b, part ? "bands" : "final", false);
        sgd_strbuf_put(b, "[", 1);
        for (int m = 0; m < s->nmetrics; m++) {
            const web_band_t *d = band_of(g, s->metric[m]);
            if (m) sgd_strbuf_put(b, ",", 1);
            if (!d) sgd_strbuf_puts(b, "null");
            else if (!part) summary_json(b, &d->final);
            else {
                double *mean = sgd_xcalloc((size_t)d->n + 1, sizeof *mean);
                for (int i = 0; i < d->n; i++) mean[i] = d->sum[i].mean;
                int n = web_decimate(d->update, mean, NULL, d->n, columns, idx);
                free(mean);
                band_json(b, d, g->clock, idx, n);
            }
        }
        sgd_strbuf_put(b, "]", 1);
    }
    sgd_strbuf_put(b, "}", 1);
}

/* ---- the document --------------------------------------------------------------------- */

static void verdicts_json(sgd_strbuf_t *b, const web_verdicts_t *v)
{
    key(b, "verdicts", false);
    if (!v->rule) {
        sgd_strbuf_puts(b, "null");
        return;
    }
    sgd_strbuf_put(b, "{", 1);
    key(b, "rule", true);
    web_json_string(b, v->rule);
    sgd_strbuf_printf(b, ",\"nnew\":%d,\"exit\":%d,\"rows\":[", v->nnew, v->exit_code);
    for (int i = 0; i < v->n; i++) {
        const web_verdict_row_t *r = &v->row[i];
        const char *cells[] = {r->scenario, r->configuration, r->seeds, r->metric,
                               ana_verdict_name[r->verdict], r->detail};
        sgd_strbuf_puts(b, i ? ",[" : "[");
        for (int c = 0; c < 6; c++) {
            web_json_string(b, cells[c]);
            sgd_strbuf_put(b, ",", 1);
        }
        sgd_strbuf_puts(b, r->fails ? "true]" : "false]");
    }
    sgd_strbuf_puts(b, "]}");
}

static void dbs_json(sgd_strbuf_t *b, const web_study_t *s)
{
    key(b, "dbs", false);
    sgd_strbuf_put(b, "[", 1);
    for (int i = 0; i < s->ndbs; i++) {
        sgd_strbuf_puts(b, i ? ",{" : "{");
        key(b, "path", true);
        web_json_string(b, s->db[i].path);
        str_field(b, "label", s->db[i].label);
        str_field(b, "role", s->ndbs == 2 ? (i ? "candidate" : "baseline") : NULL);
        sgd_strbuf_put(b, "}", 1);
    }
    sgd_strbuf_put(b, "]", 1);
}

static void axes_json(sgd_strbuf_t *b, const web_study_t *s)
{
    key(b, "axes", false);
    /* one run per configuration, as for the labels (web/study.c): the same axes */
    const ana_run_t **runs = sgd_xcalloc((size_t)s->ngroups + 1, sizeof *runs);
    for (int g = 0; g < s->ngroups; g++) runs[g] = &s->run[s->group[g].run[0]].a;
    int n = 0;
    const char **axes = s->ngroups ? ana_sweep_axes(runs, s->ngroups, &n) : NULL;
    string_array(b, (char *const *)axes, n);
    free(axes);
    free(runs);
}

void web_model_json(const web_study_t *s, const web_verdicts_t *v, const web_model_opts_t *o,
                    sgd_strbuf_t *data, sgd_strbuf_t *series, sgd_strbuf_t *exact)
{
    int longest = 1;
    for (int i = 0; i < s->nruns; i++)
        for (int m = 0; m < s->run[i].nmetrics; m++)
            if (s->run[i].metric[m].s.n > longest) longest = s->run[i].metric[m].s.n;
    for (int g = 0; g < s->ngroups; g++)
        for (int m = 0; m < s->group[g].nbands; m++)
            if (s->group[g].band[m].n > longest) longest = s->group[g].band[m].n;
    packs_t pk = {.drawn = web_pack_new(), .exact = web_pack_new(),
                  .idx = sgd_xcalloc((size_t)longest + 1, sizeof *pk.idx),
                  .all = sgd_xcalloc((size_t)longest + 1, sizeof *pk.all)};
    for (int i = 0; i < longest; i++) pk.all[i] = i;
    sgd_strbuf_puts(data, "{\"format\":1");
    str_field(data, "generator", o->generator);
    bool_field(data, "live", o->live);
    sgd_strbuf_printf(data, ",\"columns\":%d", o->columns);
    dbs_json(data, s);
    key(data, "metrics", false);
    string_array(data, s->metric, s->nmetrics);
    key(data, "labelKeys", false);
    string_array(data, s->label_key, s->nlabel_keys);
    axes_json(data, s);
    sgd_strbuf_puts(data, ",\"runs\":[");
    for (int i = 0; i < s->nruns; i++) {
        if (i) sgd_strbuf_put(data, ",", 1);
        run_json(data, s, i, o->columns, &pk);
    }
    sgd_strbuf_puts(data, "],\"groups\":[");
    for (int g = 0; g < s->ngroups; g++) {
        if (g) sgd_strbuf_put(data, ",", 1);
        group_json(data, s, &s->group[g], v->color[g], o->columns, pk.idx);
    }
    sgd_strbuf_put(data, "]", 1);
    verdicts_json(data, v);
    sgd_strbuf_put(data, "}", 1);
    web_pack_finish(pk.drawn, series);
    web_pack_finish(pk.exact, exact);
    free(pk.idx);
    free(pk.all);
}
