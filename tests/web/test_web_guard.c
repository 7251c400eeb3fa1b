/* web/guard.h on socket pairs and a clock the test sets: a newcomer over the bound cuts the
 * connection that has waited longest for a request (never one being answered while another
 * waits, and the oldest when all are answered); a request not in within the timeout is cut
 * at its deadline and not before; the next deadline is reported; a cut connection's peer
 * sees the end of the stream while the others' stay open. */
#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/check.h"
#include "web/guard.h"

#define S INT64_C(1000000000) /* one second in ns */

typedef struct pair {
    int server, client; /* the guarded end, the peer's */
    web_guard_conn_t *c;
} pair_t;

static void open_pair(web_guard_t *g, pair_t *p, int64_t now)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    p->server = sv[0], p->client = sv[1];
    p->c = web_guard_open(g, p->server, now);
}

/* Whether the peer sees the end of the stream (the guard cut the connection). */
static bool cut(const pair_t *p)
{
    char b;
    ssize_t n = recv(p->client, &b, 1, MSG_DONTWAIT);
    CHECK(n == 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)));
    return n == 0;
}

static void close_pair(web_guard_t *g, pair_t *p)
{
    web_guard_close(g, p->c);
    close(p->server), close(p->client);
}

/* Three slots, a timeout of 10 s: a, b, c open at 0, 1, 2 s, b is being answered. */
static void newcomer_and_deadlines(void)
{
    web_guard_t *g = web_guard_create(3, 10 * S);
    pair_t a, b, c, d;
    open_pair(g, &a, 0), open_pair(g, &b, 1 * S), open_pair(g, &c, 2 * S);
    web_guard_busy(g, b.c);
    CHECK(web_guard_open_count(g) == 3 && !cut(&a) && !cut(&b) && !cut(&c));
    open_pair(g, &d, 3 * S); /* one too many: a has waited longest */
    CHECK(cut(&a) && !cut(&b) && !cut(&c) && !cut(&d));
    CHECK(web_guard_open_count(g) == 3 && web_guard_cut_count(g) == 1);
    close_pair(g, &a);
    web_guard_idle(g, b.c, 4 * S); /* answered: b waits from 4 s, deadline 14 s */
    CHECK_INT_EQ(web_guard_sweep(g, 11 * S), 12 * S); /* c's deadline, 2 + 10 s */
    CHECK(!cut(&b) && !cut(&c) && !cut(&d));
    CHECK_INT_EQ(web_guard_sweep(g, 12 * S - 1), 12 * S);
    CHECK(!cut(&c));
    CHECK_INT_EQ(web_guard_sweep(g, 12 * S), 13 * S); /* c cut; d's deadline next */
    CHECK(cut(&c) && !cut(&b) && !cut(&d));
    web_guard_busy(g, d.c);
    CHECK_INT_EQ(web_guard_sweep(g, 13 * S), 14 * S);
    CHECK_INT_EQ(web_guard_sweep(g, 100 * S), INT64_MAX); /* b cut; d is being answered */
    CHECK(cut(&b) && !cut(&d));
    CHECK(web_guard_open_count(g) == 1 && web_guard_cut_count(g) == 3);
    close_pair(g, &b), close_pair(g, &c), close_pair(g, &d);
    CHECK(web_guard_open_count(g) == 0);
    web_guard_destroy(g);
}

/* Every other connection is being answered: the oldest goes, never the newcomer. */
static void all_busy(void)
{
    web_guard_t *g = web_guard_create(2, 10 * S);
    pair_t x, y, z;
    open_pair(g, &x, 0), open_pair(g, &y, 1 * S);
    web_guard_busy(g, x.c), web_guard_busy(g, y.c);
    open_pair(g, &z, 2 * S);
    CHECK(cut(&x) && !cut(&y) && !cut(&z));
    close_pair(g, &x), close_pair(g, &y), close_pair(g, &z);
    web_guard_destroy(g);
}

/* A connection whose socket is unknown is counted, never cut; with nothing else to cut, a
 * newcomer over the bound is let in all the same; a deadline past INT64_MAX saturates. */
static void unknown_socket(void)
{
    web_guard_t *g = web_guard_create(1, 1 * S);
    web_guard_conn_t *u = web_guard_open(g, -1, 0);
    CHECK_INT_EQ(web_guard_sweep(g, 5 * S), INT64_MAX);
    pair_t p;
    open_pair(g, &p, INT64_MAX - 1);
    CHECK(!cut(&p));
    CHECK(web_guard_open_count(g) == 2 && web_guard_cut_count(g) == 0);
    CHECK_INT_EQ(web_guard_sweep(g, INT64_MAX - 1), INT64_MAX);
    CHECK(!cut(&p));
    web_guard_close(g, u);
    close_pair(g, &p);
    web_guard_destroy(g);
}

int main(void)
{
    newcomer_and_deadlines();
    all_busy();
    unknown_socket();
    return check_exit();
}
