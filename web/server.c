/* `sgdsim serve`'s HTTP server (web/server.h). */
#include "web/server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "common/strbuf.h"
#include "web/build.h"
#include "web/guard.h"

/* The study as last read, what its files looked like then, where the server listens and
 * its connections. */
typedef struct server {
    const web_server_opts_t *o;
    char *page, *csp;
    size_t npage;
    web_docs_t docs;
    char *stamp; /* size and change time of every database file and its -wal */
    bool loopback;
    struct sockaddr_storage addr; /* the address listened on */
    uint16_t port;
    web_guard_t *guard;
} server_t;

/* The request timeout in seconds (web_server_opts_t). */
static unsigned request_timeout_s(const web_server_opts_t *o)
{
    return o->request_timeout_s ? o->request_timeout_s : WEB_REQUEST_TIMEOUT_S;
}

static int64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* "size:mtime" of path and path-wal: a committed row changes one of them. */
static char *files_stamp(const web_server_opts_t *o)
{
    sgd_strbuf_t b = {0};
    for (int i = 0; i < o->npaths; i++)
        for (int wal = 0; wal < 2; wal++) {
            char path[4200];
            struct stat st;
            snprintf(path, sizeof path, "%s%s", o->paths[i], wal ? "-wal" : "");
            if (stat(path, &st) == 0)
                sgd_strbuf_printf(&b, "%lld:%lld.%09ld;", (long long)st.st_size,
                               (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
            else sgd_strbuf_puts(&b, "-;");
        }
    return sgd_strbuf_take(&b);
}

/* Reads the study again when its files changed; -1 (the last answer kept) when it cannot. */
static int refresh(server_t *s, sgd_err_t *err)
{
    char *stamp = files_stamp(s->o);
    if (s->stamp && strcmp(stamp, s->stamp) == 0) {
        free(stamp);
        return 0;
    }
    web_docs_t docs = {0};
    web_build_opts_t b = {.paths = s->o->paths, .npaths = s->o->npaths,
                          .generator = s->o->generator, .live = true, .match = s->o->match};
    if (web_build_model(&b, &docs, err)) {
        web_docs_free(&docs);
        free(stamp);
        return -1;
    }
    web_docs_free(&s->docs);
    free(s->stamp);
    s->docs = docs;
    s->stamp = stamp;
    return 0;
}

static enum MHD_Result respond(struct MHD_Connection *c, const server_t *s, unsigned status,
                            const char *type, const char *body, size_t n)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(n, (void *)body,
                                                             MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Content-Security-Policy", s->csp);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result send_text(struct MHD_Connection *c, const server_t *s, unsigned status,
                                 const char *text)
{
    return respond(c, s, status, "text/plain; charset=utf-8", text, strlen(text));
}

/* A path that tries to climb out of the served root, or smuggles a separator. */
static bool traversal(const char *url)
{
    if (strchr(url, '\\')) return true;
    for (const char *p = strstr(url, ".."); p; p = strstr(p + 1, ".."))
        if ((p == url || p[-1] == '/') && (p[2] == '/' || p[2] == '\0')) return true;
    return false;
}

/* Whether the address text (IPv6 when v6) is the one the server listens on, in any spelling
 * ("127.0.0.2", "[0:0:0:0:0:0:0:1]"). */
static bool is_our_address(const server_t *s, const char *text, bool v6)
{
    if (v6) {
        struct in6_addr a;
        const struct sockaddr_in6 *ours = (const struct sockaddr_in6 *)&s->addr;
        return s->addr.ss_family == AF_INET6 && inet_pton(AF_INET6, text, &a) == 1 &&
               memcmp(&a, &ours->sin6_addr, sizeof a) == 0;
    }
    struct in_addr a;
    const struct sockaddr_in *ours = (const struct sockaddr_in *)&s->addr;
    return s->addr.ss_family == AF_INET && inet_pton(AF_INET, text, &a) == 1 &&
           a.s_addr == ours->sin_addr.s_addr;
}

/* Whether the host part of a Host header, name[0..n) (inside its brackets when bracketed),
 * names this server: the address it listens on, the --host given, or localhost. */
static bool names_us(const server_t *s, const char *name, size_t n, bool bracketed)
{
    char buf[256];
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, name, n);
    buf[n] = '\0';
    if (bracketed) return is_our_address(s, buf, true);
    if (is_our_address(s, buf, false)) return true;
    if (buf[n - 1] == '.') buf[n - 1] = '\0'; /* "localhost.": the same name, fully qualified */
    return strcasecmp(buf, "localhost") == 0 || strcasecmp(buf, s->o->host) == 0;
}

/* Whether text (after a Host header's colon) is this server's port in decimal. */
static bool is_our_port(const char *text, uint16_t port)
{
    size_t n = strspn(text, "0123456789");
    return n > 0 && n <= 5 && text[n] == '\0' && strtoul(text, NULL, 10) == port;
}

/* Whether the Host header names this server (web/server.h): checked on a loopback address,
 * where another site's page could reach the server under a name of its own. */
static bool host_allowed(struct MHD_Connection *c, const server_t *s)
{
    if (!s->loopback) return true;
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!host) return true; /* HTTP/1.0 without Host: no name to rebind */
    bool bracketed = host[0] == '[';
    const char *name = host + bracketed, *end = strchr(name, bracketed ? ']' : ':');
    if (!end) {
        if (bracketed) return false;
        end = name + strlen(name);
    }
    const char *port = end + bracketed;
    if (!bracketed && strchr(port + (*port == ':'), ':')) return false; /* IPv6 unbracketed */
    bool port_ok = *port == '\0' ? s->port == 80 : *port == ':' && is_our_port(port + 1, s->port);
    return port_ok && names_us(s, name, (size_t)(end - name), bracketed);
}

