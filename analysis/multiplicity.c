/* Family-wise and false-discovery corrections, and alpha spending (multiplicity.h). */
#include "analysis/multiplicity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "common/error.h"

const char *const ana_correction_name[ANA_NCORRECTIONS] = {"holm", "bh", "none"};

bool ana_correction_parse(const char *s, ana_correction_t *c)
{
    for (int i = 0; i < ANA_NCORRECTIONS; i++)
        if (strcmp(s, ana_correction_name[i]) == 0) {
            *c = (ana_correction_t)i;
            return true;
        }
    return false;
}

/* The family: indices of the non-NaN p's sorted by p (ties in index order). */
static const double *sort_p;
static int by_p(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    if (sort_p[a] != sort_p[b]) return sort_p[a] < sort_p[b] ? -1 : 1;
    return (a > b) - (a < b);
}

static int family_of(const double *p, int n, int *idx)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(p[i])) idx[m++] = i;
    sort_p = p;
    qsort(idx, (size_t)m, sizeof *idx, by_p);
    return m;
}

static void holm(const double *p, const int *idx, int m, double alpha, double *adj,
                 double *level)
{
    double run = 0;
    int rejected = 0;
    for (int i = 0; i < m; i++) {
        run = fmax(run, fmin(1.0, (m - i) * p[idx[i]]));
        adj[idx[i]] = run;
        if (run < alpha) rejected = i + 1;
    }
    for (int i = 0; i < m; i++)
        level[idx[i]] = alpha / (i < rejected ? m - i : m - rejected);
}

static void bh(const double *p, const int *idx, int m, double alpha, double *adj,
               double *level)
{
    double run = 1.0;
    int rejected = 0;
    for (int i = m - 1; i >= 0; i--) {
        run = fmin(run, fmin(1.0, (double)m * p[idx[i]] / (i + 1)));
        adj[idx[i]] = run;
        if (run < alpha && rejected == 0) rejected = i + 1;
    }
    for (int i = 0; i < m; i++) level[idx[i]] = alpha * (rejected > 0 ? rejected : 1) / m;
}

int ana_adjust(const double *p, int n, ana_correction_t c, double alpha, double *adj,
               double *level)
{
    int *idx = sgd_xcalloc((size_t)n + 1, sizeof *idx);
    for (int i = 0; i < n; i++) adj[i] = level[i] = NAN;
    int m = family_of(p, n, idx);
    if (c == ANA_CORR_HOLM) holm(p, idx, m, alpha, adj, level);
    else if (c == ANA_CORR_BH) bh(p, idx, m, alpha, adj, level);
    else
        for (int i = 0; i < m; i++) adj[idx[i]] = p[idx[i]], level[idx[i]] = alpha;
    free(idx);
    return m;
}

double ana_obf_spent(double alpha, double t)
{
    if (!(alpha > 0 && alpha < 1) || !(t > 0)) return 0.0;
    if (t >= 1) return alpha;
    double z = gsl_cdf_ugaussian_Qinv(alpha / 2) / sqrt(t);
    return 2.0 * gsl_cdf_ugaussian_Q(z);
}
