/* Keeps `sgdsim serve` open to new clients however many others are slow or idle
 * (web/server.h): the connections' bookkeeping, apart from HTTP.
 *
 * Two rules:
 *   - a request deadline: a connection must complete each request's headers within a timeout
 *     of starting to wait for them (when it opened, or when its previous answer was sent);
 *     past it, it is cut.  libmicrohttpd's own timeout counts idle time only, so a client
 *     that trickles a byte a second was never cut, and 64 of them held every slot;
 *   - a slot for newcomers: when a new connection makes more than max_open open, the one that
 *     has waited longest for a request is cut (or, when every other one is being answered,
 *     the oldest), so that a fresh client is always let in, at once, never after a timeout.
 *
 * Cutting a connection is shutdown(2) of its socket: the server's own thread then sees it end
 * and closes it as it closes any other, so the socket is never closed behind its back.  The
 * socket stays valid until web_guard_close, which the server calls before it closes it.
 *
 * Times are the caller's, in ns of a monotonic clock, so a test drives them.  Thread-safe:
 * the server's thread opens, marks and closes connections while another thread sweeps. */
#ifndef SGDSIM_WEB_GUARD_H
#define SGDSIM_WEB_GUARD_H

#include <stdint.h>

typedef struct web_guard web_guard_t;
typedef struct web_guard_conn web_guard_conn_t; /* one open connection */

/* A guard that keeps at most max_open (>= 1) connections and cuts a request that is not in
 * within timeout_ns; web_guard_destroy frees it. */
web_guard_t *web_guard_create(int max_open, int64_t timeout_ns);

/* Frees g and any connection still recorded (a server closes them all first). */
void web_guard_destroy(web_guard_t *g);

/* Records a new connection on socket fd (-1: unknown, never cut) waiting for its first
 * request from now_ns, and makes room for it (above).  Returns its record, which is the
 * guard's until web_guard_close. */
web_guard_conn_t *web_guard_open(web_guard_t *g, int fd, int64_t now_ns);

/* c's request is in and being answered: no deadline until web_guard_idle. */
void web_guard_busy(web_guard_t *g, web_guard_conn_t *c);

/* c's answer is sent: it waits for its next request from now_ns. */
void web_guard_idle(web_guard_t *g, web_guard_conn_t *c, int64_t now_ns);

/* c is about to be closed: forgets and frees it. */
void web_guard_close(web_guard_t *g, web_guard_conn_t *c);

/* Cuts every connection whose request is overdue at now_ns.  Returns when the next deadline
 * falls (INT64_MAX when no connection is waiting). */
int64_t web_guard_sweep(web_guard_t *g, int64_t now_ns);

/* Connections recorded and not cut; connections cut so far (diagnostics and tests). */
int web_guard_open_count(web_guard_t *g);
int64_t web_guard_cut_count(web_guard_t *g);

#endif
