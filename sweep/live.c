/* The live progress line of a sweep on a terminal (sweep/live.h): the children's progress
 * pipes, their last reported updates, and the line itself. */
#include "sweep/live.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/error.h"

typedef struct live_slot {
    int fd;            /* read end of the point's pipe; -1 = none */
    int child_fd;      /* write end until the child is started; -1 = none */
    int point;         /* plan index, for the line */
    int64_t done, total;
    char buf[128];     /* a partial line read so far */
    size_t nbuf;
} live_slot_t;

struct sweep_live {
    live_slot_t *slots;
    int nslots;
    int64_t total, finished; /* updates of all points; of points that ended */
    double last_draw;
    bool drawn;
};

sweep_live_t *sweep_live_start(bool quiet, int nslots, int64_t total_updates)
{
    if (quiet || !isatty(STDERR_FILENO)) return NULL;
    sweep_live_t *l = sgd_xcalloc(1, sizeof *l);
    l->slots = sgd_xcalloc((size_t)nslots, sizeof *l->slots);
    for (int s = 0; s < nslots; s++) l->slots[s].fd = l->slots[s].child_fd = -1;
    l->nslots = nslots;
    l->total = total_updates;
    return l;
}

int sweep_live_open(sweep_live_t *l, int slot, int point, int64_t updates)
{
    if (!l) return -1;
    int fds[2];
    if (pipe(fds) != 0) return -1;
    /* Both ends close on exec (the child clears the flag on its write end alone) and never
     * block: a child whose line does not fit drops it, and polling reads what is there. */
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    }
    live_slot_t *s = &l->slots[slot];
    *s = (live_slot_t){.fd = fds[0], .child_fd = fds[1], .point = point, .total = updates};
    return fds[1];
}

void sweep_live_started(sweep_live_t *l, int slot)
{
    if (!l || l->slots[slot].child_fd < 0) return;
    close(l->slots[slot].child_fd);
    l->slots[slot].child_fd = -1;
}

/* Takes in what slot s's child wrote: the last complete "DONE TOTAL" line counts. */
static void read_slot(live_slot_t *s)
{
    for (;;) {
        ssize_t n = read(s->fd, s->buf + s->nbuf, sizeof s->buf - 1 - s->nbuf);
        if (n <= 0) return; /* EAGAIN: nothing more now; 0: the child closed it */
        s->nbuf += (size_t)n;
        s->buf[s->nbuf] = '\0';
        char *nl;
        while ((nl = strchr(s->buf, '\n')) != NULL) {
            long long u, t;
            if (sscanf(s->buf, "%lld %lld", &u, &t) == 2) s->done = u, s->total = t;
            size_t rest = s->nbuf - (size_t)(nl + 1 - s->buf);
            memmove(s->buf, nl + 1, rest + 1);
            s->nbuf = rest;
        }
        if (s->nbuf == sizeof s->buf - 1) s->nbuf = 0; /* no line that long: drop it */
    }
}

void sweep_live_ended(sweep_live_t *l, int slot, bool completed)
{
    if (!l) return;
    live_slot_t *s = &l->slots[slot];
    if (s->fd >= 0) {
        read_slot(s);
        close(s->fd);
    }
    if (s->child_fd >= 0) close(s->child_fd);
    l->finished += completed ? s->total : s->done;
    *s = (live_slot_t){.fd = -1, .child_fd = -1};
}

void sweep_live_skipped(sweep_live_t *l, int64_t updates)
{
    if (l) l->finished += updates;
}

static int terminal_width(void)
{
    struct winsize w;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
    return 80;
}

/* "sweep: updates 2360/8000 (29%) | #4 120/800 | #5 40/800", cut to the terminal's width
 * (a wrapped line could not be redrawn in place). */
static void draw(sweep_live_t *l)
{
    char line[1024];
    int64_t done = l->finished;
    for (int i = 0; i < l->nslots; i++)
        if (l->slots[i].fd >= 0) done += l->slots[i].done;
    double pct = l->total > 0 ? 100.0 * (double)done / (double)l->total : 0.0;
    int n = snprintf(line, sizeof line, "sweep: updates %lld/%lld (%.0f%%)", (long long)done,
                     (long long)l->total, pct);
    for (int i = 0; i < l->nslots && n < (int)sizeof line; i++) {
        const live_slot_t *s = &l->slots[i];
        if (s->fd < 0) continue;
        n += snprintf(line + n, sizeof line - (size_t)n, " | #%d %lld/%lld", s->point,
                      (long long)s->done, (long long)s->total);
    }
    int width = terminal_width() - 1;
    if (n > width) n = width;
    fprintf(stderr, "\r\033[K%.*s", n, line);
    fflush(stderr);
    l->drawn = true;
}

void sweep_live_poll(sweep_live_t *l)
{
    if (!l) return;
    for (int i = 0; i < l->nslots; i++)
        if (l->slots[i].fd >= 0) read_slot(&l->slots[i]);
    double t = sgd_monotonic_s();
    if (l->drawn && t - l->last_draw < 0.2) return;
    l->last_draw = t;
    draw(l);
}

void sweep_live_clear(sweep_live_t *l)
{
    if (!l || !l->drawn) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    l->drawn = false;
}

void sweep_live_end(sweep_live_t *l)
{
    if (!l) return;
    sweep_live_clear(l);
    for (int i = 0; i < l->nslots; i++) {
        if (l->slots[i].fd >= 0) close(l->slots[i].fd);
        if (l->slots[i].child_fd >= 0) close(l->slots[i].child_fd);
    }
    free(l->slots);
    free(l);
}
