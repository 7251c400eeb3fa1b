/* Algorithms: the only layer that joins virtual time (sim/) and numerics (models/).
 *
 * An algorithm is a const table of callbacks (alg_ops_t) in a NULL-terminated registry
 * (registry.c).  The runner (runner.c) owns everything an algorithm shares with others — the
 * engine, the datasets, the model, the parameters, metric recording, evaluation, divergence
 * detection, the stop rule and the run digest — and hands it over in an alg_ctx_t.  An
 * algorithm schedules events and, whenever it applies an update, calls alg_update_done().
 * Adding an algorithm = one new file + one line of registry.c's list (docs/extending.md). */
#ifndef SGDSIM_ALGORITHMS_ALG_H
#define SGDSIM_ALGORITHMS_ALG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ckbuf.h"
#include "common/error.h"
#include "common/sha256.h"
#include "config/scenario.h"
#include "models/backend.h"
#include "models/dataset.h"
#include "models/model.h"
#include "sim/engine.h"
#include "sim/trace.h"

/* Where metric and traffic rows go (the CLI writes them to the results database; tests may
 * collect them in memory).  Callbacks return 0, or -1 with err filled to abort the run. */
typedef struct alg_sink {
    void *ctx;
    /* Optional: called once when setup succeeded (data loaded, model built), just before
     * the first event; the CLI creates the database row here, so bad input leaves none. */
    int (*begin)(void *ctx, size_t nparams, sgd_err_t *err);
    int (*metric)(void *ctx, int64_t update, int64_t vtime_ns, const char *name, double value,
                  sgd_err_t *err);
    int (*traffic)(void *ctx, const char *kind, uint64_t sent_msgs, uint64_t sent_bytes,
                   uint64_t skipped_msgs, uint64_t skipped_bytes, sgd_err_t *err);
    /* One staleness-histogram bin (count gradients applied with staleness tau); may be NULL. */
    int (*staleness)(void *ctx, int64_t tau, int64_t count, sgd_err_t *err);
    /* One parameter-age bin (count gradients applied on parameters `age` versions old: the
     * staleness as it really is, where the counted tau is not); may be NULL. */
    int (*version_age)(void *ctx, int64_t age, int64_t count, sgd_err_t *err);
    /* One entry of the data's partition over the clients (data.partition): client holds
     * count >= 1 training samples of label; may be NULL. */
    int (*client_labels)(void *ctx, int64_t client, int label, int64_t count, sgd_err_t *err);
    /* Optional, called after every update; for progress display only. */
    void (*progress)(void *ctx, int64_t update, int64_t vtime_ns, double train_loss,
                     uint64_t events);
    /* Optional: the event timeline algorithms record into (sim/trace.h); NULL = none. */
    sim_trace_t *trace;
} alg_sink_t;

/* ALG_CHECKPOINTED: the run stopped at an update boundary after writing a checkpoint, as
 * asked (alg_request_checkpoint_exit, alg_checkpoint_opts_t.exit_at_update); it is not over. */
typedef enum {
    ALG_RUNNING,
    ALG_COMPLETE,
    ALG_DIVERGED,
    ALG_FAILED,
    ALG_CHECKPOINTED
} alg_status_t;

