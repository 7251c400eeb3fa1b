/* The background task queue (common/taskq.h): every submitted task runs exactly once, on a
 * worker index in range, and is done when collect returns, for 0, 1, 2 and 7 background
 * threads and many rounds of slot reuse in any collect order; with no background thread
 * collect runs the task itself; a collect of a task a background thread is running runs
 * the queued ones meanwhile, then waits for it; quiesce leaves nothing queued or running;
 * background threads run with the submitter's MXCSR on x86. */
#include <stdatomic.h>
#include <stdlib.h>

#include <pthread.h>

#include "common/taskq.h"
#include "tests/check.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#else
#define HAVE_MXCSR 0
#endif

#define SLOTS 9

typedef struct {
    atomic_int runs[SLOTS];      /* times each slot's task ran since it was submitted */
    atomic_int done[SLOTS];      /* its output, written last */
    int want[SLOTS];             /* what it must write */
    int workers;
    atomic_int bad_worker, bad_csr, here;
    unsigned want_csr[SLOTS];
    atomic_int gate;             /* slot 0's task spins while it is 1 (the waiting test) */
    int release_slot;            /* the task of this slot, run by the caller, clears gate */
} ctx_t;

static void task(void *arg, int slot, int worker)
{
    ctx_t *c = arg;
    atomic_fetch_add(&c->runs[slot], 1);
    if (worker < 0 || worker > c->workers) atomic_fetch_add(&c->bad_worker, 1);
    if (worker == 0) atomic_fetch_add(&c->here, 1);
#if HAVE_MXCSR
    if ((_mm_getcsr() & 0x8040u) != (c->want_csr[slot] & 0x8040u))
        atomic_fetch_add(&c->bad_csr, 1);
#endif
    if (slot == 0)
        while (atomic_load(&c->gate)) {}
    if (worker == 0 && slot == c->release_slot) atomic_store(&c->gate, 0);
    volatile double x = 0; /* a little work, so that background threads take some */
    for (int i = 0; i < 3000; i++) x = x + i;
    atomic_store(&c->done[slot], c->want[slot]);
}

static void submit(sgd_taskq_t *q, ctx_t *c, int slot, int value)
{
    atomic_store(&c->runs[slot], 0);
    atomic_store(&c->done[slot], -1);
    c->want[slot] = value;
#if HAVE_MXCSR
    c->want_csr[slot] = _mm_getcsr();
#endif
    sgd_taskq_submit(q, slot);
}

static int collect_ok(sgd_taskq_t *q, ctx_t *c, int slot)
{
    sgd_taskq_collect(q, slot);
    return atomic_load(&c->runs[slot]) == 1 && atomic_load(&c->done[slot]) == c->want[slot];
}

static void every_task_runs_once_and_is_done_when_collected(int workers)
{
    ctx_t *c = calloc(1, sizeof *c);
    c->workers = workers;
    sgd_taskq_t *q = sgd_taskq_create(workers, SLOTS, task, c);
#if HAVE_MXCSR
    const unsigned saved = _mm_getcsr();
#endif
    int wrong = 0, value = 0, submitted = 0;
    for (int round = 0; round < 300; round++) {
#if HAVE_MXCSR
        _mm_setcsr(round % 2 ? saved | 0x8040u : saved & ~0x8040u);
#endif
        const int n = 1 + round % SLOTS;
        submitted += n;
        for (int s = 0; s < n; s++) submit(q, c, s, value++);
        /* Collect in a round-dependent order: forwards, backwards, odd slots first. */
        for (int i = 0; i < n; i++) {
            int s = round % 3 == 0 ? i : round % 3 == 1 ? n - 1 - i
                                                        : (2 * i + 1 < n ? 2 * i + 1
                                                                         : 2 * (i - n / 2));
            wrong += !collect_ok(q, c, s);
        }
    }
#if HAVE_MXCSR
    _mm_setcsr(saved);
#endif
    CHECK_INT_EQ(wrong, 0);
    CHECK_INT_EQ(atomic_load(&c->bad_worker), 0);
    CHECK_INT_EQ(atomic_load(&c->bad_csr), 0);
    if (workers == 0) CHECK_INT_EQ(atomic_load(&c->here), submitted);
    sgd_taskq_destroy(q);
    free(c);
}

/* A queue of one background thread whose task 0 is running (and spinning on the gate). */
static sgd_taskq_t *queue_with_slot_0_running(ctx_t *c, int release_slot)
{
    c->workers = 1;
    c->release_slot = release_slot;
    sgd_taskq_t *q = sgd_taskq_create(1, SLOTS, task, c);
    atomic_store(&c->gate, 1);
    submit(q, c, 0, 11);
    while (atomic_load(&c->runs[0]) == 0) {} /* the background thread has it */
    return q;
}

/* While a background thread runs the task being collected, the caller runs the queued ones
 * (the last of which opens the gate), then waits for it: each ran once, and not again. */
static void collect_runs_queued_tasks_while_it_waits(void)
{
    ctx_t *c = calloc(1, sizeof *c);
    sgd_taskq_t *q = queue_with_slot_0_running(c, 2);
    submit(q, c, 1, 12);
    submit(q, c, 2, 13);
    CHECK(collect_ok(q, c, 0));
    CHECK_INT_EQ(atomic_load(&c->here), 2);
    CHECK(collect_ok(q, c, 2));
    CHECK(collect_ok(q, c, 1));
    sgd_taskq_destroy(q);
    free(c);
}

/* quiesce runs what is still queued and returns with nothing running; the slots are
 * collected after. */
static void quiesce_leaves_nothing_running(void)
{
    ctx_t *c = calloc(1, sizeof *c);
    sgd_taskq_t *q = queue_with_slot_0_running(c, 1);
    submit(q, c, 1, 12);
    sgd_taskq_quiesce(q);
    CHECK_INT_EQ(atomic_load(&c->done[0]), 11);
    CHECK_INT_EQ(atomic_load(&c->done[1]), 12);
    CHECK(collect_ok(q, c, 1));
    CHECK(collect_ok(q, c, 0));
    sgd_taskq_destroy(q);
    free(c);
}

/* Destroying a queue with tasks still queued drops them and joins the threads. */
static void destroy_with_tasks_queued(void)
{
    ctx_t *c = calloc(1, sizeof *c);
    c->workers = 2;
    sgd_taskq_t *q = sgd_taskq_create(2, SLOTS, task, c);
    for (int s = 0; s < SLOTS; s++) submit(q, c, s, s);
    sgd_taskq_destroy(q);
    for (int s = 0; s < SLOTS; s++) CHECK(atomic_load(&c->runs[s]) <= 1);
    free(c);
}

int main(void)
{
    const int workers[] = {0, 1, 2, 7};
    for (int i = 0; i < 4; i++) every_task_runs_once_and_is_done_when_collected(workers[i]);
    collect_runs_queued_tasks_while_it_waits();
    quiesce_leaves_nothing_running();
    destroy_with_tasks_queued();
    return check_exit();
}
