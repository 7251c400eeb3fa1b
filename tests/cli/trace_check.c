/* trace_check: checks the structure of a timeline `sgdsim run --trace` wrote, for the CLI
 * tests (test_cli_trace_all.sh).  Usage:
 *
 *   trace_check FILE [--span NAME]... [--link-span NAME]... [--args NAME=KEY,...]...
 *                    [--link-args NAME=KEY,...]... [--counter NAME]... [--flows N]
 *                    [--note KEY]...
 *
 * Always checked: the file is JSON with a "traceEvents" array and an "otherData" object
 * whose counts match the events; every span ("X"), flow end and counter sample is on a named
 * track or process (a "thread_name" / "process_name" metadata event); spans have ts, dur >= 0
 * and never overlap another span of their track (they may touch); every flow start ("s") has
 * exactly one end ("f", "bp": "e") with the same id, cat and name, no earlier, and vice
 * versa; when no event was dropped, each flow end lies inside a span of its track; every
 * counter sample ("C") has at least one series, all numbers; otherData has "run_end_ns", no
 * span ends after it unless marked "cut_at_run_end": true, and a marked span ends exactly
 * there (and is counted in "spans_cut_at_run_end"), no flow end or counter sample lies after
 * it.  The options require at least one span or counter sample of that name (--link-span: on
 * a track of the process "network links"), that every span of that name (on a link track)
 * has those args and there is one, at least N flows, a key of otherData.
 * Exit 0 when every check passed, 1 otherwise (each failure printed), 2 on bad usage. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

static int failures;

#define FAIL(...)                                                                      \
    do {                                                                               \
        fprintf(stderr, "trace_check: " __VA_ARGS__);                                  \
        fputc('\n', stderr);                                                           \
        failures++;                                                                    \
    } while (0)

typedef struct span {
    int pid, tid;
    int64_t t0, t1; /* ns */
    const char *name;
    int cut;        /* marked "cut_at_run_end": true */
    const cJSON *args;
} span_t;

typedef struct flow_end {
    int pid, tid;
    int64_t t;
    double id;
    const char *cat, *name;
} flow_end_t;

typedef struct trace {
    const cJSON *events, *other;
    span_t *spans;
    size_t nspans;
    flow_end_t *starts, *ends;
    size_t nstarts, nends;
    size_t nsamples;
    int64_t *sample_ts; /* each sample's time, ns */
    int (*threads)[2]; /* named (pid, tid) */
    size_t nthreads;
    int procs[64];     /* named pids (< 64) */
    int link_pid;      /* the process named "network links", or -1 */
} trace_t;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    size_t got;
    while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) s = realloc(s, cap *= 2);
    }
    fclose(f);
    if (s) s[n] = '\0';
    return s;
}

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = item(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int num(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = item(o, key);
    if (!cJSON_IsNumber(v)) return -1;
    *out = v->valuedouble;
    return 0;
}

/* Microseconds with three decimals, as sgdsim writes them, back to integer ns. */
static int64_t to_ns(double us) { return (int64_t)llround(us * 1000.0); }

static int named_thread(const trace_t *t, int pid, int tid)
{
    for (size_t i = 0; i < t->nthreads; i++)
        if (t->threads[i][0] == pid && t->threads[i][1] == tid) return 1;
    return 0;
}

static int named_proc(const trace_t *t, int pid) { return pid >= 0 && pid < 64 && t->procs[pid]; }

/* Metadata first: which tracks and processes have names. */
static void read_names(trace_t *t)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, t->events) {
        const char *ph = str(e, "ph"), *name = str(e, "name");
        double pid, tid;
        if (!ph || strcmp(ph, "M") != 0 || !name || num(e, "pid", &pid)) continue;
        const char *label = str(item(e, "args"), "name");
        if (strcmp(name, "process_name") == 0 && label && pid >= 0 && pid < 64)
            t->procs[(int)pid] = 1;
        if (strcmp(name, "process_name") == 0 && label && strcmp(label, "network links") == 0)
            t->link_pid = (int)pid;
        if (strcmp(name, "thread_name") == 0 && label && !num(e, "tid", &tid)) {
            t->threads = realloc(t->threads, (t->nthreads + 1) * sizeof *t->threads);
            t->threads[t->nthreads][0] = (int)pid;
            t->threads[t->nthreads++][1] = (int)tid;
        }
    }
}