/* Shared run state, owned by the runner; algorithms read it and call the functions below. */
typedef struct alg_ctx {
    const scn_t *scn;
    sim_engine_t *engine;
    model_t *model;
    sgd_backend_t *backend;     /* where gradients are computed (scenario "backend"); NULL in
                                   a cost-only run.  Synchronous algorithms use its resident
                                   sync_begin/sync_step; the parameter-server family batches
                                   its clients' requests through loss_grad_batched */
    const sgd_dataset_t *train; /* training rows */
    const sgd_dataset_t *val;   /* validation rows */
    float *params;              /* nparams, the (single, shared) current parameters; NULL
                                   in a cost-only run (no numerics) */
    size_t nparams;             /* parameters of the model whose costs are charged */
    /* What communication and compute cost: the real model's, or a preset's (model.preset
     * for a cost-only run, model.cost_preset for a hybrid one).  Owned by the runner. */
    bool numerics;              /* false: cost-only run, model/train/val/params are NULL */
    const uint64_t *tensor_elems; /* ntensors parameter tensors (framework order) */
    int ntensors;
    uint64_t cost_nparams;      /* sum of tensor_elems */
    double flops_per_sample;    /* forward + backward, multiply-add = 2 */
    /* Set by a synchronous algorithm at create: samples per update (P x b); the runner then
     * records images_per_s at the end of the run.  0 = not applicable. */
    int64_t samples_per_update;
    int64_t updates;            /* updates applied so far */
    /* Set by an algorithm that applies updates after the events that made them (the
     * parameter-server family's deferred numerics) when the run stopped at such an update:
     * the events processed up to and including the one that made it, reported instead of
     * the engine's count.  0 = the engine's count. */
    uint64_t events_at_stop;
    /* Set by such an algorithm before each alg_update_done: the events processed up to and
     * including the one that made this update, which the sink's progress is given instead
     * of the engine's count (that one has already run ahead to later updates, so validate's
     * pilot, which extrapolates events per update from it, saw 5x too few).  0 = the
     * engine's count. */
    uint64_t events_at_update;
    alg_status_t status;
    char detail[SGD_ERR_MAX];   /* why the run stopped early (diverged / failed: a sink
                                 * error's message, a signal, ...) */
    struct alg_runner *runner;  /* private to runner.c */
    sim_trace_t *trace;         /* event timeline (sink->trace), NULL = none: record spans
                                 * with sim_trace_span(ctx->trace, ...) */
} alg_ctx_t;

/* Checkpoint callbacks of an algorithm (ROSS-style: the simulator saves the engine, the
 * runner its books and the parameters; each algorithm saves the rest of its own state).
 * The contract: restore is called on a state that create() has just built from the same
 * scenario -- event types registered, streams seeded, collectives built -- in place of
 * start(); after it, the run continues exactly as the saved run did.  Save is called between
 * events, right after an update was counted (alg_update_done returned true and the handler
 * that called it returned), never inside a handler.  What create() rebuilds from the
 * scenario (schedules, plans, option values) is not saved; everything the run's future
 * depends on that evolves is: per-entity RNG streams (sim_rng_save), counters, flags,
 * in-flight bookkeeping, the network's links and collectives (sim_net_save, sim_coll_save),
 * the optimizer's state, and for the parameter-server family its snapshots (each version
 * once, with its holders' references as version numbers), the ledger, the clients' and
 * drivers' state and B-FASGD's gates.  Pointers are never saved: a pending event carries
 * only ids (sim_engine_save refuses one that holds a pointer). */
typedef struct alg_ckpt_ops {
    /* Bytes save would write now (the checkpoint's size, reported before a run). */
    size_t (*state_size)(const void *state);
    /* Optional, called right before save: completes work the algorithm deferred past the
     * events that decided it, which the run would do later with the same bits (the
     * parameter-server family applies the updates its schedule ran ahead to), so that save
     * writes a state without it.  Returns false when the run ended while doing so
     * (ctx->status says how): nothing is saved then. */
    bool (*settle)(void *state);
    /* Appends the state to w; -1 with err when it cannot be saved. */
    int (*save)(const void *state, sgd_ckw_t *w, sgd_err_t *err);
    /* Reads what save wrote into a freshly created state; -1 with err when r is damaged
     * or was written by another configuration (a count that differs).  A checkpoint is
     * input like any other (its digest proves only that it was not damaged by accident):
     * every index, count, time and float is checked against the scenario and the rest of
     * the state before the run may use it.  create() registers, with each event type it
     * owns, a check of a restored pending event (sim_engine_set_check; the runner runs
     * them after restore, and refuses an event that nothing checks). */
    int (*restore)(void *state, sgd_ckr_t *r, sgd_err_t *err);
    /* Optional, called after restore once every pending event passed its type's check:
     * the state against the pending events as a whole (each worker or client in exactly
     * one place: one event, a queue, a buffer, a collective).  0, or -1 with err. */
    int (*verify)(void *state, sgd_err_t *err);
    /* Whether the run's future depends on state resident in the backend (sync_begin /
     * sync_step's velocity): a backend that cannot export it (no sync_export/sync_import)
     * is then refused. */
    bool backend_state;
} alg_ckpt_ops_t;

