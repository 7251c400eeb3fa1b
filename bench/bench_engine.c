/* bench_engine: the event engine's throughput on the classic hold model.
 *
 * Hold model: N events are pending; each step takes the earliest one and schedules one new
 * event at now + an exponential draw (mean 1 ms of virtual time), so the queue stays at N.
 * For N = 10^3, 10^5 and 10^6 it measures, in the same run and alternately:
 *   engine   -- sim/engine: sim_engine_run with a handler that calls sim_engine_schedule at
 *               now + a draw from a seeded GSL stream (sim_rng, gsl_ran_exponential);
 *   baseline -- the same hold loop on a plain binary heap written here: the same 40-byte
 *               events, the same (t_ns, seq) order, the same draws, but no handler call and
 *               no bookkeeping;
 * and prints events per CPU-second of each (best of REPS repetitions of EVENTS events, which
 * filters out interruptions rather than averaging them in), the cost per event in ns and
 * engine / baseline (above 1: the engine is faster than the plain heap).  Both queues start
 * from the same draws and pop in the same total order, so they follow the same trajectory:
 * the bench checks that their clocks agree after every repetition.  It also prints the cost of
 * one exponential draw alone, which both queues pay per event.
 *
 * Usage: bench_engine [REPS [EVENTS]]   (defaults 5 and 1000000)
 * The last line per N is machine-readable: "bench_engine pending N engine_eps X ...". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/engine.h"
#include "sim/rng.h"

#define MEAN_NS 1e6 /* mean hold time, virtual ns */
#define SEED 12

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One hold time in integer virtual ns (at least 0, so t >= now always holds). */
static int64_t hold_draw(gsl_rng *r) { return (int64_t)gsl_ran_exponential(r, MEAN_NS); }

/* --- sim/engine ---------------------------------------------------------------------------- */

typedef struct {
    gsl_rng *r;
    uint32_t type;
} hold_ctx_t;

static void hold_handler(sim_engine_t *e, const sim_event_t *ev, void *ctx)
{
    hold_ctx_t *h = ctx;
    sim_engine_schedule(e, sim_engine_now(e) + hold_draw(h->r), h->type, ev->entity, ev->arg,
                        NULL);
}

/* Processes `events` events; returns CPU seconds. */
static double engine_hold(sim_engine_t *e, uint64_t events)
{
    sim_run_limits_t lim = {.until_ns = INT64_MAX, .max_events = events};
    double t0 = cpu_now();
    sim_engine_run(e, &lim);
    return cpu_now() - t0;
}

/* --- baseline: a plain binary heap ---------------------------------------------------------- */

typedef struct {
    sim_event_t *h;
    size_t n;
    uint64_t seq;
    int64_t now;
    gsl_rng *r;
} bheap_t;

static int before(const sim_event_t *a, const sim_event_t *b)
{
    return a->t_ns != b->t_ns ? a->t_ns < b->t_ns : a->seq < b->seq;
}

static void bheap_push(bheap_t *q, int64_t t_ns)
{
    size_t i = q->n++;
    sim_event_t ev = {.t_ns = t_ns, .seq = q->seq++};
    while (i > 0 && before(&ev, &q->h[(i - 1) / 2])) {
        q->h[i] = q->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->h[i] = ev;
}

static sim_event_t bheap_pop(bheap_t *q)
{
    sim_event_t top = q->h[0], last = q->h[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n) break;
        if (c + 1 < q->n && before(&q->h[c + 1], &q->h[c])) c++;
        if (!before(&q->h[c], &last)) break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (q->n > 0) q->h[i] = last;
    return top;
}

static double bheap_hold(bheap_t *q, uint64_t events)
{
    double t0 = cpu_now();
    for (uint64_t k = 0; k < events; k++) {
        sim_event_t ev = bheap_pop(q);
        q->now = ev.t_ns;
        bheap_push(q, q->now + hold_draw(q->r));
    }
    return cpu_now() - t0;
}

/* CPU ns of one hold_draw alone (best of reps), which both queues pay per event. */
static double draw_ns(int reps, uint64_t events)
{
    gsl_rng *r = sim_rng_create(SEED, SIM_STREAM_COMPUTE, 0);
    double best = 1e300;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = cpu_now();
        int64_t acc = 0;
        for (uint64_t k = 0; k < events; k++) acc += hold_draw(r);
        double t = cpu_now() - t0;
        /* The sum goes through a volatile store, so the draws cannot be optimised away. */
        volatile int64_t sink = acc;
        (void)sink;
        if (t < best) best = t;
    }
    gsl_rng_free(r);
    return 1e9 * best / (double)events;
}

