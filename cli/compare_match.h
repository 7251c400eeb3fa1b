/* Which runs of two results databases `sgdsim compare` sets side by side.
 *
 * Each finished run (the latest of its run key) gets a match signature, and a baseline run
 * is compared with the candidate run of the same signature:
 *   - by default the signature is the run key: the whole resolved configuration, the BLAS
 *     kernel included, numerics.threads not (it changes no result);
 *   - --ignore K,...: the configuration without those keys (and without numerics.threads);
 *   - --match-on K,...: those keys' values and the seed.
 * The seed is part of every match unless `--ignore seed`: a run with another seed is another
 * experiment, not a repeat.  Several runs of one signature on either side are ambiguous, and
 * none of them is compared.  A key is a dotted path through the configuration's objects
 * (optimizer.lr, cluster.workers, numerics.blas_core); one that no run of either database
 * has is bad input, so a misspelt key is never silently a no-op. */
#ifndef SGDSIM_CLI_COMPARE_MATCH_H
#define SGDSIM_CLI_COMPARE_MATCH_H

#include <stdint.h>

#include <cJSON.h>

#include "cli/options.h"
#include "results/rdb.h"

/* Configuration keys of one option, split at the commas (owned; cmp_keys_free). */
typedef struct cmp_keys {
    char **v;
    int n;
} cmp_keys_t;

/* How runs match: neither list given means by run key. */
typedef struct cmp_match {
    cmp_keys_t match_on, ignore;
} cmp_match_t;

/* One finished run of one side, as matched and labelled (owned by its side). */
typedef struct cmp_run {
    int64_t id, workers, seed, vtime_ns;
    char *run_key, *scenario, *algorithm, *status, *blas_core;
    cJSON *config; /* runs.config_json, parsed */
    char *sig;     /* the match signature (cmp_side_sign) */
} cmp_run_t;

/* One database and its finished runs, in the reader's order (scenario, algorithm, workers,
 * seed, key). */
typedef struct cmp_side {
    const char *path;
    rdb_t *db;
    cmp_run_t *run;
    int n;
    cmp_run_t **by_sig; /* the runs sorted by signature (cmp_side_sign) */
} cmp_side_t;

/* Splits the values of option `opt` (each "a.b,c") into *keys; 0, or the exit code after
 * the message naming the option and value. */
int cmp_keys_parse(const cli_list_t *values, const char *opt, cmp_keys_t *keys);
void cmp_keys_free(cmp_keys_t *keys);

/* Reads s->db's finished runs with their configurations; 0, or the exit code after the
 * message. */
int cmp_side_load(cmp_side_t *s);
void cmp_side_free(cmp_side_t *s);

/* Every key of m must be a configuration key of some run of b or c, none both matched on
 * and ignored, and with --match-on only the seed ignored; 0, or the exit code after the
 * message naming the option and key. */
int cmp_match_check(const cmp_match_t *m, const cmp_side_t *b, const cmp_side_t *c);

/* Gives every run of s its signature under m and sorts s->by_sig. */
void cmp_side_sign(cmp_side_t *s, const cmp_match_t *m);

/* How many runs of s have signature sig; *first: the index of the first of them in
 * s->by_sig (when there is one). */
int cmp_side_find(const cmp_side_t *s, const char *sig, int *first);

/* The rule of m in words, for the summary line: "by run key", "on the configuration without
 * optimizer.lr", "on cluster.workers, seed". */
void cmp_match_describe(const cmp_match_t *m, char *buf, size_t size);

#endif
