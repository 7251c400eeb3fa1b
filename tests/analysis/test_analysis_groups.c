/* analysis/groups.h and analysis/sweep_axes.h without a database: a configuration is the
 * run's configuration less its seed and numerics.threads, whatever the members' order;
 * grouping keeps the latest run of each seed, in seed order; a sweep's axes are the stored
 * ones that vary, or inferred without the seed and without a key that follows another
 * (algorithm.n following cluster.workers). */
#include <stdlib.h>

#include "analysis/groups.h"
#include "analysis/sweep_axes.h"
#include "tests/check.h"

static void identities(void)
{
    char *a = ana_config_identity("{\"seed\":1,\"b\":2,\"numerics\":{\"threads\":4,\"k\":1}}");
    char *b = ana_config_identity("{\"numerics\":{\"k\":1,\"threads\":1},\"b\":2,\"seed\":9}");
    CHECK_STR_EQ(a, "{\"b\":2,\"numerics\":{\"k\":1}}");
    CHECK_STR_EQ(a, b);
    CHECK(ana_config_identity("[1]") == NULL && ana_config_identity(NULL) == NULL);
    free(a);
    free(b);
}

static void grouping(void)
{
    char x[] = "x", y[] = "y";
    char *identity[] = {x, y, x, x, NULL, x};
    int64_t id[] = {1, 2, 3, 4, 5, 6}, seed[] = {2, 1, 1, 2, 1, 3};
    ana_group_t *g;
    int n = ana_group_seeds(identity, id, seed, 6, &g);
    CHECK_INT_EQ(n, 3);
    CHECK_STR_EQ(g[0].identity, "x");
    CHECK_INT_EQ(g[0].n, 3); /* seeds 1 (run 3), 2 (run 4, later than run 1), 3 (run 6) */
    CHECK(g[0].idx[0] == 2 && g[0].idx[1] == 3 && g[0].idx[2] == 5);
    CHECK(g[1].n == 1 && g[1].idx[0] == 1);
    CHECK(g[2].identity == NULL && g[2].n == 1 && g[2].idx[0] == 4);
    ana_groups_free(g, n);
}

static void axes(void)
{
    static const char *const cfg[] = {
        "{\"seed\":1,\"cluster\":{\"workers\":2},\"algorithm\":{\"n\":2}}",
        "{\"seed\":2,\"cluster\":{\"workers\":2},\"algorithm\":{\"n\":2}}",
        "{\"seed\":1,\"cluster\":{\"workers\":4},\"algorithm\":{\"n\":4}}",
    };
    ana_run_t r[3];
    const ana_run_t *p[3];
    for (int i = 0; i < 3; i++) ana_run_init(&r[i], "s", cfg[i], NULL), p[i] = &r[i];
    int n;
    const char **a = ana_sweep_axes(p, 3, &n);
    CHECK_INT_EQ(n, 1);
    if (n == 1) CHECK_STR_EQ(a[0], "cluster.workers");
    CHECK_STR_EQ(ana_config_get(&r[2].cfg, "algorithm.n"), "4");
    CHECK_STR_EQ(ana_config_get(&r[2].cfg, "nope"), "(absent)");
    free(a);
    for (int i = 0; i < 3; i++) ana_run_free(&r[i]);
    /* stored axes win: algorithm.n */
    for (int i = 0; i < 3; i++) ana_run_init(&r[i], "s", cfg[i], "[\"algorithm.n\",\"seed\"]");
    a = ana_sweep_axes(p, 3, &n);
    CHECK_INT_EQ(n, 1);
    if (n == 1) CHECK_STR_EQ(a[0], "algorithm.n");
    free(a);
    for (int i = 0; i < 3; i++) ana_run_free(&r[i]);
}

int main(void)
{
    identities();
    grouping();
    axes();
    return check_exit();
}
