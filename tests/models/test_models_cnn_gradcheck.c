/* Gradient check of convolutional networks (models/cnn.h): model_loss_grad's float gradient
 * against central finite differences of an independent double-precision reference -- a
 * direct convolution (no im2col), direct pooling and fc layers written from cnn.h's
 * definitions -- for every layer type and whole networks (stride, padding, odd sizes,
 * overlapping pool windows, a pool on a pool, several channels, a pool first, a 1 x 1 conv,
 * LeNet-5 on a smaller image).  Every parameter of every network is checked.
 *
 * The differences are taken on the reference in double (eps = 1e-6, error ~1e-10), so the
 * tolerance only has to absorb the float gradient's rounding:
 *     |analytic - numeric| <= 2e-3 * max(|analytic|, |numeric|) + 2e-5.
 * The reference's loss must also match the float loss within 1e-5 relative, which checks the
 * forward pass on its own.  Kinks: a difference across a ReLU's zero or a max-pool tie is not
 * a derivative, so parameters and inputs are redrawn until every ReLU pre-activation is at
 * least MARGIN from 0 and every max window's winner leads its runner-up by MARGIN (a change
 * of eps moves either by far less). */
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/model.h"
#include "models/model_kind.h"
#include "tests/check.h"

#define EPS 1e-6
#define RTOL 2e-3
#define ATOL 2e-5
#define MARGIN 1e-4
#define BATCH 3

typedef struct ref { /* the reference's scratch: one sample's activations per layer */
    double *act[CNN_MAX_GEOMS + 1];
    double margin; /* smallest kink distance seen */
} ref_t;

static void ref_window(const cnn_geom_t *g, const double *in, const double *p, size_t woff,
                       size_t boff, double *out, double *margin)
{
    for (int oy = 0; oy < g->oh; oy++)
        for (int ox = 0; ox < g->ow; ox++)
            for (int o = 0; o < g->oc; o++) {
                double acc = g->op == CNN_CONV ? p[boff + (size_t)o] : 0.0, best = -INFINITY,
                       second = -INFINITY;
                for (int ky = 0; ky < g->k; ky++)
                    for (int kx = 0; kx < g->k; kx++) {
                        int iy = oy * g->stride - g->pad + ky, ix = ox * g->stride - g->pad + kx;
                        bool inside = iy >= 0 && iy < g->ih && ix >= 0 && ix < g->iw;
                        if (g->op != CNN_CONV) {
                            double v = in[(iy * g->iw + ix) * g->ic + o];
                            acc += v;
                            if (v > best) second = best, best = v;
                            else if (v > second) second = v;
                            continue;
                        }
                        for (int c = 0; inside && c < g->ic; c++)
                            acc += in[(iy * g->iw + ix) * g->ic + c] *
                                   p[woff + (size_t)(((ky * g->k + kx) * g->ic + c) * g->oc + o)];
                    }
                double *dst = &out[(oy * g->ow + ox) * g->oc + o];
                if (g->op == CNN_POOL_MAX) {
                    *dst = best;
                    /* Ties of ReLU zeros stay zeros under a perturbation (their units
                     * are MARGIN below 0): only a positive winner's lead matters. */
                    if (g->k > 1 && !(best == 0.0 && second == 0.0))
                        *margin = fmin(*margin, best - second);
                } else {
                    *dst = g->op == CNN_POOL_AVG ? acc / (g->k * g->k) : acc;
                }
            }
}

static double ref_loss(const model_t *m, ref_t *r, const double *p, const float *x,
                       const int32_t *y, int batch)
{
    const int n = model_layout(m)->ngeoms;
    const cnn_geom_t *g = model_layout(m)->geom;
    double loss = 0.0;
    for (int b = 0; b < batch; b++) {
        for (int64_t j = 0; j < g[0].in_size; j++) r->act[0][j] = x[b * g[0].in_size + j];
        for (int i = 0; i < n; i++) {
            const double *in = r->act[i];
            double *out = r->act[i + 1];
            size_t woff = g[i].wl >= 0 ? model_layer_offset(m, g[i].wl, false) : 0;
            size_t boff = g[i].wl >= 0 ? model_layer_offset(m, g[i].wl, true) : 0;
            if (g[i].op == CNN_FC) {
                for (int o = 0; o < g[i].oc; o++) {
                    out[o] = p[boff + (size_t)o];
                    for (int64_t j = 0; j < g[i].kdim; j++)
                        out[o] += in[j] * p[woff + (size_t)(j * g[i].oc + o)];
                }
            } else {
                ref_window(&g[i], in, p, woff, boff, out, &r->margin);
            }
            if (g[i].relu)
                for (int64_t j = 0; j < g[i].out_size; j++) {
                    r->margin = fmin(r->margin, fabs(out[j]));
                    out[j] = out[j] > 0 ? out[j] : 0;
                }
        }
        const double *z = r->act[n];
        double mx = z[0], s = 0;
        for (int c = 1; c < g[n - 1].oc; c++) mx = fmax(mx, z[c]);
        for (int c = 0; c < g[n - 1].oc; c++) s += exp(z[c] - mx);
        loss += mx + log(s) - z[y[b]];
    }
    return loss / batch;
}

