/* `sgdsim serve`'s HTTP server (libmicrohttpd): the results browser's page, live.
 *
 * Routes, GET and HEAD only (there is no route that writes, and every other method is 405):
 *   /            the page (web/page.h) in its live form, which asks for data.json;
 *   /data.json   the study's data model (web/model_json.h), read again from the databases
 *                when one of their files changed since the last answer (so new rows appear
 *                as runs commit them), else the last answer again;
 *   /series.gz   the decimated runs' series as drawn, and
 *   /exact.gz    every run's series exact (web/pack.h, gzip-compressed bytes the page
 *                inflates itself), which the page asks for when it draws runs.
 * Every other path is 404; a path with a ".." segment, a backslash or a NUL is 400 (path
 * traversal), a URL over WEB_MAX_URL bytes 414, request headers over WEB_MAX_HEADERS bytes
 * are refused by the library (431), and a request with a body 413.  The databases are opened
 * read-only for each read and closed after it.  When bound to a loopback address, a request
 * whose Host header names another host is 421 (a page of another site that resolves its
 * name to 127.0.0.1 cannot read the study).  Answers carry the page's
 * Content-Security-Policy and forbid framing, sniffing and caching. */
#ifndef SGDSIM_WEB_SERVER_H
#define SGDSIM_WEB_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/pairs.h"
#include "common/error.h"

#define WEB_MAX_URL 1024
#define WEB_MAX_HEADERS 16384

typedef struct web_server_opts {
    const char *const *paths; /* the databases */
    int npaths;
    const char *host;         /* a numeric IPv4 or IPv6 address */
    uint16_t port;            /* 0: any free port */
    const char *generator;    /* "sgdsim VERSION (REV)" for the page */
    const char *dygraphs_dir; /* web/page.h */
    const ana_match_t *match; /* the A/B view's pairing and --pool-builds (web/build.h) */
} web_server_opts_t;

/* Whether host (numeric) is a loopback address; -1 when it is not a numeric address. */
int web_host_is_loopback(const char *host);

/* Reads the study once (a bad database is an error before anything listens), listens on
 * host:port, prints "serving http://HOST:PORT/" on stdout, and answers until SIGINT or
 * SIGTERM.  Returns 0, or -1 with a message (a database that cannot be read, an address
 * that cannot be bound). */
int web_serve(const web_server_opts_t *o, sgd_err_t *err);

#endif
