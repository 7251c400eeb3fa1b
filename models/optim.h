/* Optimizer step and learning-rate schedule.  Neither knows about time: the schedule is a
 * function of the update index (how many updates have been applied before this one), which
 * each algorithm defines for itself (server version for the parameter-server family, step
 * count for synchronous SGD). */
#ifndef SGDSIM_MODELS_OPTIM_H
#define SGDSIM_MODELS_OPTIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct optim_sgd {
    double momentum;     /* mu >= 0; 0 disables the velocity buffer */
    double weight_decay; /* L2 coefficient wd >= 0, added to the gradient */
    bool nesterov;       /* Nesterov momentum (PyTorch's formulation) */
} optim_sgd_t;

/* One SGD step over n parameters, PyTorch's convention, element by element in index order,
 * in float arithmetic with mu, wd and lr rounded to float once:
 *     g' = g + wd * theta
 *     v  = mu * v + g'                               (skipped when mu == 0)
 *     theta -= lr * (nesterov ? g' + mu * v : v)      (mu == 0: theta -= lr * g')
 * velocity: n floats, zero-initialised by the caller and owned by it; may be NULL when
 * momentum == 0.  PyTorch's first step sets v = g' rather than mu*0 + g', which is the same. */
void optim_sgd_step(const optim_sgd_t *o, float *params, float *velocity, const float *grad,
                    size_t n, float lr);

enum { LR_SCALE_NONE = 0, LR_SCALE_LINEAR = 1 };

#define LR_MAX_MILESTONES 16 /* step-decay milestones a schedule may have */

typedef struct lr_schedule {
    double base_lr;         /* learning rate at the reference batch size */
    int scale_kind;         /* LR_SCALE_NONE or LR_SCALE_LINEAR */
    int64_t ref_batch;      /* reference batch for LR_SCALE_LINEAR, >= 1 */
    int64_t warmup_updates; /* W >= 0; 0 disables warm-up */
    double warmup_start_lr_factor; /* f in [0, 1]: warm-up starts at f * peak */
    int nmilestones;        /* 0..LR_MAX_MILESTONES */
    int64_t milestones[LR_MAX_MILESTONES]; /* update indices, any order */
    double gamma;           /* multiplicative decay applied at each milestone */
} lr_schedule_t;

/* Learning rate of update u (u = 0 for the first update) with global batch B:
 *     peak   = base_lr * (scale_kind == LR_SCALE_LINEAR ? B / ref_batch : 1)
 *     warm   = u < W ? f + (1 - f) * u / W : 1
 *     decay  = gamma ^ (number of milestones m with m <= u)
 *     lr     = peak * warm * decay
 * so milestone m applies from update m on, and warm-up and decay multiply when they overlap. */
double lr_at(const lr_schedule_t *s, int64_t update, int64_t global_batch);

#endif
