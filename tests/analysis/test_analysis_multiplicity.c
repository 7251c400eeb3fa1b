/* analysis/multiplicity.h against hand-worked values: Holm's and Benjamini-Hochberg's
 * adjusted p-values of four tests, the interval levels that make each interval exclude 0
 * exactly when its test is rejected, NaN entries outside the family, and the
 * O'Brien-Fleming-type spending function at published points (Lan and DeMets 1983:
 * 0.0056 spent at half the information for alpha = 0.05). */
#include <math.h>

#include "analysis/multiplicity.h"
#include "tests/check.h"

static void holm_and_bh(void)
{
    static const double p[] = {0.01, 0.04, 0.03, 0.005, NAN};
    double adj[5], level[5];
    CHECK_INT_EQ(ana_adjust(p, 5, ANA_CORR_HOLM, 0.05, adj, level), 4);
    /* Sorted 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1, kept at 0.06). */
    CHECK_NEAR(adj[3], 0.02, 1e-15);
    CHECK_NEAR(adj[0], 0.03, 1e-15);
    CHECK_NEAR(adj[2], 0.06, 1e-15);
    CHECK_NEAR(adj[1], 0.06, 1e-15);
    CHECK(isnan(adj[4]) && isnan(level[4]));
    /* Two rejected: levels alpha/4 and alpha/3; the rest alpha/2, where Holm stopped. */
    CHECK_NEAR(level[3], 0.0125, 1e-15);
    CHECK_NEAR(level[0], 0.05 / 3, 1e-15);
    CHECK_NEAR(level[2], 0.025, 1e-15);
    CHECK_NEAR(level[1], 0.025, 1e-15);
    for (int i = 0; i < 4; i++) CHECK((adj[i] < 0.05) == (p[i] < level[i]));
    CHECK_INT_EQ(ana_adjust(p, 5, ANA_CORR_BH, 0.05, adj, level), 4);
    /* m p / j: 0.02, 0.02, 0.04, 0.04, taken as minima from the top. */
    CHECK_NEAR(adj[3], 0.02, 1e-15);
    CHECK_NEAR(adj[0], 0.02, 1e-15);
    CHECK_NEAR(adj[2], 0.04, 1e-15);
    CHECK_NEAR(adj[1], 0.04, 1e-15);
    for (int i = 0; i < 4; i++) CHECK_NEAR(level[i], 0.05, 1e-15); /* all 4 rejected */
    CHECK_INT_EQ(ana_adjust(p, 5, ANA_CORR_NONE, 0.05, adj, level), 4);
    CHECK(adj[2] == 0.03 && level[2] == 0.05);
    /* Nothing rejected: Holm's and BH's levels alpha/m. */
    static const double q[] = {0.5, 0.9, 0.2};
    ana_adjust(q, 3, ANA_CORR_HOLM, 0.05, adj, level);
    CHECK_NEAR(level[2], 0.05 / 3, 1e-15);
    CHECK_NEAR(adj[2], 0.6, 1e-15);
    CHECK_NEAR(adj[0], 1.0, 1e-15); /* 0.5 x 2, capped at 1 */
    CHECK_NEAR(adj[1], 1.0, 1e-15); /* the running maximum */
    ana_adjust(q, 3, ANA_CORR_BH, 0.05, adj, level);
    CHECK_NEAR(level[0], 0.05 / 3, 1e-15);
    CHECK_NEAR(adj[2], 0.6, 1e-15);
    CHECK_NEAR(adj[0], 0.75, 1e-15);
    ana_correction_t c;
    CHECK(ana_correction_parse("bh", &c) && c == ANA_CORR_BH);
    CHECK(!ana_correction_parse("bonferroni", &c));
}

static void spending(void)
{
    CHECK_NEAR(ana_obf_spent(0.05, 1.0), 0.05, 0);
    CHECK_NEAR(ana_obf_spent(0.05, 0.5), 0.0056, 1e-4);
    CHECK_NEAR(ana_obf_spent(0.05, 0.25), 8.9e-5, 1e-6);
    CHECK(ana_obf_spent(0.05, 0.0) == 0.0);
    double prev = 0;
    for (int k = 1; k <= 10; k++) { /* increasing, never above alpha */
        double a = ana_obf_spent(0.05, k / 10.0);
        CHECK(a > prev && a <= 0.05);
        prev = a;
    }
}

int main(void)
{
    holm_and_bh();
    spending();
    return check_exit();
}
