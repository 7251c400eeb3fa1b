/* The algorithm registry: ALGORITHMS is the one list -- one line per algorithm -- from which
 * both the runner's table (alg_registry) and the scenario loader's (alg_scenario_table) are
 * made.  ALG(x) is an algorithm of its own (alg_ops_t alg_x), PS_RULE(x) a rule of the
 * parameter-server family (ps_rule_t ps_rule_x, in rules/x.c).  A test build adds its own
 * lines with ALGORITHMS_EXTRA (tests/algorithms/registry_with_example.c). */
#include <string.h>

#include "algorithms/alg.h"
#include "algorithms/ps_rule.h"

#ifndef ALGORITHMS_EXTRA
#define ALGORITHMS_EXTRA(ALG, PS_RULE)
#endif

#define ALGORITHMS(ALG, PS_RULE)                                                          \
    ALG(csgd)                                                                             \
    ALG(lsgd)                                                                             \
    PS_RULE(sasgd)                                                                        \
    PS_RULE(fasgd)                                                                        \
    PS_RULE(bfasgd)                                                                       \
    PS_RULE(downpour)                                                                     \
    PS_RULE(hardsync)                                                                     \
    PS_RULE(dcasgd)                                                                       \
    PS_RULE(fedavg)                                                                       \
    PS_RULE(fedasync)                                                                     \
    PS_RULE(fedbuff)                                                                      \
    ALGORITHMS_EXTRA(ALG, PS_RULE)

#define DECLARE_ALG(x) extern const alg_ops_t alg_##x;
#define DECLARE_PS_RULE(x) extern const ps_rule_t ps_rule_##x;
ALGORITHMS(DECLARE_ALG, DECLARE_PS_RULE)

#define OPS_OF_ALG(x) &alg_##x,
#define OPS_OF_PS_RULE(x) &ps_rule_##x.ops,
const alg_ops_t *const alg_registry[] = {ALGORITHMS(OPS_OF_ALG, OPS_OF_PS_RULE) NULL};

#define SCENARIO_OF_ALG(x) &alg_##x.scenario,
#define SCENARIO_OF_PS_RULE(x) &ps_rule_##x.ops.scenario,
const scn_algorithm_t *const alg_scenario_table[] = {
    ALGORITHMS(SCENARIO_OF_ALG, SCENARIO_OF_PS_RULE) NULL};

const alg_ops_t *alg_find(const char *name)
{
    for (const alg_ops_t *const *a = alg_registry; *a; a++)
        if (strcmp((*a)->scenario.name, name) == 0) return *a;
    return NULL;
}
