/* Local training (algorithm.local, algorithms/ps_local.h): a task's steps against a loop
 * written out by hand, bit for bit (cyclic blocks, rows of the client's own samples, rows of
 * the task's stream, with and without momentum, the delta and the pseudo-gradient); a run
 * with one local step per task is the plain algorithm within rounding (the same schedule,
 * the parameters within a stated tolerance) and more steps change it; epochs follow the
 * client's samples; every bad option is refused naming its JSON path. */
#include <math.h>
#include <stdlib.h>

#include "algorithms/ps_local.h"
#include "sim/rng.h"
#include "tests/algorithms/ps_sink.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

/* ---- a task by hand ------------------------------------------------------------------- */

enum { N = 12, DIM = 3, MU = 2 };

/* A toy gradient: g_i = theta_i - mean of the minibatch's x_i (row r of the data has x =
 * (r, 2r, -r) / 8), loss = mean label; a function of its arguments only, like a model's. */
static int toy_grad(void *oracle, const float *params, const float *x, const int32_t *y,
                    int rows, float *grad, double *loss, sgd_err_t *err)
{
    (void)err;
    int *calls = oracle;
    (*calls)++;
    double l = 0.0;
    for (int i = 0; i < DIM; i++) {
        float m = 0.0f;
        for (int r = 0; r < rows; r++) m += x[r * DIM + i];
        grad[i] = params[i] - m / (float)rows;
    }
    for (int r = 0; r < rows; r++) l += y[r];
    *loss = l / rows;
    return 0;
}

static float xs[N * DIM];
static int32_t ys[N];

static const sgd_dataset_t *toy_data(void)
{
    static sgd_dataset_t d = {.n = N, .dim = DIM, .classes = 3, .x = xs, .y = ys};
    for (int r = 0; r < N; r++) {
        xs[r * DIM] = (float)r / 8.0f;
        xs[r * DIM + 1] = 2.0f * (float)r / 8.0f;
        xs[r * DIM + 2] = -(float)r / 8.0f;
        ys[r] = r % 3;
    }
    return &d;
}

/* The rows of step j of task t, drawn as the task would: cyclic blocks, else from the task's
 * stream over the client's samples (own, nown) or the whole set. */
static void hand_rows(const ps_task_t *t, bool cyclic, const int32_t *own, int64_t nown,
                      gsl_rng *rng, int64_t j, int64_t rows[MU])
{
    for (int r = 0; r < MU; r++) {
        if (cyclic)
            rows[r] = ((t->t + j) % (N / MU)) * MU + r;
        else if (own)
            rows[r] = own[gsl_rng_uniform_int(rng, (unsigned long)nown)];
        else
            rows[r] = (int64_t)gsl_rng_uniform_int(rng, N);
    }
}

/* Local SGD written out: theta -= lr g, or v = m v + g, theta -= lr v; then the delta or the
 * pseudo-gradient, and the mean loss. */
static void hand_task(const ps_local_data_t *d, const ps_task_t *t, const float *start,
                      float *out, double *loss)
{
    const int32_t *own = d->part ? partition_indices(d->part, t->client) : NULL;
    const int64_t nown = d->part ? partition_size(d->part, t->client) : 0;
    gsl_rng *rng = gsl_rng_alloc(sim_rng_xoshiro256ss);
    sim_rng_reseed(rng, sim_rng_mix(d->seed, SIM_STREAM_DATA_ORDER, (uint64_t)t->client),
                   SIM_STREAM_DATA_ORDER, (uint64_t)t->task);
    float th[DIM], v[DIM] = {0}, g[DIM];
    const float m = (float)d->opt.momentum;
    double sum = 0.0;
    memcpy(th, start, sizeof th);
    for (int64_t j = 0; j < t->steps; j++) {
        int64_t rows[MU];
        hand_rows(t, d->cyclic, own, nown, rng, j, rows);
        double l = 0.0;
        for (int i = 0; i < DIM; i++) {
            float mean = 0.0f;
            for (int r = 0; r < MU; r++) mean += xs[rows[r] * DIM + i];
            g[i] = th[i] - mean / (float)MU;
        }
        for (int r = 0; r < MU; r++) l += ys[rows[r]];
        sum += l / MU;
        for (int i = 0; i < DIM; i++) {
            if (m == 0.0f) {
                th[i] -= d->lr * g[i];
            } else {
                v[i] = m * v[i] + g[i];
                th[i] -= d->lr * v[i];
            }
        }
    }
    for (int i = 0; i < DIM; i++)
        out[i] = d->delta ? start[i] - th[i] : (start[i] - th[i]) / d->lr;
    *loss = sum / (double)t->steps;
    gsl_rng_free(rng);
}