/* --- one queue size ------------------------------------------------------------------------- */

/* Returns 0 when both queues followed the same trajectory. */
static int bench_size(size_t pending, int reps, uint64_t events)
{
    hold_ctx_t ctx = {.r = sim_rng_create(SEED, SIM_STREAM_COMPUTE, pending)};
    sim_engine_t *e = sim_engine_create();
    ctx.type = sim_engine_register(e, "hold", hold_handler, &ctx);
    bheap_t q = {.h = malloc(pending * sizeof *q.h), .r = sim_rng_create(SEED, SIM_STREAM_COMPUTE,
                                                                          pending)};
    if (!q.h) abort();
    for (size_t i = 0; i < pending; i++) {
        sim_engine_schedule(e, hold_draw(ctx.r), ctx.type, 0, 0, NULL);
        bheap_push(&q, hold_draw(q.r));
    }
    /* Warm-up: every initial event is replaced once, towards the steady state. */
    engine_hold(e, pending);
    bheap_hold(&q, pending);
    double best_e = 1e300, best_b = 1e300;
    int same = sim_engine_now(e) == q.now;
    for (int rep = 0; rep < reps; rep++) {
        double te = engine_hold(e, events), tb = bheap_hold(&q, events);
        if (te < best_e) best_e = te;
        if (tb < best_b) best_b = tb;
        same = same && sim_engine_now(e) == q.now && sim_engine_pending(e) == q.n;
    }
    double eps_e = (double)events / best_e, eps_b = (double)events / best_b;
    printf("%9zu %14.3e %10.1f %14.3e %10.1f %10.3f %s\n", pending, eps_e, 1e9 / eps_e, eps_b,
           1e9 / eps_b, eps_e / eps_b, same ? "yes" : "NO");
    printf("bench_engine pending %zu engine_eps %.6e baseline_eps %.6e ratio %.4f same %s\n",
           pending, eps_e, eps_b, eps_e / eps_b, same ? "yes" : "no");
    sim_engine_destroy(e);
    gsl_rng_free(ctx.r);
    gsl_rng_free(q.r);
    free(q.h);
    return same ? 0 : 1;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    long long events = argc > 2 ? atoll(argv[2]) : 1000000;
    if (argc > 3 || reps < 1 || reps > 1000 || events < 1) {
        fprintf(stderr, "usage: bench_engine [REPS [EVENTS]]  (REPS in [1, 1000], EVENTS >= 1)\n");
        return 2;
    }
    printf("bench_engine: hold model, exponential hold times (mean %.0f ns), best of %d x %lld "
           "events, per CPU-second\n", MEAN_NS, reps, events);
    printf("one exponential draw alone (included in both queues' cost): %.1f ns\n",
           draw_ns(reps, (uint64_t)events));
    printf("%9s %14s %10s %14s %10s %10s %s\n", "pending", "engine ev/s", "ns/event",
           "bheap ev/s", "ns/event", "eng/bheap", "same");
    static const size_t sizes[] = {1000, 100000, 1000000};
    int bad = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        bad |= bench_size(sizes[i], reps, (uint64_t)events);
    return bad;
}
