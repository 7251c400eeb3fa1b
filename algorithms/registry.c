/* The algorithm registry: one line per algorithm. */
#include <string.h>

#include "algorithms/alg.h"

extern const alg_ops_t alg_csgd;
extern const alg_ops_t alg_lsgd;

const alg_ops_t *const alg_registry[] = {&alg_csgd, &alg_lsgd, NULL};
const scn_algorithm_t *const alg_scenario_table[] = {&alg_csgd.scenario, &alg_lsgd.scenario,
                                                     NULL};

const alg_ops_t *alg_find(const char *name)
{
    for (const alg_ops_t *const *a = alg_registry; *a; a++)
        if (strcmp((*a)->scenario.name, name) == 0) return *a;
    return NULL;
}
