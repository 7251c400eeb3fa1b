/* The model conformance suite: every kind the registry lists (models/model_registry.c) gets
 * these checks by being registered -- the kinds come from the registry itself, and each is
 * run on its own `example` model (models/model_kind.h) with synthetic data of
 * MODEL_EXAMPLE_DIM values per sample and MODEL_EXAMPLE_CLASSES classes, so a new kind is
 * covered without a test of its own.  Built twice: with sgdsim's registry, and with the test
 * build's (tests/models/model_registry_with_example.c, one kind more).
 *   test_model_conformance SGDSIM [KIND]   checks 1-6 below; SGDSIM is the sgdsim of the same
 *                                          registry, KIND a kind that must be among them;
 *   test_model_conformance --cuda [KIND]   check 7 alone: exit 77 (skipped) in a build without
 *                                          CUDA or without a device, 1 when a CUDA build's
 *                                          plugin does not load (a broken build).
 * Per kind:
 *   1. the table is complete; the loader accepts the example and its resolved configuration
 *      loads again to the same hash and the same spec (byte for byte: the kind's parser
 *      writes every value it read); model_create's layout has model_spec_nparams
 *      parameters in weight layers (W_l, b_l) that tile the parameter array;
 *   2. the gradient against central finite differences of the loss (below);
 *   3. the CPU backend gives the same bits on 1, 2 and 3 threads, and twice: batched
 *      requests, an evaluation of several chunks, a sharded gradient and resident steps;
 *   4. checkpoint round trip: CSGD and SASGD stopped with a checkpoint and resumed on
 *      another thread count end with the uninterrupted run's digest, rows and parameters;
 *   5. bad specs: each of the kind's keys with a value of the wrong type, an unknown key,
 *      and each other kind's key are refused by the loader naming model.<key>; spec checks
 *      name the field; a kind without CUDA kernels is refused with backend "cuda" by the
 *      loader and by sgd_backend_create, naming the kind;
 *   6. the CLI (model_conformance_cli.h): the binary registers the same kinds, validates
 *      the example (saying what the model is) and runs it to the same digest on 1 and 3
 *      threads, and exits 2 naming the JSON path for the bad specs of 5, in run and
 *      validate alike, writing no database;
 *   7. CUDA parity where the plugin has kernels for the kind: gradients, losses,
 *      evaluation and resident training against the CPU within
 *      test_models_backend_cuda_matches_cpu.c's tolerances, and the same bits twice.
 *
 * Finite differences (2): each checked parameter is moved by +-EPS and the loss (double,
 * from float arithmetic) compared with the analytic gradient: |analytic - central| <=
 * RTOL * scale + |forward - backward| / 2, scale = max(|analytic|, |central|, FLOOR).  A
 * ReLU or max-pool kink inside the step makes the one-sided differences disagree; such a
 * coordinate (|forward - backward| > KINK * scale) is not checked, and at most a fifth of
 * them may be kinks, so that most coordinates are always checked.  (Each kind's own tests
 * check its gradient against a double-precision reference: test_models_gradcheck.c,
 * test_models_cnn_gradcheck.c.) */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/backend.h"
#include "models/model_kind.h"
#include "tests/algorithms/ckpt_harness.h"
#include "tests/algorithms/model_conformance_cli.h"

#define EPS 1e-3
#define RTOL 1e-2
#define FLOOR 1e-2
#define KINK 0.1

/* The scenario every kind's example runs in, with `model` the example's JSON. */
static char *scenario(const char *model)
{
    char *t = sgd_xmalloc(4096);
    snprintf(t, 4096,
             "{\"schema_version\": 1, \"name\": \"model-conformance\", \"seed\": 7,"
             " \"algorithm\": {\"name\": \"csgd\"}, \"cluster\": {\"workers\": 3},"
             " \"data\": {\"source\": \"synthetic\", \"n_train\": 300, \"n_validation\": 100,"
             "          \"dim\": %d, \"classes\": %d},"
             " \"model\": %s, \"batch\": {\"per_worker\": 8},"
             " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9},"
             " \"compute\": {\"kind\": \"time\", \"time_s\": 0.01},"
             " \"stop\": {\"updates\": 30}, \"eval\": {\"every\": 10}}",
             MODEL_EXAMPLE_DIM, MODEL_EXAMPLE_CLASSES, model);
    return t;
}

