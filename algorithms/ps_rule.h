/* A parameter-server update rule: what one algorithm of the family (SASGD, FASGD, B-FASGD,
 * Downpour, hardsync, DC-ASGD, ...) adds to the shared clients, drivers, ledger and server.
 * Each rule is one file under algorithms/rules/ holding one const ps_rule_t, and one line
 * of algorithms/registry.c; docs/extending.md is the guide.
 *
 * What the family owns (ps.c, ps_step.c, ps_ledger.c): clients and their snapshots, the two
 * drivers, when the server makes an update (its protocol: n-softsync, Downpour or hardsync),
 * staleness tau and the staleness factor s(tau), which gradients are evaluated where and
 * when, the per-update weight w = lr s(tau) count / c of every gradient, the parameters'
 * finiteness check and the snapshot of every new version.  What a rule owns: its options,
 * its state, and the arithmetic that turns the update's gradients into new parameters.
 *
 * With local training (algorithm.local, ps_local.h) g is the client's pseudo-gradient
 * Delta / lr_local, or for an FL rule (federated) its model delta Delta itself; each push is
 * then one term (never merged).
 *
 * The arithmetic comes in one of two forms:
 *   - per gradient, `step`: out = the step this gradient contributes; the family sums the
 *     steps of an update's gradients in arrival order and subtracts the sum (theta -= sum).
 *   - combining, `accumulate` + `apply` (e.g. a normaliser that divides the summed step by
 *     statistics every gradient of the update has updated first); `apply_one` may do an
 *     update of a single gradient in one pass, with the same bits as accumulate + apply.
 *
 * Invariants a rule may rely on (ps_ledger.h, ps_server.h say how they are kept):
 *   - ps_grad_t.stale, the snapshot a gradient was computed on, stays valid and unchanged
 *     until the update that applies it has been applied;
 *   - ps_grad_t.now is the server's parameters before this update (the version the update
 *     counts staleness from), whatever the schedule has run ahead to;
 *   - with merge = true, gradients of one update computed on the same snapshot with the same
 *     staleness factor arrive as ONE term: their stacked minibatch's gradient (their mean),
 *     count > 1.  A rule that needs each gradient alone sets merge = false;
 *   - under algorithm.fetch "after_push" one update may hold two gradients of one client,
 *     on two versions, in the order the client sent them.
 *
 * Ownership: a rule's state is state_bytes(o, n) bytes, zeroed and 64-byte aligned, owned
 * by the run (its arena); init (optional) lays it out.  Checkpoints save it without help
 * from the rule: everything past its state_header bytes, as bytes.  Its options live in ps_opts_t
 * (ps_opts.h): the family's keys there, its own in ps_opts_t.rule_opts (heap, freed with
 * the options). */
#ifndef SGDSIM_ALGORITHMS_PS_RULE_H
#define SGDSIM_ALGORITHMS_PS_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithms/alg.h"
#include "common/error.h"
#include "common/json.h"
#include "config/scenario.h"

struct ps_opts;

/* When the server makes an update (ps.c). */
typedef enum {
    PS_PROTO_SOFTSYNC, /* n-softsync: c = lambda / n gradients per update; takes key "n" */
    PS_PROTO_DOWNPOUR, /* one push per update; k_fetch / k_push (the rule parses them) */
    PS_PROTO_HARDSYNC, /* every client's gradient, on one version: c = C (lambda) */
    PS_PROTO_BUFFER,   /* c pushes per update, c set by the rule's parse (FedBuff's K,
                          FedAsync's 1); a client whose push is taken in leaves its slot */
    PS_PROTO_ROUNDS,   /* FedAvg's rounds: c = clients_per_round clients sampled on one
                          version; the update when each has pushed or dropped out */
} ps_protocol_t;

/* One term of an update as a rule sees it. */
typedef struct ps_grad {
    const float *g;     /* the gradient: mean over its rows (count minibatches if merged) */
    const float *now;   /* theta_now: the server's parameters before this update */
    const float *stale; /* theta_stale: the snapshot g was computed on; NULL when the term
                         * re-applies a client's last gradient (B-FASGD's skipped push) */
    int64_t tau;        /* its staleness (counted: server version - push version) */
    int64_t count;      /* gradients merged into it (1 unless merge) */
    float w;            /* lr * s(tau) * count / c, rounded to float once */
    size_t n;           /* parameters */
    int64_t samples;    /* its client's sample count (a partition's, else an equal share) */
    int64_t samples_sum; /* the sum of samples over this update's terms (FedAvg's weights) */
} ps_grad_t;

