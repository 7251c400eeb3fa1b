/* analysis/pairs.h without a database: configurations pair without their seeds; --ignore
 * and --match-on change the signature; several configurations of one signature are
 * ambiguous; an unpaired configuration names the keys that differ; bad keys are refused;
 * one configuration run by two builds is two groups (ambiguous, by build) unless builds are
 * pooled, and then each seed counts once; a pair that differs only in its BLAS kernel, on
 * one build, is told apart. */
#include <stdlib.h>
#include <string.h>

#include "analysis/pairs.h"
#include "tests/check.h"

#define CFG(P, LR, SEED)                                                                     \
    "{\"seed\":" #SEED ",\"cluster\":{\"workers\":" #P "},\"optimizer\":{\"lr\":" #LR "},"   \
    "\"numerics\":{\"threads\":1}}"

static const ana_pair_run_t base[] = {
    {1, 1, CFG(1, 0.05, 1), "A"}, {2, 2, CFG(1, 0.05, 2), "A"}, {3, 1, CFG(4, 0.05, 1), "A"},
    {4, 2, CFG(4, 0.05, 2), "A"}, {5, 2, CFG(4, 0.05, 2), "A"}, /* a repeat of seed 2 */
};
static const ana_pair_run_t lr[] = {
    {1, 1, CFG(1, 0.2, 1), "A"}, {2, 2, CFG(1, 0.2, 2), "A"}, {3, 3, CFG(1, 0.2, 3), "A"},
    {4, 1, CFG(4, 0.2, 1), "A"}, {5, 1, CFG(8, 0.2, 1), "A"},
};

static ana_match_t match(const char *on, const char *ignore)
{
    ana_match_t m = {{0}, {0}, false};
    sgd_err_t err = {{0}};
    if (on) CHECK_INT_EQ(ana_keys_parse(on, "--match-on", &m.match_on, &err), 0);
    if (ignore) CHECK_INT_EQ(ana_keys_parse(ignore, "--ignore", &m.ignore, &err), 0);
    return m;
}

static void free_match(ana_match_t *m)
{
    ana_keys_free(&m->match_on);
    ana_keys_free(&m->ignore);
}

static void by_configuration(void)
{
    ana_match_t m = match(NULL, NULL);
    ana_pairing_t p;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(ana_pair_runs(base, 5, base, 5, &m, &p, &err), 0);
    CHECK_INT_EQ(p.npairs, 2);
    CHECK(p.pair[0].kind == ANA_PAIRED && p.pair[0].cand == 0);
    CHECK_INT_EQ(p.base.group[1].n, 2); /* seeds 1 and 2 of P=4 */
    CHECK_INT_EQ(p.base.group[1].idx[1], 4); /* seed 2: run 5, the later */
    ana_pairing_free(&p);
    /* lr changed: missing, naming optimizer.lr, the nearest configuration's only key. */
    CHECK_INT_EQ(ana_pair_runs(base, 5, lr, 5, &m, &p, &err), 0);
    CHECK(p.pair[0].kind == ANA_UNPAIRED && p.pair[1].kind == ANA_UNPAIRED);
    CHECK_STR_EQ(p.pair[0].differs, "optimizer.lr=0.05->0.2");
    CHECK_STR_EQ(p.pair[1].differs, "optimizer.lr=0.05->0.2");
    CHECK_INT_EQ(p.nnew, 3);
    ana_pairing_free(&p);
    free_match(&m);
}

static void ignore_and_match_on(void)
{
    ana_match_t m = match(NULL, "optimizer.lr");
    ana_pairing_t p;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(ana_pair_runs(base, 5, lr, 5, &m, &p, &err), 0);
    CHECK(p.pair[0].kind == ANA_PAIRED && p.pair[1].kind == ANA_PAIRED);
    CHECK_INT_EQ(p.cand.group[p.pair[0].cand].n, 3);
    CHECK_INT_EQ(p.nnew, 1); /* P=8 */
    ana_pairing_free(&p);
    free_match(&m);
    m = match("cluster.workers", "seed");
    CHECK_INT_EQ(ana_pair_runs(base, 5, lr, 5, &m, &p, &err), 0);
    CHECK(p.pair[1].kind == ANA_PAIRED);
    char how[128];
    ana_match_describe(&m, how, sizeof how);
    CHECK_STR_EQ(how, "on cluster.workers");
    ana_pairing_free(&p);
    free_match(&m);
    /* Ignoring the workers: two configurations per signature on each side. */
    m = match(NULL, "cluster.workers");
    CHECK_INT_EQ(ana_pair_runs(base, 5, base, 5, &m, &p, &err), 0);
    CHECK(p.pair[0].kind == ANA_AMBIGUOUS_PAIR && p.pair[0].nbase == 2 && p.pair[0].ncand == 2);
    ana_pairing_free(&p);
    free_match(&m);
}

