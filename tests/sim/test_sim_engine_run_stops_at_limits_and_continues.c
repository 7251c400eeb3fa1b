/* sim_engine_run honours until_ns (leaving later events queued and advancing the clock to
 * the limit), max_events and sim_engine_stop, and a second call continues where the first
 * stopped. */
#include <stdint.h>

#include "sim/engine.h"
#include "tests/check.h"

typedef struct seen {
    int64_t t[16];
    int n;
    uint64_t stop_at_arg; /* handler calls sim_engine_stop when it sees this arg */
} seen_t;

static void on_event(sim_engine_t *e, const sim_event_t *ev, void *ctx)
{
    seen_t *s = ctx;
    s->t[s->n++] = ev->t_ns;
    CHECK_INT_EQ(sim_engine_now(e), ev->t_ns);
    if (ev->arg == s->stop_at_arg) sim_engine_stop(e);
}

int main(void)
{
    seen_t s = {.stop_at_arg = 99};
    sim_engine_t *e = sim_engine_create();
    uint32_t type = sim_engine_register(e, "ev", on_event, &s);
    CHECK(strcmp(sim_engine_type_name(e, type), "ev") == 0);
    for (int i = 1; i <= 8; i++) sim_engine_schedule(e, 100 * i, type, 0, (uint64_t)i, NULL);

    /* until 250: events at 100, 200 run; 300.. stay; clock moves to 250. */
    sim_run_limits_t lim = {.until_ns = 250, .max_events = 0};
    CHECK_INT_EQ(sim_engine_run(e, &lim), SIM_STOP_TIME);
    CHECK_INT_EQ(s.n, 2);
    CHECK_INT_EQ(sim_engine_now(e), 250);
    CHECK_INT_EQ(sim_engine_pending(e), 6);

    /* An event due exactly at until_ns runs. */
    lim.until_ns = 300;
    CHECK_INT_EQ(sim_engine_run(e, &lim), SIM_STOP_TIME);
    CHECK_INT_EQ(s.n, 3);
    CHECK_INT_EQ(s.t[2], 300);
    CHECK_INT_EQ(sim_engine_now(e), 300);

    /* Scheduling at now after a time stop is allowed. */
    sim_engine_schedule(e, 300, type, 0, 0, NULL);

    /* max_events counts events of this call only. */
    lim = (sim_run_limits_t){.until_ns = INT64_MAX, .max_events = 2};
    CHECK_INT_EQ(sim_engine_run(e, &lim), SIM_STOP_EVENTS);
    CHECK_INT_EQ(s.n, 5);
    CHECK_INT_EQ(s.t[3], 300);
    CHECK_INT_EQ(s.t[4], 400);

    /* A handler's stop request ends the run after that event. */
    s.stop_at_arg = 6;
    CHECK_INT_EQ(sim_engine_run(e, NULL), SIM_STOP_REQUESTED);
    CHECK_INT_EQ(s.n, 7);
    CHECK_INT_EQ(sim_engine_now(e), 600);

    /* A stop requested outside a run makes the next run return before any event. */
    sim_engine_stop(e);
    CHECK_INT_EQ(sim_engine_run(e, NULL), SIM_STOP_REQUESTED);
    CHECK_INT_EQ(s.n, 7);

    CHECK_INT_EQ(sim_engine_run(e, NULL), SIM_STOP_EMPTY);
    CHECK_INT_EQ(s.n, 9);
    CHECK_INT_EQ(sim_engine_now(e), 800);
    /* An empty queue leaves the clock at the last event even with a later limit. */
    lim = (sim_run_limits_t){.until_ns = 5000, .max_events = 0};
    CHECK_INT_EQ(sim_engine_run(e, &lim), SIM_STOP_EMPTY);
    CHECK_INT_EQ(sim_engine_now(e), 800);

    sim_engine_destroy(e);
    return check_exit();
}
