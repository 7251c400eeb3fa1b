/* The scaled-step rules' arithmetic (scaled.h): the plain step, or the step divided by the
 * FASGD normaliser, through the passes of ps_rules.c.  An update of one term takes one pass
 * over memory (apply_one); accumulate + apply give the same bits. */
#include "algorithms/rules/scaled.h"

#include <math.h>
#include <stdio.h>

static size_t norm_arrays(const ps_opts_t *o)
{
    switch (o->norm.kind) {
    case PS_NORM_NONE: return 0;
    case PS_NORM_FRED: return 1;
    case PS_NORM_PAPER: return 3;
    }
    return 0;
}

size_t ps_scaled_state_bytes(const ps_opts_t *o, size_t n)
{
    return PS_SCALED_HEADER + norm_arrays(o) * n * sizeof(float);
}

void ps_scaled_init(void *state, const ps_opts_t *o, size_t n)
{
    ps_norm_t *nm = state;
    float *arrays = (float *)((char *)state + PS_SCALED_HEADER);
    nm->cfg = o->norm;
    nm->n = n;
    if (o->norm.kind == PS_NORM_NONE) return;
    ps_norm_bind(nm, &o->norm, n, arrays);
}

/* Element-wise on arrays that never overlap (restrict lets the compiler vectorise without
 * overlap checks; element-wise, so vectorising changes no result). */
static void axpy_into(float *restrict y, float w, const float *restrict x, size_t n, bool first)
{
    if (first)
        for (size_t i = 0; i < n; i++) y[i] = w * x[i];
    else
        for (size_t i = 0; i < n; i++) y[i] += w * x[i];
}

void ps_scaled_accumulate(void *state, const ps_grad_t *g, float *sum, bool first)
{
    ps_norm_t *nm = state;
    if (nm->cfg.kind != PS_NORM_NONE) ps_norm_observe(nm, g->g);
    axpy_into(sum, g->w, g->g, g->n, first);
}

bool ps_scaled_apply(void *state, float *theta, const float *sum, size_t n, float *copy)
{
    ps_norm_t *nm = state;
    return nm->cfg.kind != PS_NORM_NONE ? ps_norm_apply(nm, theta, sum, copy)
                                        : ps_plain_sub(theta, sum, n, copy);
}

bool ps_scaled_apply_one(void *state, const ps_grad_t *g, float *theta, float *copy)
{
    ps_norm_t *nm = state;
    return nm->cfg.kind != PS_NORM_NONE ? ps_norm_observe_apply(nm, theta, g->g, g->w, copy)
                                        : ps_plain_apply(theta, g->w, g->g, g->n, copy);
}

bool ps_scaled_norm_mean(void *state, double *mean)
{
    ps_norm_t *nm = state;
    if (nm->cfg.kind == PS_NORM_NONE) return false;
    *mean = ps_norm_mean(nm);
    return true;
}

/* The first bad value of v[0..n) -- not finite, or negative where it may not be -- or -1. */
static int64_t bad_value(const float *v, size_t n, bool signed_ok)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || (!signed_ok && v[i] < 0)) return (int64_t)i;
    return -1;
}

bool ps_scaled_check_state(const void *state, size_t n, char *why, size_t size)
{
    const ps_norm_t *nm = state;
    if (nm->cfg.kind == PS_NORM_NONE) return true;
    /* fred's m averages |g|, paper's v a standard deviation and n a square: none is
     * negative; paper's b averages g itself */
    const struct {
        const char *name;
        const float *v;
        bool signed_ok;
    } stats[] = {{"m", nm->m, false}, {"b", nm->g1, true}, {"n", nm->g2, false}};
    for (size_t s = 0; s < sizeof stats / sizeof stats[0]; s++) {
        if (!stats[s].v) continue;
        int64_t i = bad_value(stats[s].v, n, stats[s].signed_ok);
        if (i < 0) continue;
        snprintf(why, size, "normaliser %s[%lld] = %g", stats[s].name, (long long)i,
                 (double)stats[s].v[i]);
        return false;
    }
    return true;
}
