/* The results browser's page: one HTML document holding its styles, dygraphs (read from its
 * installed path when the page is made), the page's own script (web/pack.js and web/app.js,
 * compiled in), the study's JSON data model (web/model_json.h) and its runs' series
 * (web/pack.h, as base64 in <script type="application/gzip"> elements, which no browser
 * executes), so that it opens offline and makes no network request.  A
 * Content-Security-Policy in the page allows exactly those two scripts (by their SHA-256
 * hashes) and that one style element, no other source of anything, and
 * — when served live — requests to the page's own origin only.
 *
 * Why dygraphs: it draws large line series with error bands natively (customBars), hovers,
 * zooms and toggles series without plugins, uses no eval, and Debian ships it
 * (libjs-dygraphs, MIT licence), so it is installed like every other dependency. */
#ifndef SGDSIM_WEB_PAGE_H
#define SGDSIM_WEB_PAGE_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"

/* Where Debian's libjs-dygraphs installs dygraph.min.js and dygraph.min.css. */
#define WEB_DYGRAPHS_DIR "/usr/share/javascript/dygraphs"

typedef struct web_page_opts {
    const char *title;        /* shown in the tab and the header (escaped) */
    bool live;                /* served: the script asks for data.json, series.gz, exact.gz */
    const char *data_json;    /* the data model; NULL when live (the script fetches it) */
    const sgd_strbuf_t *series;  /* the decimated runs' series as drawn (web/pack.h); NULL when
                                 live */
    const sgd_strbuf_t *exact;   /* every run's series, exact (web/pack.h); NULL when live */
    const char *dygraphs_dir; /* WEB_DYGRAPHS_DIR, or another folder holding its two files */
} web_page_opts_t;

/* The page into *html and its policy (the Content-Security-Policy value, which a server
 * also sends as a header) into *csp; -1 with a message naming the file when dygraphs cannot
 * be read or would not stay inside its <script> element. */
int web_page_html(const web_page_opts_t *o, sgd_strbuf_t *html, sgd_strbuf_t *csp, sgd_err_t *err);

#endif
