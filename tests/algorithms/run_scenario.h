/* Shared by the algorithm tests: loads a scenario text with --set overrides and runs it,
 * optionally into a sink (a load or setup error is printed and counted as a failed check),
 * and compares two runs' final parameters bit for bit. */
#ifndef SGDSIM_TESTS_ALGORITHMS_RUN_SCENARIO_H
#define SGDSIM_TESTS_ALGORITHMS_RUN_SCENARIO_H

#include <stdbool.h>
#include <string.h>

#include "algorithms/alg.h"
#include "tests/check.h"

static inline alg_outcome_t run_scenario(const char *text, const char *display_name,
                                         const char *const *sets, int nsets,
                                         const alg_sink_t *sink)
{
    scn_override_t ov[32];
    SGD_ASSERT(nsets <= (int)(sizeof ov / sizeof ov[0]));
    for (int i = 0; i < nsets; i++) ov[i].assignment = sets[i];
    scn_t s;
    sgd_err_t err = {{0}};
    alg_outcome_t o;
    memset(&o, 0, sizeof o);
    if (scn_load_text(text, display_name, ".", ov, nsets, NULL, alg_scenario_table, &s, &err)) {
        fprintf(stderr, "load: %s\n", err.msg);
        check_failures++;
        return o;
    }
    if (alg_run(&s, sink, &o, &err)) {
        fprintf(stderr, "run: %s\n", err.msg);
        check_failures++;
    }
    scn_free(&s);
    return o;
}

/* True when both runs ended with parameters, as many and the same bits.  Two runs without
 * parameters (cost-only, or failed) are not "the same": a test comparing them would pass
 * whatever the algorithms did. */
static inline bool same_params(const alg_outcome_t *a, const alg_outcome_t *b)
{
    return a->nparams == b->nparams && a->nparams > 0 && a->final_params && b->final_params &&
           memcmp(a->final_params, b->final_params, a->nparams * sizeof(float)) == 0;
}

#endif
