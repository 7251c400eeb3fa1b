/* sim/trace: at the run's end a span crossing it is cut there and marked, one starting
 * after it is left out, as are flows and counter samples after it and whatever is recorded
 * later; otherData counts both.  Messages: at the step level a link's consecutive messages
 * of one kind and group are one span with their count, bytes, busy and waiting time (a
 * message without a tag stays alone), at the message level each is its own span with its
 * kind, group and detail args; an aggregate counts once against the event limit, holds only
 * the messages that overlap the window and, cut at the end, only those that began by it. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "sim/trace.h"
#include "tests/check.h"

static cJSON *load(const char *path)
{
    char *s = check_read_file(path, NULL);
    cJSON *root = cJSON_Parse(s);
    free(s);
    return root;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The n-th (0-based) event with this ph and name, or NULL. */
static const cJSON *nth(const cJSON *root, const char *ph, const char *name, int n)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, get(root, "traceEvents")) {
        const char *p = cJSON_GetStringValue(get(e, "ph"));
        const char *nm = cJSON_GetStringValue(get(e, "name"));
        if (p && nm && strcmp(p, ph) == 0 && strcmp(nm, name) == 0 && n-- == 0) return e;
    }
    return NULL;
}

static int count(const cJSON *root, const char *ph)
{
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, get(root, "traceEvents"))
        n += strcmp(cJSON_GetStringValue(get(e, "ph")), ph) == 0;
    return n;
}

static bool is_cut(const cJSON *span)
{
    return cJSON_IsTrue(get(get(span, "args"), "cut_at_run_end"));
}

static void run_end_cuts_and_leaves_out(const char *path)
{
    sgd_err_t err = {{0}};
    sim_trace_t *t;
    sim_trace_opts_t all = {.t0_ns = 0, .t1_ns = INT64_MAX};
    CHECK(sim_trace_open(path, &all, &t, &err) == 0);
    const sim_trace_arg_t u[] = {SIM_TRACE_I("update", 4)};
    sim_trace_span(t, SIM_TRACK_WORKER, 0, "whole", 0, 100);
    sim_trace_span_args(t, SIM_TRACK_WORKER, 1, "crosses", 50, 300, u, 1);
    sim_trace_span(t, SIM_TRACK_WORKER, 2, "after", 250, 400);
    sim_trace_span(t, SIM_TRACK_WORKER, 0, "at the end", 200, 260);
    sim_trace_span(t, SIM_TRACK_WORKER, 3, "instant", 200, 200);
    sim_trace_span(t, SIM_TRACK_SERVER, 0, "update", 140, 160);
    sim_trace_flow_start(t, SIM_TRACK_WORKER, 0, "kept", 1, 50);
    sim_trace_flow_end(t, SIM_TRACK_SERVER, 0, 1, 150);
    sim_trace_flow_start(t, SIM_TRACK_WORKER, 0, "late", 2, 60);
    sim_trace_flow_end(t, SIM_TRACK_SERVER, 0, 2, 250);
    const sim_trace_arg_t q[] = {SIM_TRACE_I("n", 1)};
    sim_trace_counter(t, SIM_TRACK_SERVER, "queue", 150, q, 1);
    sim_trace_counter(t, SIM_TRACK_SERVER, "queue", 250, q, 1);
    sim_trace_settle(t, 120);
    CHECK_INT_EQ(sim_trace_written(t), 1); /* "whole" */
    sim_trace_run_end(t, 200);
    sim_trace_run_end(t, 1000); /* only the first end counts */
    sim_trace_span(t, SIM_TRACK_WORKER, 4, "recorded later", 10, 20);
    CHECK(sim_trace_close(t, &err) == 0);

    cJSON *root = load(path);
    CHECK(root != NULL);
    const cJSON *crosses = nth(root, "X", "crosses", 0), *at_end = nth(root, "X", "at the end", 0);
    CHECK(crosses && is_cut(crosses) && num(crosses, "dur") == 0.15);
    CHECK_INT_EQ(num(get(crosses, "args"), "update"), 4);
    CHECK(at_end && is_cut(at_end) && num(at_end, "dur") == 0); /* began as the run ended */
    CHECK(nth(root, "X", "whole", 0) && !is_cut(nth(root, "X", "whole", 0)));
    CHECK(nth(root, "X", "instant", 0) && !is_cut(nth(root, "X", "instant", 0)));
    CHECK(nth(root, "X", "after", 0) == NULL);
    CHECK(nth(root, "X", "recorded later", 0) == NULL);
    CHECK(nth(root, "s", "kept", 0) && nth(root, "f", "kept", 0));
    CHECK(nth(root, "s", "late", 0) == NULL);
    CHECK_INT_EQ(count(root, "C"), 1);
    const cJSON *other = get(root, "otherData");
    CHECK_INT_EQ(num(other, "run_end_ns"), 200);
    CHECK_INT_EQ(num(other, "spans_cut_at_run_end"), 2);
    CHECK_INT_EQ(num(other, "events_after_run_end"), 4); /* after, late, a sample, later */
    CHECK_INT_EQ(num(other, "spans_written"), 5);
    cJSON_Delete(root);

    /* Closed without an end: every event whole, no run_end_ns. */
    CHECK(sim_trace_open(path, &all, &t, &err) == 0);
    sim_trace_span(t, SIM_TRACK_WORKER, 0, "long", 0, 1000000);
    CHECK(sim_trace_close(t, &err) == 0);
    root = load(path);
    CHECK(root && nth(root, "X", "long", 0) && !is_cut(nth(root, "X", "long", 0)));
    CHECK(get(get(root, "otherData"), "run_end_ns") == NULL);
    cJSON_Delete(root);
}

