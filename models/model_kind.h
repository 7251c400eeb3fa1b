/* A model kind: everything sgdsim knows of one kind of model (softmax regression, MLPs,
 * convolutional networks, ...), as a const table of callbacks.  A kind is one file holding one
 * `const model_kind_t model_kind_x` and one line of the registry (models/model_registry.c,
 * MODEL_KINDS); the scenario loader, the runner, validate and the backends ask the table and
 * never name a kind.  docs/extending.md, "Adding a model", is the guide; the conformance
 * suite (tests/algorithms/test_model_conformance.c) checks every registered kind.
 *
 * What the shared code owns (models/model.c): the spec's common fields (ninputs, nclasses),
 * the model_t, its row-loss buffer and model_evaluate's chunking, the parameters' layout
 * convention (weight layers of W_l then b_l, model.h) and the initialisation drawn over it
 * (model_init.c), and the dispatch.  The scenario loader (config/scenario_model.c) owns the
 * model object's common keys -- "kind", "init", "cost_preset", and the cost-only "preset" --
 * and refuses a key of another kind with the kinds that take it.  What a kind owns: its keys
 * and their parser, its checks, its layers and their layout, its workspace and its numerics.
 *
 * Ownership: create returns the kind's state, which destroy releases; the layout it fills is
 * the model_t's and outlives that state, which may keep a pointer to it. */
#ifndef SGDSIM_MODELS_MODEL_KIND_H
#define SGDSIM_MODELS_MODEL_KIND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/error.h"
#include "common/json.h"
#include "models/model.h"

/* What the scenario says of the data before it is read, for a kind's parser: dim = the
 * values per sample (0: only the data files will tell, at run setup); classes = the data's
 * classes, or the most it may have. */
typedef struct model_data_shape {
    int dim;
    int classes;
} model_data_shape_t;

/* The conformance suite runs every kind's `example` on synthetic data of this shape. */
#define MODEL_EXAMPLE_DIM 36 /* a 6 x 6 image of one channel */
#define MODEL_EXAMPLE_CLASSES 4

struct model_kind {
    const char *name; /* model.kind in a scenario */
    /* A small model object of this kind for data of MODEL_EXAMPLE_DIM values per sample and
     * MODEL_EXAMPLE_CLASSES classes (JSON text, kind included): what the conformance suite
     * runs. */
    const char *example;
    /* The kind's own keys of the model object, NULL-terminated (the common keys are not
     * listed): the only keys parse may read. */
    const char *const *keys;
    /* Reads those keys of m into spec's kind-specific fields and writes their resolved values
     * (defaults filled in) to m->out: the sgd_jobj_* getters of common/json.h name the JSON
     * path in every error.  The resolved object is part of the configuration's hash, so a
     * kind writes the same keys in the same order for the same model. */
    int (*parse)(const sgd_jobj_t *m, const model_data_shape_t *data, model_spec_t *spec,
                 sgd_err_t *err);
    /* The kind's conditions on a spec (model_spec_check has checked ninputs >= 1 and
     * nclasses >= 2); messages name the path in the model object. */
    int (*check)(const model_spec_t *spec, sgd_err_t *err);
    /* Optional: what the data's shape decides, once ninputs is set (model_fit_input). */
    int (*fit_input)(model_spec_t *spec, sgd_err_t *err);
    /* Parameters, and bytes of workspace create allocates for max_batch samples (estimates:
     * the spec has passed fit_input, not necessarily check). */
    double (*nparams)(const model_spec_t *spec);
    double (*workspace_bytes)(const model_spec_t *spec, int64_t max_batch);
    /* Fills the layout (all but max_batch and cuda, which the caller has set) and returns the
     * kind's state with workspace for max_batch samples; the spec passes check. */
    void *(*create)(const model_spec_t *spec, int max_batch, model_layout_t *lay);
    void (*destroy)(void *state);
    /* model_loss_grad's and model_evaluate_rows's contracts (model.h). */
    double (*loss_grad)(void *state, const float *params, const float *x, const int32_t *y,
                        int batch, float *grad);
    int64_t (*evaluate_rows)(void *state, const float *params, const float *x,
                             const int32_t *y, int rows, double *row_loss);
    /* model_flops_per_sample's count, from the spec and its layout. */
    double (*flops_per_sample)(const model_spec_t *spec, const model_layout_t *lay);
    /* The model in a few words, e.g. "mlp 784-200-10" (model_describe adds the count). */
    void (*describe)(const model_spec_t *spec, char *buf, size_t size);
    /* What the CUDA plugin computes this kind as (model.h); MODEL_CUDA_NONE: the "cuda"
     * backend refuses it (the scenario loader too, exit 2). */
    model_cuda_net_t cuda;
};

/* The registry (models/model_registry.c): every kind, NULL-terminated, in the order of its
 * list; the kind a scenario gets without model.kind; the kind of that name, or NULL. */
extern const model_kind_t *const model_kinds[];
extern const char *const model_kind_default;
const model_kind_t *model_kind_find(const char *name);

/* A kind without fields of its own in model_spec_t keeps a struct in spec->payload (at most
 * MODEL_SPEC_PAYLOAD bytes, checked when compiled), copied in and out: */
#define MODEL_PAYLOAD_GET(spec, p)                                                        \
    do {                                                                                  \
        _Static_assert(sizeof *(p) <= MODEL_SPEC_PAYLOAD, "spec payload too large");      \
        memcpy((p), (spec)->payload, sizeof *(p));                                        \
    } while (0)
#define MODEL_PAYLOAD_SET(spec, p)                                                        \
    do {                                                                                  \
        _Static_assert(sizeof *(p) <= MODEL_SPEC_PAYLOAD, "spec payload too large");      \
        memcpy((spec)->payload, (p), sizeof *(p));                                        \
    } while (0)

#endif