static void one_task(const ps_local_data_t *d, const ps_task_t *t)
{
    const float start[DIM] = {0.5f, -0.25f, 1.0f};
    float out[DIM], want[DIM];
    double loss, want_loss;
    ps_local_work_t w;
    float *floats = calloc(ps_local_work_floats(d), sizeof(float));
    ps_local_work_bind(&w, d, floats);
    int calls = 0;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(ps_local_run(d, t, start, out, &loss, &w, toy_grad, &calls, &err), 0);
    CHECK_INT_EQ(calls, t->steps);
    hand_task(d, t, start, want, &want_loss);
    CHECK(memcmp(out, want, sizeof out) == 0);
    CHECK(loss == want_loss);
    ps_local_work_free(&w);
    free(floats);
}

static void a_task_is_local_sgd_written_out(void)
{
    const sgd_dataset_t *data = toy_data();
    ps_local_data_t d = {.train = data, .seed = 9, .mu = MU, .cyclic = true, .lr = 0.3f,
                         .nparams = DIM};
    const ps_task_t t = {.client = 2, .task = 4, .t = 5, .steps = 7};
    one_task(&d, &t); /* cyclic blocks, pseudo-gradient */
    d.delta = true;
    one_task(&d, &t);
    d.cyclic = false; /* rows of the task's stream over the whole set */
    one_task(&d, &t);
    d.opt.momentum = 0.9;
    one_task(&d, &t);
    /* rows of the client's own samples */
    partition_t *part = NULL;
    sgd_err_t err = {{0}};
    gsl_rng *r = sim_rng_create(3, SIM_STREAM_PARTITION, 0);
    const partition_spec_t spec = {.scheme = PARTITION_SHARDS, .shards_per_client = 1};
    CHECK_INT_EQ(partition_create(&spec, ys, N, 3, 4, r, &part, &err), 0);
    gsl_rng_free(r);
    d.part = part;
    one_task(&d, &t);
    partition_destroy(part);
}

/* Another task index, or another client, draws other rows: the stream is the task's. */
static void each_task_has_its_own_rows(void)
{
    const sgd_dataset_t *data = toy_data();
    const ps_local_data_t d = {.train = data, .seed = 9, .mu = MU, .lr = 0.3f, .delta = true,
                               .nparams = DIM};
    const float start[DIM] = {0};
    float a[DIM], b[DIM], c[DIM];
    double l;
    ps_local_work_t w;
    float *floats = calloc(ps_local_work_floats(&d), sizeof(float));
    ps_local_work_bind(&w, &d, floats);
    int calls = 0;
    sgd_err_t err = {{0}};
    ps_task_t t = {.client = 1, .task = 0, .steps = 3};
    ps_local_run(&d, &t, start, a, &l, &w, toy_grad, &calls, &err);
    t.task = 1;
    ps_local_run(&d, &t, start, b, &l, &w, toy_grad, &calls, &err);
    t.task = 0;
    t.client = 2;
    ps_local_run(&d, &t, start, c, &l, &w, toy_grad, &calls, &err);
    CHECK(memcmp(a, b, sizeof a) != 0);
    CHECK(memcmp(a, c, sizeof a) != 0);
    t.client = 1; /* and the same task again: the same bits */
    ps_local_run(&d, &t, start, c, &l, &w, toy_grad, &calls, &err);
    CHECK(memcmp(a, c, sizeof a) == 0);
    ps_local_work_free(&w);
    free(floats);
}

static void steps_of_epochs_follow_the_samples(void)
{
    const ps_local_opts_t steps = {.on = true, .count = 5};
    const ps_local_opts_t epochs = {.on = true, .epochs = true, .count = 2};
    CHECK_INT_EQ(ps_local_steps(&steps, 1000, 8), 5);
    CHECK_INT_EQ(ps_local_steps(&epochs, 16, 8), 4);
    CHECK_INT_EQ(ps_local_steps(&epochs, 17, 8), 6); /* a last, partial minibatch */
    CHECK_INT_EQ(ps_local_steps(&epochs, 0, 8), 2);  /* at least one step per epoch */
}

/* ---- runs ------------------------------------------------------------------------------ */

static alg_outcome_t run(const char *const *sets, int nsets, rows_t *rows)
{
    alg_sink_t sink = ps_sink(rows);
    return run_scenario(PS_SMALL_SASGD, "local.json", sets, nsets, &sink);
}

/* The largest difference between two runs' parameters, relative to max(1, |theta|). */
static double max_rel_diff(const alg_outcome_t *a, const alg_outcome_t *b)
{
    double worst = 0.0;
    for (size_t i = 0; i < a->nparams && a->nparams == b->nparams; i++) {
        const double d = fabs((double)a->final_params[i] - (double)b->final_params[i]) /
                         fmax(1.0, fabs((double)a->final_params[i]));
        if (d > worst) worst = d;
    }
    return worst;
}

/* With S = 1 a task is one gradient: the schedule is the plain one (the same updates, virtual
 * time, staleness), and the parameters differ only by rounding -- the pseudo-gradient
 * (theta - (theta - lr g)) / lr is g rounded twice.  Stated tolerance: 1e-4 relative after 60
 * updates (measured: about 1e-6). */