typedef struct alg_ops {
    scn_algorithm_t scenario; /* name and option parser, for the scenario loader */
    /* Builds the algorithm's state; bad combinations of options are input errors (-1). */
    void *(*create)(alg_ctx_t *ctx, sgd_err_t *err);
    /* Schedules the first events. */
    void (*start)(void *state);
    /* Optional: called once the engine has stopped, before the final evaluation and the
     * report: completes work the algorithm deferred (the parameter-server family applies
     * the updates it scheduled ahead of its numerics). */
    void (*finish)(void *state);
    /* Reports traffic counters at the end of the run (may be NULL). */
    int (*report)(void *state, const alg_sink_t *sink, sgd_err_t *err);
    void (*destroy)(void *state);
    /* Optional: rows of the largest gradient evaluation the algorithm makes (the model's
     * workspace), which create() then checks against the training data itself.  NULL means
     * cluster.workers x batch.per_worker, checked by the runner (the synchronous case). */
    int64_t (*model_batch)(const scn_t *s);
    /* Checkpoints (above); every algorithm has them (test_checkpoint_resume checks the
     * registry, and the conformance suite resumes every algorithm). */
    const alg_ckpt_ops_t *ckpt;
} alg_ops_t;

extern const alg_ops_t *const alg_registry[]; /* NULL-terminated */
/* The same algorithms as the scenario loader's table (pass it to scn_load). */
extern const scn_algorithm_t *const alg_scenario_table[];
const alg_ops_t *alg_find(const char *name);

/* Called by an algorithm right after it applied update number ctx->updates + 1 (whose
 * mean minibatch loss was train_loss) at virtual time vtime_ns: records metrics, evaluates
 * when due, checks for NaN/Inf, and stops the engine when the run is over.  Returns false
 * when the run must not continue. */
bool alg_update_done(alg_ctx_t *ctx, int64_t vtime_ns, double train_loss, double lr);
/* The same, for an algorithm whose update pass already checked the parameters (one pass over
 * memory instead of two): params_finite says whether every parameter is finite. */
bool alg_update_done_checked(alg_ctx_t *ctx, int64_t vtime_ns, double train_loss, double lr,
                             bool params_finite);

/* Records one extra metric row (e.g. staleness summaries, traffic counts) through the same
 * path as the runner's own rows, so it is stored and covered by the digest.  Returns 0, or
 * -1 when the sink refused it: the run is then marked failed, ctx->detail says why, and the
 * engine stops. */
int alg_metric(alg_ctx_t *ctx, int64_t update, int64_t vtime_ns, const char *name,
               double value);

/* Ends the run `failed` because a backend call failed (models/backend.h: err is the
 * shorthand's message, which names the call): ctx->detail becomes
 *     backend "NAME" failed after update N: CALL: WHAT
 * (N: the updates applied so far), and the engine stops.  The rows already recorded stay.
 * Returns false, for `return alg_backend_failed(ctx, &err);` where a run's going on is
 * decided.  The algorithm makes no further backend call (backend.h). */
bool alg_backend_failed(alg_ctx_t *ctx, const sgd_err_t *err);

/* Asks the running simulation to stop after the current update, recording the run as failed
 * ("interrupted"); async-signal-safe, for SIGINT/SIGTERM handlers. */
void alg_request_interrupt(void);

/* Refuses an allocation of `bytes` that would not fit in the memory a run may use, before it
 * is made: physical memory, or the process's address-space or data-segment limit (ulimit -v,
 * ulimit -d) when lower.  Returns -1 with err "WHAT: needs about X GiB of memory, more than
 * this machine's Y GiB" (or "... than the address-space limit (ulimit -v) of Y GiB"). */
int alg_check_memory(const char *what, double bytes, sgd_err_t *err);

