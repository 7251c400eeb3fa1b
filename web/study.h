/* A study as the results browser shows it: the runs of one or more results databases with
 * everything a page draws about them (configuration, provenance, tags, histograms, traffic,
 * every metric's series), and their configurations x seeds (analysis/groups.h) with each
 * metric's mean +- sd across seeds at every update (analysis/seed_stats.h).
 *
 * The page computes nothing of its own: what it shows of a group (its members, bands, final
 * statistics) is computed here from the analysis layer, and written to JSON by
 * web/model_json.c.
 *
 * Ownership: web_study_load fills a web_study_t that web_study_free releases; every string
 * and array in it is owned by it. */
#ifndef SGDSIM_WEB_STUDY_H
#define SGDSIM_WEB_STUDY_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/groups.h"
#include "analysis/seed_stats.h"
#include "common/error.h"
#include "results/rdb_read.h"

/* A histogram bin (staleness tau or parameter age) and its count. */
typedef struct web_bin {
    int64_t at, count;
} web_bin_t;

typedef struct web_traffic {
    char *kind;
    int64_t sent_msgs, sent_bytes, skipped_msgs, skipped_bytes;
} web_traffic_t;

/* One metric of a run: its name and rows. */
typedef struct web_metric {
    char *name;
    rdb_series_t s;
} web_metric_t;

typedef struct web_run {
    int db; /* index of its database in the study */
    int64_t id, seed, workers, updates, vtime_ns;
    bool has_workers, has_updates, has_vtime_ns;
    double wall_s;
    char *run_key, *scenario, *algorithm, *status, *backend, *blas_core, *config_json;
    char *text[6]; /* command_line, status_detail, started_at, git_rev, host, digest */
    ana_run_t a;    /* scenario, flattened configuration, stored sweep axes */
    char *identity; /* ana_run_identity: its configuration less the seed, and its build
                       unless builds are pooled (NULL: not JSON) */
    bool clock;     /* analysis/clock.h */
    ana_kv_t *tag;  /* key, value (json unused) */
    int ntags;
    web_bin_t *staleness, *version_age;
    int nstaleness, nversion_age;
    web_traffic_t *traffic;
    int ntraffic;
    web_metric_t *metric; /* by name */
    int nmetrics;
    int group; /* its configuration's group; -1 when an older run of its seed stands in */
    /* How far it has come, for a running run: the largest update of its metric rows (what
     * the database holds committed) and its configuration's stop.updates (the target). */
    int64_t last_update, stop_updates;
    bool has_last_update, has_stop_updates;
} web_run_t;

/* One metric of a group: at each update some member has, the summary of the members'
 * finite values there, and their mean virtual time (s). */
typedef struct web_band {
    char *name;
    int n;
    int64_t *update;
    double *vtime_s;
    ana_summary_t *sum;
    double *final_value; /* per member: the value of its last row (NaN when not finite) */
    ana_summary_t final; /* of the members' finite final values */
} web_band_t;

/* Configurations x seeds: runs of one database that differ only by seed, run by one build
 * (unless builds are pooled; the latest run of each seed), with a legend label naming what
 * sets it apart from the other groups. */
typedef struct web_group {
    int db;
    int *run; /* study run indices, in seed order */
    int n;
    char *label;
    char *seeds; /* its members' seeds as a count and ranges (web/seed_list.h) */
    bool clock; /* every member has a clock */
    web_band_t *band; /* by metric name */
    int nbands;
} web_group_t;

typedef struct web_db {
    char *path, *label;
} web_db_t;

typedef struct web_study {
    web_db_t *db;
    int ndbs;
    web_run_t *run;
    int nruns;
    web_group_t *group;
    int ngroups;
    char **metric; /* every metric name of every database, sorted */
    int nmetrics;
    char **label_key; /* the configuration keys the group labels show */
    int nlabel_keys;
} web_study_t;

/* Reads every run of the databases paths[0..n) (opened read-only) into *s; -1 with a
 * message naming the path (and *s empty) when one cannot be read.  pool_builds: a
 * configuration's runs of several builds form one group (--pool-builds). */
int web_study_load(const char *const *paths, int n, bool pool_builds, web_study_t *s,
                   sgd_err_t *err);

void web_study_free(web_study_t *s);

#endif
