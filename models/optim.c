/* SGD step and learning-rate schedule (formulas in optim.h). */
#include "models/optim.h"

#include "common/error.h"

void optim_sgd_step(const optim_sgd_t *o, float *params, float *velocity, const float *grad,
                    size_t n, float lr)
{
    const float mu = (float)o->momentum, wd = (float)o->weight_decay;
    if (o->momentum == 0.0) {
        for (size_t i = 0; i < n; i++) params[i] -= lr * (grad[i] + wd * params[i]);
        return;
    }
    SGD_ASSERT(velocity);
    if (o->nesterov) {
        for (size_t i = 0; i < n; i++) {
            float g = grad[i] + wd * params[i];
            float v = mu * velocity[i] + g;
            velocity[i] = v;
            params[i] -= lr * (g + mu * v);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            float g = grad[i] + wd * params[i];
            float v = mu * velocity[i] + g;
            velocity[i] = v;
            params[i] -= lr * v;
        }
    }
}

double lr_at(const lr_schedule_t *s, int64_t update, int64_t global_batch)
{
    SGD_ASSERT(update >= 0 && s->nmilestones >= 0 && s->nmilestones <= LR_MAX_MILESTONES);
    double lr = s->base_lr;
    if (s->scale_kind == LR_SCALE_LINEAR) {
        SGD_ASSERT(s->ref_batch >= 1);
        lr *= (double)global_batch / (double)s->ref_batch;
    } else {
        SGD_ASSERT(s->scale_kind == LR_SCALE_NONE);
    }
    if (update < s->warmup_updates) {
        double f = s->warmup_start_lr_factor;
        lr *= f + (1.0 - f) * (double)update / (double)s->warmup_updates;
    }
    for (int i = 0; i < s->nmilestones; i++)
        if (update >= s->milestones[i]) lr *= s->gamma;
    return lr;
}
