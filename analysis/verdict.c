/* The verdicts of compare (verdict.h): one row judged alone, then the tested rows decided
 * as a family, on the effects of effect.h and the corrections of multiplicity.h. */
#include "analysis/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run_window.h"
#include "common/error.h"

const char *const ana_verdict_name[ANA_NVERDICTS] = {
    [ANA_SAME] = "same",
    [ANA_EQUIVALENT] = "equivalent",
    [ANA_BETTER] = "better",
    [ANA_WORSE] = "worse",
    [ANA_DIFFERS] = "differs",
    [ANA_KERNEL] = "differs (different kernel)",
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

ana_rule_t ana_rule_default(void)
{
    return (ana_rule_t){.alpha = 0.05, .min_effect = 0.05, .rtol = 0.0,
                        .correction = ANA_CORR_HOLM, .power = 0.8, .seeds_cap = 1000};
}

/* Which verdict a move the metric's good (or bad) way is. */
static ana_verdict_t direction(bool good, ana_sense_t sense)
{
    if (sense == ANA_NEUTRAL) return ANA_DIFFERS;
    return good ? ANA_BETTER : ANA_WORSE;
}

/* ---- one row alone -------------------------------------------------------------------- */

/* The finite values of one side, and how many are not. */
static int finite_values(const ana_side_values_t *s, double *out, int *nonfinite)
{
    int n = 0;
    *nonfinite = 0;
    for (int i = 0; i < s->n; i++) {
        if (isfinite(s->value[i])) out[n++] = s->value[i];
        else (*nonfinite)++;
    }
    return n;
}

/* The seeds both sides ran with finite values, as two aligned arrays; *left_out counts the
 * seeds only one side ran. */
static int common_seeds(const ana_metric_in_t *in, double *b, double *c, int *left_out)
{
    int n = 0, both = 0;
    for (int i = 0; i < in->base.n; i++)
        for (int k = 0; k < in->cand.n; k++) {
            if (in->base.seed[i] != in->cand.seed[k]) continue;
            both++;
            double x = in->base.value[i], y = in->cand.value[k];
            if (isfinite(x) && isfinite(y)) b[n] = x, c[n++] = y;
        }
    *left_out = in->base.n + in->cand.n - 2 * both;
    return n;
}

/* The side whose share of seeds without a finite value is larger is worse; SAME when the
 * shares agree. */
static ana_verdict_t divergence_verdict(const ana_judgement_t *j, int nb, int nc,
                                        ana_sense_t sense)
{
    long long c = (long long)j->nonfinite_cand * nb, b = (long long)j->nonfinite_base * nc;
    if (c == b) return ANA_SAME;
    return direction(c < b, sense);
}

/* The test of a row with finite values on both sides. */
static void test_row(const ana_metric_in_t *in, const ana_rule_t *r, const double *fb,
                     int nb, const double *fc, int nc, ana_judgement_t *j)
{
    double *pb = sgd_xcalloc((size_t)in->base.n + 1, sizeof *pb);
    double *pc = sgd_xcalloc((size_t)in->cand.n + 1, sizeof *pc);
    int np = common_seeds(in, pb, pc, &j->left_out);
    if (np >= 2) {
        ana_effect_paired(pb, pc, np, &j->effect);
    } else {
        j->left_out = 0;
        ana_effect_welch(fb, nb, fc, nc, &j->effect);
    }
    free(pb);
    free(pc);
    double mb = j->effect.base_mean;
    j->rel_effect = mb != 0.0 ? j->effect.effect / fabs(mb) : NAN;
    j->margin = r->min_effect * fabs(mb);
    j->p = j->effect.p;
}

ana_judgement_t ana_judge(const ana_metric_in_t *in, const ana_rule_t *r)
{
    ana_judgement_t j = {.verdict = ANA_INCONCLUSIVE, .rel_effect = NAN, .margin = NAN,
                         .p = NAN, .p_adj = NAN, .p_eq = NAN, .p_eq_adj = NAN, .level = NAN,
                         .level_eq = NAN, .ci_low = NAN, .ci_high = NAN, .eq_low = NAN,
                         .eq_high = NAN, .sense = in->sense, .kernel_only = in->kernel_only};
    double *fb = sgd_xcalloc((size_t)in->base.n + 1, sizeof *fb);
    double *fc = sgd_xcalloc((size_t)in->cand.n + 1, sizeof *fc);
    int nb = finite_values(&in->base, fb, &j.nonfinite_base);
    int nc = finite_values(&in->cand, fc, &j.nonfinite_cand);
    j.base = ana_summarize(fb, nb);
    j.cand = ana_summarize(fc, nc);
    if (nb > 0 && nc > 0 && j.base.mean != 0.0)
        j.rel_effect = (j.cand.mean - j.base.mean) / fabs(j.base.mean);
    ana_verdict_t div = divergence_verdict(&j, in->base.n, in->cand.n, in->sense);
    double dmean = fabs(j.cand.mean - j.base.mean);
    if (in->bit_equal) {
        j.verdict = ANA_SAME;
    } else if (div != ANA_SAME) {
        j.verdict = in->kernel_only ? ANA_KERNEL : div;
        j.why = "seeds whose value is not finite (diverged): more on one side";
    } else if (r->rtol > 0 && dmean <= r->rtol * fmax(fabs(j.base.mean), fabs(j.cand.mean))) {
        j.verdict = ANA_EQUIVALENT;
        j.why = "within --rtol";
    } else if (nb < 2 || nc < 2) {
        j.verdict = in->kernel_only ? ANA_EQUIVALENT : ANA_INCONCLUSIVE;
        j.why = in->kernel_only ? "the same build and configuration on another BLAS kernel: "
                                  "rounding, not a change"
                                : "fewer than 2 seeds with a finite value on a side: no spread "
                                  "to judge by";
    } else {
        test_row(in, r, fb, nb, fc, nc, &j);
    }
    free(fb);
    free(fc);
    return j;
}

bool ana_judgement_tested(const ana_judgement_t *j)
{
    return j->effect.kind != ANA_TEST_NONE && j->verdict == ANA_INCONCLUSIVE && !j->why;
}

/* ---- the family ----------------------------------------------------------------------- */

/* The verdict of a tested row from its adjusted p-values. */
static ana_verdict_t decide(const ana_judgement_t *j, double alpha)
{
    bool moved = j->p_adj < alpha && fabs(j->effect.effect) >= j->margin;
    if (moved) {
        if (j->kernel_only) return ANA_KERNEL;
        return direction((j->effect.effect < 0) == (j->sense == ANA_LOWER_IS_BETTER), j->sense);
    }
    if (j->p_eq_adj < alpha || j->kernel_only) return ANA_EQUIVALENT;
    return ANA_INCONCLUSIVE;
}

/* The intervals at the row's levels, the verdict and, when undecided, the seeds needed at
 * the planning level. */
static void finish_row(ana_judgement_t *j, const ana_rule_t *r, double plan_level)
{
    ana_effect_interval(&j->effect, j->level, &j->ci_low, &j->ci_high);
    ana_effect_interval(&j->effect, 2 * j->level_eq, &j->eq_low, &j->eq_high);
    j->verdict = decide(j, r->alpha);
    if (j->verdict == ANA_INCONCLUSIVE)
        j->seeds_needed = ana_effect_seeds_needed(&j->effect, j->margin, plan_level, r->power,
                                                  r->seeds_cap);
}

int ana_decide_family(ana_judgement_t *const *j, int n, const ana_rule_t *r)
{
    double *p = sgd_xcalloc((size_t)n + 1, sizeof *p), *q = sgd_xcalloc((size_t)n + 1, sizeof *q);
    double *adj = sgd_xcalloc((size_t)n + 1, sizeof *adj), *lev = sgd_xcalloc((size_t)n + 1,
                                                                               sizeof *lev);
    double *adj_eq = sgd_xcalloc((size_t)n + 1, sizeof *adj_eq);
    double *lev_eq = sgd_xcalloc((size_t)n + 1, sizeof *lev_eq);
    for (int i = 0; i < n; i++) {
        j[i]->in_family = ana_judgement_tested(j[i]) && j[i]->sense != ANA_NEUTRAL;
        j[i]->p_eq = ana_judgement_tested(j[i]) ? ana_effect_tost_p(&j[i]->effect, j[i]->margin)
                                                : NAN;
        p[i] = j[i]->in_family ? j[i]->p : NAN;
        q[i] = j[i]->in_family ? j[i]->p_eq : NAN;
    }
    int m = ana_adjust(p, n, r->correction, r->alpha, adj, lev);
    ana_adjust(q, n, r->correction, r->alpha, adj_eq, lev_eq);
    for (int i = 0; i < n; i++) {
        ana_judgement_t *x = j[i];
        if (!ana_judgement_tested(x)) continue;
        if (x->in_family) {
            x->p_adj = adj[i], x->level = lev[i];
            x->p_eq_adj = adj_eq[i], x->level_eq = lev_eq[i];
        } else { /* a metric without a sense: for information, uncorrected */
            x->p_adj = x->p, x->level = r->alpha;
            x->p_eq_adj = x->p_eq, x->level_eq = r->alpha;
        }
        finish_row(x, r, x->in_family && m > 0 ? r->alpha / m : r->alpha);
    }
    free(p), free(q), free(adj), free(lev), free(adj_eq), free(lev_eq);
    return m;
}

/* ---- windows, bits and statuses ------------------------------------------------------- */

bool ana_window(const rdb_series_t *s, int last, double *value)
{
    if (s->n == 0 || last < 1) return false;
    int from = s->n > last ? s->n - last : 0;
    double *v = sgd_xcalloc((size_t)(s->n - from) + 1, sizeof *v);
    for (int i = from; i < s->n; i++) v[i - from] = s->kind[i] ? NAN : s->value[i];
    *value = ana_window_of(v, s->n - from, last).last_mean; /* report's window, exactly */
    free(v);
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