typedef struct ps_rule {
    alg_ops_t ops;            /* first member: the registry lists &rule.ops (PS_RULE_OPS) */
    ps_protocol_t protocol;
    bool merge;               /* may see merged gradients (see the file comment) */
    bool gated;               /* B-FASGD's gates on fetches and pushes (c_fetch, c_push) */
    /* A federated-learning rule (FedAvg, FedAsync, FedBuff): its clients train locally
     * (algorithm.local, default {"epochs": 1}) and it receives each client's model delta
     * rather than a pseudo-gradient (ps_local.h); it needs the timed driver. */
    bool federated;
    /* Its default algorithm.concurrency (at most lambda); 0: lambda. */
    int64_t default_concurrency;
    /* The rule's own keys of the algorithm object, NULL-terminated (the family's common
     * keys and softsync's "n" are not listed): the only keys parse may read. */
    const char *const *keys;
    /* Reads those keys into o (o->rule_opts for options of its own); errors name the JSON
     * path (a->path + "." + key).  NULL: no keys. */
    int (*parse)(const sgd_jobj_t *a, const scn_t *s, struct ps_opts *o, sgd_err_t *err);
    /* Bytes of run state for n parameters (0: none; NULL: none). */
    size_t (*state_bytes)(const struct ps_opts *o, size_t n);
    /* Checkpoints (ps_ckpt.c): the first state_header bytes of the state are what init lays
     * out from the options -- pointers into the state, copies of options, caches the rest
     * determines -- and are not saved; the bytes after them are the state that evolves,
     * saved and restored as they are, so they hold plain values (floats, integers), never a
     * pointer.  0: the whole state is saved (it must then hold no pointer). */
    size_t state_header;
    /* Optional: lays out the zeroed state. */
    void (*init)(void *state, const struct ps_opts *o, size_t n);
    /* Checkpoints: whether a restored state (the saved bytes read back behind the header
     * init laid out) is one the rule can go on from -- every statistic finite and of its
     * sign -- else false with why.  Required when the rule saves any bytes. */
    bool (*check_state)(const void *state, size_t n, char *why, size_t size);
    /* Per-gradient form: writes the step of g into out (n floats). */
    void (*step)(void *state, const ps_grad_t *g, float *out);
    /* Combining form: folds g into sum (first: sum is overwritten, not added to) ... */
    void (*accumulate)(void *state, const ps_grad_t *g, float *sum, bool first);
    /* ... and theta -= the summed step; copy (unless NULL) = the new theta.  Returns whether
     * every theta_i is finite. */
    bool (*apply)(void *state, float *theta, const float *sum, size_t n, float *copy);
    /* Optional with accumulate: accumulate(first) + apply of one term in one pass. */
    bool (*apply_one)(void *state, const ps_grad_t *g, float *theta, float *copy);
    /* Optional: the normaliser's mean statistic, for B-FASGD's gates and the norm_mean metric;
     * false when the configured rule has none. */
    bool (*norm_mean)(void *state, double *mean);
} ps_rule_t;

/* The family's callbacks, shared by every rule (ps.c); PS_RULE_OPS wires them. */
void *ps_create(alg_ctx_t *ctx, sgd_err_t *err);
void ps_start(void *state);
void ps_finish(void *state);
int ps_report(void *state, const alg_sink_t *sink, sgd_err_t *err);
void ps_destroy(void *state);
int64_t ps_model_batch(const scn_t *s);
/* The family's checkpoints (ps_ckpt.c), the same for every rule. */
extern const alg_ckpt_ops_t ps_ckpt_ops;

/* Parses the algorithm object for `rule` (ps_opts.c). */
int ps_opts_parse(const sgd_jobj_t *a, scn_t *s, const ps_rule_t *rule, sgd_err_t *err);

/* Whether registered algorithm `ops` is a rule of this family, and then the rule. */
bool ps_is_rule(const alg_ops_t *ops);
const ps_rule_t *ps_rule_of(const alg_ops_t *ops);

/* In a rule's file: `PS_RULE_PARSER(fn, rule)` defines the scenario loader's parser of
 * `rule` (a function of its own, as the loader's table wants), and `.ops =
 * PS_RULE_OPS("name", fn)` the rule's entry in the registry. */
#define PS_RULE_PARSER(fn, rule)                                                          \
    extern const ps_rule_t rule;                                                          \
    static int fn(const sgd_jobj_t *a, scn_t *s, sgd_err_t *e)                            \
    {                                                                                     \
        return ps_opts_parse(a, s, &rule, e);                                             \
    }
#define PS_RULE_OPS(nm, parser)                                                           \
    {.scenario = {.name = nm, .parse_options = parser, .takes_clients = true},            \
     .create = ps_create,                                                                 \
     .start = ps_start,                                                                   \
     .finish = ps_finish,                                                                 \
     .report = ps_report,                                                                 \
     .destroy = ps_destroy,                                                               \
     .model_batch = ps_model_batch,                                                       \
     .ckpt = &ps_ckpt_ops}

#endif