static void read_span(trace_t *t, const cJSON *e, size_t idx)
{
    double pid, tid, ts, dur;
    const char *name = str(e, "name");
    if (!name || num(e, "pid", &pid) || num(e, "tid", &tid) || num(e, "ts", &ts) ||
        num(e, "dur", &dur) || ts < 0 || dur < 0) {
        FAIL("event %zu: a span without name, pid, tid, ts >= 0 or dur >= 0", idx);
        return;
    }
    if (!named_thread(t, (int)pid, (int)tid))
        FAIL("event %zu: span \"%s\" on unnamed track (%g, %g)", idx, name, pid, tid);
    const cJSON *cut = item(item(e, "args"), "cut_at_run_end");
    if (cut && !cJSON_IsTrue(cut)) FAIL("event %zu: \"cut_at_run_end\" is not true", idx);
    t->spans = realloc(t->spans, (t->nspans + 1) * sizeof *t->spans);
    t->spans[t->nspans++] =
        (span_t){(int)pid, (int)tid, to_ns(ts), to_ns(ts) + to_ns(dur), name, cut != NULL,
                 item(e, "args")};
}

static void read_flow(trace_t *t, const cJSON *e, size_t idx, int is_end)
{
    double pid, tid, ts, id;
    flow_end_t f = {.cat = str(e, "cat"), .name = str(e, "name")};
    if (!f.cat || !f.name || num(e, "pid", &pid) || num(e, "tid", &tid) || num(e, "ts", &ts) ||
        num(e, "id", &id)) {
        FAIL("event %zu: a flow event without name, cat, id, pid, tid or ts", idx);
        return;
    }
    if (!named_thread(t, (int)pid, (int)tid))
        FAIL("event %zu: flow %g on unnamed track (%g, %g)", idx, id, pid, tid);
    const char *bp = str(e, "bp");
    if (is_end && (!bp || strcmp(bp, "e") != 0))
        FAIL("event %zu: flow end %g without \"bp\": \"e\"", idx, id);
    f.pid = (int)pid, f.tid = (int)tid, f.t = to_ns(ts), f.id = id;
    flow_end_t **arr = is_end ? &t->ends : &t->starts;
    size_t *n = is_end ? &t->nends : &t->nstarts;
    *arr = realloc(*arr, (*n + 1) * sizeof **arr);
    (*arr)[(*n)++] = f;
}

static void read_counter(trace_t *t, const cJSON *e, size_t idx)
{
    double pid, ts;
    t->sample_ts = realloc(t->sample_ts, (t->nsamples + 1) * sizeof *t->sample_ts);
    t->sample_ts[t->nsamples] = num(e, "ts", &ts) ? 0 : to_ns(ts);
    const char *name = str(e, "name");
    const cJSON *args = item(e, "args"), *s;
    if (!name || num(e, "pid", &pid) || num(e, "ts", &ts) || !cJSON_IsObject(args) ||
        !args->child) {
        FAIL("event %zu: a counter sample without name, pid, ts or series", idx);
        return;
    }
    if (!named_proc(t, (int)pid)) FAIL("event %zu: counter \"%s\" of unnamed process", idx, name);
    cJSON_ArrayForEach(s, args) {
        if (!cJSON_IsNumber(s)) FAIL("event %zu: counter \"%s\": series \"%s\" is not a number",
                                     idx, name, s->string);
    }
    t->nsamples++;
}

static void read_events(trace_t *t)
{
    const cJSON *e;
    size_t idx = 0;
    cJSON_ArrayForEach(e, t->events) {
        const char *ph = str(e, "ph");
        if (!ph) FAIL("event %zu: no \"ph\"", idx);
        else if (strcmp(ph, "X") == 0) read_span(t, e, idx);
        else if (strcmp(ph, "s") == 0) read_flow(t, e, idx, 0);
        else if (strcmp(ph, "f") == 0) read_flow(t, e, idx, 1);
        else if (strcmp(ph, "C") == 0) read_counter(t, e, idx);
        else if (strcmp(ph, "M") != 0) FAIL("event %zu: unexpected \"ph\": \"%s\"", idx, ph);
        idx++;
    }
}

static int by_track_then_time(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    return (x->t1 > y->t1) - (x->t1 < y->t1);
}

static void check_overlaps(trace_t *t)
{
    if (t->nspans) qsort(t->spans, t->nspans, sizeof *t->spans, by_track_then_time);
    for (size_t i = 1; i < t->nspans; i++) {
        const span_t *a = &t->spans[i - 1], *b = &t->spans[i];
        if (a->pid == b->pid && a->tid == b->tid && b->t0 < a->t1)
            FAIL("track (%d, %d): \"%s\" [%lld, %lld] ns overlaps \"%s\" [%lld, %lld] ns", a->pid,
                 a->tid, a->name, (long long)a->t0, (long long)a->t1, b->name,
                 (long long)b->t0, (long long)b->t1);
    }
}

