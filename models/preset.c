/* The presets of preset.h, built from their architecture rather than typed in as a table of
 * numbers, so that the tensor list can be checked against the published totals (tests). */
#include "models/preset.h"

#include <stdlib.h>

#include "common/error.h"

const char *const model_preset_names[] = {"resnet50", NULL};

static void push(model_preset_t *p, uint64_t n)
{
    p->tensor_elems[p->ntensors++] = n;
    p->nparams += n;
}

/* A convolution without bias followed by batch normalisation (weight and bias). */
static void conv_bn(model_preset_t *p, uint64_t k, uint64_t in, uint64_t out)
{
    push(p, k * k * in * out);
    push(p, out);
    push(p, out);
}

static void resnet50(model_preset_t *p)
{
    p->tensor_elems = sgd_xmalloc(256 * sizeof *p->tensor_elems);
    conv_bn(p, 7, 3, 64);
    static const int blocks[4] = {3, 4, 6, 3};
    uint64_t in = 64;
    for (int stage = 0; stage < 4; stage++) {
        uint64_t width = 64u << stage, out = 4 * width;
        for (int b = 0; b < blocks[stage]; b++) {
            /* torchvision's order: conv1, bn1, conv2, bn2, conv3, bn3, then downsample. */
            conv_bn(p, 1, in, width);
            conv_bn(p, 3, width, width);
            conv_bn(p, 1, width, out);
            if (b == 0) conv_bn(p, 1, in, out);
            in = out;
        }
    }
    push(p, 2048 * 1000);
    push(p, 1000);
    p->forward_flops_per_sample = 2.0 * 4.09e9;
    p->train_flops_per_sample = 3.0 * p->forward_flops_per_sample;
}

void model_preset_build(model_preset_id_t id, model_preset_t *out)
{
    *out = (model_preset_t){.name = model_preset_names[id]};
    switch (id) {
    case MODEL_PRESET_RESNET50: resnet50(out); return;
    }
    sgd_die(__FILE__, __LINE__, "unknown preset %d", (int)id);
}

void model_preset_free(model_preset_t *p)
{
    free(p->tensor_elems);
    p->tensor_elems = NULL;
}
