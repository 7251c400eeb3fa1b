/* The algorithm registry of the test build: algorithms/registry.c's list and one line more,
 * the test-only rule of example_rule.c.  Linked into sgdsim_with_example ahead of the
 * algorithms library, whose own registry it replaces. */
#define ALGORITHMS_EXTRA(ALG, PS_RULE) PS_RULE(example)
#include "algorithms/registry.c"