static void one_local_step_is_the_plain_algorithm_within_rounding(void)
{
    static const char *const rules[][2] = {
        {"algorithm.name=sasgd", "algorithm.staleness=paper"},
        {"algorithm.name=fasgd", "algorithm.normaliser=fred"},
        {"algorithm.name=dc-asgd", "algorithm.lambda_dc=0.04"},
    };
    static const char *const drivers[] = {"algorithm.driver=uniform", "algorithm.driver=timed"};
    rows_t *ra = malloc(sizeof *ra), *rb = malloc(sizeof *rb);
    for (int r = 0; r < 3; r++)
        for (int d = 0; d < 2; d++) {
            const char *plain[] = {rules[r][0], rules[r][1], drivers[d]};
            const char *local[] = {rules[r][0], rules[r][1], drivers[d],
                                   "algorithm.local={\"steps\": 1}"};
            alg_outcome_t a = run(plain, 3, ra), b = run(local, 4, rb);
            CHECK_INT_EQ(a.status, ALG_COMPLETE);
            CHECK_INT_EQ(b.status, ALG_COMPLETE);
            CHECK_INT_EQ(a.updates, b.updates);
            CHECK_INT_EQ(a.vtime_ns, b.vtime_ns);
            CHECK_INT_EQ(ra->tau_total, rb->tau_total);
            CHECK(ra->tau_sum == rb->tau_sum);
            const double diff = max_rel_diff(&a, &b);
            CHECK(diff <= 1e-4);
            CHECK(!same_params(&a, &b)); /* rounded twice: not the same bits */
            free(a.final_params);
            free(b.final_params);
        }
    free(ra);
    free(rb);
}

/* More local steps: more gradients per push, and another result. */
static void more_steps_train_more(void)
{
    rows_t *rows = malloc(sizeof *rows);
    const char *one[] = {"algorithm.driver=timed", "algorithm.local={\"steps\": 1}"};
    const char *four[] = {"algorithm.driver=timed", "algorithm.local={\"steps\": 4}"};
    const char *epoch[] = {"algorithm.driver=timed", "algorithm.local={\"epochs\": 1}"};
    alg_outcome_t a = run(one, 2, rows), b = run(four, 2, rows), c = run(epoch, 2, rows);
    CHECK_INT_EQ(b.grads, 4 * a.grads);
    /* 512 rows over 4 clients: 128 each, 16 minibatches of 8 per epoch */
    CHECK_INT_EQ(c.grads, 16 * a.grads);
    CHECK(!same_params(&a, &b));
    CHECK(b.vtime_ns > a.vtime_ns); /* a task takes its steps' time */
    free(a.final_params);
    free(b.final_params);
    free(c.final_params);
    free(rows);
}

static void bad_local_options_are_refused(void)
{
    static const struct {
        const char *set, *msg;
    } cases[] = {
        {"algorithm.local={\"steps\": 2, \"epochs\": 1}", "algorithm.local: give steps or epochs"},
        {"algorithm.local={}", "algorithm.local: needs steps"},
        {"algorithm.local={\"lr\": 0.1}", "algorithm.local: needs steps"},
        {"algorithm.local={\"steps\": 0}", "algorithm.local.steps"},
        {"algorithm.local={\"epochs\": 2.5}", "algorithm.local.epochs"},
        {"algorithm.local={\"steps\": 1, \"lr\": 0}", "algorithm.local.lr"},
        {"algorithm.local={\"steps\": 1, \"momentum\": 1}", "algorithm.local.momentum"},
        {"algorithm.local={\"steps\": 1, \"nesterov\": true}", "algorithm.local.nesterov: unknown key"},
        {"algorithm.local=3", "algorithm.local"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scn_override_t ov[] = {{cases[i].set}};
        scn_t s;
        sgd_err_t err = {{0}};
        CHECK_INT_EQ(scn_load_text(PS_SMALL_SASGD, "local.json", ".", ov, 1, NULL,
                                   alg_scenario_table, &s, &err),
                     -1);
        CHECK_STR_CONTAINS(err.msg, cases[i].msg);
    }
}

/* Without algorithm.local the resolved configuration has no trace of it (run keys stay). */
static void absent_local_leaves_the_configuration_alone(void)
{
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(scn_load_text(PS_SMALL_SASGD, "plain.json", ".", NULL, 0, NULL,
                               alg_scenario_table, &s, &err),
                 0);
    CHECK(strstr(s.resolved_json, "\"local\"") == NULL);
    CHECK(strstr(s.resolved_json, "\"concurrency\"") == NULL);
    scn_free(&s);
}

int main(void)
{
    a_task_is_local_sgd_written_out();
    each_task_has_its_own_rows();
    steps_of_epochs_follow_the_samples();
    one_local_step_is_the_plain_algorithm_within_rounding();
    more_steps_train_more();
    bad_local_options_are_refused();
    absent_local_leaves_the_configuration_alone();
    return check_exit();
}
