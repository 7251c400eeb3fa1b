/* Engine and RNG checkpoints: an engine saved mid-run and restored into a fresh engine with
 * the same event types processes the same events in the same order (ties included) and with
 * the same later sequence numbers as the uninterrupted one; a stream restored draws what the
 * saved one would have; an event holding a pointer, other event types and a damaged stream
 * are refused with a message. */
#include <string.h>

#include "sim/engine.h"
#include "sim/rng.h"
#include "tests/check.h"

typedef struct log {
    char text[8192];
    size_t len;
    uint32_t types[2];
} log_t;

/* Logs the event and schedules two more (one tie at the same time) while arg > 0. */
static void on_event(sim_engine_t *e, const sim_event_t *ev, void *ctx)
{
    log_t *l = ctx;
    l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "%lld:%u:%u:%llu ",
                               (long long)ev->t_ns, ev->type, ev->entity,
                               (unsigned long long)ev->arg);
    if (ev->arg == 0) return;
    sim_engine_schedule(e, ev->t_ns + (int64_t)(ev->arg % 3), l->types[ev->arg % 2],
                        ev->entity + 1, ev->arg - 1, NULL);
    sim_engine_schedule(e, ev->t_ns + 1, l->types[0], ev->entity, ev->arg / 2, NULL);
}

static sim_engine_t *engine_with_types(log_t *l, const char *second)
{
    sim_engine_t *e = sim_engine_create();
    l->types[0] = sim_engine_register(e, "a", on_event, l);
    l->types[1] = sim_engine_register(e, second, on_event, l);
    return e;
}

static void test_engine(void)
{
    log_t full = {0}, first = {0}, rest = {0};
    sim_engine_t *e = engine_with_types(&full, "b");
    sim_engine_schedule(e, 0, 0, 0, 9, NULL);
    sim_engine_schedule(e, 0, 1, 5, 7, NULL);
    sim_engine_run(e, NULL);
    sim_counters_t cf = sim_engine_counters(e);
    sim_engine_destroy(e);

    e = engine_with_types(&first, "b");
    sim_engine_schedule(e, 0, 0, 0, 9, NULL);
    sim_engine_schedule(e, 0, 1, 5, 7, NULL);
    sim_run_limits_t lim = {.until_ns = INT64_MAX, .max_events = 37};
    CHECK(sim_engine_run(e, &lim) == SIM_STOP_EVENTS);
    sgd_ckw_t w;
    sgd_ckw_init(&w);
    sgd_err_t err = {{0}};
    CHECK(sim_engine_save(e, &w, &err) == 0);
    sim_engine_destroy(e);

    e = engine_with_types(&rest, "b");
    sgd_ckr_t r;
    sgd_ckr_init(&r, w.buf, w.len);
    CHECK(sim_engine_restore(e, &r, &err) == 0);
    CHECK(sgd_ckr_done(&r));
    sim_engine_run(e, NULL);
    sim_counters_t cr = sim_engine_counters(e);
    sim_engine_destroy(e);
    char joined[16384];
    snprintf(joined, sizeof joined, "%s%s", first.text, rest.text);
    CHECK_STR_EQ(joined, full.text);
    CHECK(cr.events_processed == cf.events_processed && cr.events_scheduled == cf.events_scheduled &&
          cr.vtime_ns == cf.vtime_ns && cr.peak_queue == cf.peak_queue);

    log_t other = {0};
    e = engine_with_types(&other, "c");
    sgd_ckr_init(&r, w.buf, w.len);
    CHECK(sim_engine_restore(e, &r, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "event type 1 is \"b\" in the checkpoint, \"c\" in this run");
    CHECK(sim_engine_pending(e) == 0);
    for (size_t cut = 0; cut < w.len; cut += 7) { /* every prefix is refused, never misread */
        sim_engine_t *f = engine_with_types(&other, "b");
        sgd_ckr_init(&r, w.buf, cut);
        CHECK(sim_engine_restore(f, &r, &err) == -1);
        sim_engine_destroy(f);
    }
    sim_engine_schedule(e, 5, 0, 0, 0, &other);
    sgd_ckw_free(&w);
    sgd_ckw_init(&w);
    CHECK(sim_engine_save(e, &w, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "type \"a\" holds a pointer");
    sim_engine_destroy(e);
    sgd_ckw_free(&w);
}

static void test_rng(void)
{
    gsl_rng *a = sim_rng_create(42, SIM_STREAM_COMPUTE, 3);
    for (int i = 0; i < 10; i++) gsl_rng_get(a);
    sgd_ckw_t w;
    sgd_ckw_init(&w);
    sim_rng_save(a, &w);
    gsl_rng *b = sim_rng_create(1, SIM_STREAM_IO, 0);
    sgd_ckr_t r;
    sgd_ckr_init(&r, w.buf, w.len);
    sim_rng_restore(b, &r);
    CHECK(sgd_ckr_done(&r));
    for (int i = 0; i < 100; i++) CHECK(gsl_rng_get(a) == gsl_rng_get(b));
    sgd_ckr_init(&r, w.buf, w.len - 1);
    sim_rng_restore(b, &r);
    CHECK(r.failed);
    gsl_rng_free(a);
    gsl_rng_free(b);
    sgd_ckw_free(&w);
}

int main(void)
{
    test_engine();
    test_rng();
    return check_exit();
}
