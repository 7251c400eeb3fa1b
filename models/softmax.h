/* The output layer every model ends in: softmax + mean negative log-likelihood over a batch
 * of logits, shared by the model kinds (model_kind.h: model_dense.c, cnn.c, ...) so that all
 * compute it with the same operations in the same order.  For the kinds' files only. */
#ifndef SGDSIM_MODELS_SOFTMAX_H
#define SGDSIM_MODELS_SOFTMAX_H

#include <stdint.h>

/* For batch rows of `classes` logits and labels y (asserted in range): writes
 * dLoss/dz = (softmax(z_i) - onehot(y_i)) / batch into delta (batch x classes) and returns
 * the SUM of the rows' losses lse(z_i) - z_i[y_i] (the caller divides by batch).  The loss
 * uses the log-sum-exp form in double, shifted by the row maximum, so it stays finite when a
 * probability underflows; NaN logits give NaN. */
double softmax_nll_grad(const float *logits, const int32_t *y, int batch, int classes,
                        float *delta);

/* The loss of each of `rows` rows into row_loss, and how many rows' highest logit (the
 * first one on ties) is not the label. */
int64_t softmax_nll_rows(const float *logits, const int32_t *y, int rows, int classes,
                         double *row_loss);

#endif
