/* sim/trace: the file is valid Chrome trace-event JSON (parsed back with cJSON), spans keep
 * exact microsecond times and their typed args, tracks are named once, flows are written as
 * s/f pairs only once both ends are known and in the window, counters are numeric series,
 * notes and warnings land in otherData, events outside the window are left out, and
 * max_events caps the events written while counting the rest as dropped; events are written
 * once the run cannot end before they do (sim_trace_settle, never backwards). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "sim/trace.h"
#include "tests/check.h"

static int count_ph(const cJSON *events, const char *ph, const char *name)
{
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "ph");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (cJSON_IsString(p) && strcmp(p->valuestring, ph) == 0 &&
            (!name || (cJSON_IsString(nm) && strcmp(nm->valuestring, name) == 0)))
            n++;
    }
    return n;
}

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

int main(void)
{
    char path[] = "/tmp/sgdsim-trace-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    sgd_err_t err = {{0}};

    /* Unlimited, whole run. */
    sim_trace_t *t = NULL;
    sim_trace_opts_t all = {.t0_ns = 0, .t1_ns = INT64_MAX, .max_events = 0};
    CHECK(sim_trace_open(path, &all, &t, &err) == 0);
    sim_trace_name_track(t, SIM_TRACK_LINK, 7, "worker 0 \"uplink\"");
    sim_trace_span(t, SIM_TRACK_WORKER, 0, "compute", 1500, 2750);
    sim_trace_span(t, SIM_TRACK_WORKER, 1, "io", 0, 999);
    sim_trace_span(t, SIM_TRACK_WORKER, 0, "allreduce", 2750, 123456789);
    sim_trace_span(t, SIM_TRACK_LINK, 7, "message", 3000, 3000);
    sim_trace_span(NULL, SIM_TRACK_WORKER, 0, "ignored", 0, 1); /* NULL trace: no-op */
    /* Events are held back until the run cannot end before they do. */
    CHECK_INT_EQ(sim_trace_written(t), 0);
    sim_trace_settle(t, 2750); /* io and compute are final, allreduce and message not yet */
    CHECK_INT_EQ(sim_trace_written(t), 2);
    sim_trace_settle(t, 1000); /* never backwards */
    CHECK_INT_EQ(sim_trace_written(t), 2);
    sim_trace_settle(t, INT64_MAX);
    CHECK_INT_EQ(sim_trace_written(t), 4);
    CHECK(sim_trace_close(t, &err) == 0);
    char *text = check_read_file(path, NULL);
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL);
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents"), *other;
    CHECK(cJSON_IsArray(ev));
    CHECK_INT_EQ(count_ph(ev, "X", NULL), 4);
    CHECK_INT_EQ(count_ph(ev, "M", "thread_name"), 3);  /* worker 0, worker 1, link 7 */
    CHECK_INT_EQ(count_ph(ev, "M", "process_name"), 2); /* workers, links */
    CHECK_STR_CONTAINS(text, "\"ts\": 1.500, \"dur\": 1.250");
    CHECK_STR_CONTAINS(text, "\"ts\": 2.750, \"dur\": 123454.039");
    CHECK_STR_CONTAINS(text, "worker 0 \\\"uplink\\\"");
    cJSON_Delete(root);
    free(text);

    /* Args, flows, counters, notes and warnings. */
    CHECK(sim_trace_open(path, &all, &t, &err) == 0);
    const sim_trace_arg_t args[] = {SIM_TRACE_I("update", -7), SIM_TRACE_D("tau", 2.5),
                                    SIM_TRACE_D("third", 0.1), SIM_TRACE_D("bad", NAN),
                                    SIM_TRACE_S("who", "a \"b\"")};
    sim_trace_span_args(t, SIM_TRACK_WORKER, 2, "push", 100, 300, args, 5);
    sim_trace_span(t, SIM_TRACK_SERVER, 0, "update", 400, 600);
    sim_trace_flow_start(t, SIM_TRACK_WORKER, 2, "push to update", 41, 200);
    sim_trace_flow_start(t, SIM_TRACK_WORKER, 2, "never ends", 42, 250);
    sim_trace_flow_end(t, SIM_TRACK_SERVER, 0, 41, 500);
    const sim_trace_arg_t q[] = {SIM_TRACE_I("waiting", 3), SIM_TRACE_D("mean", 1.25)};
    sim_trace_counter(t, SIM_TRACK_SERVER, "queue", 450, q, 2);
    sim_trace_note(t, "time_axis", "first");
    sim_trace_note(t, "time_axis", "virtual time");
    sim_trace_warn(t, "spans are iterations");
    sim_trace_warn(t, "spans are iterations"); /* once */
    sim_trace_flow_start(NULL, SIM_TRACK_WORKER, 0, "x", 1, 0); /* NULL trace: no-ops */
    sim_trace_flow_end(NULL, SIM_TRACK_WORKER, 0, 1, 0);
    sim_trace_counter(NULL, SIM_TRACK_SERVER, "x", 0, q, 1);
    sim_trace_note(NULL, "k", "v");
    sim_trace_warn(NULL, "w");
    sim_trace_settle(t, INT64_MAX);
    CHECK_INT_EQ(sim_trace_written(t), 4); /* two spans, one flow, one counter sample */
    CHECK(sim_trace_close(t, &err) == 0);
    text = check_read_file(path, NULL);
    root = cJSON_Parse(text);
    CHECK(root != NULL);
    ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK_STR_CONTAINS(text, "\"args\": {\"update\": -7, \"tau\": 2.5, \"third\": 0.1, "
                             "\"bad\": null, \"who\": \"a \\\"b\\\"\"}");
    CHECK_INT_EQ(count_ph(ev, "s", "push to update"), 1);
    CHECK_INT_EQ(count_ph(ev, "f", "push to update"), 1);
    CHECK_INT_EQ(count_ph(ev, "s", "never ends"), 0);
    CHECK_STR_CONTAINS(text, "{\"ph\": \"s\", \"name\": \"push to update\", \"cat\": "
                             "\"flow\", \"id\": 41, \"pid\": 1, \"tid\": 2, \"ts\": 0.200}");
    CHECK_STR_CONTAINS(text, "{\"ph\": \"f\", \"name\": \"push to update\", \"cat\": "
                             "\"flow\", \"id\": 41, \"pid\": 2, \"tid\": 0, \"ts\": 0.500, "
                             "\"bp\": \"e\"}");
    CHECK_STR_CONTAINS(text, "{\"ph\": \"C\", \"name\": \"queue\", \"pid\": 2, \"ts\": 0.450, "
                             "\"args\": {\"waiting\": 3, \"mean\": 1.25}}");
    other = cJSON_GetObjectItemCaseSensitive(root, "otherData");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(other, "time_axis")),
                 "virtual time");
    const cJSON *warn = cJSON_GetObjectItemCaseSensitive(other, "warnings");
    CHECK(cJSON_IsArray(warn) && cJSON_GetArraySize(warn) == 1);
    CHECK_INT_EQ(number(other, "flows_written"), 1);
    CHECK_INT_EQ(number(other, "flows_unfinished"), 1);
    CHECK_INT_EQ(number(other, "counter_samples_written"), 1);
    CHECK_INT_EQ(number(other, "spans_written"), 2);
    cJSON_Delete(root);
    free(text);

    /* Window [2000, 5000] ns and at most 2 spans. */
    sim_trace_opts_t lim = {.t0_ns = 2000, .t1_ns = 5000, .max_events = 2};
    CHECK(sim_trace_open(path, &lim, &t, &err) == 0);
    sim_trace_span(t, SIM_TRACK_WORKER, 0, "before", 0, 1999);     /* outside */
    sim_trace_span(t, SIM_TRACK_WORKER, 0, "overlap", 1000, 2000); /* touches t0: kept */
    sim_trace_span(t, SIM_TRACK_SERVER, 0, "inside", 3000, 4000);  /* kept */
    sim_trace_span(t, SIM_TRACK_WORKER, 1, "third", 4000, 4500);   /* over the limit */
    sim_trace_span(t, SIM_TRACK_WORKER, 1, "after", 5001, 6000);   /* outside */
    sim_trace_settle(t, INT64_MAX);
    CHECK_INT_EQ(sim_trace_written(t), 2);
    CHECK_INT_EQ(sim_trace_dropped(t), 1);
    CHECK(sim_trace_close(t, &err) == 0);
    text = check_read_file(path, NULL);
    root = cJSON_Parse(text);
    CHECK(root != NULL);
    ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK_INT_EQ(count_ph(ev, "X", NULL), 2);
    CHECK_INT_EQ(count_ph(ev, "X", "overlap"), 1);
    CHECK_INT_EQ(count_ph(ev, "X", "inside"), 1);
    other = cJSON_GetObjectItemCaseSensitive(root, "otherData");
    CHECK_INT_EQ(number(other, "events_dropped_over_max_events"), 1);
    cJSON_Delete(root);
    free(text);

    /* Flows and counters obey the window and the limit: a flow with an end outside the
     * window is not written, nor is one over the limit (counted as dropped). */
    sim_trace_opts_t lim2 = {.t0_ns = 1000, .t1_ns = 5000, .max_events = 3};
    CHECK(sim_trace_open(path, &lim2, &t, &err) == 0);
    sim_trace_span(t, SIM_TRACK_WORKER, 0, "a", 900, 1500);
    sim_trace_flow_start(t, SIM_TRACK_WORKER, 0, "out", 1, 950);   /* start before t0 */
    sim_trace_flow_start(t, SIM_TRACK_WORKER, 0, "in", 2, 1100);
    sim_trace_flow_start(t, SIM_TRACK_WORKER, 0, "late", 3, 1200);
    sim_trace_flow_start(t, SIM_TRACK_WORKER, 0, "over", 4, 1300);
    sim_trace_flow_end(t, SIM_TRACK_WORKER, 0, 1, 1400);
    sim_trace_flow_end(t, SIM_TRACK_WORKER, 0, 2, 1400);
    sim_trace_flow_end(t, SIM_TRACK_WORKER, 0, 3, 6000);           /* end after t1 */
    sim_trace_counter(t, SIM_TRACK_SERVER, "q", 999, q, 1);        /* before t0 */
    sim_trace_counter(t, SIM_TRACK_SERVER, "q", 1000, q, 1);       /* the third event */
    sim_trace_flow_end(t, SIM_TRACK_WORKER, 0, 4, 1450);           /* over the limit */
    sim_trace_settle(t, INT64_MAX);
    CHECK_INT_EQ(sim_trace_written(t), 3);
    CHECK_INT_EQ(sim_trace_dropped(t), 1);
    CHECK(sim_trace_close(t, &err) == 0);
    text = check_read_file(path, NULL);
    root = cJSON_Parse(text);
    CHECK(root != NULL);
    ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK_INT_EQ(count_ph(ev, "s", NULL), 1);
    CHECK_INT_EQ(count_ph(ev, "f", "in"), 1);
    CHECK_INT_EQ(count_ph(ev, "C", NULL), 1);
    cJSON_Delete(root);
    free(text);

    /* Bad inputs: an empty window, an unwritable path. */
    sim_trace_opts_t empty = {.t0_ns = 10, .t1_ns = 5, .max_events = 0};
    CHECK(sim_trace_open(path, &empty, &t, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "is empty");
    CHECK(sim_trace_open("/nonexistent-dir/x.json", &all, &t, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent-dir/x.json: cannot write the trace");
    unlink(path);
    return check_exit();
}
