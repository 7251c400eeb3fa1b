/* The engine processes events in (time, insertion order): random times with many ties,
 * including events scheduled by handlers at the current time, must come out exactly as a
 * stable sort by time of the insertion sequence. */
#include <stdlib.h>

#include "sim/engine.h"
#include "tests/check.h"

#define N 20000

typedef struct rec {
    int64_t t;
    uint64_t id; /* insertion index */
} rec_t;

typedef struct log {
    rec_t expect[2 * N];
    int nexpect;
    rec_t got[2 * N];
    int ngot;
    uint32_t type;
    uint64_t lcg;
} log_t;

static uint64_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static int by_time_then_id(const void *a, const void *b)
{
    const rec_t *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->id < y->id ? -1 : (x->id > y->id);
}

/* Each original event (arg < N) schedules one child at now or later; children must still
 * take their place by insertion order among the pending events of the same time. */
static void on_event(sim_engine_t *e, const sim_event_t *ev, void *ctx)
{
    log_t *lg = ctx;
    lg->got[lg->ngot++] = (rec_t){ev->t_ns, ev->arg};
    if (ev->arg < N) {
        int64_t t = ev->t_ns + (int64_t)(next_rand(&lg->lcg) % 3);
        uint64_t id = (uint64_t)lg->nexpect;
        lg->expect[lg->nexpect++] = (rec_t){t, id};
        sim_engine_schedule(e, t, lg->type, 0, id, NULL);
    }
}

int main(void)
{
    static log_t lg;
    lg.lcg = 42;
    sim_engine_t *e = sim_engine_create();
    lg.type = sim_engine_register(e, "ev", on_event, &lg);
    CHECK_INT_EQ(lg.type, 0);
    for (int i = 0; i < N; i++) {
        int64_t t = (int64_t)(next_rand(&lg.lcg) % 50); /* ~400 events per time: many ties */
        lg.expect[lg.nexpect] = (rec_t){t, (uint64_t)lg.nexpect};
        sim_engine_schedule(e, t, lg.type, 0, (uint64_t)lg.nexpect, NULL);
        lg.nexpect++;
    }
    CHECK_INT_EQ(sim_engine_run(e, NULL), SIM_STOP_EMPTY);
    CHECK_INT_EQ(lg.ngot, 2 * N);
    CHECK_INT_EQ(lg.nexpect, 2 * N);
    /* Reference: a handler's child at time t is inserted after every event inserted before
     * it, so sorting all insertions by (t, insertion index) is the required order. */
    qsort(lg.expect, (size_t)lg.nexpect, sizeof(rec_t), by_time_then_id);
    int mismatches = 0;
    for (int i = 0; i < lg.ngot; i++) {
        if (lg.got[i].t != lg.expect[i].t || lg.got[i].id != lg.expect[i].id) {
            if (mismatches++ < 5)
                fprintf(stderr, "event %d: got (t=%lld, id=%llu), expected (t=%lld, id=%llu)\n",
                        i, (long long)lg.got[i].t, (unsigned long long)lg.got[i].id,
                        (long long)lg.expect[i].t, (unsigned long long)lg.expect[i].id);
        }
    }
    CHECK_INT_EQ(mismatches, 0);
    CHECK_INT_EQ(sim_engine_now(e), lg.expect[2 * N - 1].t);
    sim_engine_destroy(e);
    return check_exit();
}
