/* Softmax + negative log-likelihood (softmax.h). */
#include "models/softmax.h"

#include <math.h>
#include <stddef.h>

#include "common/error.h"

/* log(sum_j exp(z_j)) in double, shifted by the row maximum so nothing overflows and the
 * largest term is exactly 1.  A NaN anywhere makes the result NaN. */
static double log_sum_exp(const float *z, int n)
{
    float mx = z[0];
    for (int j = 1; j < n; j++)
        if (z[j] > mx) mx = z[j];
    double s = 0.0;
    for (int j = 0; j < n; j++) s += exp((double)z[j] - (double)mx);
    return (double)mx + log(s);
}

double softmax_nll_grad(const float *logits, const int32_t *y, int batch, int classes,
                        float *delta)
{
    const int C = classes;
    const double inv_b = 1.0 / batch;
    double loss = 0.0;
    for (int i = 0; i < batch; i++) {
        SGD_ASSERT(y[i] >= 0 && y[i] < C);
        const float *z = logits + (size_t)i * (size_t)C;
        float *d = delta + (size_t)i * (size_t)C;
        double lse = log_sum_exp(z, C);
        loss += lse - (double)z[y[i]];
        for (int j = 0; j < C; j++) {
            double p = exp((double)z[j] - lse);
            d[j] = (float)((p - (j == y[i] ? 1.0 : 0.0)) * inv_b);
        }
    }
    return loss;
}

int64_t softmax_nll_rows(const float *logits, const int32_t *y, int rows, int classes,
                         double *row_loss)
{
    const int C = classes;
    int64_t errors = 0;
    for (int i = 0; i < rows; i++) {
        const float *z = logits + (size_t)i * (size_t)C;
        SGD_ASSERT(y[i] >= 0 && y[i] < C);
        row_loss[i] = log_sum_exp(z, C) - (double)z[y[i]];
        int best = 0;
        for (int j = 1; j < C; j++)
            if (z[j] > z[best]) best = j;
        if (best != y[i]) errors++;
    }
    return errors;
}
