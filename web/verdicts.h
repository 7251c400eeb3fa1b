/* `compare`'s verdict table for a study of exactly two databases (baseline, candidate): the
 * configurations paired on the whole configuration less the seed (analysis/pairs.h) and,
 * per pair, the status, vtime_s and every metric of the baseline judged over the seeds
 * (analysis/verdict.h) with compare's default rule (each run's value the mean of its last 3
 * rows, rtol 0, alpha 0.05, min effect 0.01), from the series the study already holds.
 * Only runs that ended are judged, as compare judges them.
 *
 * Ownership: web_verdicts fills a web_verdicts_t that web_verdicts_free releases. */
#ifndef SGDSIM_WEB_VERDICTS_H
#define SGDSIM_WEB_VERDICTS_H

#include "analysis/verdict.h"
#include "common/error.h"
#include "web/study.h"

/* compare's defaults (cli/cmd_compare.c), which the page states. */
#define WEB_VERDICT_LAST 3

typedef struct web_verdict_row {
    char *scenario, *configuration, *seeds, *metric, *detail;
    ana_verdict_t verdict;
} web_verdict_row_t;

typedef struct web_verdicts {
    web_verdict_row_t *row;
    int n;
    int nnew; /* candidate configurations no baseline configuration pairs with */
    char rule[512]; /* how configurations were paired and judged, in words */
} web_verdicts_t;

/* The verdicts of s (s->ndbs == 2); -1 with a message when the pairing fails. */
int web_verdicts(const web_study_t *s, web_verdicts_t *v, sgd_err_t *err);

void web_verdicts_free(web_verdicts_t *v);

#endif
