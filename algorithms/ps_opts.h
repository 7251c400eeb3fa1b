/* Options of the parameter-server family (docs/scenario.md, "parameter-server family"): the
 * `algorithm` section of a scenario whose name is one of the family's rules (ps_rule.h),
 * parsed and validated at load time into a ps_opts_t that ps.c reads at run time.  The
 * family parses its common keys (and softsync's "n"); the rule parses its own.
 *
 * Every key is checked against the rules that accept it (each rule's key list, found
 * through the registry), so a misplaced key is refused with the names it belongs to
 * ("algorithm.c_push: only valid with name b-fasgd"), and options of other sections this
 * family does not model (momentum, weight decay, batch.sampling) are refused rather than
 * ignored.
 *
 * Ownership: ps_opts_parse stores a heap ps_opts_t in scn_t.alg_opts, freed by the loader
 * through scn_t.alg_opts_free (with the rule's rule_opts). */
#ifndef SGDSIM_ALGORITHMS_PS_OPTS_H
#define SGDSIM_ALGORITHMS_PS_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "algorithms/ps_local.h"
#include "algorithms/ps_rule.h"
#include "algorithms/ps_rules.h"
#include "common/error.h"
#include "common/json.h"
#include "config/scenario.h"
#include "sim/dist.h"

/* x86 CPUs can flush denormal floats to zero (MXCSR FTZ/DAZ): algorithm.denormals "flush". */
#if defined(__x86_64__) || defined(__i386__)
#define PS_HAVE_MXCSR 1
#else
#define PS_HAVE_MXCSR 0
#endif

typedef enum { PS_DRIVER_UNIFORM, PS_DRIVER_TIMED } ps_driver_t;
typedef enum { PS_MB_CYCLIC, PS_MB_RANDOM } ps_minibatch_t;
/* When a client that pushed gets its fetch opportunity (docs/papers.md, "Why sgdsim's
 * staleness is n - 1 and the SASGD paper's is n"): once the update that applies its push is
 * made (FRED; the default), or as soon as the server has taken the push in (the SASGD
 * paper's Rudra). */
typedef enum { PS_FETCH_AFTER_UPDATE, PS_FETCH_AFTER_PUSH } ps_fetch_t;

typedef struct ps_opts {
    const ps_rule_t *rule;    /* the algorithm: its name, protocol and arithmetic */
    void *rule_opts;          /* the rule's own options (heap, or NULL), freed with these */
    ps_driver_t driver;
    ps_minibatch_t minibatch;
    ps_fetch_t fetch;
    int64_t n;                /* softsync: n; c = C / n gradients per update */
    int64_t c;                /* pushes per update (rounds: at most) */
    int64_t concurrency;      /* C: clients in flight at most, <= lambda (ps_clients.h) */
    ps_staleness_t staleness;
    ps_norm_cfg_t norm;
    double c_fetch, c_push;   /* B-FASGD gating constants, >= 0 */
    double gate_eps;          /* B-FASGD: eps in 1 / (1 + c / (v + eps)) */
    bool fred_skip_tau;       /* B-FASGD: count tau after a skipped fetch as FRED does */
    bool first_push_always;   /* B-FASGD: a client's first gradient is sent without a gate */
    double initial_v;         /* B-FASGD: the gates' v before the server took in a gradient */
    int64_t k_fetch, k_push;  /* Downpour: fetch / push every k-th gradient */
    sim_dist_t server_time_s; /* timed: server service time per arrival, s */
    bool flush_denormals;     /* run with the CPU's flush-to-zero and denormals-are-zero */
    int64_t gradient_batch;   /* the most scheduled gradient requests evaluated at once */
    bool merge;               /* requests sharing (snapshot, factor) are stacked: the rule
                                 allows it, no normaliser folds each gradient alone and no
                                 request is a local task */
    ps_local_opts_t local;    /* algorithm.local: local training (ps_local.h) */
} ps_opts_t;

/* ps_opts_parse (ps_rule.h) parses the algorithm section `a` of scenario `s` for a rule
 * (s->workers and s->backend are resolved already): 0, or -1 with err naming the JSON path.
 * These are the parts a rule's own parser may call. */

/* The staleness rule and the normaliser of the scaled-step rules (SASGD, FASGD, B-FASGD):
 * keys staleness, normaliser and the chosen normaliser's own.  need_norm: "none" refused. */
int ps_parse_scaling(const sgd_jobj_t *a, ps_opts_t *o, ps_staleness_t stale_default,
                     ps_norm_kind_t norm_default, bool need_norm, sgd_err_t *err);
/* B-FASGD's gating constants, skipped_fetch_tau, first_push and initial_v. */
int ps_parse_gating(const sgd_jobj_t *a, ps_opts_t *o, sgd_err_t *err);
/* Refuses key `key` when present: "PATH.key: why". */
int ps_reject_key(const sgd_jobj_t *a, const char *key, const char *why, sgd_err_t *err);

/* The algorithm.name of o. */
const char *ps_name(const ps_opts_t *o);

/* Rows of the largest stacked evaluation: when the rule may see merged gradients all
 * requests of one update may share a snapshot (c pushes of up to k_push gradients each). */
int64_t ps_rows(const ps_opts_t *o, int64_t mu);

/* Parameter versions whose snapshots a run may hold at once, for the memory estimate:
 * clients that fetch on their own each hold a version of their own once they have fetched
 * -- at most one new version per update -- and under fetch "after_push" the pushes the
 * server buffers hold theirs, while hardsync's clients all hold the same one. */
double ps_snapshot_versions(const scn_t *s, const ps_opts_t *o);

#endif