/* The memory guard for IDX data (data.source "idx"; 0 for synthetic data, whose estimate the
 * runner makes itself): reads only the headers of the scenario's IDX files (a few bytes each,
 * nothing inflated) and refuses, before anything is allocated, a file whose claimed size does
 * not fit while it is decoded (its bytes plus 4-byte values) -- with err "data.train_images:
 * PATH: the IDX header claims 2739137 images of 28 x 28 (8.17 GiB as floats, 10.2 GiB while
 * decoding), more than ..." -- then the decoded data of all files ("data", through
 * alg_check_memory).  A file that cannot be opened or has a bad header is left to the load,
 * which reports it.  Called by the runner before loading, and by `run` and `validate` on the
 * loaded scenario, so that both refuse such data with exit code 2. */
int alg_check_idx_memory(const scn_data_t *d, sgd_err_t *err);

/* Sees every estimate alg_check_memory compares, with the limit (physical memory, bytes; 0
 * when unknown), whether it refuses it or not: `sgdsim validate` shows what `run` checks.
 * One observer per process (NULL: none); set it before alg_run, not during one. */
typedef void (*alg_memory_observer_t)(void *ctx, const char *what, double bytes, double limit);
void alg_observe_memory(alg_memory_observer_t observer, void *ctx);

/* True when any of the n values is NaN or infinite. */
bool alg_any_nonfinite(const float *v, size_t n);

/* ---- running a scenario ------------------------------------------------------------ */

typedef struct alg_outcome {
    alg_status_t status;
    char detail[SGD_ERR_MAX];
    int64_t updates;
    int64_t vtime_ns;
    uint64_t events;
    double wall_s;
    double events_per_s;
    uint64_t grad_calls, grads; /* gradient evaluations through the backend (backend.h) */
    char digest[SGD_SHA256_HEX_LEN + 1]; /* SHA-256 over metric rows and final parameters */
    float *final_params;   /* nparams, owned by the caller (free()) */
    size_t nparams;
} alg_outcome_t;

/* A run built up to its first event (alg_prepare), not yet started (alg_execute). */
typedef struct alg_prepared alg_prepared_t;

/* Which backend alg_prepare builds. */
typedef enum {
    ALG_BACKEND_NEEDED,  /* the scenario's, or an error (run) */
    ALG_BACKEND_OR_CPU,  /* the scenario's where this machine has it, else the CPU's in its
                            place, noted in `missing` (validate: everything else is checked) */
    ALG_BACKEND_CPU,     /* the CPU's: a check that never starts a GPU (sweep planning) */
} alg_backend_use_t;

typedef struct alg_prepare_opts {
    sim_trace_t *trace;          /* the timeline algorithms record into; NULL = none */
    alg_backend_use_t backend;
    /* Out: what this machine lacks for the run, "" when nothing: a dataset file that is not
     * there (not downloaded), a backend it cannot start.  Set whether or not alg_prepare
     * failed; when it failed, the reason lies in the machine, not in the scenario. */
    char missing[SGD_ERR_MAX];
} alg_prepare_opts_t;

/* Checks and builds everything a run of `scn` needs before its first event — the data and
 * its shapes against the model's, the batches, the memory guard's estimates, the backend,
 * the algorithm's state — the one check that decides whether a scenario runs (`run`, and
 * `validate` and `sweep --skip-invalid`, which must agree with it).  Returns 0 with *run
 * (alg_prepared_free), or -1 with err naming the JSON path (o->missing says whether the
 * reason is the machine's).  scn is borrowed until alg_prepared_free. */
int alg_prepare(const scn_t *scn, alg_prepare_opts_t *o, alg_prepared_t **run, sgd_err_t *err);

/* Runs a prepared run to its stop condition (once): the sink's begin, then the engine.  The
 * timeline is the one given to alg_prepare (sink->trace is not read).  Returns -1 only when
 * the sink's begin refused; 0 when the run happened, whatever its outcome (out->status). */
int alg_execute(alg_prepared_t *run, const alg_sink_t *sink, alg_outcome_t *out,
                sgd_err_t *err);

