/* The verdicts of compare (verdict.h): one metric's seeds on both sides, judged with the
 * seed statistics of seed_stats.h. */
#include "analysis/verdict.h"

#include <math.h>
#include <string.h>

const char *const ana_verdict_name[ANA_NVERDICTS] = {
    [ANA_SAME] = "same",
    [ANA_NOISE] = "within noise",
    [ANA_KERNEL] = "differs (different kernel)",
    [ANA_BETTER] = "better",
    [ANA_WORSE] = "worse",
    [ANA_DIFFERS] = "differs",
    [ANA_INCONCLUSIVE] = "inconclusive",
    [ANA_NO_CLOCK] = "no clock",
    [ANA_MISSING] = "missing",
    [ANA_AMBIGUOUS] = "ambiguous",
};

bool ana_verdict_fails(ana_verdict_t v)
{
    return v == ANA_WORSE || v == ANA_MISSING || v == ANA_AMBIGUOUS;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

ana_sense_t ana_metric_sense(const char *name)
{
    if (strcmp(name, "vtime_s") == 0 || ends_with(name, "_loss") || ends_with(name, "_error"))
        return ANA_LOWER_IS_BETTER;
    if (strcmp(name, "images_per_s") == 0) return ANA_HIGHER_IS_BETTER;
    return ANA_NEUTRAL;
}

/* Which verdict a move of the candidate the metric's good (or bad) way is. */
static ana_verdict_t direction(bool good, ana_sense_t sense)
{
    if (sense == ANA_NEUTRAL) return ANA_DIFFERS;
    return good ? ANA_BETTER : ANA_WORSE;
}

/* A seed whose window is not finite on one side only decides; NOISE when none does. */
static ana_verdict_t nonfinite_verdict(const ana_metric_in_t *in, ana_sense_t sense)
{
    bool b = in->nonfinite_base > 0, c = in->nonfinite_cand > 0;
    if (b == c) return b ? ANA_DIFFERS : ANA_NOISE;
    return direction(b, sense);
}

/* The judgement of two sets of finite values that are not bit-equal. */
static ana_verdict_t judge_values(const ana_metric_in_t *in, ana_sense_t sense,
                                  const ana_rule_t *r, ana_judgement_t *j)
{
    double mb = j->base.mean, mc = j->cand.mean, d = fabs(mc - mb);
    if (d <= r->rtol * fmax(fabs(mb), fabs(mc))) return r->kernels_differ ? ANA_KERNEL
                                                                          : ANA_NOISE;
    ana_welch_t w;
    if (ana_welch(in->cand, in->ncand, in->base, in->nbase, &w)) return ANA_INCONCLUSIVE;
    j->p = w.p;
    double effect = mb != 0.0 ? d / fabs(mb) : INFINITY;
    if (w.p >= r->alpha || effect < r->min_effect) return ANA_NOISE;
    bool lower = mc < mb;
    return direction(lower == (sense == ANA_LOWER_IS_BETTER), sense);
}

/* The verdict in verdict.h's order: bits, non-finite windows, then the values. */
static ana_verdict_t decide(const ana_metric_in_t *in, ana_sense_t sense, const ana_rule_t *r,
                            ana_judgement_t *j)
{
    if (in->bit_equal) return ANA_SAME;
    ana_verdict_t v = nonfinite_verdict(in, sense);
    if (v != ANA_NOISE) return v;
    if (in->nbase == 0 || in->ncand == 0) return ANA_INCONCLUSIVE;
    return judge_values(in, sense, r, j);
}

ana_judgement_t ana_judge(const ana_metric_in_t *in, ana_sense_t sense, const ana_rule_t *r)
{
    ana_judgement_t j = {.base = ana_summarize(in->base, in->nbase),
                         .cand = ana_summarize(in->cand, in->ncand), .rel_diff = NAN, .p = NAN};
    if (in->nbase > 0 && in->ncand > 0 && j.base.mean != 0.0)
        j.rel_diff = (j.cand.mean - j.base.mean) / fabs(j.base.mean);
    j.verdict = decide(in, sense, r, &j);
    return j;
}

bool ana_window(const rdb_series_t *s, int last, double *value)
{
    if (s->n == 0 || last < 1) return false;
    int from = s->n > last ? s->n - last : 0;
    double sum = 0;
    for (int i = from; i < s->n; i++) {
        if (s->kind[i]) return false;
        sum += s->value[i];
    }
    *value = sum / (s->n - from);
    return true;
}

bool ana_series_identical(const rdb_series_t *a, const rdb_series_t *b)
{
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++) {
        if (a->update[i] != b->update[i] || a->vtime[i] != b->vtime[i] ||
            a->kind[i] != b->kind[i])
            return false;
        if (!a->kind[i] && memcmp(&a->value[i], &b->value[i], sizeof(double)) != 0)
            return false;
    }
    return true;
}

ana_verdict_t ana_status_verdict(int nbad_base, int nbase, int nbad_cand, int ncand,
                                 bool same_statuses)
{
    /* Shares compared crosswise, so no division: bad_c / n_c against bad_b / n_b. */
    long long c = (long long)nbad_cand * nbase, b = (long long)nbad_base * ncand;
    if (c > b) return ANA_WORSE;
    if (c < b) return ANA_BETTER;
    return nbad_base == 0 || same_statuses ? ANA_SAME : ANA_DIFFERS;
}