/* Link 3 carries: allreduce of update 1 three times, of update 2 twice, an untagged message,
 * then update 2 once more; times 0-10, 10-20, ... each after waiting 1 ns. */
static void send_messages(sim_trace_t *t)
{
    static const int64_t upd[] = {1, 1, 1, 2, 2, 0, 2};
    for (int i = 0; i < 7; i++) {
        const sim_trace_arg_t g[] = {SIM_TRACE_I("update", upd[i])};
        const sim_trace_arg_t d[] = {SIM_TRACE_I("step", i), SIM_TRACE_S("from", "worker 0")};
        const sim_trace_msg_t m = {"allreduce", g, 1, d, 2};
        sim_trace_message(t, 3, 10 * i, 10 * i + 10, 100 + (uint64_t)i, 1, upd[i] ? &m : NULL);
    }
}

static void levels_merge_or_not(const char *path)
{
    sgd_err_t err = {{0}};
    sim_trace_t *t;
    sim_trace_opts_t step = {.t0_ns = 0, .t1_ns = INT64_MAX};
    CHECK(sim_trace_open(path, &step, &t, &err) == 0);
    send_messages(t);
    CHECK(sim_trace_close(t, &err) == 0);
    cJSON *root = load(path);
    CHECK(root != NULL);
    CHECK_INT_EQ(count(root, "X"), 4);
    const cJSON *a = nth(root, "X", "allreduce", 0), *b = nth(root, "X", "allreduce", 1);
    const cJSON *c = nth(root, "X", "allreduce", 2), *alone = nth(root, "X", "message", 0);
    CHECK(a && b && c && alone);
    CHECK(num(a, "ts") == 0 && num(a, "dur") == 0.03);
    const cJSON *aa = get(a, "args");
    CHECK_INT_EQ(num(aa, "update"), 1);
    CHECK_INT_EQ(num(aa, "messages"), 3);
    CHECK_INT_EQ(num(aa, "bytes"), 100 + 101 + 102);
    CHECK_INT_EQ(num(aa, "busy_ns"), 30);
    CHECK_INT_EQ(num(aa, "waited_ns"), 3);
    CHECK(get(aa, "step") == NULL); /* detail is the message level's */
    CHECK_INT_EQ(num(get(b, "args"), "messages"), 2);
    CHECK_INT_EQ(num(get(c, "args"), "messages"), 1);
    CHECK_INT_EQ(num(get(alone, "args"), "bytes"), 105);
    CHECK_STR_EQ(cJSON_GetStringValue(get(get(root, "otherData"), "trace_level")), "step");
    cJSON_Delete(root);

    sim_trace_opts_t msg = {.t0_ns = 0, .t1_ns = INT64_MAX, .level = SIM_TRACE_LEVEL_MESSAGE};
    CHECK(sim_trace_open(path, &msg, &t, &err) == 0);
    send_messages(t);
    CHECK(sim_trace_close(t, &err) == 0);
    root = load(path);
    CHECK(root != NULL);
    CHECK_INT_EQ(count(root, "X"), 7);
    const cJSON *m3 = get(nth(root, "X", "message", 3), "args");
    CHECK_STR_EQ(cJSON_GetStringValue(get(m3, "kind")), "allreduce");
    CHECK_INT_EQ(num(m3, "update"), 2);
    CHECK_INT_EQ(num(m3, "step"), 3);
    CHECK_STR_EQ(cJSON_GetStringValue(get(m3, "from")), "worker 0");
    CHECK_INT_EQ(num(m3, "bytes"), 103);
    CHECK_INT_EQ(num(m3, "waited_ns"), 1);
    CHECK(get(get(nth(root, "X", "message", 5), "args"), "kind") == NULL); /* untagged */
    CHECK_STR_EQ(cJSON_GetStringValue(get(get(root, "otherData"), "trace_level")), "message");
    cJSON_Delete(root);

    /* Limit 1: the first aggregate, whole; the three others dropped, once each. */
    sim_trace_opts_t one = {.t0_ns = 0, .t1_ns = INT64_MAX, .max_events = 1};
    CHECK(sim_trace_open(path, &one, &t, &err) == 0);
    send_messages(t);
    sim_trace_settle(t, INT64_MAX);
    CHECK_INT_EQ(sim_trace_written(t), 1);
    CHECK(sim_trace_close(t, &err) == 0);
    root = load(path);
    CHECK(root != NULL);
    CHECK_INT_EQ(count(root, "X"), 1);
    CHECK_INT_EQ(num(get(nth(root, "X", "allreduce", 0), "args"), "messages"), 3);
    CHECK_INT_EQ(num(get(root, "otherData"), "events_dropped_over_max_events"), 3);
    cJSON_Delete(root);

    /* Window [15, 35] ns: each message kept when it overlaps it, whether it waited to be
     * final (held in a run) or was final at once (the run settled beyond it). */
    for (int at_once = 0; at_once <= 1; at_once++) {
        sim_trace_opts_t win = {.t0_ns = 15, .t1_ns = 35};
        CHECK(sim_trace_open(path, &win, &t, &err) == 0);
        if (at_once) sim_trace_settle(t, INT64_MAX);
        send_messages(t);
        CHECK(sim_trace_close(t, &err) == 0);
        root = load(path);
        CHECK(root != NULL);
        CHECK_INT_EQ(count(root, "X"), 2);
        a = nth(root, "X", "allreduce", 0);
        CHECK(a && num(a, "ts") == 0.01 && num(a, "dur") == 0.02);
        CHECK_INT_EQ(num(get(a, "args"), "messages"), 2);
        CHECK_INT_EQ(num(get(nth(root, "X", "allreduce", 1), "args"), "messages"), 1);
        cJSON_Delete(root);
    }

    /* The run ends at 45 ns, inside the second aggregate's second message (40-50). */
    CHECK(sim_trace_open(path, &step, &t, &err) == 0);
    send_messages(t);
    sim_trace_run_end(t, 45);
    CHECK(sim_trace_close(t, &err) == 0);
    root = load(path);
    CHECK(root != NULL);
    CHECK_INT_EQ(count(root, "X"), 2);
    b = nth(root, "X", "allreduce", 1);
    CHECK(b && is_cut(b) && num(b, "ts") == 0.03 && num(b, "dur") == 0.015);
    CHECK_INT_EQ(num(get(b, "args"), "messages"), 2);
    CHECK_INT_EQ(num(get(b, "args"), "busy_ns"), 15);
    CHECK_INT_EQ(num(get(root, "otherData"), "events_after_run_end"), 2);
    cJSON_Delete(root);
}

int main(void)
{
    char path[] = "/tmp/sgdsim-trace-end-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    run_end_cuts_and_leaves_out(path);
    levels_merge_or_not(path);
    unlink(path);
    return check_exit();
}
