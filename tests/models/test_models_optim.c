/* Optimizer steps and learning-rate schedule values, each worked out by hand. */
#include <stdlib.h>

#include "models/optim.h"
#include "tests/check.h"

static void test_sgd_steps(void)
{
    const float g[2] = {0.5f, 0.25f};
    /* momentum 0.9, weight decay 0.1, lr 0.1, theta0 = (1, -2):
     * step 1: g' = (0.6, 0.05), v = g', theta = (0.94, -2.005)
     * step 2: g' = (0.5 + 0.094, 0.25 - 0.2005) = (0.594, 0.0495),
     *         v = (0.54 + 0.594, 0.045 + 0.0495) = (1.134, 0.0945), theta = (0.8266, -2.01445) */
    optim_sgd_t o = {.momentum = 0.9, .weight_decay = 0.1};
    float p[2] = {1, -2}, v[2] = {0, 0};
    optim_sgd_step(&o, p, v, g, 2, 0.1f);
    CHECK_NEAR(p[0], 0.94, 1e-6);
    CHECK_NEAR(p[1], -2.005, 1e-6);
    CHECK_NEAR(v[0], 0.6, 1e-6);
    CHECK_NEAR(v[1], 0.05, 1e-6);
    optim_sgd_step(&o, p, v, g, 2, 0.1f);
    CHECK_NEAR(v[0], 1.134, 1e-6);
    CHECK_NEAR(v[1], 0.0945, 1e-6);
    CHECK_NEAR(p[0], 0.8266, 1e-6);
    CHECK_NEAR(p[1], -2.01445, 1e-6);

    /* Nesterov step 1: v = (0.6, 0.05), theta -= 0.1 * (g' + 0.9 v) = 0.1 * (1.14, 0.095). */
    optim_sgd_t on = {.momentum = 0.9, .weight_decay = 0.1, .nesterov = true};
    float pn[2] = {1, -2}, vn[2] = {0, 0};
    optim_sgd_step(&on, pn, vn, g, 2, 0.1f);
    CHECK_NEAR(pn[0], 0.886, 1e-6);
    CHECK_NEAR(pn[1], -2.0095, 1e-6);
    CHECK_NEAR(vn[0], 0.6, 1e-6);

    /* No momentum: no velocity buffer needed; theta -= lr * (g + wd theta). */
    optim_sgd_t o0 = {.weight_decay = 0.1};
    float p0[2] = {1, -2};
    optim_sgd_step(&o0, p0, NULL, g, 2, 0.1f);
    CHECK_NEAR(p0[0], 0.94, 1e-6);
    CHECK_NEAR(p0[1], -2.005, 1e-6);

    /* Plain SGD is exactly theta - lr * g in float. */
    optim_sgd_t plain = {0};
    float pp[2] = {1, -2};
    optim_sgd_step(&plain, pp, NULL, g, 2, 0.5f);
    CHECK(pp[0] == 0.75f && pp[1] == -2.125f);
}

static void test_lr_schedule(void)
{
    lr_schedule_t s = {.base_lr = 0.1, .scale_kind = LR_SCALE_LINEAR, .ref_batch = 256,
                       .warmup_updates = 100, .warmup_start_lr_factor = 0.1, .nmilestones = 2,
                       .milestones = {300, 200}, .gamma = 0.1};
    /* peak = 0.1 * 1024/256 = 0.4 */
    CHECK_NEAR(lr_at(&s, 0, 1024), 0.04, 1e-12);
    CHECK_NEAR(lr_at(&s, 50, 1024), 0.4 * (0.1 + 0.9 * 0.5), 1e-12);
    CHECK_NEAR(lr_at(&s, 99, 1024), 0.4 * (0.1 + 0.9 * 0.99), 1e-12);
    CHECK_NEAR(lr_at(&s, 100, 1024), 0.4, 1e-12);
    CHECK_NEAR(lr_at(&s, 199, 1024), 0.4, 1e-12);
    CHECK_NEAR(lr_at(&s, 200, 1024), 0.04, 1e-12);
    CHECK_NEAR(lr_at(&s, 299, 1024), 0.04, 1e-12);
    CHECK_NEAR(lr_at(&s, 300, 1024), 0.004, 1e-12);
    CHECK_NEAR(lr_at(&s, 1000000, 1024), 0.004, 1e-12);
    CHECK_NEAR(lr_at(&s, 100, 128), 0.05, 1e-12);

    /* No scaling: the batch size is ignored. */
    lr_schedule_t c = {.base_lr = 0.1, .scale_kind = LR_SCALE_NONE};
    CHECK_NEAR(lr_at(&c, 0, 1), 0.1, 0);
    CHECK_NEAR(lr_at(&c, 12345, 4096), 0.1, 0);

    /* Warm-up and a milestone at 0 overlap: they multiply. */
    lr_schedule_t w = {.base_lr = 0.2, .warmup_updates = 10, .warmup_start_lr_factor = 0.0,
                       .nmilestones = 1, .milestones = {0}, .gamma = 0.5};
    CHECK_NEAR(lr_at(&w, 0, 32), 0.0, 0);
    CHECK_NEAR(lr_at(&w, 5, 32), 0.2 * 0.5 * 0.5, 1e-12);
    CHECK_NEAR(lr_at(&w, 10, 32), 0.1, 1e-12);
}

int main(void)
{
    test_sgd_steps();
    test_lr_schedule();
    return check_exit();
}
