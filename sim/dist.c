/* Distribution parsing and sampling declared in dist.h. */
#include "sim/dist.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "common/error.h"

const char *const sim_dist_names[] = {"constant",  "uniform", "normal", "lognormal",
                                      "gamma",     "exponential", NULL};

/* Keys allowed in the object form, per kind (indexed by sim_dist_kind_t). */
static const char *const keys_constant[] = {"dist", "value", NULL};
static const char *const keys_uniform[] = {"dist", "min", "max", NULL};
static const char *const keys_normal[] = {"dist", "mean", "sd", NULL};
static const char *const keys_mean_cv[] = {"dist", "mean", "cv", NULL};
static const char *const keys_exponential[] = {"dist", "mean", NULL};
static const char *const *const keys_by_kind[] = {keys_constant, keys_uniform, keys_normal,
                                                  keys_mean_cv,  keys_mean_cv, keys_exponential};

/* A context for `key` that has no user object behind it (the field was absent or a bare
 * number) but whose resolved form is a fresh object replacing parent->out[key].  Reading
 * from it with the sgd_jobj getters yields their defaults and records them. */
static void synthetic_child(const sgd_jobj_t *parent, const char *key, sgd_jobj_t *c)
{
    memset(c, 0, sizeof *c);
    sgd_jpath_join(c->path, sizeof c->path, parent->path, key);
    if (parent->out) {
        cJSON_DeleteItemFromObjectCaseSensitive(parent->out, key);
        c->out = cJSON_AddObjectToObject(parent->out, key);
        if (!c->out) sgd_die(__FILE__, __LINE__, "out of memory building resolved JSON");
    }
}

static int parse_object(const sgd_jobj_t *c, sim_dist_t *out, sgd_err_t *err)
{
    int kind;
    if (sgd_jobj_enum(c, "dist", sim_dist_names, -1, &kind, err)) return -1;
    if (sgd_jobj_check_keys(c, keys_by_kind[kind], err)) return -1;
    out->kind = (sim_dist_kind_t)kind;
    out->p[0] = out->p[1] = 0.0;
    switch (out->kind) {
    case SIM_DIST_CONSTANT:
        return sgd_jobj_num_req(c, "value", 0.0, false, SIM_DIST_PARAM_MAX, &out->p[0], err);
    case SIM_DIST_UNIFORM:
        if (sgd_jobj_num_req(c, "min", 0.0, false, SIM_DIST_PARAM_MAX, &out->p[0], err)) return -1;
        return sgd_jobj_num_req(c, "max", out->p[0], false, SIM_DIST_PARAM_MAX, &out->p[1], err);
    case SIM_DIST_NORMAL:
        if (sgd_jobj_num_req(c, "mean", 0.0, false, SIM_DIST_PARAM_MAX, &out->p[0], err)) return -1;
        return sgd_jobj_num_req(c, "sd", 0.0, false, SIM_DIST_PARAM_MAX, &out->p[1], err);
    case SIM_DIST_LOGNORMAL:
    case SIM_DIST_GAMMA:
        if (sgd_jobj_num_req(c, "mean", 0.0, true, SIM_DIST_PARAM_MAX, &out->p[0], err)) return -1;
        return sgd_jobj_num_req(c, "cv", 0.0, true, SIM_DIST_CV_MAX, &out->p[1], err);
    case SIM_DIST_EXPONENTIAL:
        return sgd_jobj_num_req(c, "mean", 0.0, true, SIM_DIST_PARAM_MAX, &out->p[0], err);
    }
    sgd_die(__FILE__, __LINE__, "unhandled distribution kind %d", kind);
}