/* The example's spec fitted to the data, as the runner fits it; false when it does not load. */
static bool example_spec(const model_kind_t *k, model_spec_t *spec)
{
    char *text = scenario(k->example);
    scn_t s;
    sgd_err_t err = {{0}};
    bool ok = scn_load_text(text, "conformance.json", ".", NULL, 0, NULL, alg_scenario_table, &s,
                            &err) == 0;
    if (!ok) fprintf(stderr, "%s: its example does not load: %s\n", k->name, err.msg);
    CHECK(ok);
    if (ok) {
        *spec = s.model;
        spec->nclasses = MODEL_EXAMPLE_CLASSES;
        CHECK_INT_EQ(model_fit_input(spec, MODEL_EXAMPLE_DIM, &err), 0);
        CHECK_INT_EQ(model_spec_check(spec, &err), 0);
        scn_free(&s);
    }
    free(text);
    return ok && spec->kind == k;
}

/* ---- 1. the table, the configuration, the layout ---------------------------------------- */

static void table_and_layout(const model_kind_t *k, const model_spec_t *spec)
{
    CHECK(k->name && k->example && k->keys && k->parse && k->check && k->nparams &&
          k->workspace_bytes && k->create && k->destroy && k->loss_grad && k->evaluate_rows &&
          k->flops_per_sample && k->describe);
    CHECK(model_kind_find(k->name) == k);
    /* The resolved configuration is a configuration of the same hash. */
    char *text = scenario(k->example);
    scn_t a, b;
    sgd_err_t err = {{0}};
    SGD_ASSERT(scn_load_text(text, "c.json", ".", NULL, 0, NULL, alg_scenario_table, &a, &err) ==
               0);
    CHECK_INT_EQ(scn_load_text(a.resolved_json, "r.json", ".", NULL, 0, NULL, alg_scenario_table,
                               &b, &err), 0);
    CHECK_STR_EQ(a.config_hash, b.config_hash);
    /* ... and of the same model: the spec is plain data, zeroed where no field is set */
    CHECK(memcmp(&a.model, &b.model, sizeof a.model) == 0);
    scn_free(&a);
    scn_free(&b);
    free(text);

    model_t *m = model_create(spec, 4);
    const model_layout_t *lay = model_layout(m);
    CHECK((double)model_nparams(m) == model_spec_nparams(spec));
    CHECK(model_workspace_bytes(spec, 4) > 0 && model_flops_per_sample(m) > 0);
    /* W_l and b_l of every layer, in order, cover the array once. */
    size_t at = 0;
    for (int l = 0; l < lay->nlayers; l++) {
        CHECK_INT_EQ(lay->woff[l], at);
        at += (size_t)lay->width[l] * (size_t)lay->fan_out[l];
        CHECK_INT_EQ(lay->boff[l], at);
        at += (size_t)lay->fan_out[l];
        CHECK(lay->kernel_area[l] >= 1);
    }
    CHECK_INT_EQ(at, lay->nparams);
    CHECK_INT_EQ(lay->width[lay->nlayers], MODEL_EXAMPLE_CLASSES);
    char what[256];
    model_describe(spec, what, sizeof what);
    CHECK(strncmp(what, k->name, strlen(k->name)) == 0 && strstr(what, " parameters"));
    printf("%s: %s\n", k->name, what);
    model_destroy(m);
}

/* ---- 2. finite differences ------------------------------------------------------------- */

static void fill(gsl_rng *r, float *v, size_t n, double sd)
{
    for (size_t i = 0; i < n; i++) v[i] = (float)gsl_ran_gaussian(r, sd);
}

