/* Which configurations of two results databases `compare` sets side by side.
 *
 * Runs are grouped into configurations x seeds (analysis/groups.h: the configuration less
 * its seed and numerics.threads, and its build unless builds are pooled; the latest run of
 * each seed), and a baseline configuration is paired with the candidate configuration of the
 * same match signature (which never holds the build: a candidate is usually another build):
 *   - by default the signature is the configuration itself (the BLAS kernel included);
 *   - --ignore K,...: the configuration without those keys;
 *   - --match-on K,...: those keys' values only.
 * The seed is never part of a signature: the seeds are the sample a verdict is drawn from
 * (`--ignore seed` is accepted and changes nothing; `--match-on seed` is refused).  Several
 * configurations of one signature on either side are ambiguous and none of them is
 * compared -- among them one configuration run by several builds, unless pool_builds.  A baseline configuration without a partner is missing, and the pairing names
 * the keys in which the nearest candidate configuration (fewest differing keys) differs.
 * A key is a dotted path through the configuration's objects; one that no run of either side
 * has is bad input, so a misspelt key is never silently a no-op.
 *
 * Ownership: ana_pair_runs fills an ana_pairing_t that ana_pairing_free releases; it keeps
 * no pointer into the caller's runs. */
#ifndef SGDSIM_ANALYSIS_PAIRS_H
#define SGDSIM_ANALYSIS_PAIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/groups.h"
#include "common/error.h"

/* Configuration keys of one option, split at the commas (owned; ana_keys_free). */
typedef struct ana_keys {
    char **v;
    int n;
} ana_keys_t;

/* How configurations match: neither list given means on the whole configuration. */
typedef struct ana_match {
    ana_keys_t match_on, ignore;
    bool pool_builds; /* a configuration's runs of several builds form one group */
} ana_match_t;

/* Appends the keys of `value` ("a.b,c") to *keys; -1 with a message naming opt and value
 * when one is not a dotted path of words. */
int ana_keys_parse(const char *value, const char *opt, ana_keys_t *keys, sgd_err_t *err);
void ana_keys_free(ana_keys_t *keys);

/* A run as the pairing needs it. */
typedef struct ana_pair_run {
    int64_t id, seed;
    const char *config_json; /* the resolved configuration */
    const char *build;       /* runs.git_rev; NULL when unknown */
} ana_pair_run_t;

/* One side's configurations: groups of indices into its runs (analysis/groups.h), each
 * with its signature and flattened configuration (of its first run). */
typedef struct ana_side {
    ana_group_t *group;
    int ngroups;
    char **identity; /* per run (owned); NULL for a configuration that is not JSON */
    char **sig;      /* per group (owned) */
    ana_config_t *flat; /* per group (owned) */
    char **config;   /* per group: its configuration's identity without the build (owned) */
    const char **build; /* per group: its first run's build (the caller's string) */
    int *nbuilds;    /* per group: the builds among the runs of its configuration, the
                        repeats of a seed included (more than 1 only when pooled) */
    int nruns;
} ana_side_t;

typedef enum { ANA_PAIRED, ANA_UNPAIRED, ANA_AMBIGUOUS_PAIR } ana_pair_kind_t;

/* What became of one baseline configuration. */
typedef struct ana_pair {
    ana_pair_kind_t kind;
    int base, cand;   /* group indices; cand -1 unless paired */
    int nbase, ncand; /* configurations of this signature on each side */
    bool by_build;    /* ambiguous only because one configuration was run by several builds */
    char *differs;    /* unpaired: "key=b->c,key2=b->(absent)" against the nearest
                         candidate configuration; NULL when the candidate has none (owned) */
} ana_pair_t;

typedef struct ana_pairing {
    ana_side_t base, cand;
    ana_pair_t *pair; /* one per baseline configuration, in its order */
    int npairs;
    int nnew; /* candidate configurations no baseline configuration pairs with */
} ana_pairing_t;

/* Pairs the configurations of base[0..nb) and cand[0..nc) under m.  -1 (and *p empty) when
 * a key of m is in no configuration of either side, is both matched on and ignored, or
 * --match-on names the seed or comes with --ignore of another key than the seed. */
int ana_pair_runs(const ana_pair_run_t *base, int nb, const ana_pair_run_t *cand, int nc,
                  const ana_match_t *m, ana_pairing_t *p, sgd_err_t *err);
void ana_pairing_free(ana_pairing_t *p);

/* Whether paired configurations differ in nothing but numerics.blas_core (which they do
 * differ in) and were run by one build: the same computation, rounded differently. */
bool ana_pair_kernel_only(const ana_pairing_t *p, const ana_pair_t *pair);

/* The rule of m in words: "on the configuration", "on the configuration without
 * optimizer.lr", "on cluster.workers". */
void ana_match_describe(const ana_match_t *m, char *buf, size_t size);

#endif
