/* The run driver: builds what every algorithm shares (data, model, parameters, engine),
 * runs the engine to the stop condition, and keeps the books — metric rows, evaluation,
 * divergence, the run digest.  Virtual time comes only from the engine; the wall clock is
 * read for the counters and nothing else. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <gsl/gsl_rng.h>

#include "algorithms/alg.h"
#include "algorithms/runner_internal.h"
#include "common/sha256.h"
#include "models/preset.h"
#include "sim/rng.h"


/* One metric row: hashed (so the digest covers exactly what is stored) and passed on. */
static int emit(alg_ctx_t *ctx, int64_t update, int64_t vtime_ns, const char *name, double v)
{
    struct alg_runner *r = ctx->runner;
    sgd_sha256_update(&r->digest, &update, sizeof update);
    sgd_sha256_update(&r->digest, &vtime_ns, sizeof vtime_ns);
    sgd_sha256_update(&r->digest, name, strlen(name) + 1);
    sgd_sha256_update(&r->digest, &v, sizeof v);
    sgd_err_t err = {{0}};
    if (r->sink && r->sink->metric &&
        r->sink->metric(r->sink->ctx, update, vtime_ns, name, v, &err)) {
        ctx->status = ALG_FAILED;
        snprintf(ctx->detail, sizeof ctx->detail, "%s", err.msg);
        sim_engine_stop(ctx->engine);
        return -1;
    }
    return 0;
}

bool alg_backend_failed(alg_ctx_t *ctx, const sgd_err_t *err)
{
    ctx->status = ALG_FAILED;
    int n = snprintf(ctx->detail, sizeof ctx->detail,
                     "backend \"%s\" failed after update %lld: %s", ctx->backend->iface->name,
                     (long long)ctx->updates, err->msg);
    if (n >= (int)sizeof ctx->detail) /* show that the message was cut */
        memcpy(ctx->detail + sizeof ctx->detail - 4, "...", 4);
    sim_engine_stop(ctx->engine);
    return false;
}

static int evaluate(alg_ctx_t *ctx, int64_t vtime_ns)
{
    double loss, error;
    sgd_err_t err = {{0}};
    if (sgd_backend_evaluate(ctx->backend, ctx->params, ctx->val, &loss, &error, &err)) {
        alg_backend_failed(ctx, &err);
        return -1;
    }
    ctx->runner->last_eval_update = ctx->updates;
    if (emit(ctx, ctx->updates, vtime_ns, "val_loss", loss) ||
        emit(ctx, ctx->updates, vtime_ns, "val_error", error))
        return -1;
    return 0;
}

int alg_metric(alg_ctx_t *ctx, int64_t update, int64_t vtime_ns, const char *name,
               double value)
{
    return emit(ctx, update, vtime_ns, name, value);
}

static volatile sig_atomic_t interrupt_requested;

void alg_request_interrupt(void) { interrupt_requested = 1; }

bool alg_any_nonfinite(const float *v, size_t n)
{
    /* Summing x*0 turns any NaN/Inf into NaN without a branch per element.  Eight partial
     * sums instead of one: a single running sum is a chain of dependent additions (~4 cycles
     * per parameter, a fifth of an asynchronous update's time); independent ones vectorise. */
    float acc[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) acc[j] += v[i + (size_t)j] * 0.0f;
    for (; i < n; i++) acc[0] += v[i] * 0.0f;
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    return s != s;
}

static void diverge(alg_ctx_t *ctx, const char *what)
{
    ctx->status = ALG_DIVERGED;
    snprintf(ctx->detail, sizeof ctx->detail, "%s became NaN/Inf at update %lld", what,
             (long long)ctx->updates);
    sim_engine_stop(ctx->engine);
}

bool alg_update_done(alg_ctx_t *ctx, int64_t vtime_ns, double train_loss, double lr)
{
    bool finite = !ctx->numerics || !alg_any_nonfinite(ctx->params, ctx->nparams);
    return alg_update_done_checked(ctx, vtime_ns, train_loss, lr, finite);
}