/* Random parameters: the initialisation, and non-zero biases so that bias gradients flow. */
static void random_params(model_t *m, float *p, gsl_rng *r)
{
    model_init_params(m, p, MODEL_INIT_HE, r);
    for (int l = 0; l < model_nlayers(m); l++)
        fill(r, p + model_layer_offset(m, l, true), (size_t)model_layer_fan_out(m, l), 0.2);
}

typedef struct fd_tally {
    int checked, kinks, bad;
} fd_tally_t;

static void check_coordinate(model_t *m, float *p, const float *x, const int32_t *y, int b,
                             double l0, const float *grad, float *scratch, size_t k,
                             fd_tally_t *t)
{
    const float orig = p[k], hi = orig + (float)EPS, lo = orig - (float)EPS;
    p[k] = hi;
    double lp = model_loss_grad(m, p, x, y, b, scratch);
    p[k] = lo;
    double lm = model_loss_grad(m, p, x, y, b, scratch);
    p[k] = orig;
    double fwd = (lp - l0) / ((double)hi - orig), bwd = (l0 - lm) / ((double)orig - lo);
    double central = (lp - lm) / ((double)hi - lo), ana = grad[k];
    double scale = fmax(fmax(fabs(ana), fabs(central)), FLOOR);
    if (fabs(fwd - bwd) > KINK * scale) {
        t->kinks++;
        return;
    }
    t->checked++;
    if (!(fabs(ana - central) <= RTOL * scale + fabs(fwd - bwd) / 2)) {
        fprintf(stderr, "  param %zu: analytic %.8g, central difference %.8g\n", k, ana,
                central);
        t->bad++;
    }
}

static void gradient_check(const model_kind_t *k, const model_spec_t *spec, gsl_rng *r)
{
    enum { B = 5 };
    model_t *m = model_create(spec, B);
    const size_t np = model_nparams(m);
    float *p = malloc(np * sizeof *p), *g = malloc(np * sizeof *g), *s = malloc(np * sizeof *s);
    float x[B * MODEL_EXAMPLE_DIM];
    int32_t y[B];
    random_params(m, p, r);
    fill(r, x, (size_t)B * MODEL_EXAMPLE_DIM, 1.0);
    for (int i = 0; i < B; i++) y[i] = (int32_t)gsl_rng_uniform_int(r, MODEL_EXAMPLE_CLASSES);
    double l0 = model_loss_grad(m, p, x, y, B, g);
    CHECK(isfinite(l0) && l0 > 0);
    fd_tally_t t = {0};
    for (int l = 0; l < model_nlayers(m); l++) {
        const int fo = model_layer_fan_out(m, l);
        const size_t nw = (size_t)model_layer_fan_in(m, l) * (size_t)fo;
        for (int j = 0; j < 6; j++)
            check_coordinate(m, p, x, y, B, l0, g, s,
                             model_layer_offset(m, l, true) + gsl_rng_uniform_int(r, (size_t)fo),
                             &t);
        for (int j = 0; j < 24; j++)
            check_coordinate(m, p, x, y, B, l0, g, s,
                             model_layer_offset(m, l, false) + gsl_rng_uniform_int(r, nw), &t);
    }
    printf("%s: gradient: %d coordinates checked, %d at kinks, %d outside tolerance\n", k->name,
           t.checked, t.kinks, t.bad);
    CHECK_INT_EQ(t.bad, 0);
    CHECK(t.checked >= 4 * t.kinks && t.checked >= 20);
    free(p);
    free(g);
    free(s);
    model_destroy(m);
}

/* ---- 3. threads ------------------------------------------------------------------------ */

enum { REQS = 6, ROWS = 16, BIG = 300, EVAL_ROWS = 1000 };

typedef struct thread_results {
    float *grad;        /* REQS x np, then the sharded gradient, then the parameters after */
    double loss[REQS + 3], eval_loss, eval_error;
} thread_results_t;