/* The prepared run's model (its spec fitted to the data), NULL for a cost-only run. */
const model_t *alg_prepared_model(const alg_prepared_t *run);

/* Frees what alg_prepare built; NULL is a no-op. */
void alg_prepared_free(alg_prepared_t *run);

/* ---- checkpoints (runner_ckpt.c) -------------------------------------------------- */

/* When a prepared run writes checkpoints, and where they go.  Wall time decides only when
 * one is written, never what the run computes. */
typedef struct alg_checkpoint_opts {
    int64_t every_updates;  /* after every N-th update; 0 = not by updates */
    double every_wall_s;    /* at the first update boundary after this many wall seconds
                               since the last one (or the start); 0 = not by time */
    int64_t exit_at_update; /* write one after this update and stop (ALG_CHECKPOINTED); 0 =
                               no such stop */
    int64_t once_at_update; /* write one after this update and go on (one checkpoint in a
                               benchmark, bench/bench_checkpoint.c); 0 = none */
    /* Stores one checkpoint: payload (n bytes, the whole state, allocated with malloc;
     * write owns it from the call on, also when it fails) after update `updates`.  It may
     * return before the bytes are stored, handing them to a background writer; `wait` then
     * says how that ended.  The CLI commits the database's rows first, then starts the
     * file's write.  0, or -1 with err (the run then fails with that message). */
    int (*write)(void *ctx, void *payload, size_t n, int64_t updates, sgd_err_t *err);
    /* NULL when write stores the checkpoint before it returns.  Else the write in flight:
     * block waits for it to end, !block only looks.  0 when none is in flight (any more)
     * and the last one stored its file, 1 when one is still in flight (only when !block),
     * -1 with err when it failed.  The runner waits before it serialises the next
     * checkpoint (at most one in flight), before a checkpoint's exit and at the end of the
     * run, and looks after every update, so a failed write ends the run soon. */
    int (*wait)(void *ctx, bool block, sgd_err_t *err);
    /* NULL, or: a payload write was given earlier and is done with (allocated with malloc,
     * at least *n bytes), which the runner then owns and serialises the next checkpoint
     * into, or NULL with *n = 0.  Memory the process has touched already costs no page
     * faults; a fresh buffer of gigabytes does (common/ckpt_writer.h, "Reuse").  Called
     * only when no write is in flight. */
    void *(*reclaim)(void *ctx, size_t *n);
    void *ctx;
} alg_checkpoint_opts_t;

/* NULL when the prepared run can be checkpointed; else why not, naming the backend that
 * cannot export the state the algorithm keeps in it ("backend \"cuda\" does not support
 * checkpoints of csgd yet"). */
const char *alg_checkpoint_unsupported(const alg_prepared_t *run);

/* Makes the prepared run write checkpoints (before alg_execute); o is copied. */
void alg_set_checkpoints(alg_prepared_t *run, const alg_checkpoint_opts_t *o);

/* Restores a prepared run from a checkpoint's payload (before alg_execute, which then
 * continues it instead of starting it).  0, or -1 with err naming what is damaged or does
 * not fit this run; the run must then be freed, not executed. */
int alg_restore(alg_prepared_t *run, const void *payload, size_t n, sgd_err_t *err);

/* Updates applied by the state a restored run continues from. */
int64_t alg_restored_updates(const alg_prepared_t *run);

/* Asks the running simulation to write a checkpoint at the next update boundary and stop
 * (ALG_CHECKPOINTED); async-signal-safe, for SIGTERM/SIGUSR1 handlers.  Without
 * checkpoints set, it is alg_request_interrupt. */
void alg_request_checkpoint_exit(void);

/* alg_prepare (with sink->trace, the scenario's backend), alg_execute and alg_prepared_free:
 * runs scenario `scn` to its stop condition.  Returns -1 for input/environment errors found
 * while setting up (missing dataset, bad combination): err names the file or path.  Returns 0
 * when the run happened, whatever its outcome (complete, diverged, failed: out->status). */
int alg_run(const scn_t *scn, const alg_sink_t *sink, alg_outcome_t *out, sgd_err_t *err);

#endif