bool alg_update_done_checked(alg_ctx_t *ctx, int64_t vtime_ns, double train_loss, double lr,
                             bool params_finite)
{
    struct alg_runner *r = ctx->runner;
    const scn_t *s = ctx->scn;
    if (ctx->status != ALG_RUNNING) return false;
    ctx->updates++;
    r->last_vtime_ns = vtime_ns;
    sim_trace_settle(ctx->trace, vtime_ns); /* the run ends at this update or later */
    if (ctx->updates == 1) r->first_vtime_ns = vtime_ns;
    r->last_train_loss = train_loss;
    if (!ctx->numerics) {
        /* Cost-only: no loss, no parameters to check or evaluate. */
        if (ctx->updates % s->train_loss_every == 0 && emit(ctx, ctx->updates, vtime_ns, "lr", lr))
            return false;
    } else if (ctx->updates % s->train_loss_every == 0 || !isfinite(train_loss)) {
        if (emit(ctx, ctx->updates, vtime_ns, "train_loss", train_loss) ||
            emit(ctx, ctx->updates, vtime_ns, "lr", lr))
            return false;
    }
    if (ctx->numerics && !isfinite(train_loss)) {
        diverge(ctx, "training loss");
        return false;
    }
    if (ctx->numerics && !params_finite) {
        diverge(ctx, "a parameter");
        return false;
    }
    if (ctx->numerics && s->eval_every > 0 && ctx->updates % s->eval_every == 0 &&
        evaluate(ctx, vtime_ns))
        return false;
    if (r->sink && r->sink->progress)
        r->sink->progress(r->sink->ctx, ctx->updates, vtime_ns, train_loss,
                          ctx->events_at_update ? ctx->events_at_update
                                                : sim_engine_counters(ctx->engine).events_processed);
    if (interrupt_requested ||
        (alg_runner_checkpoint_exit_requested() && !ctx->runner->checkpoints)) {
        ctx->status = ALG_FAILED;
        snprintf(ctx->detail, sizeof ctx->detail, "interrupted by a signal after update %lld",
                 (long long)ctx->updates);
        sim_engine_stop(ctx->engine);
        return false;
    }
    if (ctx->updates >= s->stop_updates) {
        ctx->status = ALG_COMPLETE;
        sim_engine_stop(ctx->engine);
        return false;
    }
    return alg_runner_checkpoint_check(ctx);
}

/* ---- memory guard (the guard itself: runner_memory.c) ------------------------------------ */

/* Parameters, gradient, velocity and the stacked batch, and the workspace model_create
 * allocates (the model's own counts, models/model.h). */
static double model_bytes(const model_spec_t *spec, int64_t global_batch)
{
    return 4.0 * (4.0 * model_spec_nparams(spec) + (double)global_batch * spec->ninputs) +
           model_workspace_bytes(spec, global_batch);
}

/* ---- data ---------------------------------------------------------------------------- */

/* The error of an IDX pair that did not load, prefixed with the key that names the file
 * ("data.train_labels: ...").  A file that is not there at all is the machine's (a dataset
 * not downloaded), not the scenario's: its message also goes to missing. */
static int idx_failed(dataset_file_t bad, const char *images, const char *labels,
                      const char *key, char *missing, sgd_err_t *err)
{
    const bool lab = bad == DATASET_FILE_LABELS;
    char field[64];
    snprintf(field, sizeof field, "%s_%s", key, lab ? "labels" : "images");
    sgd_err_prefix(err, field);
    if (access(lab ? labels : images, F_OK) != 0 && errno == ENOENT)
        snprintf(missing, SGD_ERR_MAX, "%s", err->msg);
    return -1;
}

