/* The results browser's two products, made from database paths: the data model (study,
 * verdicts with two databases, JSON) and the page; and `report --html`'s file, written
 * safely (common/outpath.h).  What report and serve call, so they make the same page. */
#ifndef SGDSIM_WEB_BUILD_H
#define SGDSIM_WEB_BUILD_H

#include <stdbool.h>

#include "analysis/pairs.h"
#include "common/error.h"
#include "common/strbuf.h"

typedef struct web_build_opts {
    const char *const *paths; /* the databases (the first the baseline when there are two) */
    int npaths;
    const char *generator;    /* "sgdsim VERSION (REV)" */
    bool live;                /* the page is served (web/server.h) */
    const char *dygraphs_dir; /* web/page.h */
    int columns;              /* pixel columns of decimation; 0: WEB_COLUMNS */
    const ana_match_t *match; /* the A/B view's --match-on, --ignore and --pool-builds;
                                 NULL: the whole configuration, builds never pooled */
} web_build_opts_t;

/* The three documents of web/model_json.h: data model (JSON), the decimated runs' series as
 * drawn and every run's series exact (both gzip-compressed, web/pack.h). */
typedef struct web_docs {
    sgd_strbuf_t data, series, exact;
} web_docs_t;

int web_build_model(const web_build_opts_t *o, web_docs_t *d, sgd_err_t *err);

void web_docs_free(web_docs_t *d);

/* The page with the documents inlined (d NULL for a live page) and its policy. */
int web_build_page(const web_build_opts_t *o, const web_docs_t *d, sgd_strbuf_t *page,
                   sgd_strbuf_t *csp, sgd_err_t *err);

/* `report --html FILE`: the whole page into FILE, which must not be one of the databases
 * or their companions; nothing is written when anything fails (no partial file). */
int web_write_html(const web_build_opts_t *o, const char *file, sgd_err_t *err);

#endif
