/* Which runs form one series of a figure (plot): a series averages runs that differ only by
 * their seed (and numerics.threads, which changes no result: ana_config_identity).  When
 * the keys a user grouped by leave runs of different configurations in one would-be series,
 * the series is split by the keys that tell those configurations apart — never averaged
 * across them.
 *
 * Ownership: the returned key arrays and their strings are malloc'ed; free them with
 * ana_series_keys_free. */
#ifndef SGDSIM_ANALYSIS_SERIES_H
#define SGDSIM_ANALYSIS_SERIES_H

/* Runs 0..n-1, run i with resolved configuration config_json[i] (the seed and
 * numerics.threads may be present: they are ignored) in would-be series group[i].
 * Returns the number of keys that must split the series so that each holds runs of one
 * configuration only, *keys those keys (dotted configuration keys): a minimal set, each
 * key needed, chosen for a legend — algorithm.name first, then algorithm.driver, then
 * cluster.workers (rather than algorithm.n, which follows it), then keys
 * every run has, each group in the canonical order of ana_config_identity (sorted), and a
 * key that follows a preferred one left out (algorithm.staleness following algorithm.name,
 * one algorithm's own option).  0 (and *keys NULL) when no series mixes configurations.  A
 * configuration that is not a JSON object counts as one of its own and may leave a series
 * mixed that no key splits: then every key that differs is returned. */
int ana_series_split_keys(const char *const *config_json, const int *group, int n,
                          char ***keys);

/* The keys joined with sep: "k1, k2" for messages, "k1,k2" for --by (malloc'ed). */
char *ana_keys_join(char *const *keys, int n, const char *sep);

void ana_series_keys_free(char **keys, int n);

#endif
