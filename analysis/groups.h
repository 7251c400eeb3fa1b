/* Runs as the analysis sees them: a run's resolved configuration flattened to dotted keys
 * (cluster.workers = 250), the keys its sweep stored, and — grouped — configurations x
 * seeds: the runs that differ only by their seed.
 *
 * Ownership: every struct here owns its strings and arrays; the matching _free releases
 * them.  Functions that return arrays of pointers into runs leave the strings to the runs. */
#ifndef SGDSIM_ANALYSIS_GROUPS_H
#define SGDSIM_ANALYSIS_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

/* One leaf of a configuration: "cluster.workers", "250" (value as compact JSON; a string
 * without its quotes, so that table headers read csgd, not "csgd"); json: the value as
 * compact JSON always ("\"csgd\""), for output that keeps its type. */
typedef struct ana_kv {
    char *key, *value, *json;
} ana_kv_t;

/* A configuration's leaves in the configuration's order. */
typedef struct ana_config {
    ana_kv_t *kv;
    int n;
} ana_config_t;

/* A finished run: its scenario, flattened configuration and stored sweep axes. */
typedef struct ana_run {
    char *scenario;
    ana_config_t cfg;
    char **axes; /* runs.sweep_axes: the keys its sweep varied */
    int naxes;
    bool has_axes; /* false for a plain run and for runs written before schema 3 */
} ana_run_t;

/* Parses config_json (NULL or not JSON: no leaves) into *c. */
void ana_config_flatten(const char *config_json, ana_config_t *c);

/* The value of key in c, or "(absent)". */
const char *ana_config_get(const ana_config_t *c, const char *key);

void ana_config_free(ana_config_t *c);

/* Fills r from its scenario, configuration and runs.sweep_axes (a JSON array of key paths,
 * or NULL; anything else reads as no stored axes). */
void ana_run_init(ana_run_t *r, const char *scenario, const char *config_json,
                  const char *sweep_axes);
void ana_run_free(ana_run_t *r);

/* ---- configurations x seeds ---------------------------------------------------------------
 *
 * A configuration is a run's resolved configuration less its seed and the keys that change
 * no result (sgd_config_unhashed: numerics.threads): runs with the same one are repeats of
 * one experiment over seeds.  This is compare --ignore seed's and plot --band's rule. */

/* Whether a key of the configuration can change a run's results (false for the seed's
 * sibling keys in sgd_config_unhashed, such as numerics.threads). */
bool ana_key_changes_results(const char *key);

/* The configuration of config_json in canonical form (sorted keys, exact numbers), NULL
 * when the text is not a JSON object; the caller frees it. */
char *ana_config_identity(const char *config_json);

/* What runs are grouped over seeds by: the configuration's identity and, unless builds are
 * pooled, the build that ran it (runs.git_rev; NULL reads as an unknown build).  A build
 * changes the bits (a code change, a compiler), so runs of different builds are never
 * averaged or counted as seeds of one sample unless the user pools them.  The BLAS kernel
 * and the backend are in the configuration already.  NULL when the configuration is not a
 * JSON object; the caller frees it. */
char *ana_run_identity(const char *config_json, const char *build, bool pool_builds);

/* The build a run's identity names ("" for an unknown one): for messages. */
const char *ana_build_name(const char *build);

/* One configuration's runs: indices into the caller's arrays, the latest (largest id) of
 * each seed only, in seed order. */
typedef struct ana_group {
    const char *identity; /* the first member's (points into the caller's array) */
    int *idx;
    int n;
} ana_group_t;

/* Groups runs[0..n) (identity[i], id[i], seed[i]) by configuration, in the order each
 * configuration first appears; a run without an identity (NULL) is a configuration of its
 * own.  Returns the number of groups, *groups an array the caller frees with
 * ana_groups_free. */
int ana_group_seeds(char *const *identity, const int64_t *id, const int64_t *seed, int n,
                    ana_group_t **groups);
void ana_groups_free(ana_group_t *g, int n);

#endif