static void draw(gsl_rng *r, const model_t *m, float *params, float *x, int32_t *y, int nx)
{
    model_init_params(m, params, MODEL_INIT_HE, r);
    for (int l = 0; l < model_nlayers(m); l++) /* non-zero biases: bias gradients matter */
        for (int j = 0; j < model_layer_fan_out(m, l); j++)
            params[model_layer_offset(m, l, true) + (size_t)j] = (float)gsl_ran_gaussian(r, 0.2);
    for (int j = 0; j < nx; j++) x[j] = (float)gsl_rng_uniform(r);
    for (int b = 0; b < BATCH; b++)
        y[b] = (int32_t)gsl_rng_uniform_int(r, (unsigned long)model_spec(m)->nclasses);
}

static void gradcheck(const char *name, const model_spec_t *spec, unsigned long seed)
{
    model_t *m = model_create(spec, BATCH);
    const size_t np = model_nparams(m);
    const int nx = BATCH * spec->ninputs;
    float *params = malloc(np * sizeof *params), *grad = malloc(np * sizeof *grad);
    float *x = malloc((size_t)nx * sizeof *x);
    double *p = malloc(np * sizeof *p);
    int32_t y[BATCH];
    ref_t r = {.margin = INFINITY};
    const int n = model_layout(m)->ngeoms;
    const cnn_geom_t *g = model_layout(m)->geom;
    for (int i = 0; i <= n; i++)
        r.act[i] = malloc((size_t)(i == 0 ? g[0].in_size : g[i - 1].out_size) * sizeof(double));
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    int tries = 0;
    do {
        draw(rng, m, params, x, y, nx);
        for (size_t k = 0; k < np; k++) p[k] = params[k];
        r.margin = INFINITY;
        ref_loss(m, &r, p, x, y, BATCH);
    } while (r.margin < MARGIN && ++tries < 200);
    CHECK(tries < 200);
    double lf = model_loss_grad(m, params, x, y, BATCH, grad);
    double lr = ref_loss(m, &r, p, x, y, BATCH);
    CHECK_NEAR(lf, lr, 1e-5 * fabs(lr));
    int bad = 0;
    double worst = 0.0;
    for (size_t k = 0; k < np; k++) {
        double orig = p[k];
        p[k] = orig + EPS;
        double hi = ref_loss(m, &r, p, x, y, BATCH);
        p[k] = orig - EPS;
        double lo = ref_loss(m, &r, p, x, y, BATCH);
        p[k] = orig;
        double num = (hi - lo) / (2 * EPS), ana = grad[k];
        double tol = RTOL * fmax(fabs(ana), fabs(num)) + ATOL;
        worst = fmax(worst, fabs(ana - num) / tol);
        if (!(fabs(ana - num) <= tol) && bad++ < 5)
            fprintf(stderr, "  %s: param %zu analytic %.8g numeric %.8g\n", name, k, ana, num);
    }
    CHECK_INT_EQ(bad, 0);
    printf("%-28s %6zu params  loss %.6f  worst |err|/tol %.3f  (%d redraws)\n", name, np, lf,
           worst, tries);
    for (int i = 0; i <= n; i++) free(r.act[i]);
    gsl_rng_free(rng);
    free(params), free(grad), free(x), free(p);
    model_destroy(m);
}