/* The IDX files: training rows, and validation rows from the test files or the train tail. */
static int load_idx(const scn_data_t *d, dcache_t *cache, sgd_dataset_t *train_all,
                    sgd_dataset_t *test_all, sgd_dataset_t *train, sgd_dataset_t *val,
                    char *missing, sgd_err_t *err)
{
    dataset_file_t bad;
    if (dataset_load_idx_cached(d->train_images, d->train_labels, cache, train_all, &bad, err))
        return idx_failed(bad, d->train_images, d->train_labels, "data.train", missing, err);
    int64_t avail = train_all->n;
    if (d->val_from == SCN_VAL_TRAIN_TAIL) {
        if (d->val_size >= avail)
            return sgd_errf(err, "data.validation_size: %lld rows requested from a training "
                                 "file of %lld rows", (long long)d->val_size, (long long)avail);
        avail -= d->val_size;
        dataset_view(train_all, avail, d->val_size, val);
    } else {
        if (dataset_load_idx_cached(d->test_images, d->test_labels, cache, test_all, &bad, err))
            return idx_failed(bad, d->test_images, d->test_labels, "data.test", missing, err);
        if (test_all->dim != train_all->dim)
            return sgd_errf(err, "data.test_images: %d values per sample, training data has %d",
                            test_all->dim, train_all->dim);
        int64_t nv = d->val_size ? d->val_size : test_all->n;
        if (nv > test_all->n)
            return sgd_errf(err, "data.validation_size: %lld rows requested, test file has %lld",
                            (long long)nv, (long long)test_all->n);
        dataset_view(test_all, 0, nv, val);
    }
    int64_t nt = d->train_size ? d->train_size : avail;
    if (nt > avail)
        return sgd_errf(err, "data.train_size: %lld rows requested, %lld available",
                        (long long)nt, (long long)avail);
    dataset_view(train_all, 0, nt, train);
    return 0;
}

static int load_data(const scn_t *s, sgd_dataset_t *train_all, sgd_dataset_t *test_all,
                     sgd_dataset_t *train, sgd_dataset_t *val, char *missing, sgd_err_t *err)
{
    const scn_data_t *d = &s->data;
    if (d->source == SCN_DATA_SYNTHETIC) {
        if (alg_check_memory("data", 4.0 * (double)(d->synth_train + d->synth_val) *
                                         (d->synth_dim + 1.0), err))
            return -1;
        gsl_rng *r = sim_rng_create(s->seed, SIM_STREAM_SYNTH_DATA, 0);
        dataset_synthetic(d->synth_train + d->synth_val, d->synth_dim, d->synth_classes,
                          d->synth_separation, r, train_all);
        gsl_rng_free(r);
        dataset_view(train_all, 0, d->synth_train, train);
        dataset_view(train_all, d->synth_train, d->synth_val, val);
        return 0;
    }
    /* Before anything is inflated: what the headers claim must fit. */
    if (alg_check_idx_memory(d, err)) return -1;
    /* One cache handle for the four files, so a warning about it is printed once. */
    dcache_t cache;
    dcache_init(&cache, d->cache, d->cache_dir, stderr);
    int rc = load_idx(d, &cache, train_all, test_all, train, val, missing, err);
    dcache_free(&cache);
    return rc;
}

/* ---- the run --------------------------------------------------------------------------- */

/* Throughput in samples per second of virtual time, measured in steady state: from update 1
 * to the last update, so the first iteration's start-up (no overlap yet, nothing to apply)
 * does not count.  With a single update, over the whole run. */
static double images_per_s(const alg_ctx_t *ctx)
{
    const struct alg_runner *r = ctx->runner;
    if (ctx->updates > 1 && r->last_vtime_ns > r->first_vtime_ns)
        return (double)(ctx->updates - 1) * (double)ctx->samples_per_update /
               ((double)(r->last_vtime_ns - r->first_vtime_ns) * 1e-9);
    if (ctx->updates == 1 && r->last_vtime_ns > 0)
        return (double)ctx->samples_per_update / ((double)r->last_vtime_ns * 1e-9);
    return 0.0;
}

/* The parameter tensors of a real model, in parameter-array order: W_l then b_l. */
static uint64_t *model_tensors(const model_t *m, int *ntensors)
{
    int nl = model_nlayers(m);
    uint64_t *t = sgd_xmalloc(2 * (size_t)nl * sizeof *t);
    for (int l = 0; l < nl; l++) {
        uint64_t in = (uint64_t)model_layer_fan_in(m, l), out = (uint64_t)model_layer_fan_out(m, l);
        t[2 * l] = in * out;
        t[2 * l + 1] = out;
    }
    *ntensors = 2 * nl;
    return t;
}


/* The costs a run charges when they are not the real model's: model.preset (cost-only) or
 * model.cost_preset (hybrid). */
