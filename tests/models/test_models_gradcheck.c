/* Gradient check: model_loss_grad's analytic gradient against central finite differences of
 * the loss, for softmax regression and MLPs with 1 and 3 hidden layers.
 *
 * The finite difference perturbs one float parameter by +-eps (eps = 1e-3), evaluates the loss
 * (returned in double, computed through float GEMMs) and divides by the perturbation actually
 * stored in float.  Float rounding of the loss (~1e-7 relative) divided by 2*eps limits the
 * difference quotient to about 1e-4 absolute, so the tolerance is relative with a floor:
 *     |analytic - numeric| <= 1e-2 * max(|analytic|, |numeric|, 1e-2).
 * Coordinates checked: every bias of every layer and 40 random weights per layer.
 *
 * ReLU kinks: a finite difference across a point where a hidden pre-activation changes sign
 * measures a one-sided mixture, not the derivative.  So the test computes the pre-activations
 * with a plain double-precision reference forward pass (which also cross-checks the loss) and
 * redraws the inputs until every hidden pre-activation is at least KINK_MARGIN from 0; a
 * perturbation of eps moves a pre-activation by at most eps * (1 + sum |inputs|), far less. */
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/model.h"
#include "models/model_kind.h"
#include "tests/check.h"

#define EPS 1e-3
#define RTOL 1e-2
#define FLOOR 1e-2
#define KINK_MARGIN 0.05

/* Reference forward pass in double: returns the mean loss and the smallest |pre-activation|
 * of any hidden unit over the batch. */
static double reference_loss(const model_t *m, const float *params, const float *x,
                             const int32_t *y, int batch, double *min_abs_z)
{
    enum { MAXW = 64 };
    int L = model_nlayers(m);
    double loss = 0;
    *min_abs_z = INFINITY;
    for (int i = 0; i < batch; i++) {
        double a[MAXW], z[MAXW];
        int nin = model_layer_fan_in(m, 0);
        for (int j = 0; j < nin; j++) a[j] = x[i * nin + j];
        for (int l = 0; l < L; l++) {
            int fi = model_layer_fan_in(m, l), fo = model_layer_fan_out(m, l);
            const float *w = params + model_layer_offset(m, l, false);
            const float *b = params + model_layer_offset(m, l, true);
            for (int o = 0; o < fo; o++) {
                z[o] = b[o];
                for (int j = 0; j < fi; j++) z[o] += a[j] * w[j * fo + o];
            }
            if (l + 1 < L) {
                for (int o = 0; o < fo; o++) {
                    *min_abs_z = fmin(*min_abs_z, fabs(z[o]));
                    a[o] = z[o] > 0 ? z[o] : 0;
                }
            }
        }
        int C = model_layer_fan_out(m, L - 1);
        double mx = z[0], s = 0;
        for (int c = 1; c < C; c++) mx = fmax(mx, z[c]);
        for (int c = 0; c < C; c++) s += exp(z[c] - mx);
        loss += mx + log(s) - z[y[i]];
    }
    return loss / batch;
}

static double loss_at(model_t *m, float *params, const float *x, const int32_t *y, int b,
                      float *scratch)
{
    return model_loss_grad(m, params, x, y, b, scratch);
}

static double worst_rel; /* largest |analytic - numeric| / scale seen, for the log */

static int check_coord(model_t *m, float *params, const float *x, const int32_t *y, int b,
                       const float *grad, float *scratch, size_t k, const char *what)
{
    float orig = params[k];
    float hi = orig + (float)EPS, lo = orig - (float)EPS;
    params[k] = hi;
    double lp = loss_at(m, params, x, y, b, scratch);
    params[k] = lo;
    double lm = loss_at(m, params, x, y, b, scratch);
    params[k] = orig;
    double num = (lp - lm) / ((double)hi - (double)lo);
    double ana = grad[k];
    double scale = fmax(fmax(fabs(ana), fabs(num)), FLOOR);
    worst_rel = fmax(worst_rel, fabs(ana - num) / scale);
    if (!(fabs(ana - num) <= RTOL * scale)) {
        fprintf(stderr, "  %s: param %zu analytic %.8g numeric %.8g (rel %.3g)\n", what, k, ana,
                num, fabs(ana - num) / scale);
        return 1;
    }
    return 0;
}

