/* `sgdsim serve`'s HTTP server (web/server.h). */
#include "web/server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "common/strbuf.h"
#include "web/build.h"

/* The study as last read, and what its files looked like then. */
typedef struct server {
    const web_server_opts_t *o;
    char *page, *csp;
    size_t npage;
    web_docs_t docs;
    char *stamp; /* size and change time of every database file and its -wal */
    bool loopback;
    uint16_t port;
} server_t;

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

/* Whether the Host header names this server's loopback address or localhost. */
static bool host_allowed(struct MHD_Connection *c, const server_t *s)
{
    if (!s->loopback) return true;
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!host) return true; /* HTTP/1.0 without Host: no name to rebind */
    char want[3][64];
    snprintf(want[0], sizeof want[0], "127.0.0.1:%u", s->port);
    snprintf(want[1], sizeof want[1], "localhost:%u", s->port);
    snprintf(want[2], sizeof want[2], "[::1]:%u", s->port);
    for (int i = 0; i < 3; i++)
        if (strcmp(host, want[i]) == 0) return true;
    return false;
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

int web_host_is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
    return -1;
}

/* The listening socket's address; -1 when host is not a numeric address. */
static int address_of(const char *host, uint16_t port, struct sockaddr_storage *ss, bool *v6)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons(port);
        *v6 = false;
        return 0;
    }
    if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(port);
        *v6 = true;
        return 0;
    }
    return -1;
}

static struct MHD_Daemon *start(server_t *s, const char *host, uint16_t port, sgd_err_t *err)
{
    struct sockaddr_storage ss;
    bool v6;
    if (address_of(host, port, &ss, &v6))
        return sgd_errf(err, "--host %s: expected a numeric IPv4 or IPv6 address", host), NULL;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | (v6 ? MHD_USE_IPv6 : 0);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, port, NULL, NULL, answer, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)WEB_MAX_HEADERS,
        MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
    if (!d) sgd_errf(err, "cannot listen on %s port %u (in use, or not an address of this "
                     "machine)", host, port);
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

static void server_free(server_t *s)
{
    free(s->page), free(s->csp), free(s->stamp);
    web_docs_free(&s->docs);
}

int web_serve(const web_server_opts_t *o, sgd_err_t *err)
{
    server_t s = {.o = o, .loopback = web_host_is_loopback(o->host) == 1};
    sgd_strbuf_t page = {0}, csp = {0};
    int rc = refresh(&s, err) ||
             web_build_page(&(web_build_opts_t){.paths = o->paths, .npaths = o->npaths,
                                                .generator = o->generator, .live = true,
                                                .dygraphs_dir = o->dygraphs_dir},
                            NULL, &page, &csp, err) ? -1 : 0;
    s.npage = page.n;
    s.page = sgd_strbuf_take(&page), s.csp = sgd_strbuf_take(&csp);
    sigset_t set = stop_signals();
    struct MHD_Daemon *d = rc ? NULL : start(&s, o->host, o->port, err);
    if (d) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
        s.port = info ? info->port : o->port;
        bool v6 = strchr(o->host, ':') != NULL;
        printf("serving http://%s%s%s:%u/\n", v6 ? "[" : "", o->host, v6 ? "]" : "", s.port);
        fflush(stdout);
        int sig;
        sigwait(&set, &sig);
        MHD_stop_daemon(d);
    }
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    server_free(&s);
    return d ? 0 : -1;
}