static enum MHD_Result route(server_t *s, struct MHD_Connection *c, const char *url)
{
    sgd_err_t err = {{0}};
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
        return respond(c, s, MHD_HTTP_OK, "text/html; charset=utf-8", s->page, s->npage);
    static const char *const docs[] = {"/data.json", "/series.gz", "/exact.gz"};
    int doc = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(url, docs[i]) == 0) doc = i;
    if (doc < 0) return send_text(c, s, MHD_HTTP_NOT_FOUND, "not found\n");
    if (refresh(s, &err)) {
        fprintf(stderr, "sgdsim: serve: %s\n", err.msg);
        return send_text(c, s, MHD_HTTP_SERVICE_UNAVAILABLE, "the databases cannot be read now; "
                         "see the server's log\n");
    }
    const sgd_strbuf_t *b = doc == 0 ? &s->docs.data : doc == 1 ? &s->docs.series : &s->docs.exact;
    return respond(c, s, MHD_HTTP_OK, doc == 0 ? "application/json" : "application/gzip", b->p,
                   b->n);
}

/* Whether the request announces a body (no route takes one). */
static bool has_body(struct MHD_Connection *c)
{
    const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    return (len && strspn(len, "0") != strlen(len)) ||
           MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding");
}

/* Every request is answered on its first call, when its headers are in: before any body is
 * read, so an oversized one is refused without being taken in. */
static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    (void)version, (void)upload, (void)con_cls;
    server_t *s = cls;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (ci && ci->socket_context) web_guard_busy(s->guard, ci->socket_context); /* it is in */
    if (*upload_size) { /* a body arrived anyway: drop it, the answer is queued */
        *upload_size = 0;
        return MHD_YES;
    }
    if (has_body(c))
        return send_text(c, s, MHD_HTTP_CONTENT_TOO_LARGE, "no request takes a body\n");
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_text(c, s, MHD_HTTP_METHOD_NOT_ALLOWED, "read-only: GET and HEAD only\n");
    if (strlen(url) > WEB_MAX_URL) return send_text(c, s, MHD_HTTP_URI_TOO_LONG, "URL too long\n");
    if (traversal(url) || strlen(url) != strcspn(url, "\r\n"))
        return send_text(c, s, MHD_HTTP_BAD_REQUEST, "bad path\n");
    if (!host_allowed(c, s))
        return send_text(c, s, MHD_HTTP_MISDIRECTED_REQUEST, "unknown Host\n");
    return route(s, c, url);
}

/* ---- connections (web/guard.h) ----------------------------------------------------------- */

/* A connection opens (its record is its socket context) or closes (before its socket does). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    server_t *s = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = web_guard_open(s->guard, ci ? (int)ci->connect_fd : -1,
                                         monotonic_ns());
    } else if (*socket_context) {
        web_guard_close(s->guard, *socket_context);
        *socket_context = NULL;
    }
}

/* A request is answered: its connection waits for the next one from now. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)con_cls, (void)toe;
    server_t *s = cls;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (ci && ci->socket_context) web_guard_idle(s->guard, ci->socket_context, monotonic_ns());
}

/* ---- where to listen ------------------------------------------------------------------- */

static bool is_loopback(const struct sockaddr *a)
{
    if (a->sa_family == AF_INET)
        return ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24 == 127;
    return a->sa_family == AF_INET6 &&
           IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

/* Whether host could be an address or a host name at all: letters, digits, '.', '-', ':'
 * (IPv6), '%' (an IPv6 zone), '_', and not a dotted number that is no IPv4 address
 * ("300.1.2.3" would otherwise go to the resolver as a name). */
static bool plausible_host(const char *host)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:%_";
    struct in_addr a;
    size_t n = strlen(host);
    if (n == 0 || n > 253 || strspn(host, ok) != n || host[0] == '-') return false;
    return strspn(host, "0123456789.") != n || inet_pton(AF_INET, host, &a) == 1;
}

