/* What `sgdsim compare` prints (compare_table.h). */
#include "cli/compare_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "common/json.h"
#include "common/strbuf.h"

/* ---- a row's configuration ------------------------------------------------------------ */

/* The baseline group of row r, and its first run (index into the baseline's runs). */
static const ana_group_t *base_group(const compare_view_t *v, const ana_ab_row_t *r)
{
    const ana_pairing_t *p = &v->ab->pairs;
    return &p->base.group[p->pair[r->pair].base];
}

static const ana_group_t *cand_group(const compare_view_t *v, const ana_ab_row_t *r)
{
    const ana_pairing_t *p = &v->ab->pairs;
    const ana_pair_t *pr = &p->pair[r->pair];
    return pr->kind == ANA_PAIRED ? &p->cand.group[pr->cand] : NULL;
}

static char *seeds_text(const compare_view_t *v, const ana_ab_row_t *r)
{
    sgd_strbuf_t b = {0};
    ana_ab_seeds_text(v->ab, v->base->ab, v->cand->ab, r->pair, &b);
    return sgd_strbuf_take(&b);
}

/* ---- text and CSV --------------------------------------------------------------------- */

static const char *const text_head[] = {"scenario", "configuration", "seeds", "metric",
                                        "verdict", "detail"};
static const char *const csv_head[] = {
    "scenario", "configuration", "seeds", "metric", "verdict", "counts", "test", "base_n",
    "base_mean", "base_sd", "cand_n", "cand_mean", "cand_sd", "effect", "rel_effect",
    "ci_level", "ci_low", "ci_high", "p", "p_adjusted", "p_equivalence",
    "p_equivalence_adjusted", "margin", "seeds_needed", "detail"};
#define NCSV ((int)(sizeof csv_head / sizeof csv_head[0]))

static void label_cells(const compare_view_t *v, const ana_ab_row_t *r, cli_table_t *t, int row)
{
    int first = base_group(v, r)->idx[0];
    char config[160];
    side_label(v->base, first, config, sizeof config);
    char *seeds = seeds_text(v, r);
    cli_table_text(t, row, 0, v->base->run[first].scenario);
    cli_table_text(t, row, 1, config);
    cli_table_text(t, row, 2, seeds);
    cli_table_text(t, row, 3, r->what);
    cli_table_text(t, row, 4, ana_verdict_name[r->verdict]);
    free(seeds);
}

static void stat_cells(const ana_ab_row_t *r, cli_table_t *t, int row)
{
    const ana_judgement_t *j = &r->j;
    bool tested = j->effect.kind != ANA_TEST_NONE;
    cli_table_text(t, row, 6, tested ? ana_test_name[j->effect.kind] : NULL);
    cli_table_int(t, row, 7, j->base.n);
    cli_table_real(t, row, 8, j->base.mean);
    cli_table_real(t, row, 9, j->base.n > 1 ? j->base.sd : NAN);
    cli_table_int(t, row, 10, j->cand.n);
    cli_table_real(t, row, 11, j->cand.mean);
    cli_table_real(t, row, 12, j->cand.n > 1 ? j->cand.sd : NAN);
    cli_table_real(t, row, 13, tested ? j->effect.effect : j->cand.mean - j->base.mean);
    cli_table_real(t, row, 14, tested && j->effect.base_mean != 0
                                   ? j->effect.effect / fabs(j->effect.base_mean)
                                   : j->rel_effect);
    cli_table_real(t, row, 15, 1 - j->level);
    cli_table_real(t, row, 16, j->ci_low);
    cli_table_real(t, row, 17, j->ci_high);
    cli_table_real(t, row, 18, j->p);
    cli_table_real(t, row, 19, j->p_adj);
    cli_table_real(t, row, 20, j->p_eq);
    cli_table_real(t, row, 21, j->p_eq_adj);
    cli_table_real(t, row, 22, j->margin);
    if (j->verdict == ANA_INCONCLUSIVE && j->seeds_needed > 0)
        cli_table_int(t, row, 23, j->seeds_needed);
}

void compare_table_print(const compare_view_t *v, cli_format_t fmt, FILE *f)
{
    cli_table_t t;
    bool text = fmt == CLI_FMT_TEXT;
    cli_table_init(&t, text ? 6 : NCSV, text ? text_head : csv_head);
    for (int i = 0; i < v->ab->nrows; i++) {
        const ana_ab_row_t *r = &v->ab->row[i];
        int row = cli_table_row(&t);
        label_cells(v, r, &t, row);
        sgd_strbuf_t d = {0};
        ana_ab_detail(v->ab, r, &d);
        if (text) {
            cli_table_text(&t, row, 5, d.p ? d.p : "");
        } else {
            cli_table_literal(&t, row, 5, r->counts ? "true" : "false");
            if (r->judged) stat_cells(r, &t, row);
            cli_table_text(&t, row, NCSV - 1, d.p ? d.p : "");
        }
        sgd_strbuf_free(&d);
    }
    cli_table_print(&t, fmt, f);
    cli_table_free(&t);
}

