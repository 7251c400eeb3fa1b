/* What `report --json` and `report --welch` read of a results database: its finished runs,
 * each with its configuration (analysis/groups.h), the end of every metric's curve
 * (analysis/run_window.h), its staleness histogram summarised (analysis/staleness_hist.h)
 * and its traffic by kind.  Read through results/rdb_rows.h only.
 *
 * Ownership: rep_load fills a rep_db_t that rep_free releases whole. */
#ifndef SGDSIM_CLI_REPORT_DATA_H
#define SGDSIM_CLI_REPORT_DATA_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/groups.h"
#include "analysis/run_window.h"
#include "analysis/staleness_hist.h"
#include "common/error.h"
#include "results/rdb.h"

/* The most updates --at may name. */
enum { REP_MAX_AT = 32 };

typedef struct rep_opts {
    int last_k;                /* rows in each curve's closing window (>= 1) */
    int64_t at[REP_MAX_AT];    /* updates whose values are kept (--at) */
    int nat;
    bool has_updates;          /* keep only runs whose configuration has ... */
    int64_t updates;           /* ... stop.updates = updates */
    bool pool_builds;          /* --pool-builds: a configuration's runs of several builds
                                  are one sample (each seed once: its latest run) */
} rep_opts_t;

/* One metric of one run. */
typedef struct rep_metric {
    char *name;
    ana_window_t w;
    double at[REP_MAX_AT]; /* its value at opts.at[j]; NaN without a row there */
} rep_metric_t;

typedef struct rep_traffic {
    char *kind;
    int64_t sent_msgs, sent_bytes, skipped_msgs, skipped_bytes;
} rep_traffic_t;

/* A finished run. */
typedef struct rep_run {
    ana_run_t a;
    int64_t id, seed;
    char *identity; /* its configuration less seed, and its build unless pooled
                       (ana_run_identity) */
    char *build;    /* runs.git_rev (NULL when unknown) */
    char *config_json; /* its resolved configuration */
    char *status;
    bool diverged;
    bool clock;     /* analysis/clock.h: without one, no vtime_s or images_per_s */
    double wall_s;  /* NaN when unknown */
    double vtime_s; /* NaN when unknown */
    rep_metric_t *metric; /* by name */
    int nmetric;
    ana_hist_t staleness;
    rep_traffic_t *traffic; /* by kind */
    int ntraffic;
} rep_run_t;

typedef struct rep_db {
    rep_run_t *run; /* by scenario, then id */
    int n;
} rep_db_t;

/* Which runs the statistics are taken over, as report --json says it. */
#define REP_STATISTICS_OVER                                                                   \
    "the latest finished run of each seed of a configuration run by one build (with "       \
    "--pool-builds, by any), less the runs that diverged (n_diverged counts them) and the "  \
    "runs without a finite value (n counts the others)"

/* The finished runs of db that o keeps, with their facts; -1 with err on a read error. */
int rep_load(rdb_t *db, const rep_opts_t *o, rep_db_t *d, sgd_err_t *err);
void rep_free(rep_db_t *d);

/* A scenario's runs by configuration (analysis/groups.h): member[k][0..size[k]) the latest
 * run of each seed of configuration k, in seed order. */
typedef struct rep_group {
    rep_run_t ***member;
    int *size;
    int n;
} rep_group_t;

/* Groups runs[0..n) (one scenario's) by configuration and build (rep_run_t.identity);
 * rep_group_free releases the result. */
rep_group_t rep_group(rep_run_t *runs, int n);
void rep_group_free(rep_group_t *g);

/* Run r's metric `name`, or NULL. */
const rep_metric_t *rep_metric(const rep_run_t *r, const char *name);

/* Run r's final value of `name` (vtime_s: its virtual time); NaN when it has none. */
double rep_final(const rep_run_t *r, const char *name);

/* Whether metric `name` means something for runs with or without a clock. */
bool rep_shown(const char *name, bool clock);

#endif
