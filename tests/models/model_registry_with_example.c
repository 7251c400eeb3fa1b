/* The model registry of the test build: models/model_registry.c's list and one line more,
 * the test-only kind of example_model.c.  Linked into sgdsim_with_example_model and the
 * example conformance suite ahead of the models library, whose own registry it replaces. */
#define MODEL_KINDS_EXTRA(KIND) KIND(example)
#include "models/model_registry.c"
