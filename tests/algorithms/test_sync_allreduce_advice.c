/* The refusal of an allreduce schedule too large to simulate (alg_sync_check_allreduce,
 * algorithms/sync.h) advises only what works: for every algorithm and a range of rank
 * counts, each algorithm the message says to use fits, the one configured is never among
 * them, and when none fits the most ranks it names is the largest count that fits. */
#include <stdio.h>
#include <string.h>

#include "algorithms/sync.h"
#include "sim/collective.h"
#include "tests/check.h"

#define LIMIT (UINT64_C(1) << 24)

static bool fits(int alg, int n)
{
    return sim_sched_allreduce_size((sim_allreduce_alg_t)alg, n) <= LIMIT;
}

static void check_advice(int alg, int n)
{
    scn_t s;
    memset(&s, 0, sizeof s);
    s.allreduce_alg = alg;
    sgd_err_t err = {{0}};
    int rc = alg_sync_check_allreduce(&s, n, "cluster.workers", &err);
    CHECK_INT_EQ(rc, fits(alg, n) ? 0 : -1);
    if (rc == 0) return;
    bool any = false;
    for (int a = 0; sim_allreduce_names[a]; a++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "use \"%s\"", sim_allreduce_names[a]);
        bool advised = strstr(err.msg, quoted) != NULL;
        snprintf(quoted, sizeof quoted, "or \"%s\"", sim_allreduce_names[a]);
        advised = advised || strstr(err.msg, quoted) != NULL;
        if (advised && (a == alg || !fits(a, n)))
            fprintf(stderr, "%d ranks, %s: advises %s: %s\n", n, sim_allreduce_names[alg],
                    sim_allreduce_names[a], err.msg);
        CHECK(!advised || (a != alg && fits(a, n)));
        any = any || (a != alg && fits(a, n));
    }
    if (!any) {
        const char *at = strstr(err.msg, "fits at most ");
        CHECK(at != NULL);
        CHECK_STR_CONTAINS(err.msg, "lower cluster.workers");
        int most = 0;
        if (at) sscanf(at, "fits at most %d", &most);
        CHECK(most >= 1 && most < n);
        CHECK(fits(1 /* recursive_doubling, the smallest */, most) && !fits(1, most + 1));
    }
}

int main(void)
{
    static const int ranks[] = {2, 2896, 2897, 5000, 65536, 300000, 400000, 600000, 1 << 20,
                                3000000, 100000000};
    for (int alg = 0; sim_allreduce_names[alg]; alg++)
        for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) check_advice(alg, ranks[i]);
    return check_exit();
}