static void run_threads(model_t *m, int threads, const float *params, const sgd_dataset_t *d,
                        thread_results_t *out)
{
    const size_t np = model_nparams(m);
    const int dim = MODEL_EXAMPLE_DIM;
    sgd_backend_t be;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sgd_backend_create("cpu", m, &be, &err), 0);
    sgd_backend_set_threads(&be, threads);
    const float *p[REQS], *x[REQS];
    const int32_t *y[REQS];
    float *g[REQS];
    for (int i = 0; i < REQS; i++) {
        p[i] = params + (size_t)i * np;
        x[i] = d->x + (size_t)i * ROWS * (size_t)dim;
        y[i] = d->y + i * ROWS;
        g[i] = out->grad + (size_t)i * np;
    }
    CHECK_INT_EQ(sgd_backend_loss_grad_batched(&be, REQS, p, x, y, ROWS, g, out->loss, &err), 0);
    CHECK_INT_EQ(sgd_backend_evaluate(&be, params, d, &out->eval_loss, &out->eval_error, &err), 0);
    CHECK_INT_EQ(sgd_backend_loss_grad(&be, params, d->x, d->y, BIG, out->grad + REQS * np,
                                       &out->loss[REQS], &err), 0);
    float *after = out->grad + (REQS + 1) * np;
    memcpy(after, params, np * sizeof *after);
    int64_t rows[BIG];
    for (int i = 0; i < BIG; i++) rows[i] = (i * 7) % d->n;
    const optim_sgd_t opt = {.momentum = 0.9};
    CHECK_INT_EQ(sgd_backend_sync_begin(&be, d, &opt, after, &err), 0);
    for (int step = 0; step < 2; step++)
        CHECK_INT_EQ(sgd_backend_sync_step(&be, rows, BIG, 0.05f, after,
                                           &out->loss[REQS + 1 + step], &err), 0);
    sgd_backend_destroy(&be);
}

static void threads_check(const model_kind_t *k, const model_spec_t *spec, gsl_rng *r)
{
    model_t *m = model_create(spec, BIG);
    const size_t np = model_nparams(m), nres = (REQS + 2) * np;
    sgd_dataset_t d = {.n = EVAL_ROWS, .dim = MODEL_EXAMPLE_DIM, .classes = MODEL_EXAMPLE_CLASSES,
                       .x = malloc((size_t)EVAL_ROWS * MODEL_EXAMPLE_DIM * sizeof(float)),
                       .y = malloc(EVAL_ROWS * sizeof(int32_t))};
    fill(r, d.x, (size_t)EVAL_ROWS * MODEL_EXAMPLE_DIM, 1.0);
    for (int i = 0; i < EVAL_ROWS; i++)
        d.y[i] = (int32_t)gsl_rng_uniform_int(r, MODEL_EXAMPLE_CLASSES);
    float *params = malloc(REQS * np * sizeof *params);
    for (int i = 0; i < REQS; i++) random_params(m, params + (size_t)i * np, r);
    thread_results_t one = {.grad = malloc(nres * sizeof(float))};
    run_threads(m, 1, params, &d, &one);
    const int threads[] = {1, 2, 3};
    for (int t = 0; t < 3; t++) {
        thread_results_t many = {.grad = malloc(nres * sizeof(float))};
        run_threads(m, threads[t], params, &d, &many);
        const bool same = memcmp(one.grad, many.grad, nres * sizeof(float)) == 0 &&
                          memcmp(one.loss, many.loss, sizeof one.loss) == 0 &&
                          one.eval_loss == many.eval_loss && one.eval_error == many.eval_error;
        if (!same) fprintf(stderr, "%s: %d thread(s) give other bits\n", k->name, threads[t]);
        CHECK(same);
        free(many.grad);
    }
    CHECK(isfinite(one.eval_loss) && isfinite(one.loss[REQS + 2]));
    free(one.grad);
    free(params);
    free(d.x);
    free(d.y);
    model_destroy(m);
}

/* ---- 4. checkpoints -------------------------------------------------------------------- */

