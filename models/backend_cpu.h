/* The "cpu" backend: the reference implementation of backend.h's interface, on OpenBLAS.
 * Private to models/: callers get it through sgd_backend_create("cpu", ...).
 *
 * Ownership: fills a caller-allocated sgd_backend_t that borrows `model`; released by
 * sgd_backend_destroy. */
#ifndef SGDSIM_MODELS_BACKEND_CPU_H
#define SGDSIM_MODELS_BACKEND_CPU_H

#include "models/backend.h"

void sgd_backend_cpu_create(model_t *model, sgd_backend_t *out);

#endif
