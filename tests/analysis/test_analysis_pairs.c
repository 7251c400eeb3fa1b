/* analysis/pairs.h without a database: configurations pair without their seeds; --ignore
 * and --match-on change the signature; several configurations of one signature are
 * ambiguous; an unpaired configuration names the keys that differ; bad keys are refused. */
#include <stdlib.h>
#include <string.h>

#include "analysis/pairs.h"
#include "tests/check.h"

#define CFG(P, LR, SEED)                                                                     \
    "{\"seed\":" #SEED ",\"cluster\":{\"workers\":" #P "},\"optimizer\":{\"lr\":" #LR "},"   \
    "\"numerics\":{\"threads\":1}}"

static const ana_pair_run_t base[] = {
    {1, 1, CFG(1, 0.05, 1)}, {2, 2, CFG(1, 0.05, 2)}, {3, 1, CFG(4, 0.05, 1)},
    {4, 2, CFG(4, 0.05, 2)}, {5, 2, CFG(4, 0.05, 2)}, /* a repeat of seed 2: the latest */
};
static const ana_pair_run_t lr[] = {
    {1, 1, CFG(1, 0.2, 1)}, {2, 2, CFG(1, 0.2, 2)}, {3, 3, CFG(1, 0.2, 3)},
    {4, 1, CFG(4, 0.2, 1)}, {5, 1, CFG(8, 0.2, 1)},
};

static ana_match_t match(const char *on, const char *ignore)
{
    ana_match_t m = {{0}, {0}};
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

int main(void)
{
    by_configuration();
    ignore_and_match_on();
    bad_keys();
    return check_exit();
}
