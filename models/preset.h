/* Cost-only model presets: the parameter tensors (their sizes, in the order a framework
 * lists them) and the FLOPs per sample of well-known networks, so that timing studies at
 * hundreds of GPUs can charge a real network's communication and compute without running its
 * numerics.  Pure data: nothing here knows about time; algorithms/ turns FLOPs into seconds
 * with the scenario's device speed.
 *
 * resnet50: torchvision's ResNet-50 (He et al., "Deep Residual Learning for Image
 *   Recognition", CVPR 2016, Table 1; torchvision.models.resnet50): conv1 7x7x3x64 + BN,
 *   bottleneck stages of [3, 4, 6, 3] blocks (1x1, 3x3, 1x1 convolutions, each followed by a
 *   BN with weight and bias; a 1x1 projection + BN on the first block of each stage), fc
 *   2048 -> 1000 with bias.  Convolutions have no bias.  161 tensors, 25,557,032 parameters,
 *   in the order of model.parameters().  FLOPs: forward 4.09e9 multiply-adds per 224x224
 *   image (torchvision's model card, "GFLOPS 4.09", which counts multiply-adds; He et al.
 *   Table 1 gives 3.8e9 -- we take the larger, measured count), i.e. 8.18e9 FLOPs counting
 *   a multiply-add as 2; backward taken as
 *   twice the forward (gradients with respect to activations and to weights, one product
 *   each), so 24.54e9 FLOPs per image for forward + backward.
 *
 * Ownership: model_preset_build fills a caller-allocated model_preset_t whose tensor array
 * it allocates; release it with model_preset_free. */
#ifndef SGDSIM_MODELS_PRESET_H
#define SGDSIM_MODELS_PRESET_H

#include <stddef.h>
#include <stdint.h>

typedef enum { MODEL_PRESET_RESNET50 } model_preset_id_t;

/* Names as written in scenarios, indexed by model_preset_id_t; NULL-terminated. */
extern const char *const model_preset_names[];

typedef struct model_preset {
    const char *name;
    int ntensors;
    uint64_t *tensor_elems;         /* ntensors parameter counts, in framework order */
    uint64_t nparams;               /* their sum */
    double forward_flops_per_sample; /* multiply-add = 2 FLOPs */
    double train_flops_per_sample;   /* forward + backward */
} model_preset_t;

void model_preset_build(model_preset_id_t id, model_preset_t *out);
void model_preset_free(model_preset_t *p);

#endif
