/* One A/B comparison of two sets of runs, a baseline and a candidate: what `compare`,
 * `report A B --html` and `serve A B` show, computed once, here.
 *
 * The configurations of the two sides are paired (analysis/pairs.h; each side's runs grouped
 * by configuration and build, the latest run of each seed), and each pair gives rows:
 *   status           ana_status_verdict over the runs' statuses;
 *   vtime_s          each run's final virtual time (no clock: "no clock");
 *   every metric     of the baseline's first run (or those of opts.metrics): each run's value
 *                    the mean of the last `last` rows of its series (ana_window);
 * and an unpaired baseline configuration a "(configuration)" row: missing or ambiguous.  The
 * metric rows are judged alone (analysis/verdict.h), then as one family.  A status that
 * moved (a run diverged or failed where the baseline's completed) decides every metric row
 * of the pair with a sense, outside the family: a run that stopped early is worse whatever
 * its last values say.
 *
 * Rows that count (ana_ab_row_t.counts) decide the exit code (ana_ab_exit): every row but
 * those of metrics without a sense, which are shown for information.
 *
 * Ownership: ana_ab_compare fills an ana_ab_t that ana_ab_free releases; it keeps no pointer
 * into the caller's runs except the strings of ana_ab_run_t, which must outlive it. */
#ifndef SGDSIM_ANALYSIS_AB_H
#define SGDSIM_ANALYSIS_AB_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/pairs.h"
#include "analysis/verdict.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "results/rdb_read.h"

/* Exit codes of a comparison (a contract for CI): worse, missing or ambiguous; and
 * inconclusive with nothing failing -- more seeds would decide (SGD_EXIT_OK otherwise). */
#define ANA_AB_EXIT_FAILS 1
#define ANA_AB_EXIT_INCONCLUSIVE 4

/* A run as the comparison needs it (strings the caller's). */
typedef struct ana_ab_run {
    int64_t id, seed, updates, vtime_ns;
    const char *status, *blas_core, *config_json, *build;
    bool clock; /* analysis/clock.h */
} ana_ab_run_t;

/* Where rows come from: side 0 the baseline, 1 the candidate; run an index into that
 * side's runs. */
typedef struct ana_ab_source {
    void *ctx;
    /* The rows of metric `name` into *s (empty when the run has none); *owned: whether the
     * comparison must rdb_series_free it.  -1 with err on a read error. */
    int (*series)(void *ctx, int side, int run, const char *name, rdb_series_t *s,
                  bool *owned, sgd_err_t *err);
    /* The run's metric names, sorted (malloc'ed strings in a malloc'ed array). */
    int (*metric_names)(void *ctx, int side, int run, char ***names, int *n, sgd_err_t *err);
} ana_ab_source_t;

typedef struct ana_ab_opts {
    ana_match_t match;   /* --match-on, --ignore, --pool-builds */
    ana_rule_t rule;
    int last;            /* --last */
    const char *metrics; /* "a,b": only these metrics (vtime_s and status always); NULL all */
} ana_ab_opts_t;

/* One side's values of a row, one per seed in seed order (owned). */
typedef struct ana_ab_values {
    int64_t *seed, *run;
    double *value; /* NaN or +-inf: not finite (diverged) */
    int n;
} ana_ab_values_t;

typedef struct ana_ab_row {
    int pair;              /* index into pairs.pair */
    char *what;            /* "status", "vtime_s", a metric name, "(configuration)" (owned) */
    ana_verdict_t verdict;
    bool judged;           /* j holds the row's statistics */
    ana_judgement_t j;
    bool counts;           /* decides the exit code */
    char *note;            /* prose the statistics do not say (owned; NULL) */
    ana_ab_values_t base, cand;
} ana_ab_row_t;

typedef struct ana_ab {
    ana_pairing_t pairs;
    ana_ab_row_t *row;
    int nrows;
    int count[ANA_NVERDICTS];
    int family;          /* tests in the family */
    bool kernels_differ; /* a pair's runs used different BLAS kernels */
    int pooled;          /* configurations holding runs of several builds (pool_builds) */
    ana_ab_opts_t opts;  /* as given (the match's lists are the caller's) */
} ana_ab_t;

/* Compares base[0..nb) with cand[0..nc) (only runs that ended: complete, diverged,
 * failed); -1 with err when the match is bad input (pairs.h) or a read fails. */
int ana_ab_compare(const ana_ab_run_t *base, int nb, const ana_ab_run_t *cand, int nc,
                   const ana_ab_source_t *src, const ana_ab_opts_t *o, ana_ab_t *ab,
                   sgd_err_t *err);
void ana_ab_free(ana_ab_t *ab);

/* A deep copy of a row (its strings and values), released with ana_ab_row_free. */
void ana_ab_row_copy(const ana_ab_row_t *from, ana_ab_row_t *to);
void ana_ab_row_free(ana_ab_row_t *r);

/* Counts the rows' verdicts again (after a caller replaced rows). */
void ana_ab_recount(ana_ab_t *ab);

/* 0, ANA_AB_EXIT_FAILS or ANA_AB_EXIT_INCONCLUSIVE, by the rows that count. */
int ana_ab_exit(const ana_ab_t *ab);

/* Whether pair p has a row that counts and is inconclusive. */
bool ana_ab_pair_undecided(const ana_ab_t *ab, int p);

/* The row's prose: "0.3565 ± 0.012 (n=3) -> 0.36 ± 0.01 (n=3): +0.0035 (+1%) [-0.6%, +2.6%]
 * ...". */
void ana_ab_detail(const ana_ab_t *ab, const ana_ab_row_t *r, sgd_strbuf_t *out);

/* The seeds of a pair as text: "1,2,3", or "1,2,3 / 4,5,6" when the sides' differ. */
void ana_ab_seeds_text(const ana_ab_t *ab, const ana_ab_run_t *base, const ana_ab_run_t *cand,
                       int p, sgd_strbuf_t *out);

/* The comparison's rule in words, with the counts: the summary line's body. */
void ana_ab_summary(const ana_ab_t *ab, sgd_strbuf_t *out);

#endif
