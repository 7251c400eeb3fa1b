/* The direct one-channel convolution (models/cnn_direct.h) against a double-precision
 * reference of the same convolution, forward and weight/bias gradients, on shapes that put
 * the kernels' blocks on, past and short of the output rows' ends (one pixel, exactly one
 * block, odd widths, many channels, padding wider than the kernel's reach), output rows in
 * pairs and one left over, and kernel rows in one, two and three weight-gradient passes; and
 * every instruction set's kernels this CPU runs give the same bits as the best one's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "models/cnn_direct.h"
#include "tests/check.h"

typedef struct {
    int h, w, oc, k, pad;
} shape_t;

static cnn_geom_t geometry(shape_t s)
{
    cnn_spec_t spec = {.in_h = s.h, .in_w = s.w, .in_c = 1, .nlayers = 1,
                       .layer = {{CNN_CONV, s.oc, s.k, 1, s.pad}}};
    cnn_geom_t g[CNN_MAX_GEOMS];
    int n;
    sgd_err_t err = {{0}};
    if (cnn_geometry(&spec, 2, g, &n, &err) != 0) {
        fprintf(stderr, "bad test shape: %s\n", err.msg);
        exit(1);
    }
    CHECK(cnn_direct_applies(&g[0]));
    return g[0];
}

/* Input pixel (y, x) of sample b, 0 in the padding. */
static double pixel(const cnn_geom_t *g, const float *in, int b, int y, int x)
{
    if (y < 0 || y >= g->ih || x < 0 || x >= g->iw) return 0.0;
    return in[(size_t)b * (size_t)g->in_size + (size_t)y * (size_t)g->iw + (size_t)x];
}

static void check_close(double got, double want, double scale, const char *what)
{
    if (!(fabs(got - want) <= 1e-5 * scale + 1e-30)) {
        fprintf(stderr, "%s: got %.9g, want %.9g (scale %.3g)\n", what, got, want, scale);
        CHECK(fabs(got - want) <= 1e-5 * scale + 1e-30);
    }
}

static void check_forward(const cnn_geom_t *g, const float *W, const float *b, bool relu,
                          const float *in, int batch, const float *out)
{
    for (int s = 0; s < batch; s++)
        for (int oy = 0; oy < g->oh; oy++)
            for (int ox = 0; ox < g->ow; ox++)
                for (int o = 0; o < g->oc; o++) {
                    double sum = b[o], scale = fabs(b[o]);
                    for (int ky = 0; ky < g->k; ky++)
                        for (int kx = 0; kx < g->k; kx++) {
                            double t = pixel(g, in, s, oy + ky - g->pad, ox + kx - g->pad) *
                                       W[(ky * g->k + kx) * g->oc + o];
                            sum += t, scale += fabs(t);
                        }
                    if (relu && sum < 0) sum = 0;
                    size_t at = (size_t)s * (size_t)g->out_size +
                                ((size_t)oy * (size_t)g->ow + (size_t)ox) * (size_t)g->oc +
                                (size_t)o;
                    check_close(out[at], sum, scale, "forward");
                }
}

static void check_grad(const cnn_geom_t *g, const float *in, const float *d, int batch,
                       const float *dW, const float *db)
{
    for (int o = 0; o < g->oc; o++) {
        for (int t = 0; t <= g->k * g->k; t++) {
            double sum = 0, scale = 0;
            for (int s = 0; s < batch; s++)
                for (int oy = 0; oy < g->oh; oy++)
                    for (int ox = 0; ox < g->ow; ox++) {
                        double dv = d[(size_t)s * (size_t)g->out_size +
                                      ((size_t)oy * (size_t)g->ow + (size_t)ox) * (size_t)g->oc +
                                      (size_t)o];
                        double x = t == g->k * g->k
                                       ? 1.0
                                       : pixel(g, in, s, oy + t / g->k - g->pad,
                                               ox + t % g->k - g->pad);
                        sum += x * dv, scale += fabs(x * dv);
                    }
            check_close(t == g->k * g->k ? db[o] : dW[t * g->oc + o], sum, scale,
                        t == g->k * g->k ? "bias gradient" : "weight gradient");
        }
    }
}

