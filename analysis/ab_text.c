/* The prose of an A/B comparison (ab.h): what each row's statistics say in one line, the
 * seeds of a pair, and the summary.  One text for compare, report --html and serve. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analysis/ab.h"

/* "0.3565 ± 0.012 (n=3)", "0.3565 (n=1)" or "no finite value". */
static void summary_text(sgd_strbuf_t *b, const ana_summary_t *s)
{
    if (s->n > 1) sgd_strbuf_printf(b, "%.6g \u00b1 %.2g (n=%d)", s->mean, s->sd, s->n);
    else if (s->n == 1) sgd_strbuf_printf(b, "%.6g (n=1)", s->mean);
    else sgd_strbuf_puts(b, "no finite value");
}

/* x as a share of |base| ("+1.2%"), or as a number when that share is not finite (a base
 * of 0); `sign`: with its sign. */
static void share_text(sgd_strbuf_t *b, double x, double base, bool sign)
{
    double share = 100 * (x / fabs(base));
    if (isfinite(share)) sgd_strbuf_printf(b, sign ? "%+.3g%%" : "%.3g%%", share);
    else sgd_strbuf_printf(b, sign ? "%+.4g" : "%.4g", x);
}

static void interval_text(sgd_strbuf_t *b, double lo, double hi, double base)
{
    sgd_strbuf_puts(b, "[");
    share_text(b, lo, base, true);
    sgd_strbuf_puts(b, ", ");
    share_text(b, hi, base, true);
    sgd_strbuf_puts(b, "]");
}

/* ": +0.0035 (+1%) [-0.6%, +2.6%] (98.3% interval; paired t p=0.04, holm p=0.31),
 * margin ±5%": the effect, absolute and relative, and its interval, relative. */
static void test_text(const ana_ab_t *ab, const ana_judgement_t *j, sgd_strbuf_t *b)
{
    double mb = j->effect.base_mean;
    const char *corr = j->in_family ? ana_correction_name[ab->opts.rule.correction] : "raw";
    double share = 100 * (j->effect.effect / fabs(mb)); /* absolute, and relative */
    sgd_strbuf_printf(b, ": %+.4g", j->effect.effect);
    if (isfinite(share)) sgd_strbuf_printf(b, " (%+.3g%%)", share);
    sgd_strbuf_puts(b, " ");
    if (j->verdict == ANA_EQUIVALENT && !j->kernel_only) {
        interval_text(b, j->eq_low, j->eq_high, mb);
        sgd_strbuf_printf(b, " (%.3g%% interval) inside \u00b1", 100 * (1 - 2 * j->level_eq));
        share_text(b, j->margin, mb, false);
        sgd_strbuf_printf(b, " (TOST p=%.2g, %s p=%.2g)", j->p_eq, corr, j->p_eq_adj);
    } else {
        interval_text(b, j->ci_low, j->ci_high, mb);
        sgd_strbuf_printf(b, " (%.3g%% interval; %s%s p=%.2g, %s p=%.2g), margin \u00b1",
                          100 * (1 - j->level), ana_test_name[j->effect.kind],
                          j->effect.kind == ANA_TEST_WELCH ? " (seeds differ)" : "", j->p,
                          corr, j->p_adj);
        share_text(b, j->margin, mb, false);
    }
    if (j->left_out)
        sgd_strbuf_printf(b, "; %d seed%s run by one side only left out", j->left_out,
                          j->left_out == 1 ? "" : "s");
    if (j->verdict != ANA_INCONCLUSIVE) return;
    if (j->seeds_needed > ab->opts.rule.seeds_cap)
        sgd_strbuf_printf(b, "; more than %d seeds a side would be needed",
                          ab->opts.rule.seeds_cap);
    else if (j->seeds_needed > 0)
        sgd_strbuf_printf(b, "; about %d seeds a side would decide", j->seeds_needed);
}