static void setup_preset_costs(const scn_t *s, alg_ctx_t *ctx, run_res_t *r)
{
    if (s->cost_preset < 0) return;
    model_preset_build((model_preset_id_t)s->cost_preset, &r->preset);
    ctx->tensor_elems = r->preset.tensor_elems;
    ctx->ntensors = r->preset.ntensors;
    ctx->cost_nparams = r->preset.nparams;
    ctx->flops_per_sample = r->preset.train_flops_per_sample;
}

/* The model's workspace rows: what the algorithm asks for, or workers x per_worker. */
static int model_rows(const scn_t *s, const alg_ops_t *ops, int64_t ntrain, int64_t *rows,
                      sgd_err_t *err)
{
    int64_t global_batch = s->workers * s->batch_per_worker;
    if (ops->model_batch) {
        global_batch = ops->model_batch(s); /* the algorithm checks its batches in create() */
    } else if (global_batch > ntrain) {
        return sgd_errf(err, "batch.per_worker: %lld worker%s x %lld = %lld samples per update "
                             "exceeds the %lld training rows", (long long)s->workers,
                        s->workers == 1 ? "" : "s", (long long)s->batch_per_worker,
                        (long long)global_batch, (long long)ntrain);
    }
    if (global_batch > INT32_MAX / 2)
        return sgd_errf(err, "batch.per_worker: global batch %lld is too large",
                        (long long)global_batch);
    *rows = global_batch;
    return 0;
}

/* Host threads of the numerics: numerics.threads as resolved by the CLI; a scenario that was
 * never resolved (a test calling alg_run directly) runs on one. */
static int run_threads(const scn_t *s)
{
    return s->numerics.threads_resolved > 0 ? (int)s->numerics.threads_resolved : 1;
}

/* The backend o asks for.  Every failure to create one is the machine's (the loader checked
 * the name): noted in o->missing, and with ALG_BACKEND_OR_CPU the CPU's takes its place, so
 * that what follows is still checked. */
static int create_backend(const scn_t *s, model_t *model, alg_prepare_opts_t *o,
                          sgd_backend_t *b, sgd_err_t *err)
{
    const char *name = o->backend == ALG_BACKEND_CPU ? "cpu" : s->backend;
    if (sgd_backend_create(name, model, b, err) == 0) return 0;
    snprintf(o->missing, sizeof o->missing, "%s", err->msg);
    if (o->backend == ALG_BACKEND_NEEDED) return -1;
    err->msg[0] = '\0';
    return sgd_backend_create("cpu", model, b, err);
}

