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
 * name to 127.0.0.1 cannot read the study): the names accepted are the --host given (a name,
 * or an address in any spelling, IPv6 in brackets, as in the URL printed), the address
 * listened on, and localhost, each with the port (without one only on port 80).  Answers
 * carry the page's Content-Security-Policy and forbid framing, sniffing and caching.
 *
 * Slow and many clients (web/guard.h): each request's headers must be in within the request
 * timeout of the connection's opening or of its previous answer, or the connection is cut;
 * at most WEB_MAX_CONNECTIONS are kept, and a newcomer beyond them cuts the connection that
 * has waited longest for a request, so that a fresh client always gets in.  Per client, on a
 * non-loopback address, means per client IP address: at most WEB_MAX_PER_CLIENT connections
 * each (a browser opens about six per server), so one address cannot take every slot.  On a
 * loopback address every client is this machine and shares one address (127.0.0.1 or ::1),
 * which tells no two clients apart: there the only bound is the total, and the slot for
 * newcomers and the timeout are what keep a slow local client from locking others out. */
#ifndef SGDSIM_WEB_SERVER_H
#define SGDSIM_WEB_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/pairs.h"
#include "common/error.h"

#define WEB_MAX_URL 1024
#define WEB_MAX_HEADERS 16384
#define WEB_MAX_CONNECTIONS 64    /* kept open at once (web/guard.h) */
#define WEB_SPARE_CONNECTIONS 16  /* accepted beyond them while the oldest are being cut */
#define WEB_MAX_PER_CLIENT 16     /* from one IP address, on a non-loopback address */
#define WEB_REQUEST_TIMEOUT_S 10  /* default: seconds for a request's headers to come in */
#define WEB_IDLE_TIMEOUT_MIN_S 30 /* at least: seconds an answer may stall before it is cut */

typedef struct web_server_opts {
    const char *const *paths; /* the databases */
    int npaths;
    const char *host;         /* a numeric IPv4 or IPv6 address, or a host name */
    uint16_t port;            /* 0: any free port */
    unsigned request_timeout_s; /* 0: WEB_REQUEST_TIMEOUT_S */
    const char *generator;    /* "sgdsim VERSION (REV)" for the page */
    const char *dygraphs_dir; /* web/page.h */
    const ana_match_t *match; /* the A/B view's pairing and --pool-builds (web/build.h) */
} web_server_opts_t;

/* Whether host -- a numeric IPv4 or IPv6 address, or a name this machine resolves -- is a
 * loopback address (a name: every address it resolves to is); -1 when it is neither.  A
 * name with a character no host name has, or a dotted number that is not an IPv4 address,
 * is refused without asking a resolver. */
int web_host_is_loopback(const char *host);

/* Reads the study once (a bad database is an error before anything listens), listens on
 * host:port (a name: on the first of its addresses that can be bound), prints
 * "serving http://HOST:PORT/" on stdout (HOST as given, an IPv6 address in brackets), and
 * answers until SIGINT or SIGTERM.  Returns 0, or -1 with a message (a database that cannot
 * be read, an address that cannot be bound). */
int web_serve(const web_server_opts_t *o, sgd_err_t *err);

#endif