int sim_dist_parse(const sgd_jobj_t *parent, const char *key, double default_constant,
                   sim_dist_t *out, sgd_err_t *err)
{
    SGD_ASSERT(isfinite(default_constant) && default_constant >= 0.0);
    const cJSON *v = parent->in ? cJSON_GetObjectItemCaseSensitive(parent->in, key) : NULL;
    if (v && cJSON_IsObject(v)) {
        sgd_jobj_t c;
        if (sgd_jobj_child(parent, key, &c, err)) return -1;
        return parse_object(&c, out, err);
    }
    double value = default_constant;
    if (v) {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0.0 ||
            v->valuedouble > SIM_DIST_PARAM_MAX) {
            char path[SGD_JPATH_MAX], desc[96];
            sgd_jpath_join(path, sizeof path, parent->path, key);
            sgd_json_describe(v, desc, sizeof desc);
            return sgd_errf(err, "%s: expected a number in [0, %g] or a distribution object, "
                                 "got %s", path, SIM_DIST_PARAM_MAX, desc);
        }
        value = v->valuedouble;
    }
    /* Absent or a bare number: record the constant in its object form, so that every stored
     * configuration spells distributions the same way. */
    sgd_jobj_t c;
    synthetic_child(parent, key, &c);
    int kind;
    if (sgd_jobj_enum(&c, "dist", sim_dist_names, SIM_DIST_CONSTANT, &kind, err)) return -1;
    out->kind = SIM_DIST_CONSTANT;
    out->p[1] = 0.0;
    return sgd_jobj_num(&c, "value", value, 0.0, false, SIM_DIST_PARAM_MAX, &out->p[0], err);
}

double sim_dist_sample(const sim_dist_t *d, gsl_rng *r)
{
    double m = d->p[0];
    switch (d->kind) {
    case SIM_DIST_CONSTANT:
        return m;
    case SIM_DIST_UNIFORM:
        return gsl_ran_flat(r, d->p[0], d->p[1]);
    case SIM_DIST_NORMAL: {
        double x = m + gsl_ran_gaussian(r, d->p[1]);
        return x > 0.0 ? x : 0.0;
    }
    case SIM_DIST_LOGNORMAL: {
        /* Lognormal with mean m and coefficient of variation cv:
         * sigma^2 = ln(1 + cv^2), mu = ln(m) - sigma^2 / 2. */
        double s2 = log1p(d->p[1] * d->p[1]);
        return gsl_ran_lognormal(r, log(m) - 0.5 * s2, sqrt(s2));
    }
    case SIM_DIST_GAMMA: {
        /* Gamma with mean m and cv: shape k = 1/cv^2, scale = m/k = m cv^2. */
        double cv2 = d->p[1] * d->p[1];
        return gsl_ran_gamma(r, 1.0 / cv2, m * cv2);
    }
    case SIM_DIST_EXPONENTIAL:
        return gsl_ran_exponential(r, m);
    }
    sgd_die(__FILE__, __LINE__, "unhandled distribution kind %d", (int)d->kind);
}

double sim_dist_mean(const sim_dist_t *d)
{
    switch (d->kind) {
    case SIM_DIST_CONSTANT:
    case SIM_DIST_LOGNORMAL:
    case SIM_DIST_GAMMA:
    case SIM_DIST_EXPONENTIAL:
        return d->p[0];
    case SIM_DIST_UNIFORM:
        return 0.5 * (d->p[0] + d->p[1]);
    case SIM_DIST_NORMAL: {
        double m = d->p[0], s = d->p[1];
        if (s == 0.0) return m;
        double z = m / s;
        return m * gsl_cdf_ugaussian_P(z) + s * gsl_ran_ugaussian_pdf(z);
    }
    }
    sgd_die(__FILE__, __LINE__, "unhandled distribution kind %d", (int)d->kind);
}

int64_t sim_seconds_to_ns(double s)
{
    SGD_ASSERT(!isnan(s));
    double ns = s * 1e9;
    if (!(ns > 0.0)) return 0;
    if (ns >= (double)SIM_TIME_BEYOND_NS) return SIM_TIME_BEYOND_NS; /* 2^61 + 1 is exact */
    return (int64_t)llround(ns);
}