/* Data, model, backend and initial parameters of a run with real numerics. */
static int setup_numerics(const scn_t *s, const alg_ops_t *ops, alg_prepare_opts_t *o,
                          alg_ctx_t *ctx, run_res_t *r, sgd_err_t *err)
{
    if (load_data(s, &r->train_all, &r->test_all, &r->train, &r->val, o->missing, err))
        return -1;
    model_spec_t spec = s->model;
    spec.nclasses = r->train.classes > r->val.classes ? r->train.classes : r->val.classes;
    if (r->val.dim != r->train.dim)
        return sgd_errf(err, "data: validation samples have %d values, training samples %d",
                        r->val.dim, r->train.dim);
    /* What the data's shape decides (an image's shape, where the kind has one), once it is
     * known: before the memory estimate, which reads it.  Messages name the scenario path
     * ("model.layers[2].conv.k: ..."). */
    if (model_fit_input(&spec, r->train.dim, err)) {
        char msg[SGD_ERR_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return sgd_errf(err, "model.%s", msg);
    }
    int64_t rows = 0;
    const int threads = run_threads(s);
    if (model_rows(s, ops, r->train.n, &rows, err) ||
        alg_check_memory("model", model_bytes(&spec, rows) * (double)threads, err))
        return -1;
    if (model_spec_check(&spec, err)) return sgd_err_prefix(err, "model");
    r->model = model_create(&spec, (int)rows);
    /* "cuda" without a GPU (or in a build without CUDA) is an environment error: exit 2. */
    if (create_backend(s, r->model, o, &r->backend, err)) return -1;
    sgd_backend_set_threads(&r->backend, threads); /* one workspace per thread, same bits */
    ctx->nparams = model_nparams(r->model);
    r->params = sgd_xmalloc(ctx->nparams * sizeof *r->params);
    gsl_rng *init_rng = sim_rng_create(s->seed, SIM_STREAM_INIT, 0);
    model_init_params(r->model, r->params, s->init, init_rng);
    gsl_rng_free(init_rng);

    ctx->model = r->model;
    ctx->backend = &r->backend;
    ctx->train = &r->train;
    ctx->val = &r->val;
    ctx->params = r->params;
    if (s->cost_preset < 0) {
        r->real_tensors = model_tensors(r->model, &ctx->ntensors);
        ctx->tensor_elems = r->real_tensors;
        ctx->cost_nparams = ctx->nparams;
        ctx->flops_per_sample = model_flops_per_sample(r->model);
    }
    return 0;
}

/* Everything up to the first event: costs, numerics (unless cost-only), the engine and the
 * algorithm's state.  Returns -1 with err for input and environment errors. */
static int setup(const scn_t *s, const alg_ops_t *ops, alg_prepare_opts_t *o, alg_ctx_t *ctx,
                 run_res_t *r, sgd_err_t *err)
{
    /* Per-worker state (RNG streams, bookkeeping) is a few hundred bytes; 512 is generous.
     * Checked before the cost-only branch: a cost-only run has workers too. */
    if (alg_check_memory("cluster.workers", 512.0 * (double)s->workers, err)) return -1;
    setup_preset_costs(s, ctx, r);
    if (s->cost_only)
        ctx->nparams = r->preset.nparams; /* no data, no model, no parameters */
    else if (setup_numerics(s, ops, o, ctx, r, err))
        return -1;
    r->engine = sim_engine_create();
    ctx->engine = r->engine;
    r->state = ops->create(ctx, err);
    return r->state ? 0 : -1;
}

/* Runs the engine to the stop condition and records what the end of a run records: the final
 * evaluation, images_per_s and the algorithm's report.  The outcome is in ctx->status. */
static void simulate(alg_prepared_t *run, const alg_sink_t *sink)
{
    const alg_ops_t *ops = run->ops;
    alg_ctx_t *ctx = &run->ctx;
    run_res_t *r = &run->res;
    const scn_t *s = ctx->scn;
    const struct alg_runner *rn = ctx->runner;
    if (!rn->restored) { /* a restored run continues from its checkpoint's state instead */
        if (ctx->numerics && s->eval_every > 0 && evaluate(ctx, 0)) return;
        ops->start(r->state);
    }
    sim_run_limits_t lim = {.until_ns = s->stop_vtime_ns ? s->stop_vtime_ns : INT64_MAX,
                            .max_events = 0};
    /* A due checkpoint stops the engine after the event that made the update; it is written
     * here, between events, and the same engine goes on. */
    bool go = !alg_runner_checkpoint_stop_at_start(run);
    while (go) {
        sim_engine_run(r->engine, &lim);
        go = rn->ckpt_due && ctx->status == ALG_RUNNING && alg_runner_checkpoint_write(run);
    }
    alg_runner_checkpoint_drain(run); /* however the run ends, its last checkpoint is whole */
    if (ctx->status == ALG_CHECKPOINTED) return;
    if (ops->finish) ops->finish(r->state);
    if (ctx->status == ALG_RUNNING && sim_engine_past_horizon(r->engine)) {
        ctx->status = ALG_FAILED;
        snprintf(ctx->detail, sizeof ctx->detail,
                 "virtual time would pass the simulator's horizon of 2^61 ns (%.4g s, about 73 "
                 "years) after update %lld: a modelled time is too long (compute.*, io.time_s, "
                 "cluster.time_factor, network.*, algorithm.server_time_s)",
                 (double)SIM_TIME_MAX_NS * 1e-9, (long long)ctx->updates);
        return;
    }
    if (ctx->status == ALG_RUNNING) ctx->status = ALG_COMPLETE; /* virtual-time limit reached */
    if (ctx->numerics && ctx->status == ALG_COMPLETE && rn->last_eval_update != ctx->updates &&
        evaluate(ctx, rn->last_vtime_ns))
        return;
    if (ctx->status == ALG_COMPLETE && ctx->samples_per_update > 0 && ctx->updates > 0 &&
        emit(ctx, ctx->updates, rn->last_vtime_ns, "images_per_s", images_per_s(ctx)))
        return;
    sgd_err_t err = {{0}};
    if (ctx->status != ALG_FAILED && ops->report && ops->report(r->state, sink, &err)) {
        ctx->status = ALG_FAILED;
        snprintf(ctx->detail, sizeof ctx->detail, "%s", err.msg);
    }
}

/* The run's outcome; the final parameters pass to the caller. */
static void fill_outcome(alg_ctx_t *ctx, run_res_t *r, alg_outcome_t *out)
{
    struct alg_runner *rn = ctx->runner;
    sim_counters_t c = sim_engine_counters(r->engine);
    if (r->params) sgd_sha256_update(&rn->digest, r->params, ctx->nparams * sizeof *r->params);
    sgd_sha256_final_hex(&rn->digest, out->digest);
    out->status = ctx->status;
    snprintf(out->detail, sizeof out->detail, "%s", ctx->detail);
    out->updates = ctx->updates;
    out->vtime_ns = rn->last_vtime_ns;
    out->events = ctx->events_at_stop ? ctx->events_at_stop : c.events_processed;
    out->wall_s = c.wall_s;
    out->events_per_s = c.events_per_s;
    out->grad_calls = r->backend.grad_calls;
    out->grads = r->backend.grads;
    out->final_params = r->params;
    out->nparams = r->params ? ctx->nparams : 0;
    r->params = NULL;
}

static void release(const alg_ops_t *ops, run_res_t *r)
{
    if (r->state) ops->destroy(r->state);
    if (r->engine) sim_engine_destroy(r->engine);
    sgd_backend_destroy(&r->backend);
    if (r->model) model_destroy(r->model);
    free(r->params);
    free(r->real_tensors);
    model_preset_free(&r->preset);
    dataset_free(&r->test_all);
    dataset_free(&r->train_all);
}


int alg_prepare(const scn_t *s, alg_prepare_opts_t *o, alg_prepared_t **run, sgd_err_t *err)
{
    *run = NULL;
    o->missing[0] = '\0';
    const alg_ops_t *ops = alg_find(s->algorithm);
    if (!ops) return sgd_errf(err, "algorithm.name: unknown algorithm \"%s\"", s->algorithm);

    /* One BLAS thread per run, set here rather than trusted from OPENBLAS_NUM_THREADS: sgemm
     * results differ in the last bit between thread counts (docs/architecture.md). */
    openblas_set_num_threads(1);

    alg_prepared_t *p = sgd_xcalloc(1, sizeof *p);
    p->ops = ops;
    p->runner.last_eval_update = -1;
    p->ctx = (alg_ctx_t){.scn = s, .status = ALG_RUNNING, .runner = &p->runner,
                         .numerics = !s->cost_only, .trace = o->trace};
    sgd_sha256_init(&p->runner.digest);
    if (setup(s, ops, o, &p->ctx, &p->res, err)) {
        alg_prepared_free(p);
        return -1;
    }
    *run = p;
    return 0;
}

int alg_execute(alg_prepared_t *run, const alg_sink_t *sink, alg_outcome_t *out,
                sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    SGD_ASSERT(!run->executed);
    run->executed = true;
    run->runner.sink = sink;
    if (sink && sink->begin && sink->begin(sink->ctx, run->ctx.nparams, err)) return -1;
    simulate(run, sink);
    /* The run ended with its last update: what its trace holds beyond is cut or left out. */
    sim_trace_run_end(run->ctx.trace, run->runner.last_vtime_ns);
    fill_outcome(&run->ctx, &run->res, out);
    return 0;
}

const model_t *alg_prepared_model(const alg_prepared_t *run) { return run->res.model; }

void alg_prepared_free(alg_prepared_t *run)
{
    if (!run) return;
    release(run->ops, &run->res);
    free(run);
}

int alg_run(const scn_t *s, const alg_sink_t *sink, alg_outcome_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    alg_prepare_opts_t o = {.trace = sink ? sink->trace : NULL, .backend = ALG_BACKEND_NEEDED};
    alg_prepared_t *run;
    if (alg_prepare(s, &o, &run, err)) return -1;
    int rc = alg_execute(run, sink, out, err);
    alg_prepared_free(run);
    return rc;
}
