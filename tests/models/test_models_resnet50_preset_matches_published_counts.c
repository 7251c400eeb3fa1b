/* The ResNet-50 preset, built from the architecture, matches the published facts: 161
 * parameter tensors, 25,557,032 parameters (torchvision), 99 tensors of at most 4 KiB and 18
 * tensors over 1 MiB carrying 82% of the bytes (docs/papers.md, from the LSGD authors'
 * code), the first and last tensors, and 3 x 8.18 GFLOPs per image for forward + backward. */
#include "models/preset.h"
#include "tests/check.h"

int main(void)
{
    model_preset_t p;
    model_preset_build(MODEL_PRESET_RESNET50, &p);
    CHECK(strcmp(p.name, "resnet50") == 0);
    CHECK_INT_EQ(p.ntensors, 161);
    CHECK_INT_EQ(p.nparams, 25557032);
    uint64_t sum = 0, big_bytes = 0;
    int small = 0, big = 0;
    for (int i = 0; i < p.ntensors; i++) {
        uint64_t bytes = 4 * p.tensor_elems[i];
        sum += p.tensor_elems[i];
        if (bytes <= 4096) small++;
        if (bytes > 1048576) big++, big_bytes += bytes;
    }
    CHECK_INT_EQ(sum, p.nparams);
    CHECK_INT_EQ(small, 99);
    CHECK_INT_EQ(big, 18);
    CHECK_NEAR((double)big_bytes / (4.0 * (double)p.nparams), 0.82, 0.005);
    CHECK_INT_EQ(p.tensor_elems[0], 7 * 7 * 3 * 64);     /* conv1.weight */
    CHECK_INT_EQ(p.tensor_elems[159], 2048 * 1000);      /* fc.weight */
    CHECK_INT_EQ(p.tensor_elems[160], 1000);             /* fc.bias */
    CHECK_INT_EQ(p.tensor_elems[15], 256 * 64);          /* layer1.0.downsample.0.weight */
    CHECK_NEAR(p.train_flops_per_sample, 3 * 8.18e9, 1e6);
    model_preset_free(&p);
    return check_exit();
}