static void checkpoint_round_trip(const model_kind_t *k, const char *algorithm)
{
    char *text = scenario(k->example), set[64];
    snprintf(set, sizeof set, "algorithm.name=%s", algorithm);
    /* the parameter-server family takes no momentum (its server applies the rule) */
    const char *sets[] = {set, "optimizer.momentum=0"};
    scn_t s;
    static rows_t full, part, rest, joined;
    full.n = part.n = rest.n = 0;
    load(text, sets, 2, 1, &s);
    alg_outcome_t o_full = execute(&s, NULL, 0, NULL, &full);
    CHECK(o_full.status == ALG_COMPLETE);
    store_t st = {0};
    alg_checkpoint_opts_t co = {.every_updates = 5, .exit_at_update = 12, .write = keep,
                                .ctx = &st};
    alg_outcome_t o_part = execute(&s, NULL, 0, &co, &part);
    CHECK(o_part.status == ALG_CHECKPOINTED && st.last);
    s.numerics.threads_resolved = 2; /* resumed on another thread count */
    alg_outcome_t o_rest = execute(&s, st.last, st.n, NULL, &rest);
    CHECK(o_rest.status == ALG_COMPLETE);
    CHECK_STR_EQ(o_rest.digest, o_full.digest);
    CHECK(o_rest.nparams == o_full.nparams &&
          memcmp(o_rest.final_params, o_full.final_params, o_full.nparams * sizeof(float)) == 0);
    joined = part;
    for (int i = 0; i < rest.n; i++)
        memcpy(joined.text[joined.n++], rest.text[i], sizeof rest.text[0]);
    CHECK(same_rows(&joined, &full));
    printf("%s: %s stopped after update %lld and resumed: digest %.12s\n", k->name, algorithm,
           (long long)o_part.updates, o_rest.digest);
    free(o_full.final_params);
    free(o_part.final_params);
    free(o_rest.final_params);
    free_store(&st);
    scn_free(&s);
    free(text);
}

/* ---- 5. bad specs ---------------------------------------------------------------------- */

/* Loading the example with `set` fails naming `needle`. */
static void load_fails(const model_kind_t *k, const char *set, const char *needle)
{
    char *text = scenario(k->example);
    scn_override_t ov = {set};
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(scn_load_text(text, "c.json", ".", &ov, 1, NULL, alg_scenario_table, &s, &err),
                 -1);
    CHECK_STR_CONTAINS(err.msg, needle);
    free(text);
}

static void bad_specs(const model_kind_t *k, const model_spec_t *spec)
{
    char set[128], needle[128];
    for (const char *const *key = k->keys; *key; key++) {
        snprintf(set, sizeof set, "model.%s={\"conformance\":[1]}", *key);
        snprintf(needle, sizeof needle, "model.%s", *key);
        load_fails(k, set, needle);
    }
    load_fails(k, "model.no_such_key=1", "model.no_such_key");
    for (const model_kind_t *const *o = model_kinds; *o; o++)
        for (const char *const *key = (*o)->keys; *key; key++) {
            bool own = false;
            for (const char *const *mine = k->keys; *mine; mine++) own |= strcmp(*mine, *key) == 0;
            if (own) continue;
            snprintf(set, sizeof set, "model.%s=1", *key);
            snprintf(needle, sizeof needle, "model.%s: not valid with kind \"%s\"", *key, k->name);
            load_fails(k, set, needle);
        }
    sgd_err_t err = {{0}};
    model_spec_t bad = *spec;
    bad.nclasses = 1;
    CHECK_INT_EQ(model_spec_check(&bad, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "nclasses: must be >= 2");
    bad = *spec;
    bad.kind = NULL;
    CHECK_INT_EQ(model_spec_check(&bad, &err), -1);
    if (k->cuda != MODEL_CUDA_NONE) return;
    snprintf(needle, sizeof needle, "model.kind: backend \"cuda\" has no kernels for kind \"%s\"",
             k->name);
    load_fails(k, "backend=\"cuda\"", needle);
    model_t *m = model_create(spec, 2);
    sgd_backend_t be;
    CHECK_INT_EQ(sgd_backend_create("cuda", m, &be, &err), -1);
    snprintf(needle, sizeof needle, "no kernels for model kind \"%s\"", k->name);
    CHECK_STR_CONTAINS(err.msg, needle);
    model_destroy(m);
}

/* ---- 7. CUDA ------------------------------------------------------------------------------
 * Tolerances of tests/models/test_models_backend_cuda_matches_cpu.c, which says why. */
#define TOL_GRAD 1e-4
#define TOL_LOSS 1e-5
#define TOL_ERR_RATE 0.01
#define TOL_TRAIN 1e-3

/* max |a - b| / max |b|, NaN when a holds one. */
static double nerr(const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - (double)b[i]);
        if (!(e <= num)) num = e;
        den = fmax(den, fabs((double)b[i]));
    }
    return den > 0 ? num / den : num;
}

