/* bench_cuda_grad: how close the CUDA backend's gradient comes to cuBLAS on the same shapes.
 *
 * For MLPs and LeNet-5, and one stacked or batched shape each, it measures, in the same run:
 *   grad   -- the backend's forward + backward with everything on the device (what
 *             sync_step and loss_grad_batched run per call, minus host transfers), GFLOP/s
 *             by model_flops_per_sample (GEMM FLOPs only, as bench_mlp_grad counts them);
 *   sgemm  -- only its cuBLAS calls, same shapes, transposes, strides and order;
 *   cpu    -- model_loss_grad on one OpenBLAS thread (the CPU backend) on the same shape;
 * and prints grad/sgemm (what the non-GEMM kernels cost: bias, ReLU, softmax, reductions, and
 * for LeNet-5 im2col, col2im and pooling) and grad/cpu.  Shapes: k = 1 x 8192 rows is one
 * CSGD update of 256 workers x 32; k = 64 x 32 rows is 64 asynchronous clients' gradients in
 * one strided-batched call.
 * Exits 77 without CUDA or without a device.  Each figure is the best of several timings.
 * The CUDA plugin is not next to this executable: run it with SGDSIM_CUDA_PLUGIN naming the
 * build's libsgd_cuda.so, as bench/gpu_check.sh does. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cblas.h>
#include <gsl/gsl_rng.h>

#include "models/backend.h"
#include "models/model.h"
#include "models/model_kind.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best seconds per model_loss_grad call over k requests of `batch` rows (looping, as the CPU
 * backend does). */
static double cpu_seconds(model_t *m, int k, int batch, gsl_rng *r)
{
    size_t np = model_nparams(m), nx = (size_t)batch * (size_t)model_spec(m)->ninputs;
    float *p = malloc(np * sizeof *p), *g = malloc(np * sizeof *g), *x = malloc(nx * sizeof *x);
    int32_t *y = malloc((size_t)batch * sizeof *y);
    model_init_params(m, p, MODEL_INIT_HE, r);
    for (size_t i = 0; i < nx; i++) x[i] = (float)gsl_rng_uniform(r);
    const unsigned long nclasses = (unsigned long)model_spec(m)->nclasses;
    for (int i = 0; i < batch; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, nclasses);
    double best = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (int i = 0; i < k; i++) model_loss_grad(m, p, x, y, batch, g);
        double t = now() - t0;
        if (t < best) best = t;
    }
    free(p), free(g), free(x), free(y);
    return best;
}

static model_spec_t lenet5(void)
{
    return (model_spec_t){.kind = model_kind_find("cnn"), .ninputs = 784, .nclasses = 10,
                          .cnn = cnn_lenet5()};
}

int main(void)
{
    if (sgd_backend_cuda_devices() == 0) {
        printf("bench_cuda_grad: no usable CUDA device (or a build without CUDA): skipping\n");
        return 77;
    }
    openblas_set_num_threads(1);
    char dev[256];
    sgd_backend_cuda_device_name(dev, sizeof dev);
    printf("bench_cuda_grad: device %s; CPU reference: one OpenBLAS thread, core %s\n", dev,
           openblas_get_corename());
    /* nhidden -1: LeNet-5 on 28 x 28 images (docs/scenario.md, "layers": "lenet5") */
    static const struct {
        const char *name;
        int nhidden, hidden[3], k, batch;
    } shapes[] = {
        {"784-200-10", 1, {200}, 1, 8192},
        {"784-256-10", 1, {256}, 1, 8192},
        {"784-1024-1024-10", 2, {1024, 1024}, 1, 8192},
        {"lenet5", -1, {0}, 1, 8192},
        {"784-200-10", 1, {200}, 64, 32},
        {"784-256-10", 1, {256}, 64, 32},
        {"784-1024-1024-10", 2, {1024, 1024}, 64, 32},
        {"lenet5", -1, {0}, 64, 32},
    };
    printf("%-18s %4s %5s %10s %10s %10s %10s %11s %9s\n", "model", "k", "batch", "GFLOP/call",
           "grad GF/s", "sgemm GF/s", "cpu GF/s", "grad/sgemm", "grad/cpu");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        model_spec_t s = shapes[i].nhidden < 0 ? lenet5() : (model_spec_t){
            .kind = model_kind_find("mlp"), .ninputs = 784, .nclasses = 10,
            .nhidden = shapes[i].nhidden};
        for (int h = 0; h < s.nhidden; h++) s.hidden[h] = shapes[i].hidden[h];
        int k = shapes[i].k, b = shapes[i].batch;
        model_t *m = model_create(&s, b);
        double tg, ts;
        sgd_err_t err = {{0}};
        if (sgd_backend_cuda_bench_grad(m, k, b, 7, &tg, &ts, &err)) {
            fprintf(stderr, "bench_cuda_grad: %s\n", err.msg);
            return 1;
        }
        double tc = cpu_seconds(m, k, b, r);
        double flops = model_flops_per_sample(m) * (double)b * k;
        printf("%-18s %4d %5d %10.3f %10.1f %10.1f %10.1f %11.3f %9.1f\n", shapes[i].name, k, b,
               flops * 1e-9, flops / tg * 1e-9, flops / ts * 1e-9, flops / tc * 1e-9, ts / tg,
               tc / tg);
        model_destroy(m);
    }
    gsl_rng_free(r);
    return 0;
}
