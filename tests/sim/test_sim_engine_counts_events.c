/* The counters report events processed and scheduled, the queue's peak and the virtual
 * time; wall time is measured but never enters virtual time. */
#include "sim/engine.h"
#include "tests/check.h"

/* Each event with arg > 0 schedules one event 10 ns later with arg - 1. */
static void chain(sim_engine_t *e, const sim_event_t *ev, void *ctx)
{
    uint32_t *type = ctx;
    if (ev->arg > 0) sim_engine_schedule(e, ev->t_ns + 10, *type, 0, ev->arg - 1, NULL);
}

int main(void)
{
    uint32_t type = 0;
    sim_engine_t *e = sim_engine_create();
    sim_counters_t c0 = sim_engine_counters(e);
    CHECK_INT_EQ(c0.events_processed, 0);
    CHECK_INT_EQ(c0.vtime_ns, 0);
    CHECK(c0.events_per_s == 0.0);

    type = sim_engine_register(e, "chain", chain, &type);
    for (int i = 0; i < 5; i++) sim_engine_schedule(e, 0, type, 0, 9, NULL); /* 5 chains of 10 */
    CHECK_INT_EQ(sim_engine_run(e, NULL), SIM_STOP_EMPTY);
    sim_counters_t c = sim_engine_counters(e);
    CHECK_INT_EQ(c.events_processed, 50);
    CHECK_INT_EQ(c.events_scheduled, 50);
    CHECK_INT_EQ(c.peak_queue, 5);
    CHECK_INT_EQ(c.vtime_ns, 90);
    CHECK(c.wall_s >= 0.0);
    CHECK(c.events_per_s >= 0.0);
    printf("50 events in %.3g s of wall time (%.3g events/s)\n", c.wall_s, c.events_per_s);
    sim_engine_destroy(e);
    return check_exit();
}
