/* The model registry: MODEL_KINDS is the one list of model kinds -- one line per kind, KIND(x)
 * naming the table `const model_kind_t model_kind_x` of the kind's file (model_kind.h) --
 * from which model_kinds[] is made.  The scenario loader, the runner and the conformance
 * suite find kinds only here.  A test build adds its own lines with MODEL_KINDS_EXTRA
 * (tests/models/model_registry_with_example.c).  This file defines nothing else, so that the
 * test build's copy replaces it at link time. */
#include <string.h>

#include "models/model_kind.h"

#ifndef MODEL_KINDS_EXTRA
#define MODEL_KINDS_EXTRA(KIND)
#endif

#define MODEL_KINDS(KIND)                                                                 \
    KIND(softmax)                                                                         \
    KIND(mlp)                                                                             \
    KIND(cnn)                                                                             \
    MODEL_KINDS_EXTRA(KIND)

#define DECLARE_KIND(x) extern const model_kind_t model_kind_##x;
MODEL_KINDS(DECLARE_KIND)

#define TABLE_OF_KIND(x) &model_kind_##x,
const model_kind_t *const model_kinds[] = {MODEL_KINDS(TABLE_OF_KIND) NULL};

/* A scenario without model.kind trains an MLP (docs/scenario.md). */
const char *const model_kind_default = "mlp";

const model_kind_t *model_kind_find(const char *name)
{
    for (const model_kind_t *const *k = model_kinds; *k; k++)
        if (strcmp((*k)->name, name) == 0) return *k;
    return NULL;
}
