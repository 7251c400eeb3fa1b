/* `sgdsim serve`'s connection bookkeeping: request deadlines and a slot for newcomers
 * (web/guard.h).  A list in opening order: a server holds a few dozen connections at most,
 * so a scan is all a decision needs. */
#include "web/guard.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "common/error.h"

struct web_guard_conn {
    web_guard_conn_t *prev, *next;
    int fd;
    int64_t waiting; /* ns since which it waits for a request; -1 while answered */
    bool cut;
};

struct web_guard {
    pthread_mutex_t lock;
    web_guard_conn_t *first, *last;
    int max_open, open; /* open: recorded and not cut */
    int64_t timeout, cuts;
};

web_guard_t *web_guard_create(int max_open, int64_t timeout_ns)
{
    SGD_ASSERT(max_open >= 1 && timeout_ns > 0);
    web_guard_t *g = sgd_xcalloc(1, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    g->max_open = max_open;
    g->timeout = timeout_ns;
    return g;
}

void web_guard_destroy(web_guard_t *g)
{
    if (!g) return;
    for (web_guard_conn_t *c = g->first, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* Ends c for its client and for the server's thread, which then closes it. */
static void cut(web_guard_t *g, web_guard_conn_t *c)
{
    if (c->cut) return;
    c->cut = true;
    g->open--;
    g->cuts++;
    if (c->fd >= 0) (void)shutdown(c->fd, SHUT_RDWR);
}

/* The connection to cut for a newcomer: the one that has waited longest for a request, else
 * (every other one is being answered) the oldest; NULL when there is no other. */
static web_guard_conn_t *victim(const web_guard_t *g, const web_guard_conn_t *newcomer)
{
    web_guard_conn_t *waited = NULL, *oldest = NULL;
    for (web_guard_conn_t *c = g->first; c; c = c->next) {
        if (c == newcomer || c->cut || c->fd < 0) continue;
        if (!oldest) oldest = c; /* the list is in opening order */
        if (c->waiting >= 0 && (!waited || c->waiting < waited->waiting)) waited = c;
    }
    return waited ? waited : oldest;
}

web_guard_conn_t *web_guard_open(web_guard_t *g, int fd, int64_t now_ns)
{
    web_guard_conn_t *c = sgd_xcalloc(1, sizeof *c);
    c->fd = fd;
    c->waiting = now_ns;
    pthread_mutex_lock(&g->lock);
    c->prev = g->last;
    if (g->last) g->last->next = c;
    else g->first = c;
    g->last = c;
    g->open++;
    while (g->open > g->max_open) {
        web_guard_conn_t *v = victim(g, c);
        if (!v) break;
        cut(g, v);
    }
    pthread_mutex_unlock(&g->lock);
    return c;
}

void web_guard_busy(web_guard_t *g, web_guard_conn_t *c)
{
    pthread_mutex_lock(&g->lock);
    c->waiting = -1;
    pthread_mutex_unlock(&g->lock);
}

void web_guard_idle(web_guard_t *g, web_guard_conn_t *c, int64_t now_ns)
{
    pthread_mutex_lock(&g->lock);
    c->waiting = now_ns;
    pthread_mutex_unlock(&g->lock);
}

void web_guard_close(web_guard_t *g, web_guard_conn_t *c)
{
    pthread_mutex_lock(&g->lock);
    if (!c->cut) g->open--;
    if (c->prev) c->prev->next = c->next;
    else g->first = c->next;
    if (c->next) c->next->prev = c->prev;
    else g->last = c->prev;
    pthread_mutex_unlock(&g->lock);
    free(c);
}

int64_t web_guard_sweep(web_guard_t *g, int64_t now_ns)
{
    int64_t next = INT64_MAX;
    pthread_mutex_lock(&g->lock);
    for (web_guard_conn_t *c = g->first; c; c = c->next) {
        if (c->cut || c->waiting < 0 || c->fd < 0) continue;
        /* waiting <= now in practice; a deadline is compared, not a difference taken */
        int64_t deadline = c->waiting > INT64_MAX - g->timeout ? INT64_MAX
                                                               : c->waiting + g->timeout;
        if (deadline <= now_ns) cut(g, c);
        else if (deadline < next) next = deadline;
    }
    pthread_mutex_unlock(&g->lock);
    return next;
}

int web_guard_open_count(web_guard_t *g)
{
    pthread_mutex_lock(&g->lock);
    int n = g->open;
    pthread_mutex_unlock(&g->lock);
    return n;
}

int64_t web_guard_cut_count(web_guard_t *g)
{
    pthread_mutex_lock(&g->lock);
    int64_t n = g->cuts;
    pthread_mutex_unlock(&g->lock);
    return n;
}