typedef struct {
    const float *d;
    size_t size;
} copy_src_t;

static void copy_sample(void *ctx, int s, float *dsample)
{
    const copy_src_t *c = ctx;
    memcpy(dsample, c->d + (size_t)s * c->size, c->size * sizeof *dsample);
}

static float *random_floats(gsl_rng *r, size_t n)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = (float)(gsl_rng_uniform(r) * 2.0 - 1.0);
    return v;
}

static void one_shape(gsl_rng *r, shape_t sh, int batch, bool relu)
{
    const cnn_geom_t g = geometry(sh);
    const size_t taps = (size_t)g.k * (size_t)g.k, oc = (size_t)g.oc;
    const size_t nin = (size_t)batch * (size_t)g.in_size, nout = (size_t)batch * (size_t)g.out_size;
    float *in = random_floats(r, nin), *W = random_floats(r, taps * oc);
    float *b = random_floats(r, oc), *d = random_floats(r, nout);
    float *ws = malloc(cnn_direct_workspace_floats(&g, batch) * sizeof *ws);
    float *out0 = malloc(nout * sizeof *out0), *out = malloc(nout * sizeof *out);
    float *dW0 = malloc(taps * oc * sizeof *dW0), *dW = malloc(taps * oc * sizeof *dW);
    float *db0 = malloc(oc * sizeof *db0), *db = malloc(oc * sizeof *db);
    copy_src_t src = {d, (size_t)g.out_size};

    cnn_direct_forward(&g, W, b, relu, in, batch, ws, out0);
    check_forward(&g, W, b, relu, in, batch, out0);
    cnn_direct_weight_grad(&g, copy_sample, &src, batch, ws, dW0, db0);
    check_grad(&g, in, d, batch, dW0, db0);
    for (int i = 1; cnn_direct_isa(i); i++) {
        cnn_direct_forward_isa(i, &g, W, b, relu, in, batch, ws, out);
        cnn_direct_weight_grad_isa(i, &g, copy_sample, &src, batch, ws, dW, db);
        if (memcmp(out, out0, nout * sizeof *out) != 0 ||
            memcmp(dW, dW0, taps * oc * sizeof *dW) != 0 || memcmp(db, db0, oc * sizeof *db) != 0)
            fprintf(stderr, "%s differs from %s on %dx%d k%d pad%d oc%d\n", cnn_direct_isa(i),
                    cnn_direct_isa(0), sh.h, sh.w, sh.k, sh.pad, sh.oc);
        CHECK(memcmp(out, out0, nout * sizeof *out) == 0);
        CHECK(memcmp(dW, dW0, taps * oc * sizeof *dW) == 0);
        CHECK(memcmp(db, db0, oc * sizeof *db) == 0);
    }
    free(in), free(W), free(b), free(d), free(ws), free(out0), free(out);
    free(dW0), free(dW), free(db0), free(db);
}

int main(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    static const shape_t shapes[] = {
        {28, 28, 6, 5, 2},  /* LeNet-5's first layer: rows of 168 floats */
        {3, 3, 1, 2, 0},    /* 2 x 2 output, one channel: a row far shorter than a block */
        {8, 8, 8, 1, 0},    /* 1 x 1 kernel, rows of exactly one block */
        {9, 7, 5, 3, 1},    /* odd sizes */
        {13, 11, 11, 4, 3}, /* padding wider than the kernel reaches */
        {20, 33, 16, 5, 0}, /* wide rows, many channels */
        {1, 1, 3, 1, 0},    /* one pixel */
        {13, 10, 3, 7, 1},  /* 7 x 7 kernel: a kernel row in two weight-gradient passes */
        {15, 12, 2, 11, 2}, /* 11 x 11 kernel: three passes, an odd number of output rows */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int batch = 1; batch <= 3; batch += 2) {
            one_shape(r, shapes[i], batch, false);
            one_shape(r, shapes[i], batch, true);
        }
    printf("instruction sets compared:");
    for (int i = 0; cnn_direct_isa(i); i++) printf(" %s", cnn_direct_isa(i));
    printf("\n");
    gsl_rng_free(r);
    return check_exit();
}