/* ---- JSON ----------------------------------------------------------------------------- */

static cJSON *number_or_null(double x)
{
    return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

/* A flattened configuration as an object of keys and their JSON values, without the seed
 * and the keys that change no result. */
static cJSON *config_json(const ana_config_t *c)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < c->n; i++) {
        const char *k = c->kv[i].key;
        if (strcmp(k, "seed") == 0 || !ana_key_changes_results(k)) continue;
        cJSON *val = cJSON_Parse(c->kv[i].json);
        cJSON_AddItemToObject(o, k, val ? val : cJSON_CreateNull());
    }
    return o;
}

/* The value of key in c as a cJSON node (null when c has none). */
static cJSON *value_of(const ana_config_t *c, const char *key)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->kv[i].key, key) == 0) {
            cJSON *v = cJSON_Parse(c->kv[i].json);
            return v ? v : cJSON_CreateNull();
        }
    return cJSON_CreateNull();
}

/* The keys whose values differ between the paired configurations: {key: [base, cand]}
 * (null for a key one of them lacks). */
static cJSON *differs_json(const ana_config_t *b, const ana_config_t *c)
{
    cJSON *o = cJSON_CreateObject();
    for (int pass = 0; pass < 2; pass++) {
        const ana_config_t *x = pass ? c : b, *y = pass ? b : c;
        for (int i = 0; i < x->n; i++) {
            const char *k = x->kv[i].key, *vy = ana_config_get(y, k);
            bool absent = strcmp(vy, "(absent)") == 0;
            if (strcmp(k, "seed") == 0 || !ana_key_changes_results(k) ||
                (pass ? !absent : strcmp(x->kv[i].value, vy) == 0))
                continue;
            cJSON *pair = cJSON_CreateArray();
            cJSON_AddItemToArray(pair, value_of(b, k));
            cJSON_AddItemToArray(pair, value_of(c, k));
            cJSON_AddItemToObject(o, k, pair);
        }
    }
    return o;
}

/* One side of a row: its seeds, runs and (judged rows) values, as arrays. */
static cJSON *side_json(const side_t *s, const ana_group_t *g, const ana_ab_values_t *vals,
                        const ana_summary_t *sum)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *seeds = cJSON_AddArrayToObject(o, "seeds"), *runs = cJSON_AddArrayToObject(o, "runs");
    for (int i = 0; g && i < g->n; i++) {
        cJSON_AddItemToArray(seeds, cJSON_CreateNumber((double)s->ab[g->idx[i]].seed));
        cJSON_AddItemToArray(runs, cJSON_CreateNumber((double)s->ab[g->idx[i]].id));
    }
    if (g && g->n) cJSON_AddStringToObject(o, "build", ana_build_name(s->ab[g->idx[0]].build));
    if (!sum) return o;
    cJSON *value_seeds = cJSON_AddArrayToObject(o, "value_seeds");
    cJSON *values = cJSON_AddArrayToObject(o, "values");
    for (int i = 0; i < vals->n; i++) {
        cJSON_AddItemToArray(value_seeds, cJSON_CreateNumber((double)vals->seed[i]));
        cJSON_AddItemToArray(values, number_or_null(vals->value[i]));
    }
    cJSON_AddNumberToObject(o, "n", sum->n);
    cJSON_AddItemToObject(o, "mean", number_or_null(sum->mean));
    cJSON_AddItemToObject(o, "sd", number_or_null(sum->n > 1 ? sum->sd : NAN));
    return o;
}

static cJSON *interval_json(double lo, double hi)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, number_or_null(lo));
    cJSON_AddItemToArray(a, number_or_null(hi));
    return a;
}

