/* Weight initialisation for model.h's models (a convolution's fan-in is k*k*c_in, its
 * Glorot fan-out k*k*c_out).  Kept apart from model.c on purpose:
 * gsl_randist.h includes GSL's own gsl_cblas.h, whose declarations clash with OpenBLAS's
 * cblas.h, so no file may include both.  This one needs only the public layer accessors. */
#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/model.h"

void model_init_params(const model_t *m, float *params, model_init_t scheme, gsl_rng *r)
{
    for (int l = 0; l < model_nlayers(m); l++) {
        int fan_in = model_layer_fan_in(m, l), fan_out = model_layer_fan_out(m, l);
        double sigma;
        switch (scheme) {
        case MODEL_INIT_NORMAL01: sigma = 1.0; break;
        case MODEL_INIT_HE: sigma = sqrt(2.0 / fan_in); break;
        case MODEL_INIT_GLOROT:
            sigma = sqrt(2.0 / (fan_in + fan_out * model_layer_kernel_area(m, l)));
            break;
        default: sgd_die(__FILE__, __LINE__, "unknown init scheme %d", (int)scheme);
        }
        /* One draw per weight in row-major order: the order is part of the reproducibility
         * contract (same generator state, same parameters). */
        float *w = params + model_layer_offset(m, l, false);
        size_t nw = (size_t)fan_in * (size_t)fan_out;
        for (size_t k = 0; k < nw; k++) w[k] = (float)gsl_ran_gaussian(r, sigma);
        memset(params + model_layer_offset(m, l, true), 0, (size_t)fan_out * sizeof(float));
    }
}