static void gradcheck(const char *name, const model_spec_t *spec, unsigned long seed)
{
    const int batch = 6;
    model_t *m = model_create(spec, batch);
    size_t np = model_nparams(m);
    float *params = malloc(np * sizeof *params);
    float *grad = malloc(np * sizeof *grad);
    float *scratch = malloc(np * sizeof *scratch);
    float *x = malloc((size_t)batch * (size_t)spec->ninputs * sizeof *x);
    int32_t y[6];

    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    model_init_params(m, params, MODEL_INIT_HE, r);
    /* Non-zero biases so their gradients flow through every ReLU pattern, not only b = 0. */
    for (int l = 0; l < model_nlayers(m); l++) {
        float *b = params + model_layer_offset(m, l, true);
        for (int j = 0; j < model_layer_fan_out(m, l); j++) b[j] = (float)gsl_ran_gaussian(r, 0.3);
    }
    double ref, min_z;
    int draws = 0;
    do {
        for (int i = 0; i < batch * spec->ninputs; i++) x[i] = (float)gsl_ran_gaussian(r, 1.0);
        for (int i = 0; i < batch; i++)
            y[i] = (int32_t)gsl_rng_uniform_int(r, (unsigned long)spec->nclasses);
        ref = reference_loss(m, params, x, y, batch, &min_z);
        draws++;
    } while (min_z < KINK_MARGIN && draws < 1000);
    CHECK(min_z >= KINK_MARGIN);

    double loss = model_loss_grad(m, params, x, y, batch, grad);
    CHECK(isfinite(loss) && loss > 0);
    CHECK_NEAR(loss, ref, 1e-5 * ref);

    int bad = 0, checked = 0;
    worst_rel = 0;
    for (int l = 0; l < model_nlayers(m); l++) {
        size_t boff = model_layer_offset(m, l, true), woff = model_layer_offset(m, l, false);
        int fo = model_layer_fan_out(m, l);
        size_t nw = (size_t)model_layer_fan_in(m, l) * (size_t)fo;
        for (int j = 0; j < fo; j++, checked++)
            bad += check_coord(m, params, x, y, batch, grad, scratch, boff + (size_t)j, name);
        for (int t = 0; t < 40; t++, checked++)
            bad += check_coord(m, params, x, y, batch, grad, scratch,
                               woff + gsl_rng_uniform_int(r, nw), name);
    }
    printf("%s: %zu params, loss %.6f (reference %.6f), inputs drawn %d time(s), "
           "%d coordinates checked, worst relative error %.2g, %d outside tolerance %g\n", name, np,
           loss, ref, draws, checked, worst_rel, bad, RTOL);
    CHECK_INT_EQ(bad, 0);

    gsl_rng_free(r);
    free(params);
    free(grad);
    free(scratch);
    free(x);
    model_destroy(m);
}

int main(void)
{
    model_spec_t softmax = {.kind = model_kind_find("softmax"), .ninputs = 7, .nclasses = 4,
                            .nhidden = 0};
    gradcheck("softmax 7-4", &softmax, 1);

    model_spec_t mlp1 = {.kind = model_kind_find("mlp"), .ninputs = 7, .nclasses = 3, .nhidden = 1,
                         .hidden = {9}};
    gradcheck("mlp 7-9-3", &mlp1, 2);

    model_spec_t mlp3 = {.kind = model_kind_find("mlp"), .ninputs = 8, .nclasses = 5, .nhidden = 3,
                         .hidden = {10, 6, 7}};
    gradcheck("mlp 8-10-6-7-5", &mlp3, 3);
    return check_exit();
}