static void add_statistics(cJSON *o, const ana_ab_t *ab, const ana_judgement_t *j)
{
    bool tested = j->effect.kind != ANA_TEST_NONE;
    cJSON_AddItemToObject(o, "test", tested ? cJSON_CreateString(ana_test_name[j->effect.kind])
                                            : cJSON_CreateNull());
    cJSON_AddBoolToObject(o, "in_family", j->in_family);
    cJSON_AddItemToObject(o, "effect", number_or_null(tested ? j->effect.effect : NAN));
    double mb = j->effect.base_mean;
    cJSON_AddItemToObject(o, "rel_effect",
                          number_or_null(tested && mb != 0 ? j->effect.effect / fabs(mb) : NAN));
    cJSON_AddItemToObject(o, "interval", interval_json(j->ci_low, j->ci_high));
    cJSON_AddItemToObject(o, "interval_level", number_or_null(1 - j->level));
    cJSON_AddItemToObject(o, "equivalence_interval", interval_json(j->eq_low, j->eq_high));
    cJSON_AddItemToObject(o, "equivalence_level", number_or_null(1 - 2 * j->level_eq));
    cJSON_AddItemToObject(o, "margin", number_or_null(j->margin));
    cJSON_AddItemToObject(o, "p", number_or_null(j->p));
    cJSON_AddItemToObject(o, "p_adjusted", number_or_null(j->p_adj));
    cJSON_AddItemToObject(o, "p_equivalence", number_or_null(j->p_eq));
    cJSON_AddItemToObject(o, "p_equivalence_adjusted", number_or_null(j->p_eq_adj));
    cJSON_AddNumberToObject(o, "seeds_left_out", j->left_out);
    bool open = j->verdict == ANA_INCONCLUSIVE && j->seeds_needed > 0;
    cJSON_AddItemToObject(o, "seeds_needed",
                          open && j->seeds_needed <= ab->opts.rule.seeds_cap
                              ? cJSON_CreateNumber(j->seeds_needed) : cJSON_CreateNull());
}

static cJSON *row_json(const compare_view_t *v, const ana_ab_row_t *r)
{
    const ana_pairing_t *p = &v->ab->pairs;
    const ana_pair_t *pr = &p->pair[r->pair];
    const ana_group_t *gb = base_group(v, r), *gc = cand_group(v, r);
    cJSON *o = cJSON_CreateObject();
    char label[160];
    side_label(v->base, gb->idx[0], label, sizeof label);
    cJSON_AddStringToObject(o, "scenario", v->base->run[gb->idx[0]].scenario);
    cJSON_AddStringToObject(o, "label", label);
    cJSON_AddItemToObject(o, "configuration", config_json(&p->base.flat[pr->base]));
    if (gc) cJSON_AddItemToObject(o, "candidate_differs",
                                  differs_json(&p->base.flat[pr->base], &p->cand.flat[pr->cand]));
    cJSON_AddStringToObject(o, "metric", r->what);
    cJSON_AddStringToObject(o, "verdict", ana_verdict_name[r->verdict]);
    cJSON_AddBoolToObject(o, "counts", r->counts);
    cJSON_AddBoolToObject(o, "fails", r->counts && ana_verdict_fails(r->verdict));
    cJSON_AddItemToObject(o, "baseline", side_json(v->base, gb, &r->base, r->judged ? &r->j.base
                                                                                     : NULL));
    cJSON_AddItemToObject(o, "candidate", side_json(v->cand, gc, &r->cand,
                                                    r->judged ? &r->j.cand : NULL));
    if (r->judged) add_statistics(o, v->ab, &r->j);
    if (pr->differs) cJSON_AddStringToObject(o, "nearest_differs", pr->differs);
    sgd_strbuf_t d = {0};
    ana_ab_detail(v->ab, r, &d);
    cJSON_AddStringToObject(o, "detail", d.p ? d.p : "");
    sgd_strbuf_free(&d);
    return o;
}

static cJSON *rule_json(const compare_view_t *v)
{
    const ana_ab_t *ab = v->ab;
    char how[512];
    ana_match_describe(&ab->opts.match, how, sizeof how);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "match", how);
    cJSON_AddNumberToObject(o, "last", ab->opts.last);
    cJSON_AddNumberToObject(o, "alpha", ab->opts.rule.alpha);
    cJSON_AddStringToObject(o, "correction", ana_correction_name[ab->opts.rule.correction]);
    cJSON_AddNumberToObject(o, "family", ab->family);
    cJSON_AddNumberToObject(o, "min_effect", ab->opts.rule.min_effect);
    cJSON_AddNumberToObject(o, "rtol", ab->opts.rule.rtol);
    cJSON_AddBoolToObject(o, "pool_builds", ab->opts.match.pool_builds);
    return o;
}

void compare_json_print(const compare_view_t *v, FILE *f)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "baseline", v->base->path);
    cJSON_AddStringToObject(root, "candidate", v->cand->path);
    cJSON_AddItemToObject(root, "rule", rule_json(v));
    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    for (int i = 0; i < v->ab->nrows; i++) cJSON_AddItemToArray(rows, row_json(v, &v->ab->row[i]));
    cJSON *counts = cJSON_AddObjectToObject(root, "counts");
    for (int i = 0; i < ANA_NVERDICTS; i++)
        cJSON_AddNumberToObject(counts, ana_verdict_name[i], v->ab->count[i]);
    cJSON_AddNumberToObject(root, "only_in_candidate", v->ab->pairs.nnew);
    cJSON_AddNumberToObject(root, "exit", v->exit_code);
    char *text = sgd_json_print(root, false);
    SGD_ASSERT(text);
    fputs(text, f);
    fputc('\n', f);
    free(text);
    cJSON_Delete(root);
}
