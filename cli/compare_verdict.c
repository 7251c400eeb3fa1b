/* The verdicts of `sgdsim compare` (compare_verdict.h): a metric's sense, and the
 * classification of a status, a value or a whole series into same / within tolerance /
 * different kernel / better / worse / differs. */
#include "cli/compare_verdict.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *const cmp_verdict_name[CMP_NVERDICTS] = {
    [CMP_SAME] = "same",
    [CMP_WITHIN] = "differs within tolerance",
    [CMP_KERNEL] = "differs (different kernel)",
    [CMP_BETTER] = "better",
    [CMP_WORSE] = "worse",
    [CMP_DIFFERS] = "differs",
    [CMP_MISSING] = "missing",
    [CMP_AMBIGUOUS] = "ambiguous",
};

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

cmp_sense_t cmp_metric_sense(const char *name)
{
    if (strcmp(name, "vtime_s") == 0 || ends_with(name, "_loss") || ends_with(name, "_error"))
        return CMP_LOWER_IS_BETTER;
    if (strcmp(name, "images_per_s") == 0) return CMP_HIGHER_IS_BETTER;
    return CMP_NEUTRAL;
}

static double rel_diff(double a, double b)
{
    if (a == b) return 0.0;
    return fabs(a - b) / fmax(fabs(a), fabs(b));
}

/* Beyond the tolerance: which way the candidate's value moved from the baseline's. */
static cmp_verdict_t direction(double base, double cand, cmp_sense_t sense)
{
    if (sense == CMP_NEUTRAL || base == cand) return CMP_DIFFERS;
    bool lower = cand < base;
    return lower == (sense == CMP_LOWER_IS_BETTER) ? CMP_BETTER : CMP_WORSE;
}

/* A difference within rtol: the kernels explain it when they differ. */
static cmp_verdict_t within(const cmp_rule_t *r)
{
    return r->kernels_differ ? CMP_KERNEL : CMP_WITHIN;
}

cmp_verdict_t cmp_status(const char *base, const char *cand)
{
    if (strcmp(base, cand) == 0) return CMP_SAME;
    if (strcmp(base, "complete") == 0 && strcmp(cand, "diverged") == 0) return CMP_WORSE;
    if (strcmp(base, "diverged") == 0 && strcmp(cand, "complete") == 0) return CMP_BETTER;
    return CMP_DIFFERS;
}

cmp_verdict_t cmp_scalar(double base, double cand, cmp_sense_t sense, const cmp_rule_t *r,
                         char *detail, size_t size)
{
    snprintf(detail, size, "%.9g -> %.9g", base, cand);
    /* Bitwise: the determinism contract promises equal bits, not just equal values. */
    if (memcmp(&base, &cand, sizeof base) == 0) return CMP_SAME;
    if (rel_diff(base, cand) <= r->rtol) return within(r);
    return direction(base, cand, sense);
}

/* Row i's value as text: the number, or nan / inf / -inf. */
static void value_text(const rdb_series_t *s, int i, char *buf, size_t size)
{
    switch (s->kind[i]) {
    case 0: snprintf(buf, size, "%.9g", s->value[i]); break;
    case 'n': snprintf(buf, size, "nan"); break;
    case 'i': snprintf(buf, size, "inf"); break;
    case '-': snprintf(buf, size, "-inf"); break;
    default: snprintf(buf, size, "non-finite"); break;
    }
}

/* The direction read from the last rows; a non-finite value is the worst one a metric with
 * a sense can have. */
static cmp_verdict_t final_direction(const rdb_series_t *a, const rdb_series_t *b,
                                     cmp_sense_t sense, double rtol)
{
    int i = a->n - 1, j = b->n - 1;
    bool a_finite = !a->kind[i], b_finite = !b->kind[j];
    if (sense == CMP_NEUTRAL || (!a_finite && !b_finite)) return CMP_DIFFERS;
    if (a_finite != b_finite) return a_finite ? CMP_WORSE : CMP_BETTER;
    if (rel_diff(a->value[i], b->value[j]) <= rtol) return CMP_DIFFERS;
    return direction(a->value[i], b->value[j], sense);
}

/* Whether the two series differ in shape (row count, update indices, which values are
 * finite and which non-finite value); if so, detail says where. */
static bool shape_differs(const rdb_series_t *a, const rdb_series_t *b, char *detail,
                          size_t size)
{
    if (a->n != b->n) {
        snprintf(detail, size, "%d row%s in baseline, %d in candidate", a->n,
                 a->n == 1 ? "" : "s", b->n);
        return true;
    }
    for (int i = 0; i < a->n; i++) {
        if (a->update[i] != b->update[i]) {
            snprintf(detail, size, "row %d: update %lld vs %lld", i, (long long)a->update[i],
                     (long long)b->update[i]);
            return true;
        }
        if (a->kind[i] != b->kind[i]) {
            char va[32], vb[32];
            value_text(a, i, va, sizeof va);
            value_text(b, i, vb, sizeof vb);
            snprintf(detail, size, "update %lld: %s vs %s", (long long)a->update[i], va, vb);
            return true;
        }
    }
    return false;
}

/* The largest relative differences of values and of virtual times over rows of the same
 * shape, and whether every row is equal bit for bit. */
typedef struct series_diff {
    bool identical;
    double value, vtime;
    int64_t value_at, vtime_at;
} series_diff_t;

static series_diff_t diff_rows(const rdb_series_t *a, const rdb_series_t *b)
{
    series_diff_t d = {.identical = true};
    for (int i = 0; i < a->n; i++) {
        bool finite = !a->kind[i]; /* and b's: same shape */
        if (finite && memcmp(&a->value[i], &b->value[i], sizeof(double)) != 0)
            d.identical = false;
        if (a->vtime[i] != b->vtime[i]) d.identical = false;
        double dv = finite ? rel_diff(a->value[i], b->value[i]) : 0.0;
        double dt = rel_diff((double)a->vtime[i], (double)b->vtime[i]);
        if (dv > d.value) d.value = dv, d.value_at = a->update[i];
        if (dt > d.vtime) d.vtime = dt, d.vtime_at = a->update[i];
    }
    return d;
}

cmp_verdict_t cmp_series(const rdb_series_t *a, const rdb_series_t *b, cmp_sense_t sense,
                         const cmp_rule_t *r, char *detail, size_t size)
{
    char fa[32], fb[32], why[120];
    value_text(a, a->n - 1, fa, sizeof fa);
    value_text(b, b->n - 1, fb, sizeof fb);
    if (shape_differs(a, b, why, sizeof why)) {
        snprintf(detail, size, "final %s -> %s; %s", fa, fb, why);
        return final_direction(a, b, sense, r->rtol);
    }
    series_diff_t d = diff_rows(a, b);
    if (d.identical) {
        snprintf(detail, size, "final %s", fa);
        return CMP_SAME;
    }
    bool by_value = d.value >= d.vtime;
    snprintf(detail, size, "final %s -> %s; max relative difference %.3g (%s) at update %lld",
             fa, fb, by_value ? d.value : d.vtime, by_value ? "value" : "virtual time",
             (long long)(by_value ? d.value_at : d.vtime_at));
    if (fmax(d.value, d.vtime) <= r->rtol) return within(r);
    /* Only the virtual times moved beyond rtol: the run's vtime_s row says which way. */
    if (d.value <= r->rtol) return CMP_DIFFERS;
    return final_direction(a, b, sense, r->rtol);
}