/* What one backend computes for the parity check: REQS gradients, an evaluation and the
 * parameters after 10 resident steps. */
typedef struct parity {
    float *grad, *trained;
    double loss[REQS], eval_loss, eval_error;
} parity_t;

static void parity_run(model_t *m, const char *backend, const float *params,
                       const sgd_dataset_t *d, parity_t *out)
{
    const size_t np = model_nparams(m);
    sgd_backend_t be;
    sgd_err_t err = {{0}};
    if (sgd_backend_create(backend, m, &be, &err)) {
        fprintf(stderr, "%s: %s\n", backend, err.msg);
        check_failures++;
        return;
    }
    const float *p[REQS], *x[REQS];
    const int32_t *y[REQS];
    float *g[REQS];
    for (int i = 0; i < REQS; i++) {
        p[i] = params + (size_t)i * np;
        x[i] = d->x + (size_t)i * ROWS * MODEL_EXAMPLE_DIM;
        y[i] = d->y + i * ROWS;
        g[i] = out->grad + (size_t)i * np;
    }
    CHECK_INT_EQ(sgd_backend_loss_grad_batched(&be, REQS, p, x, y, ROWS, g, out->loss, &err), 0);
    CHECK_INT_EQ(sgd_backend_evaluate(&be, params, d, &out->eval_loss, &out->eval_error, &err), 0);
    memcpy(out->trained, params, np * sizeof *out->trained);
    int64_t rows[ROWS];
    const optim_sgd_t opt = {.momentum = 0.9};
    double loss;
    CHECK_INT_EQ(sgd_backend_sync_begin(&be, d, &opt, out->trained, &err), 0);
    for (int step = 0; step < 10; step++) {
        for (int i = 0; i < ROWS; i++) rows[i] = (step * ROWS + i * 3) % d->n;
        CHECK_INT_EQ(sgd_backend_sync_step(&be, rows, ROWS, 0.05f, out->trained, &loss, &err), 0);
    }
    sgd_backend_destroy(&be);
}

