/* The JSON data model of a study, what the page's script draws (web/app.js reads it; its
 * fields are listed in docs/results.md, "The results browser"):
 *
 *   {"format": 1, "generator": TEXT, "live": BOOL, "columns": N,
 *    "dbs": [{"path", "label", "role"}], "metrics": [NAME, ...], "labelKeys": [KEY, ...],
 *    "axes": [KEY, ...],
 *    "runs": [{"db", "id", "scenario", "algorithm", "status", "seed", "workers", "updates",
 *              "vtime_s" (null without a clock), "clock", "wall_s", "run_key", "backend",
 *              "blas_core", "group", "last_update" (the largest update of its rows, null
              without rows), "stop_updates" (its stop.updates), "config": [[KEY, VALUE],
              ...], "tags": [[KEY, VALUE]],
 *              "text": {"command_line", "status_detail", "started_at", "git_rev", "host",
 *              "digest"}, "staleness": [[TAU, COUNT]], "versionAge": [[AGE, COUNT]],
 *              "traffic": [[KIND, SENT_MSGS, SENT_BYTES, SKIPPED_MSGS, SKIPPED_BYTES]],
 *              "final": [VALUE per metric]}],
 *    "groups": [{"db", "color", "label", "runs": [RUN INDEX], "seeds": [SEED],
                "seedsText" (the seeds as a count and ranges, web/seed_list.h), "clock",
 *                "final": [{"n", "mean", "sd", "ci_low", "ci_high"} or null per metric],
 *                "bands": [BAND or null per metric]}],
 *    "verdicts": null or {"rule", "nnew", "exit", "rows": [[SCENARIO, CONFIGURATION, SEEDS,
 *                METRIC, VERDICT, DETAIL, FAILS]]}}
 *   "color" is the group's colour index: a baseline group and the candidate group paired
 *   with it share one (web/verdicts.h); "exit" is the code compare would exit with.
 *   BAND   = {"n": POINTS, "u": [...], "t": [...], "mean": [...], "lo": [...], "hi": [...],
 *             "k": [SEEDS AT THE POINT], "dec": BOOL}   (lo, hi: mean -+ sd)
 * Series are indexed by the position of their metric in "metrics", so no name from a
 * database is ever an object key.  A band longer than 2 x columns points is decimated
 * (web/decimate.h, "dec": true); its times and values, only ever drawn, have 7 significant
 * digits.  The runs' series are not in it: a thousand runs' rows would slow every opening
 * of the page.  They are in two binary documents (web/pack.h), which the page reads only
 * when it draws runs: the series longer than 2 x columns as drawn (decimated, single
 * precision), and every series whole and exact.
 * The data model is safe inside a <script> element (web/escape.h). */
#ifndef SGDSIM_WEB_MODEL_JSON_H
#define SGDSIM_WEB_MODEL_JSON_H

#include <stdbool.h>

#include "common/strbuf.h"
#include "web/study.h"
#include "web/verdicts.h"

typedef struct web_model_opts {
    const char *generator; /* "sgdsim 0.1.0 (rev)" */
    bool live;             /* served by `sgdsim serve`: the page polls for new rows */
    int columns;           /* WEB_COLUMNS; tests make it small to decimate short series */
} web_model_opts_t;

/* The data model into data, the decimated runs' series as drawn into series and every
 * run's series exact into exact (both gzip-compressed, web/pack.h). v: the groups' colours
 * and, for a two-database study, the verdicts (v->rule NULL: none). */
void web_model_json(const web_study_t *s, const web_verdicts_t *v, const web_model_opts_t *o,
                    sgd_strbuf_t *data, sgd_strbuf_t *series, sgd_strbuf_t *exact);

#endif
