/* libFuzzer target: FedScale's trace readers (sim/fedscale.h, through the data-only pickle
 * reader sim/pickle.h).  The input is written to an anonymous in-memory file and read back by
 * path, as the capacity file and as the availability trace.  Each may refuse it with a
 * message; a trace that is accepted must keep its promises: windows sorted, non-empty and
 * apart inside the period, and next-change agreeing with online-at. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/engine.h"
#include "sim/fedscale.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_trace(const sim_fedscale_trace_t *t)
{
    for (int64_t k = 0; k < t->n && k < 16; k++) {
        int64_t p = t->period_ns[k];
        if (p < 1 || t->first[k + 1] < t->first[k]) abort();
        for (int64_t j = t->first[k]; j < t->first[k + 1]; j++) {
            const int64_t *w = t->win + 2 * j;
            if (w[0] < 0 || w[0] >= w[1] || w[1] > p) abort();
            if (j > t->first[k] && w[-1] >= w[0]) abort();
        }
        const int64_t times[] = {0, 1, p / 3, p - 1, p, p + p / 2, 3 * p + 7};
        for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
            int64_t at = times[i];
            if (at < 0 || at > SIM_TIME_MAX_NS) continue;
            bool up = sim_fedscale_trace_online(t, k, at);
            int64_t next = sim_fedscale_trace_next_change(t, k, at);
            if (next <= at) abort();
            if (next >= SIM_TIME_BEYOND_NS) continue;
            if (sim_fedscale_trace_online(t, k, next - 1) != up) abort();
            if (sim_fedscale_trace_online(t, k, next) == up) abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("sgdsim-fuzz-fedscale", 0);
    if (fd < 0) return 0;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    sgd_err_t err = {{0}};
    sim_fedscale_capacity_t c;
    if (sim_fedscale_capacity_load(path, &c, &err) == 0)
        sim_fedscale_capacity_free(&c);
    else if (!err.msg[0])
        abort();
    err.msg[0] = '\0';
    sim_fedscale_trace_t t;
    if (sim_fedscale_trace_load(path, &t, &err) == 0) {
        check_trace(&t);
        sim_fedscale_trace_free(&t);
    } else if (!err.msg[0]) {
        abort();
    }
    close(fd);
    return 0;
}