static void cuda_parity(const model_kind_t *k, const model_spec_t *spec, gsl_rng *r)
{
    model_t *m = model_create(spec, ROWS);
    const size_t np = model_nparams(m);
    sgd_dataset_t d = {.n = 200, .dim = MODEL_EXAMPLE_DIM, .classes = MODEL_EXAMPLE_CLASSES,
                       .x = malloc(200 * MODEL_EXAMPLE_DIM * sizeof(float)),
                       .y = malloc(200 * sizeof(int32_t))};
    fill(r, d.x, 200 * MODEL_EXAMPLE_DIM, 1.0);
    for (int i = 0; i < 200; i++) d.y[i] = (int32_t)gsl_rng_uniform_int(r, MODEL_EXAMPLE_CLASSES);
    float *params = malloc(REQS * np * sizeof *params);
    for (int i = 0; i < REQS; i++) random_params(m, params + (size_t)i * np, r);
    parity_t run[3];
    for (int i = 0; i < 3; i++) {
        run[i] = (parity_t){.grad = malloc(REQS * np * sizeof(float)),
                            .trained = malloc(np * sizeof(float))};
        parity_run(m, i == 0 ? "cpu" : "cuda", params, &d, &run[i]);
    }
    double e = nerr(run[1].grad, run[0].grad, REQS * np);
    printf("%s: cuda against cpu: gradients %.3g, trained parameters %.3g\n", k->name, e,
           nerr(run[1].trained, run[0].trained, np));
    CHECK(e <= TOL_GRAD);
    for (int i = 0; i < REQS; i++)
        CHECK_NEAR(run[1].loss[i], run[0].loss[i], TOL_LOSS * fmax(1.0, fabs(run[0].loss[i])));
    CHECK_NEAR(run[1].eval_loss, run[0].eval_loss, TOL_LOSS * fmax(1.0, fabs(run[0].eval_loss)));
    CHECK_NEAR(run[1].eval_error, run[0].eval_error, TOL_ERR_RATE);
    CHECK(nerr(run[1].trained, run[0].trained, np) <= TOL_TRAIN);
    /* the GPU twice: the same bits */
    CHECK(memcmp(run[1].grad, run[2].grad, REQS * np * sizeof(float)) == 0);
    CHECK(memcmp(run[1].trained, run[2].trained, np * sizeof(float)) == 0);
    CHECK(run[1].eval_loss == run[2].eval_loss);
    for (int i = 0; i < 3; i++) free(run[i].grad), free(run[i].trained);
    free(params);
    free(d.x);
    free(d.y);
    model_destroy(m);
}

/* Check 7 for every kind.  A kind without kernels is refused whatever the machine. */
static int cuda_main(void)
{
    if (!sgd_backend_have_cuda()) {
        printf("built without CUDA: skipping\n");
        return 77;
    }
    sgd_err_t err = {{0}};
    if (sgd_backend_cuda_load(&err)) {
        fprintf(stderr, "this build has the CUDA backend, but: %s\n", err.msg);
        return 1;
    }
    const bool device = sgd_backend_cuda_devices() > 0;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 23);
    for (const model_kind_t *const *k = model_kinds; *k; k++) {
        model_spec_t spec;
        if (!example_spec(*k, &spec)) continue;
        if ((*k)->cuda == MODEL_CUDA_NONE) {
            model_t *m = model_create(&spec, 2);
            sgd_backend_t be;
            CHECK_INT_EQ(sgd_backend_create("cuda", m, &be, &err), -1);
            CHECK_STR_CONTAINS(err.msg, "no kernels for model kind");
            model_destroy(m);
        } else if (device) {
            cuda_parity(*k, &spec, r);
        }
    }
    gsl_rng_free(r);
    if (!device) {
        printf("no usable CUDA device: skipping the parity checks\n");
        return check_failures ? check_exit() : 77;
    }
    return check_exit();
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_model_conformance SGDSIM|--cuda [KIND]\n");
        return 2;
    }
    if (argc > 2 && !model_kind_find(argv[2])) {
        fprintf(stderr, "%s is not registered in this build\n", argv[2]);
        return 1;
    }
    if (strcmp(argv[1], "--cuda") == 0) return cuda_main();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    cli_setup(argv[1]);
    char *first = scenario(model_kinds[0]->example);
    cli_same_registry(first);
    free(first);
    for (const model_kind_t *const *k = model_kinds; *k; k++) {
        model_spec_t spec;
        fprintf(stderr, "== %s\n", (*k)->name);
        if (!example_spec(*k, &spec)) continue;
        table_and_layout(*k, &spec);
        gradient_check(*k, &spec, r);
        threads_check(*k, &spec, r);
        checkpoint_round_trip(*k, "csgd");
        checkpoint_round_trip(*k, "sasgd");
        bad_specs(*k, &spec);
        char *text = scenario((*k)->example);
        cli_checks(*k, text);
        free(text);
    }
    cli_cleanup();
    gsl_rng_free(r);
    return check_exit();
}
