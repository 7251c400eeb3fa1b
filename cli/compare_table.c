/* The tables of `sgdsim compare` (compare_table.h). */
#include "cli/compare_table.h"

#include <math.h>
#include <stdio.h>

void compare_table_init(compare_table_t *c)
{
    static const char *const text[] = {"scenario", "configuration", "seeds", "metric",
                                       "verdict", "detail"};
    static const char *const data[] = {"scenario", "configuration", "seeds", "metric",
                                       "verdict", "base_n", "base_mean", "base_sd", "cand_n",
                                       "cand_mean", "cand_sd", "rel_diff", "p", "differs"};
    *c = (compare_table_t){0};
    cli_table_init(&c->text, 6, text);
    cli_table_init(&c->data, 14, data);
}

void compare_table_free(compare_table_t *c)
{
    cli_table_free(&c->text);
    cli_table_free(&c->data);
}

static void data_row(compare_table_t *c, const clabel_t *l, const char *what, ana_verdict_t v,
                     const row_data_t *d)
{
    cli_table_t *t = &c->data;
    int r = cli_table_row(t);
    cli_table_text(t, r, 0, l->scenario);
    cli_table_text(t, r, 1, l->config);
    cli_table_text(t, r, 2, l->seeds);
    cli_table_text(t, r, 3, what);
    cli_table_text(t, r, 4, ana_verdict_name[v]);
    if (d->j) {
        cli_table_int(t, r, 5, d->j->base.n);
        cli_table_real(t, r, 6, d->j->base.mean);
        cli_table_real(t, r, 7, d->j->base.n > 1 ? d->j->base.sd : NAN);
        cli_table_int(t, r, 8, d->j->cand.n);
        cli_table_real(t, r, 9, d->j->cand.mean);
        cli_table_real(t, r, 10, d->j->cand.n > 1 ? d->j->cand.sd : NAN);
        cli_table_real(t, r, 11, d->j->rel_diff);
        cli_table_real(t, r, 12, d->j->p);
    }
    cli_table_text(t, r, 13, d->differs);
}

void compare_table_add(compare_table_t *c, const clabel_t *l, const char *what,
                       ana_verdict_t v, const char *detail, const row_data_t *d)
{
    int r = cli_table_row(&c->text);
    cli_table_text(&c->text, r, 0, l->scenario);
    cli_table_text(&c->text, r, 1, l->config);
    cli_table_text(&c->text, r, 2, l->seeds);
    cli_table_text(&c->text, r, 3, what);
    cli_table_text(&c->text, r, 4, ana_verdict_name[v]);
    cli_table_text(&c->text, r, 5, detail);
    data_row(c, l, what, v, d);
    c->count[v]++;
}

/* "0.3565 ± 0.012 (n=3)" or "0.3565 (n=1)". */
static void summary_text(const ana_summary_t *s, char *buf, size_t size)
{
    if (s->n > 1) snprintf(buf, size, "%.6g \u00b1 %.2g (n=%d)", s->mean, s->sd, s->n);
    else if (s->n == 1) snprintf(buf, size, "%.6g (n=1)", s->mean);
    else snprintf(buf, size, "no finite value");
}

void compare_judgement_text(const ana_judgement_t *j, char *buf, size_t size)
{
    char b[80], k[80];
    summary_text(&j->base, b, sizeof b);
    if (j->verdict == ANA_SAME) {
        snprintf(buf, size, "%s, every run bit-equal", b);
        return;
    }
    summary_text(&j->cand, k, sizeof k);
    size_t len = (size_t)snprintf(buf, size, "%s -> %s", b, k);
    if (len < size && isfinite(j->rel_diff))
        len += (size_t)snprintf(buf + len, size - len, ", %+.3g%%", 100 * j->rel_diff);
    if (len < size && !isnan(j->p))
        len += (size_t)snprintf(buf + len, size - len, ", Welch p=%.3g", j->p);
    if (len < size && j->verdict == ANA_INCONCLUSIVE)
        snprintf(buf + len, size - len, "; one seed on a side: no spread to judge by");
}
