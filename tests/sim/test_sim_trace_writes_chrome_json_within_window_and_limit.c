/* sim/trace: the file is valid Chrome trace-event JSON (parsed back with cJSON), spans keep
 * exact microsecond times, tracks are named once, spans outside the window are left out, and
 * max_events caps the spans written while counting the rest as dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "sim/trace.h"
#include "tests/check.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

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
    CHECK_INT_EQ(sim_trace_written(t), 4);
    CHECK(sim_trace_close(t, &err) == 0);
    char *text = slurp(path);
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL);
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(ev));
    CHECK_INT_EQ(count_ph(ev, "X", NULL), 4);
    CHECK_INT_EQ(count_ph(ev, "M", "thread_name"), 3);  /* worker 0, worker 1, link 7 */
    CHECK_INT_EQ(count_ph(ev, "M", "process_name"), 2); /* workers, links */
    CHECK_STR_CONTAINS(text, "\"ts\": 1.500, \"dur\": 1.250");
    CHECK_STR_CONTAINS(text, "\"ts\": 2.750, \"dur\": 123454.039");
    CHECK_STR_CONTAINS(text, "worker 0 \\\"uplink\\\"");
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
    CHECK_INT_EQ(sim_trace_written(t), 2);
    CHECK_INT_EQ(sim_trace_dropped(t), 1);
    CHECK(sim_trace_close(t, &err) == 0);
    text = slurp(path);
    root = cJSON_Parse(text);
    CHECK(root != NULL);
    ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK_INT_EQ(count_ph(ev, "X", NULL), 2);
    CHECK_INT_EQ(count_ph(ev, "X", "overlap"), 1);
    CHECK_INT_EQ(count_ph(ev, "X", "inside"), 1);
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(root, "otherData");
    const cJSON *dropped =
        cJSON_GetObjectItemCaseSensitive(other, "spans_dropped_over_max_events");
    CHECK(cJSON_IsNumber(dropped) && dropped->valuedouble == 1);
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
