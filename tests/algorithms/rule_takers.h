/* The registered algorithms that take an option, as the loader finds them: what a test
 * expects the refusal of that option to list ("algorithm.staleness: only valid with name
 * A, B, C, not ..."), derived from the registry instead of written out, so that a rule added
 * as docs/extending.md says joins the expectation by itself. */
#ifndef SGDSIM_TESTS_ALGORITHMS_RULE_TAKERS_H
#define SGDSIM_TESTS_ALGORITHMS_RULE_TAKERS_H

#include <stdio.h>
#include <string.h>

#include "algorithms/alg.h"
#include "config/scenario.h"

/* "A, B, C" into out: every registered algorithm, in registry order, that loads scenario
 * `base` (JSON text, its file called `path`) with algorithm = {"name": NAME, <kv>} -- kv one
 * or more members, such as "\"staleness\": \"paper\"". */
static inline void rule_takers(const char *base, const char *path, const char *kv, char *out,
                               size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (const alg_ops_t *const *a = alg_registry; *a; a++) {
        char set[512];
        snprintf(set, sizeof set, "algorithm={\"name\": \"%s\", %s}", (*a)->scenario.name, kv);
        scn_override_t ov[] = {{set}};
        scn_t s;
        sgd_err_t err = {{0}};
        if (scn_load_text(base, path, ".", ov, 1, NULL, alg_scenario_table, &s, &err)) continue;
        scn_free(&s);
        len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s", len ? ", " : "",
                                (*a)->scenario.name);
    }
}

#endif