/* Whether a span of track (pid, tid) encloses time `at` (bounds included); the spans are
 * sorted by track then start (check_overlaps) and do not overlap, so only the last one
 * starting at or before `at` can. */
static int enclosed(const trace_t *t, int pid, int tid, int64_t at)
{
    size_t lo = 0, hi = t->nspans;
    const span_t key = {pid, tid, at, INT64_MAX, "", 0, NULL};
    while (lo < hi) { /* first span after key */
        size_t mid = (lo + hi) / 2;
        if (by_track_then_time(&t->spans[mid], &key) <= 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return 0;
    const span_t *s = &t->spans[lo - 1];
    return s->pid == pid && s->tid == tid && s->t0 <= at && at <= s->t1;
}

static int by_id(const void *a, const void *b)
{
    const flow_end_t *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Starts and ends sorted by id, then walked together: each id must occur once in each. */
static void check_flows(trace_t *t, int complete)
{
    if (t->nstarts) qsort(t->starts, t->nstarts, sizeof *t->starts, by_id);
    if (t->nends) qsort(t->ends, t->nends, sizeof *t->ends, by_id);
    size_t i = 0, j = 0;
    while (i < t->nstarts || j < t->nends) {
        const flow_end_t *s = i < t->nstarts ? &t->starts[i] : NULL;
        const flow_end_t *f = j < t->nends ? &t->ends[j] : NULL;
        if (!f || (s && s->id < f->id)) {
            FAIL("flow %g: a start without an end", s->id);
            i++;
            continue;
        }
        if (!s || f->id < s->id) {
            FAIL("flow %g: an end without a start", f->id);
            j++;
            continue;
        }
        if ((i + 1 < t->nstarts && t->starts[i + 1].id == s->id) ||
            (j + 1 < t->nends && t->ends[j + 1].id == f->id))
            FAIL("flow %g: its id is used by more than one flow", s->id);
        if (strcmp(f->cat, s->cat) != 0 || strcmp(f->name, s->name) != 0)
            FAIL("flow %g: start and end differ in cat or name", s->id);
        if (f->t < s->t) FAIL("flow %g ends before it starts", s->id);
        if (complete && !enclosed(t, s->pid, s->tid, s->t))
            FAIL("flow %g: its start is inside no span of its track", s->id);
        if (complete && !enclosed(t, f->pid, f->tid, f->t))
            FAIL("flow %g: its end is inside no span of its track", s->id);
        i++, j++;
    }
}

/* Nothing after the run's end: spans end by it (a cut one exactly there), flows and counter
 * samples lie before it. */
static void check_run_end(const trace_t *t)
{
    double end_d;
    if (num(t->other, "run_end_ns", &end_d)) {
        FAIL("otherData has no \"run_end_ns\"");
        return;
    }
    int64_t end = (int64_t)end_d;
    size_t cut = 0;
    for (size_t i = 0; i < t->nspans; i++) {
        const span_t *s = &t->spans[i];
        cut += (size_t)s->cut;
        if (s->t1 > end && !s->cut)
            FAIL("track (%d, %d): \"%s\" [%lld, %lld] ns goes past the run's end at %lld ns "
                 "unmarked", s->pid, s->tid, s->name, (long long)s->t0, (long long)s->t1,
                 (long long)end);
        if (s->cut && s->t1 != end)
            FAIL("track (%d, %d): \"%s\" [%lld, %lld] ns is marked cut at the run's end but "
                 "does not end there (%lld ns)", s->pid, s->tid, s->name, (long long)s->t0,
                 (long long)s->t1, (long long)end);
    }
    for (size_t i = 0; i < t->nends; i++)
        if (t->ends[i].t > end) FAIL("flow %g ends after the run's end", t->ends[i].id);
    for (size_t i = 0; i < t->nsamples; i++)
        if (t->sample_ts[i] > end)
            FAIL("a counter sample at %lld ns, after the run's end", (long long)t->sample_ts[i]);
    double n;
    if (num(t->other, "spans_cut_at_run_end", &n) || n != (double)cut)
        FAIL("otherData.spans_cut_at_run_end is not %zu, the spans marked cut", cut);
}

static void check_count(const trace_t *t, const char *key, size_t n)
{
    double v;
    if (num(t->other, key, &v) || v != (double)n)
        FAIL("otherData.%s is not %zu, the number of such events", key, n);
}

static size_t count_spans(const trace_t *t, const char *name, int link_only)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nspans; i++)
        n += strcmp(t->spans[i].name, name) == 0 && (!link_only || t->spans[i].pid == t->link_pid);
    return n;
}

/* "NAME=KEY,KEY...": every span NAME (on a link track) has each KEY among its args. */
static void check_args(const trace_t *t, const char *spec, int link_only)
{
    const char *eq = strchr(spec, '=');
    if (!eq) {
        FAIL("--args %s: expected NAME=KEY,...", spec);
        return;
    }
    char name[128], keys[512];
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    snprintf(keys, sizeof keys, "%s", eq + 1);
    if (!count_spans(t, name, link_only)) FAIL("no span named \"%s\" to check args of", name);
    size_t bad = 0;
    for (size_t i = 0; i < t->nspans; i++) {
        const span_t *s = &t->spans[i];
        if (strcmp(s->name, name) != 0 || (link_only && s->pid != t->link_pid)) continue;
        char copy[512];
        snprintf(copy, sizeof copy, "%s", keys);
        for (char *save, *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save))
            if (!item(s->args, k) && bad++ < 5)
                FAIL("span \"%s\" at %lld ns on (%d, %d) has no arg \"%s\"", name,
                     (long long)s->t0, s->pid, s->tid, k);
    }
}