static model_spec_t net(int h, int w, int c, int classes, int nl, const cnn_layer_spec_t *l)
{
    model_spec_t s = {.kind = model_kind_find("cnn"), .ninputs = h * w * c, .nclasses = classes,
                      .cnn = {.in_h = h, .in_w = w, .in_c = c, .nlayers = nl}};
    for (int i = 0; i < nl; i++) s.cnn.layer[i] = l[i];
    return s;
}

#define CONV(o, k_, s_, p_) {.op = CNN_CONV, .out = (o), .k = (k_), .stride = (s_), .pad = (p_)}
#define MAXP(k_, s_) {.op = CNN_POOL_MAX, .k = (k_), .stride = (s_)}
#define AVGP(k_, s_) {.op = CNN_POOL_AVG, .k = (k_), .stride = (s_)}
#define FC(o) {.op = CNN_FC, .out = (o)}

int main(void)
{
    const cnn_layer_spec_t conv_only[] = {CONV(3, 3, 1, 1)};
    const cnn_layer_spec_t strided[] = {CONV(4, 3, 2, 1), FC(5)};
    const cnn_layer_spec_t conv_max_fc[] = {CONV(3, 3, 1, 0), MAXP(2, 2), FC(6)};
    const cnn_layer_spec_t conv_avg[] = {CONV(2, 2, 1, 1), AVGP(3, 2)};
    const cnn_layer_spec_t overlap_max[] = {CONV(2, 3, 1, 1), MAXP(3, 2), CONV(3, 2, 1, 0)};
    const cnn_layer_spec_t pool_on_pool[] = {CONV(2, 3, 1, 1), MAXP(2, 1), MAXP(2, 2), FC(4)};
    const cnn_layer_spec_t pool_first[] = {MAXP(2, 2), CONV(2, 3, 1, 1), FC(4)};
    const cnn_layer_spec_t fc_only[] = {FC(7), FC(5)};
    const cnn_layer_spec_t one_by_one[] = {CONV(4, 1, 1, 0), AVGP(2, 1)};
    /* one input channel at stride 1: models/cnn_direct.c, under an average pool (the ReLU's
     * mask applied per sample), and second, after a conv to one channel (its input
     * gradient through sgemm and col2im) */
    const cnn_layer_spec_t direct_avg[] = {CONV(3, 3, 1, 1), AVGP(2, 2), FC(4)};
    const cnn_layer_spec_t direct_second[] = {CONV(1, 3, 1, 1), CONV(3, 2, 1, 0), MAXP(2, 2)};
    const cnn_layer_spec_t lenet_small[] = {CONV(4, 5, 1, 2), MAXP(2, 2), CONV(6, 5, 1, 0),
                                            MAXP(2, 2), FC(12), FC(8)};
    struct { const char *name; model_spec_t spec; } nets[] = {
        {"conv k3 pad1", net(6, 6, 2, 3, 1, conv_only)},
        {"conv k3 stride2 pad1, odd", net(7, 7, 3, 4, 2, strided)},
        {"conv + max pool + fc", net(8, 8, 1, 3, 3, conv_max_fc)},
        {"conv pad1 + avg pool 3/2", net(5, 7, 2, 3, 2, conv_avg)},
        {"max pool 3/2 overlapping", net(9, 9, 1, 3, 3, overlap_max)},
        {"pool first", net(6, 6, 2, 3, 3, pool_first)},
        {"max pool 2/1 on max pool 2/2", net(8, 8, 1, 3, 4, pool_on_pool)},
        {"fc only, 1 x 1 x 10", net(1, 1, 10, 3, 2, fc_only)},
        {"1 x 1 conv + avg pool 2/1", net(3, 3, 5, 2, 2, one_by_one)},
        {"LeNet-5 on 14 x 14", net(14, 14, 1, 10, 6, lenet_small)},
        {"one-channel conv alone (direct)", net(6, 6, 1, 3, 1, conv_only)},
        {"one-channel conv + avg pool 2/2 (direct)", net(7, 7, 1, 3, 3, direct_avg)},
        {"conv to one channel, then a direct conv", net(6, 6, 2, 3, 3, direct_second)},
    };
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        sgd_err_t err = {{0}};
        CHECK_INT_EQ(model_spec_check(&nets[i].spec, &err), 0);
        if (err.msg[0]) fprintf(stderr, "%s: %s\n", nets[i].name, err.msg);
        gradcheck(nets[i].name, &nets[i].spec, 100 + i);
    }
    return check_exit();
}