/* The addresses of host (a numeric address or a name), for port; freeaddrinfo(*res). */
static int resolve(const char *host, uint16_t port, struct addrinfo **res)
{
    char service[8];
    snprintf(service, sizeof service, "%u", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    *res = NULL;
    return plausible_host(host) && getaddrinfo(host, service, &hints, res) == 0 ? 0 : -1;
}

int web_host_is_loopback(const char *host)
{
    struct addrinfo *res;
    if (resolve(host, 0, &res)) return -1;
    int loopback = 1;
    for (const struct addrinfo *a = res; a; a = a->ai_next)
        if (!is_loopback(a->ai_addr)) loopback = 0;
    freeaddrinfo(res);
    return loopback;
}

/* The daemon on address a, or NULL when it cannot listen there. */
static struct MHD_Daemon *start_on(server_t *s, const struct addrinfo *a)
{
    unsigned timeout = request_timeout_s(s->o);
    bool loopback = is_loopback(a->ai_addr);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
    if (a->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, s->o->port, NULL, NULL, answer, s, MHD_OPTION_SOCK_ADDR, a->ai_addr,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)WEB_MAX_HEADERS,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)(WEB_MAX_CONNECTIONS + WEB_SPARE_CONNECTIONS),
        /* 0: no limit; on loopback every client has the same address (web/server.h) */
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, loopback ? 0u : (unsigned)WEB_MAX_PER_CLIENT,
        /* libmicrohttpd's idle timeout, for an answer that stalls; requests have ours */
        MHD_OPTION_CONNECTION_TIMEOUT,
        timeout > WEB_IDLE_TIMEOUT_MIN_S ? timeout : (unsigned)WEB_IDLE_TIMEOUT_MIN_S,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, s, MHD_OPTION_END);
    if (d) {
        s->loopback = loopback;
        memcpy(&s->addr, a->ai_addr, a->ai_addrlen);
    }
    return d;
}

static struct MHD_Daemon *start(server_t *s, sgd_err_t *err)
{
    const char *host = s->o->host;
    struct addrinfo *res;
    if (resolve(host, s->o->port, &res))
        return sgd_errf(err, "--host %s: not an IPv4 or IPv6 address, nor a name this machine "
                        "resolves", host), NULL;
    struct MHD_Daemon *d = NULL;
    for (const struct addrinfo *a = res; a && !d; a = a->ai_next) d = start_on(s, a);
    freeaddrinfo(res);
    if (!d) sgd_errf(err, "cannot listen on %s port %u (in use, or not an address of this "
                     "machine)", host, s->o->port);
    return d;
}

/* Blocks SIGINT and SIGTERM (the server's thread inherits the mask) and returns them. */
static sigset_t stop_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    return set;
}

/* Until SIGINT or SIGTERM: cuts the requests that are overdue as their deadlines fall (at
 * the latest one timeout after the last look, when a connection opened since is due). */
static void serve_until_stopped(server_t *s, const sigset_t *stop)
{
    int64_t timeout = (int64_t)request_timeout_s(s->o) * 1000000000;
    for (;;) {
        int64_t now = monotonic_ns(), next = web_guard_sweep(s->guard, now);
        int64_t wait = next - now < timeout ? next - now : timeout;
        if (wait < 1000000) wait = 1000000;
        struct timespec ts = {.tv_sec = (time_t)(wait / 1000000000),
                              .tv_nsec = (long)(wait % 1000000000)};
        if (sigtimedwait(stop, NULL, &ts) > 0) return;
    }
}

static void server_free(server_t *s)
{
    free(s->page), free(s->csp), free(s->stamp);
    web_docs_free(&s->docs);
    web_guard_destroy(s->guard);
}

int web_serve(const web_server_opts_t *o, sgd_err_t *err)
{
    server_t s = {.o = o, .guard = web_guard_create(WEB_MAX_CONNECTIONS,
                                                    (int64_t)request_timeout_s(o) * 1000000000)};
    sgd_strbuf_t page = {0}, csp = {0};
    int rc = refresh(&s, err) ||
             web_build_page(&(web_build_opts_t){.paths = o->paths, .npaths = o->npaths,
                                                .generator = o->generator, .live = true,
                                                .dygraphs_dir = o->dygraphs_dir},
                            NULL, &page, &csp, err) ? -1 : 0;
    s.npage = page.n;
    s.page = sgd_strbuf_take(&page), s.csp = sgd_strbuf_take(&csp);
    sigset_t set = stop_signals();
    struct MHD_Daemon *d = rc ? NULL : start(&s, err);
    if (d) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
        s.port = info ? info->port : o->port;
        bool v6 = strchr(o->host, ':') != NULL;
        printf("serving http://%s%s%s:%u/\n", v6 ? "[" : "", o->host, v6 ? "]" : "", s.port);
        fflush(stdout);
        serve_until_stopped(&s, &set);
        MHD_stop_daemon(d);
    }
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    server_free(&s);
    return d ? 0 : -1;
}
