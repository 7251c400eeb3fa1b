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

/* "A, B, C" into out: every registered algorithm, in registry order, that takes the keys of
 * `kv` when scenario `base` (JSON text, its file called `path`) is loaded with algorithm =
 * {"name": NAME, <kv>} -- kv one member, such as "\"staleness\": \"paper\"".  A rule that
 * refuses only the value (FedAsync's staleness is a function of its own) still takes the
 * key: it loads, or its refusal names algorithm.KEY for a reason other than "only valid with
 * name" or "unknown key" (an algorithm outside the family takes no rule's keys). */
static inline void rule_takers(const char *base, const char *path, const char *kv, char *out,
                               size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    char path_of_key[128]; /* "algorithm.KEY:" from kv's first quoted string */
    const char *k = strchr(kv, '"'), *end = k ? strchr(k + 1, '"') : NULL;
    snprintf(path_of_key, sizeof path_of_key, "algorithm.%.*s:", end ? (int)(end - k - 1) : 0,
             end ? k + 1 : "");
    for (const alg_ops_t *const *a = alg_registry; *a; a++) {
        char set[512];
        snprintf(set, sizeof set, "algorithm={\"name\": \"%s\", %s}", (*a)->scenario.name, kv);
        scn_override_t ov[] = {{set}};
        scn_t s;
        sgd_err_t err = {{0}};
        if (scn_load_text(base, path, ".", ov, 1, NULL, alg_scenario_table, &s, &err) == 0)
            scn_free(&s);
        else if (!strstr(err.msg, path_of_key) || strstr(err.msg, "only valid with name") ||
                 strstr(err.msg, "unknown key"))
            continue;
        len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s", len ? ", " : "",
                                (*a)->scenario.name);
    }
}

#endif
