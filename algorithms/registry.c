/* The algorithm registry: one line per algorithm. */
#include <string.h>

#include "algorithms/alg.h"

extern const alg_ops_t alg_csgd;
extern const alg_ops_t alg_lsgd;
extern const alg_ops_t alg_sasgd, alg_fasgd, alg_bfasgd, alg_downpour, alg_hardsync; /* ps.c */

const alg_ops_t *const alg_registry[] = {&alg_csgd,   &alg_lsgd,     &alg_sasgd,
                                         &alg_fasgd,  &alg_bfasgd,   &alg_downpour,
                                         &alg_hardsync, NULL};
const scn_algorithm_t *const alg_scenario_table[] = {
    &alg_csgd.scenario,   &alg_lsgd.scenario,     &alg_sasgd.scenario, &alg_fasgd.scenario,
    &alg_bfasgd.scenario, &alg_downpour.scenario, &alg_hardsync.scenario, NULL};

const alg_ops_t *alg_find(const char *name)
{
    for (const alg_ops_t *const *a = alg_registry; *a; a++)
        if (strcmp((*a)->scenario.name, name) == 0) return *a;
    return NULL;
}
