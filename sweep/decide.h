/* `compare --run`'s runs: seeds run in batches, as a sweep's points, until every row of the
 * comparison that counts is decided -- the group-sequential rule of analysis/multiplicity.h
 * (O'Brien-Fleming spending over --max-seeds seeds a side), each look reading and judging
 * both databases as they are (analysis/ab_side.h).  The caller prints the outcome.
 *
 * Ownership: sweep_decide fills a sweep_decided_t (when it returns 0) that
 * sweep_decided_free empties; the options are borrowed for the call. */
#ifndef SGDSIM_SWEEP_DECIDE_H
#define SGDSIM_SWEEP_DECIDE_H

#include "analysis/ab.h"
#include "analysis/ab_side.h"
#include "config/scenario.h"

typedef struct sweep_decide_opts {
    ana_ab_dbs_t dbs;          /* the two databases and the comparison (its alpha: the
                                  family's level over every look) */
    const char *run_scenario;  /* --run: the candidate's scenario */
    const char *base_scenario; /* --run-baseline: the baseline's, or NULL (then only the
                                  baseline's seeds the candidate lacks are run) */
    const char *const *sets;   /* --set assignments of the candidate's runs */
    int nsets;
    const char *const *base_sets; /* --baseline-set assignments of the baseline's runs */
    int nbase_sets;
    int max_seeds, batch, jobs; /* --max-seeds, --batch, -j */
    const char *build;         /* this sgdsim's build (runs.git_rev): the baseline grows only
                                  with the build that made it */
    const scn_machine_t *machine; /* what the runs' numerics resolve against (sweep/plan.h) */
    char **(*child_env)(const char *kernel); /* a run's environment (sweep/exec.h) */
    void (*child_env_free)(char **env);
} sweep_decide_opts_t;

typedef struct sweep_decided {
    ana_ab_side_t sides[2]; /* the last look's sides, open: the rows name their runs */
    ana_ab_t ab;            /* its comparison, each row in the first look's decision of it */
    int exit_code;          /* ana_ab_exit(&ab) */
    char *summary;          /* "--run: 3 looks, alpha spent ...; seeds a side: ...; 9
                               candidate runs and 0 baseline runs made" */
} sweep_decided_t;

/* Runs seeds until every row that counts is decided, or --max-seeds is reached, or no seed
 * is left to pair.  0 with *out (sweep_decided_free), or the exit code after the message
 * (a database or a run that could not be read or made; runs that did not pair). */
int sweep_decide(const sweep_decide_opts_t *o, sweep_decided_t *out);
void sweep_decided_free(sweep_decided_t *d);

#endif
