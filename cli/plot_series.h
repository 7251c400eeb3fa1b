/* The series `sgdsim plot` draws: the selected runs grouped by the --by keys, in legend
 * order, each with its curve (the mean over its runs per update) and, for --band, the
 * band around it.
 *
 * Legend order: series are sorted key by key; a key whose values are all numbers sorts
 * numerically (250 < 500 < 1000), any other in natural order (digit runs compared as
 * numbers: exp2/l250 < exp2/l1000).  Without keys every run is its own series, in id
 * order; with --band and no keys all selected runs form one series, which they may only
 * when they differ in nothing but their seed.  A series counts each seed once: of several
 * runs of one seed and configuration, the latest (a repeat of a run is the same bits; with
 * --pool-builds, a later build's run stands in for an earlier one's).  The mean per update and the band are
 * analysis/seed_band.h's, the curve the results browser draws.
 *
 * Errors: -1 with the message in err. */
#ifndef SGDSIM_CLI_PLOT_SERIES_H
#define SGDSIM_CLI_PLOT_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/plot_select.h"
#include "common/error.h"
#include "results/rdb.h"
#include "results/rdb_curves.h"

typedef enum { PLOT_BAND_NONE, PLOT_BAND_STD, PLOT_BAND_MINMAX } plot_band_t;

typedef struct plot_series {
    char **values;  /* the nkeys group values as text ("NULL" for none) */
    char *label;    /* legend entry (plot_series_label) */
    char *config;   /* its first run's configuration without seed */
    bool mixed;     /* its runs differ by more than their seed */
    char *build;    /* its first run's build (runs.git_rev; "" unknown) */
    bool builds_differ; /* its runs come from several builds */
    int nruns;      /* each seed once */
    double *x, *y, *lo, *hi; /* n points; lo and hi only with a band */
    int n;
} plot_series_t;

typedef struct plot_data {
    int nkeys;
    plot_series_t *series;
    int nseries;
    int64_t *run_id; /* the selected runs in id order, and the series of each (-1: a
                        later run of its seed stands in for it) */
    int *run_series;
    char **run_config; /* and the configuration of each (without seed and thread count) */
    char **run_build;  /* and its build (runs.git_rev; "" unknown) */
    int nruns, nrunning; /* nrunning: of them still running */
    char *scenario;  /* the runs' scenario name, or their common prefix (whole words) */
    bool scenarios_differ;
    int npoints;
} plot_data_t;

typedef struct plot_query {
    const char *metric;
    const char *const *keys;
    int nkeys;
    rdb_selection_t sel;
    plot_band_t band;
    bool pool; /* --pool: without keys all runs form one series, as with a band */
    bool pool_builds; /* --pool-builds: runs of several builds may share a series */
    bool vtime, logx, logy;
} plot_query_t;

/* Reads the selected runs into *d and groups them into sorted series. */
int plot_series_read_runs(rdb_t *db, const plot_query_t *q, plot_data_t *d, sgd_err_t *err);

/* Reads the metric's points into the series of *d: per update the mean value (and mean
 * virtual time), with --band the band (mean ± sample standard deviation, or min and max;
 * analysis/seed_stats.h's ana_summarize);
 * on log axes points <= 0 are left out, and a band's lower edge <= 0 is drawn at the mean. */
int plot_series_read_points(rdb_t *db, const plot_query_t *q, plot_data_t *d, sgd_err_t *err);

/* Sets every series' legend entry: "key=value" per key but keys[omit] (a panel's key,
 * named by its title; -1: none), space-separated, as --label renames them; "run=ID"
 * without keys, the scenario with --band and no keys.  A KEY:VALUE label whose value no
 * series has is an error. */
int plot_series_label(plot_data_t *d, const char *const *keys, int omit,
                      const plot_labels_t *labels, sgd_err_t *err);

void plot_data_free(plot_data_t *d);

#endif