static size_t count_samples(const trace_t *t, const char *name)
{
    size_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, t->events) {
        const char *ph = str(e, "ph"), *nm = str(e, "name");
        n += ph && nm && strcmp(ph, "C") == 0 && strcmp(nm, name) == 0;
    }
    return n;
}

/* The --span/--counter/--flows/--note requirements. */
static int check_requirements(const trace_t *t, int argc, char **argv)
{
    for (int i = 2; i < argc; i += 2) {
        const char *opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return -1;
        if (strcmp(opt, "--span") == 0) {
            if (!count_spans(t, v, 0)) FAIL("no span named \"%s\"", v);
        } else if (strcmp(opt, "--link-span") == 0) {
            if (!count_spans(t, v, 1)) FAIL("no span named \"%s\" on a link", v);
        } else if (strcmp(opt, "--args") == 0 || strcmp(opt, "--link-args") == 0) {
            check_args(t, v, strcmp(opt, "--link-args") == 0);
        } else if (strcmp(opt, "--counter") == 0) {
            if (!count_samples(t, v)) FAIL("no sample of counter \"%s\"", v);
        } else if (strcmp(opt, "--flows") == 0) {
            if (t->nstarts < strtoull(v, NULL, 10))
                FAIL("%zu flows, wanted at least %s", t->nstarts, v);
        } else if (strcmp(opt, "--note") == 0) {
            if (!item(t->other, v)) FAIL("otherData has no \"%s\"", v);
        } else {
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc % 2) {
        fprintf(stderr, "usage: trace_check FILE [--span NAME | --link-span NAME | "
                        "--args NAME=KEY,... | --link-args NAME=KEY,... | --counter NAME | "
                        "--flows N | --note KEY]...\n");
        return 2;
    }
    char *text = slurp(argv[1]);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    trace_t t = {.events = item(root, "traceEvents"), .other = item(root, "otherData"),
                 .link_pid = -1};
    if (!root || !cJSON_IsArray(t.events) || !cJSON_IsObject(t.other)) {
        fprintf(stderr, "trace_check: %s: not JSON with a traceEvents array and otherData\n",
                argv[1]);
        return 1;
    }
    read_names(&t);
    read_events(&t);
    check_overlaps(&t);
    double dropped = -1;
    num(t.other, "events_dropped_over_max_events", &dropped);
    check_flows(&t, dropped == 0);
    check_count(&t, "spans_written", t.nspans);
    check_count(&t, "flows_written", t.nstarts);
    check_count(&t, "counter_samples_written", t.nsamples);
    check_run_end(&t);
    if (check_requirements(&t, argc, argv)) {
        fprintf(stderr, "trace_check: bad option list\n");
        return 2;
    }
    if (!failures)
        printf("trace_check: %s: %zu spans, %zu flows, %zu counter samples: ok\n", argv[1],
               t.nspans, t.nstarts, t.nsamples);
    cJSON_Delete(root);
    free(text);
    free(t.spans);
    free(t.starts);
    free(t.ends);
    free(t.threads);
    free(t.sample_ts);
    return failures ? 1 : 0;
}
