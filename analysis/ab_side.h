/* The two sides of `sgdsim compare`: the runs of each results database that have ended, as
 * the A/B comparison (analysis/ab.h) takes them, where its rows come from, how a
 * configuration is named in the tables, and the comparison of the two databases as they
 * are (compare, and each look of `compare --run`).  Read through results/rdb_rows.h and
 * rdb_read.h only.
 *
 * Ownership: ana_ab_side_load fills an ana_ab_side_t that ana_ab_side_free empties; the
 * ana_ab_run_t array points into the side's strings.  ana_ab_sides_open opens both
 * databases and loads both sides, which ana_ab_sides_close frees and closes. */
#ifndef SGDSIM_ANALYSIS_AB_SIDE_H
#define SGDSIM_ANALYSIS_AB_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/ab.h"
#include "common/error.h"
#include "results/rdb.h"

/* A run that ended (complete, diverged or failed), as compare reads it (owned strings). */
typedef struct ana_ab_side_run {
    int64_t id, seed, workers;
    char *scenario, *algorithm;
    char *sweep_axes; /* runs.sweep_axes: the keys its sweep varied (JSON), or NULL */
} ana_ab_side_run_t;

typedef struct ana_ab_side {
    const char *path;
    rdb_t *db;
    ana_ab_side_run_t *run;      /* labels */
    ana_ab_run_t *ab; /* the same runs for the comparison (strings owned by the side) */
    char **owned;     /* every string of ab, for ana_ab_side_free */
    int nowned;
    int n;
} ana_ab_side_t;

/* Every run of s->db that has ended (a running one has no verdict yet); 0, or -1 with err. */
int ana_ab_side_load(ana_ab_side_t *s, sgd_err_t *err);
void ana_ab_side_free(ana_ab_side_t *s);

/* The rows of both sides (analysis/ab.h's source): sides[0] the baseline, sides[1] the
 * candidate. */
ana_ab_source_t ana_ab_side_source(ana_ab_side_t *sides);

/* "fasgd P=4": the configuration of run i of s. */
void ana_ab_side_label(const ana_ab_side_t *s, int i, char *buf, size_t size);

/* What a comparison of two databases reads and how it judges (compare's options). */
typedef struct ana_ab_dbs {
    const char *base_path, *cand_path;
    const char *metrics; /* "a,b,...": only these (vtime_s, or a metric of one of the
                            databases); NULL: every metric */
    int last;            /* each run's value: the mean of its last K rows */
    ana_match_t match;   /* which configurations pair (analysis/pairs.h) */
    ana_rule_t rule;     /* the verdicts' rule; its alpha is the family's level */
} ana_ab_dbs_t;

/* Opens both databases read-only, checks d->metrics against them and reads their ended
 * runs into base and cand.  0, or -1 with err naming the file or the metric (nothing is
 * left open). */
int ana_ab_sides_open(const ana_ab_dbs_t *d, ana_ab_side_t *base, ana_ab_side_t *cand,
                      sgd_err_t *err);
void ana_ab_sides_close(ana_ab_side_t *base, ana_ab_side_t *cand);

/* The comparison of sides[0] (the baseline) and sides[1] at level alpha (d->rule's alpha
 * or a look's share of it) into *ab (ana_ab_free).  0, or -1 with err. */
int ana_ab_sides_judge(const ana_ab_dbs_t *d, double alpha, ana_ab_side_t *sides,
                       ana_ab_t *ab, sgd_err_t *err);

#endif
