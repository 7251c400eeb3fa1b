/* `compare`'s verdict table for a study of exactly two databases (baseline, candidate),
 * from the series the study already holds: the one A/B comparison of analysis/ab.h with the
 * page's options (--match-on, --ignore, --pool-builds) and compare's defaults otherwise
 * (each run's value the mean of its last ANA_LAST_DEFAULT rows, alpha 0.05 over the family
 * with Holm's correction, min effect 0.05, rtol 0).  Only runs that ended are judged.
 *
 * It also gives each group of the study its colour: a baseline configuration and the
 * candidate configuration paired with it share one (the page draws the candidate dashed),
 * so the same lambda on both sides reads as one colour.
 *
 * Ownership: web_verdicts fills a web_verdicts_t that web_verdicts_free releases. */
#ifndef SGDSIM_WEB_VERDICTS_H
#define SGDSIM_WEB_VERDICTS_H

#include "analysis/ab.h"
#include "common/error.h"
#include "web/study.h"

typedef struct web_verdict_row {
    char *scenario, *configuration, *seeds, *metric, *detail;
    ana_verdict_t verdict;
    bool fails; /* counts, and is worse, missing or ambiguous */
} web_verdict_row_t;

typedef struct web_verdicts {
    web_verdict_row_t *row;
    int n;
    int nnew;       /* candidate configurations no baseline configuration pairs with */
    int exit_code;  /* what compare would exit with (analysis/ab.h) */
    char *rule;     /* how configurations were paired and judged, with the counts (owned) */
    int *color;     /* per study group: its colour index (pairs share one) */
} web_verdicts_t;

/* The verdicts of s (s->ndbs == 2) under match; -1 with a message when the pairing fails
 * (a key no run has, as compare refuses it). */
int web_verdicts(const web_study_t *s, const ana_match_t *match, web_verdicts_t *v,
                 sgd_err_t *err);

/* The colours of a study without verdicts: one per group. */
void web_group_colors(const web_study_t *s, web_verdicts_t *v);

void web_verdicts_free(web_verdicts_t *v);

#endif
