/* Chrome trace-event JSON writer (see trace.h).  Format: {"traceEvents": [...]} with
 * complete events (ph "X": ts, dur in microseconds) and metadata events (ph "M") naming
 * each kind's process and each track's thread, written the first time a track is used. */
#include "sim/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct track {
    sim_track_kind_t kind;
    uint32_t id;
} track_t;

struct sim_trace {
    FILE *f;
    char *path;
    sim_trace_opts_t opts;
    uint64_t written, dropped;
    int nevents_json; /* JSON array elements written, for the commas */
    track_t *tracks;  /* tracks already named, kept sorted by (kind, id) */
    size_t ntracks, cap;
    int kinds_named;  /* bit per kind: process name written */
};

static const char *kind_name(sim_track_kind_t k)
{
    switch (k) {
    case SIM_TRACK_WORKER: return "worker";
    case SIM_TRACK_SERVER: return "server";
    case SIM_TRACK_LINK: return "link";
    case SIM_TRACK_COMMUNICATOR: return "communicator";
    }
    return "track";
}

static const char *kind_process(sim_track_kind_t k)
{
    switch (k) {
    case SIM_TRACK_WORKER: return "workers / clients";
    case SIM_TRACK_SERVER: return "parameter servers";
    case SIM_TRACK_LINK: return "network links";
    case SIM_TRACK_COMMUNICATOR: return "communicators";
    }
    return "tracks";
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* Microseconds with exactly three decimals from integer nanoseconds (no rounding). */
static void json_us(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

static void sep(sim_trace_t *t)
{
    fputs(t->nevents_json++ ? ",\n" : "\n", t->f);
}

int sim_trace_open(const char *path, const sim_trace_opts_t *opts, sim_trace_t **out,
                   sgd_err_t *err)
{
    if (opts->t1_ns < opts->t0_ns || opts->t0_ns < 0)
        return sgd_errf(err, "%s: trace window [%lld, %lld] ns is empty", path,
                        (long long)opts->t0_ns, (long long)opts->t1_ns);
    FILE *f = fopen(path, "w");
    if (!f) return sgd_errf(err, "%s: cannot write the trace: %s", path, strerror(errno));
    sim_trace_t *t = sgd_xcalloc(1, sizeof *t);
    t->f = f;
    t->path = sgd_xstrdup(path);
    t->opts = *opts;
    fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", f);
    *out = t;
    return 0;
}

/* Index where (kind, id) is or would be inserted in the sorted track list. */
static size_t track_pos(const sim_trace_t *t, sim_track_kind_t kind, uint32_t id, int *found)
{
    size_t lo = 0, hi = t->ntracks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const track_t *m = &t->tracks[mid];
        if (m->kind < kind || (m->kind == kind && m->id < id)) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < t->ntracks && t->tracks[lo].kind == kind && t->tracks[lo].id == id;
    return lo;
}

static void name_track(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name)
{
    int found;
    size_t pos = track_pos(t, kind, id, &found);
    if (found) return;
    if (t->ntracks == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->tracks = sgd_xrealloc(t->tracks, t->cap * sizeof *t->tracks);
    }
    memmove(&t->tracks[pos + 1], &t->tracks[pos], (t->ntracks - pos) * sizeof *t->tracks);
    t->tracks[pos] = (track_t){kind, id};
    t->ntracks++;
    if (!(t->kinds_named & (1 << kind))) {
        t->kinds_named |= 1 << kind;
        sep(t);
        fprintf(t->f, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"args\": "
                      "{\"name\": ", (int)kind);
        json_string(t->f, kind_process(kind));
        fputs("}}", t->f);
        sep(t);
        fprintf(t->f, "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %d, "
                      "\"args\": {\"sort_index\": %d}}", (int)kind, (int)kind);
    }
    char buf[64];
    if (!name) {
        snprintf(buf, sizeof buf, "%s %u", kind_name(kind), id);
        name = buf;
    }
    sep(t);
    fprintf(t->f, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %u, "
                  "\"args\": {\"name\": ", (int)kind, id);
    json_string(t->f, name);
    fputs("}}", t->f);
    sep(t);
    fprintf(t->f, "{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": %d, \"tid\": %u, "
                  "\"args\": {\"sort_index\": %u}}", (int)kind, id, id);
}

void sim_trace_name_track(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name)
{
    if (t) name_track(t, kind, id, name);
}

void sim_trace_span(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                    int64_t t0_ns, int64_t t1_ns)
{
    if (!t) return;
    SGD_ASSERT(t1_ns >= t0_ns);
    if (t1_ns < t->opts.t0_ns || t0_ns > t->opts.t1_ns) return;
    if (t->opts.max_events && t->written >= t->opts.max_events) {
        t->dropped++;
        return;
    }
    name_track(t, kind, id, NULL);
    sep(t);
    fputs("{\"ph\": \"X\", \"name\": ", t->f);
    json_string(t->f, name);
    fprintf(t->f, ", \"cat\": \"%s\", \"pid\": %d, \"tid\": %u, \"ts\": ", kind_name(kind),
            (int)kind, id);
    json_us(t->f, t0_ns);
    fputs(", \"dur\": ", t->f);
    json_us(t->f, t1_ns - t0_ns);
    fputs("}", t->f);
    t->written++;
}

uint64_t sim_trace_written(const sim_trace_t *t) { return t->written; }
uint64_t sim_trace_dropped(const sim_trace_t *t) { return t->dropped; }

int sim_trace_close(sim_trace_t *t, sgd_err_t *err)
{
    if (!t) return 0;
    fprintf(t->f, "\n], \"otherData\": {\"generator\": \"sgdsim\", \"spans_written\": %llu, "
                  "\"spans_dropped_over_max_events\": %llu, \"window_ns\": [%lld, %lld]}}\n",
            (unsigned long long)t->written, (unsigned long long)t->dropped,
            (long long)t->opts.t0_ns, (long long)t->opts.t1_ns);
    int bad = ferror(t->f);
    int saved = errno;
    if (fclose(t->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    int rc = bad ? sgd_errf(err, "%s: writing the trace failed: %s", t->path, strerror(saved)) : 0;
    free(t->tracks);
    free(t->path);
    free(t);
    return rc;
}