void ana_ab_detail(const ana_ab_t *ab, const ana_ab_row_t *r, sgd_strbuf_t *out)
{
    if (!r->judged) {
        sgd_strbuf_puts(out, r->note ? r->note : "");
        return;
    }
    const ana_judgement_t *j = &r->j;
    summary_text(out, &j->base);
    if (j->verdict == ANA_SAME) {
        sgd_strbuf_puts(out, ", every run bit-equal");
        return;
    }
    sgd_strbuf_puts(out, " -> ");
    summary_text(out, &j->cand);
    if (j->why) {
        if (isfinite(j->rel_effect)) sgd_strbuf_printf(out, ", %+.3g%%", 100 * j->rel_effect);
        sgd_strbuf_printf(out, "; %s", j->why);
    } else if (j->effect.kind != ANA_TEST_NONE) {
        test_text(ab, j, out);
    }
    if (j->kernel_only && !j->why)
        sgd_strbuf_puts(out, "; the same build and configuration on another BLAS kernel: "
                             "rounding, not a change");
    if (j->effect.kind != ANA_TEST_NONE && isnan(j->p) && !j->why)
        sgd_strbuf_puts(out, "; the values are beyond double precision's range: no test");
    if (r->note) sgd_strbuf_printf(out, "; %s", r->note);
}

static void seeds_of(const ana_ab_run_t *runs, const ana_group_t *g, sgd_strbuf_t *b)
{
    for (int i = 0; i < g->n; i++)
        sgd_strbuf_printf(b, "%s%lld", i ? "," : "", (long long)runs[g->idx[i]].seed);
}

void ana_ab_seeds_text(const ana_ab_t *ab, const ana_ab_run_t *base, const ana_ab_run_t *cand,
                       int p, sgd_strbuf_t *out)
{
    const ana_pair_t *pr = &ab->pairs.pair[p];
    sgd_strbuf_t sb = {0}, sc = {0};
    seeds_of(base, &ab->pairs.base.group[pr->base], &sb);
    if (pr->kind == ANA_PAIRED) seeds_of(cand, &ab->pairs.cand.group[pr->cand], &sc);
    sgd_strbuf_puts(out, sb.p ? sb.p : "");
    if (sc.p && strcmp(sb.p ? sb.p : "", sc.p) != 0) sgd_strbuf_printf(out, " / %s", sc.p);
    sgd_strbuf_free(&sb);
    sgd_strbuf_free(&sc);
}

void ana_ab_summary(const ana_ab_t *ab, sgd_strbuf_t *out)
{
    const ana_pairing_t *p = &ab->pairs;
    const ana_rule_t *r = &ab->opts.rule;
    char how[512];
    ana_match_describe(&ab->opts.match, how, sizeof how);
    int missing = 0, ambiguous = 0;
    for (int i = 0; i < p->npairs; i++) {
        missing += p->pair[i].kind == ANA_UNPAIRED;
        ambiguous += p->pair[i].kind == ANA_AMBIGUOUS_PAIR;
    }
    sgd_strbuf_printf(out, "%d baseline configuration%s paired %s (%d missing in the "
                      "candidate, %d ambiguous); each run's value: the mean of its last %d "
                      "rows; alpha %g over a family of %d test%s (%s), min effect %g of the "
                      "baseline mean, rtol %g:",
                      p->npairs, p->npairs == 1 ? "" : "s", how, missing, ambiguous,
                      ab->opts.last, r->alpha, ab->family, ab->family == 1 ? "" : "s",
                      ana_correction_name[r->correction], r->min_effect, r->rtol);
    for (int v = 0; v < ANA_NVERDICTS; v++)
        sgd_strbuf_printf(out, "%s %d %s", v ? "," : "", ab->count[v], ana_verdict_name[v]);
    sgd_strbuf_printf(out, "; %d configuration%s only in the candidate", p->nnew,
                      p->nnew == 1 ? "" : "s");
    if (ab->opts.match.pool_builds)
        sgd_strbuf_printf(out, "; builds pooled (--pool-builds): %d configuration%s hold runs "
                          "of several builds, each seed counted once (its latest run)",
                          ab->pooled, ab->pooled == 1 ? "" : "s");
}