static void bad_keys(void)
{
    ana_pairing_t p;
    sgd_err_t err = {{0}};
    ana_keys_t k = {0};
    CHECK_INT_EQ(ana_keys_parse("optimizer..lr", "--ignore", &k, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "--ignore optimizer..lr");
    ana_keys_free(&k);
    static const char *const cases[][3] = {
        {NULL, "optimizer.lrr", "--ignore optimizer.lrr: no finished run"},
        {"seed", NULL, "--match-on seed: the seed is never matched on"},
        {"cluster.workers", "optimizer.lr", "--ignore optimizer.lr: with --match-on"},
        {"cluster.workers", "cluster.workers", "the key is also in --match-on"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ana_match_t m = match(cases[i][0], cases[i][1]);
        CHECK_INT_EQ(ana_pair_runs(base, 5, lr, 5, &m, &p, &err), -1);
        CHECK_STR_CONTAINS(err.msg, cases[i][2]);
        CHECK(p.pair == NULL);
        free_match(&m);
    }
}

#define KCFG(CORE, SEED)                                                                      \
    "{\"seed\":" #SEED ",\"cluster\":{\"workers\":4},\"numerics\":{\"blas_core\":\"" CORE "\"}}"

static void builds_and_kernels(void)
{
    /* The candidate merged from two builds (B: seeds 1-3, C: seeds 1-2) of the same
     * configuration: never one sample of 5. */
    static const ana_pair_run_t merged[] = {
        {1, 1, CFG(4, 0.05, 1), "B"}, {2, 2, CFG(4, 0.05, 2), "B"}, {3, 3, CFG(4, 0.05, 3), "B"},
        {4, 1, CFG(4, 0.05, 1), "C"}, {5, 2, CFG(4, 0.05, 2), "C"},
    };
    ana_match_t m = match(NULL, NULL);
    ana_pairing_t p;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(ana_pair_runs(base + 2, 3, merged, 5, &m, &p, &err), 0);
    CHECK_INT_EQ(p.cand.ngroups, 2);
    CHECK(p.pair[0].kind == ANA_AMBIGUOUS_PAIR && p.pair[0].by_build);
    ana_pairing_free(&p);
    m.pool_builds = true; /* pooled: one group, each seed once (its latest run) */
    CHECK_INT_EQ(ana_pair_runs(base + 2, 3, merged, 5, &m, &p, &err), 0);
    CHECK_INT_EQ(p.cand.ngroups, 1);
    CHECK_INT_EQ(p.cand.group[0].n, 3);
    CHECK_INT_EQ(p.cand.group[0].idx[0], 3); /* seed 1: build C's run */
    CHECK_INT_EQ(p.cand.group[0].idx[2], 2); /* seed 3: build B's */
    CHECK_INT_EQ(p.cand.nbuilds[0], 2);
    CHECK(p.pair[0].kind == ANA_PAIRED);
    CHECK(!ana_pair_kernel_only(&p, &p.pair[0]));
    ana_pairing_free(&p);
    free_match(&m);
    /* Another kernel, one build: kernel only; another build too: not. */
    static const ana_pair_run_t h[] = {{1, 1, KCFG("Haswell", 1), "A"}, {2, 2, KCFG("Haswell", 2), "A"}};
    static const ana_pair_run_t sb[] = {{1, 1, KCFG("Sandybridge", 1), "A"},
                                        {2, 2, KCFG("Sandybridge", 2), "A"}};
    static const ana_pair_run_t sb2[] = {{1, 1, KCFG("Sandybridge", 1), "B"},
                                         {2, 2, KCFG("Sandybridge", 2), "B"}};
    m = match(NULL, "numerics.blas_core");
    CHECK_INT_EQ(ana_pair_runs(h, 2, sb, 2, &m, &p, &err), 0);
    CHECK(p.pair[0].kind == ANA_PAIRED && ana_pair_kernel_only(&p, &p.pair[0]));
    ana_pairing_free(&p);
    CHECK_INT_EQ(ana_pair_runs(h, 2, sb2, 2, &m, &p, &err), 0);
    CHECK(p.pair[0].kind == ANA_PAIRED && !ana_pair_kernel_only(&p, &p.pair[0]));
    ana_pairing_free(&p);
    CHECK_INT_EQ(ana_pair_runs(h, 2, h, 2, &m, &p, &err), 0); /* nothing differs */
    CHECK(!ana_pair_kernel_only(&p, &p.pair[0]));
    ana_pairing_free(&p);
    free_match(&m);
}

int main(void)
{
    builds_and_kernels();
    by_configuration();
    ignore_and_match_on();
    bad_keys();
    return check_exit();
}
