/* Chrome trace-event JSON writer (see trace.h).  Format: {"traceEvents": [...]} with
 * complete events (ph "X": ts, dur in microseconds), flow pairs (ph "s" then "f", "bp": "e"),
 * counter samples (ph "C") and metadata events (ph "M") naming each kind's process and each
 * track's thread, written the first time a track is used; notes, warnings and counts go
 * into "otherData" at close. */
#include "sim/trace.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/outpath.h"

typedef struct track {
    sim_track_kind_t kind;
    uint32_t id;
} track_t;

typedef struct pending_flow { /* a flow started and not yet ended */
    uint64_t flow;
    track_t from;
    int64_t t_ns;
    char *name;
} pending_flow_t;

typedef struct note {
    char *key, *value;
} note_t;

struct sim_trace {
    FILE *f;
    sgd_outfile_t out; /* the file beside the target, renamed into place at close */
    char *path;
    sim_trace_opts_t opts;
    uint64_t spans, flows, samples; /* events written, by type */
    uint64_t dropped;
    int nevents_json; /* JSON array elements written, for the commas */
    track_t *tracks;  /* tracks already named, kept sorted by (kind, id) */
    size_t ntracks, cap;
    int kinds_named;  /* bit per kind: process name written */
    pending_flow_t *open; /* open flows, kept sorted by flow id */
    size_t nopen, open_cap;
    bool resumed;     /* sim_trace_resumed: flows may end that started before the trace */
    uint64_t flows_before; /* such flows, left out */
    note_t *notes;    /* in the order first added */
    size_t nnotes;
    char **warnings;  /* distinct, in the order first given */
    size_t nwarnings;
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

/* The shortest of %.15g .. %.17g that reads back as the same double: short for values such
 * as 2.5, exact for all, and a function of the bits only. */
static void json_double(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char buf[32];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

/* {"key": value, ...} */
static void json_args(FILE *f, const sim_trace_arg_t *args, int nargs)
{
    fputc('{', f);
    for (int i = 0; i < nargs; i++) {
        const sim_trace_arg_t *a = &args[i];
        if (i) fputs(", ", f);
        json_string(f, a->key);
        fputs(": ", f);
        switch (a->type) {
        case SIM_TRACE_INT: fprintf(f, "%lld", (long long)a->i); break;
        case SIM_TRACE_DOUBLE: json_double(f, a->d); break;
        case SIM_TRACE_STR: json_string(f, a->s); break;
        }
    }
    fputc('}', f);
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
    sgd_outfile_t file;
    sgd_err_t why = {{0}};
    if (sgd_outfile_open(&file, path, &why))
        return sgd_errf(err, "%s: cannot write the trace: %s", path, strerror(errno));
    FILE *f = fdopen(file.fd, "w");
    if (!f) {
        int e = errno;
        sgd_outfile_abort(&file, false);
        return sgd_errf(err, "%s: cannot write the trace: %s", path, strerror(e));
    }
    sim_trace_t *t = sgd_xcalloc(1, sizeof *t);
    t->f = f;
    t->out = file;
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

/* The process of `kind`: its name and place, written before its first event. */
static void name_process(sim_trace_t *t, sim_track_kind_t kind)
{
    if (t->kinds_named & (1 << kind)) return;
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
    name_process(t, kind);
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

static bool in_window(const sim_trace_t *t, int64_t t0_ns, int64_t t1_ns)
{
    return t1_ns >= t->opts.t0_ns && t0_ns <= t->opts.t1_ns;
}

/* Whether one more event may be written; counts it as dropped when not. */
static bool admit(sim_trace_t *t)
{
    if (t->opts.max_events && sim_trace_written(t) >= t->opts.max_events) {
        t->dropped++;
        return false;
    }
    return true;
}

void sim_trace_span_args(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                         int64_t t0_ns, int64_t t1_ns, const sim_trace_arg_t *args, int nargs)
{
    if (!t) return;
    SGD_ASSERT(t1_ns >= t0_ns && nargs >= 0);
    if (!in_window(t, t0_ns, t1_ns) || !admit(t)) return;
    name_track(t, kind, id, NULL);
    sep(t);
    fputs("{\"ph\": \"X\", \"name\": ", t->f);
    json_string(t->f, name);
    fprintf(t->f, ", \"cat\": \"%s\", \"pid\": %d, \"tid\": %u, \"ts\": ", kind_name(kind),
            (int)kind, id);
    json_us(t->f, t0_ns);
    fputs(", \"dur\": ", t->f);
    json_us(t->f, t1_ns - t0_ns);
    if (nargs > 0) {
        fputs(", \"args\": ", t->f);
        json_args(t->f, args, nargs);
    }
    fputs("}", t->f);
    t->spans++;
}

void sim_trace_span(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                    int64_t t0_ns, int64_t t1_ns)
{
    sim_trace_span_args(t, kind, id, name, t0_ns, t1_ns, NULL, 0);
}

/* Index where flow id `flow` is or would be inserted in the sorted list of open flows. */
static size_t open_pos(const sim_trace_t *t, uint64_t flow, bool *found)
{
    size_t lo = 0, hi = t->nopen;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->open[mid].flow < flow) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < t->nopen && t->open[lo].flow == flow;
    return lo;
}

void sim_trace_flow_start(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                          uint64_t flow, int64_t t_ns)
{
    if (!t) return;
    bool found;
    size_t pos = open_pos(t, flow, &found);
    SGD_ASSERT(!found); /* ids are unique among open flows */
    if (t->nopen == t->open_cap) {
        t->open_cap = t->open_cap ? 2 * t->open_cap : 64;
        t->open = sgd_xrealloc(t->open, t->open_cap * sizeof *t->open);
    }
    memmove(&t->open[pos + 1], &t->open[pos], (t->nopen - pos) * sizeof *t->open);
    t->open[pos] = (pending_flow_t){flow, {kind, id}, t_ns, sgd_xstrdup(name)};
    t->nopen++;
}

/* One half of a flow: {"ph": "s"|"f", "name", "cat": "flow", "id", "pid", "tid", "ts"}. */
static void flow_event(sim_trace_t *t, char ph, const char *name, uint64_t flow, track_t at,
                       int64_t t_ns)
{
    sep(t);
    fprintf(t->f, "{\"ph\": \"%c\", \"name\": ", ph);
    json_string(t->f, name);
    fprintf(t->f, ", \"cat\": \"flow\", \"id\": %llu, \"pid\": %d, \"tid\": %u, \"ts\": ",
            (unsigned long long)flow, (int)at.kind, at.id);
    json_us(t->f, t_ns);
    fputs(ph == 'f' ? ", \"bp\": \"e\"}" : "}", t->f);
}

void sim_trace_flow_end(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, uint64_t flow,
                        int64_t t_ns)
{
    if (!t) return;
    bool found;
    size_t pos = open_pos(t, flow, &found);
    if (!found && t->resumed) { /* started before the checkpoint this run resumed from */
        t->flows_before++;
        return;
    }
    SGD_ASSERT(found); /* every flow ended was started */
    pending_flow_t s = t->open[pos];
    memmove(&t->open[pos], &t->open[pos + 1], (t->nopen - pos - 1) * sizeof *t->open);
    t->nopen--;
    SGD_ASSERT(t_ns >= s.t_ns);
    if (in_window(t, s.t_ns, s.t_ns) && in_window(t, t_ns, t_ns) && admit(t)) {
        track_t to = {kind, id};
        name_track(t, s.from.kind, s.from.id, NULL);
        name_track(t, kind, id, NULL);
        flow_event(t, 's', s.name, flow, s.from, s.t_ns);
        flow_event(t, 'f', s.name, flow, to, t_ns);
        t->flows++;
    }
    free(s.name);
}

void sim_trace_counter(sim_trace_t *t, sim_track_kind_t kind, const char *name, int64_t t_ns,
                       const sim_trace_arg_t *series, int nseries)
{
    if (!t) return;
    SGD_ASSERT(nseries > 0);
    for (int i = 0; i < nseries; i++)
        SGD_ASSERT(series[i].type == SIM_TRACE_INT ||
                   (series[i].type == SIM_TRACE_DOUBLE && isfinite(series[i].d)));
    if (!in_window(t, t_ns, t_ns) || !admit(t)) return;
    name_process(t, kind);
    sep(t);
    fputs("{\"ph\": \"C\", \"name\": ", t->f);
    json_string(t->f, name);
    fprintf(t->f, ", \"pid\": %d, \"ts\": ", (int)kind);
    json_us(t->f, t_ns);
    fputs(", \"args\": ", t->f);
    json_args(t->f, series, nseries);
    fputs("}", t->f);
    t->samples++;
}

void sim_trace_note(sim_trace_t *t, const char *key, const char *value)
{
    if (!t) return;
    for (size_t i = 0; i < t->nnotes; i++)
        if (strcmp(t->notes[i].key, key) == 0) {
            free(t->notes[i].value);
            t->notes[i].value = sgd_xstrdup(value);
            return;
        }
    t->notes = sgd_xrealloc(t->notes, (t->nnotes + 1) * sizeof *t->notes);
    t->notes[t->nnotes++] = (note_t){sgd_xstrdup(key), sgd_xstrdup(value)};
}

void sim_trace_warn(sim_trace_t *t, const char *text)
{
    if (!t) return;
    for (size_t i = 0; i < t->nwarnings; i++)
        if (strcmp(t->warnings[i], text) == 0) return;
    t->warnings = sgd_xrealloc(t->warnings, (t->nwarnings + 1) * sizeof *t->warnings);
    t->warnings[t->nwarnings++] = sgd_xstrdup(text);
    fprintf(stderr, "sgdsim: trace: %s\n", text);
}

void sim_trace_resumed(sim_trace_t *t, const char *note)
{
    if (!t) return;
    t->resumed = true;
    sim_trace_note(t, "resumed", note);
}

uint64_t sim_trace_written(const sim_trace_t *t) { return t->spans + t->flows + t->samples; }
uint64_t sim_trace_dropped(const sim_trace_t *t) { return t->dropped; }

/* "otherData": what was written and left out, the window, then the notes and warnings. */
static void write_other(sim_trace_t *t)
{
    FILE *f = t->f;
    fprintf(f, "\n], \"otherData\": {\"generator\": \"sgdsim\", \"spans_written\": %llu, "
               "\"flows_written\": %llu, \"counter_samples_written\": %llu, "
               "\"events_dropped_over_max_events\": %llu, \"flows_unfinished\": %llu, "
               "\"window_ns\": [%lld, %lld]",
            (unsigned long long)t->spans, (unsigned long long)t->flows,
            (unsigned long long)t->samples, (unsigned long long)t->dropped,
            (unsigned long long)t->nopen, (long long)t->opts.t0_ns, (long long)t->opts.t1_ns);
    if (t->resumed)
        fprintf(f, ", \"flows_started_before_resume\": %llu",
                (unsigned long long)t->flows_before);
    for (size_t i = 0; i < t->nnotes; i++) {
        fputs(", ", f);
        json_string(f, t->notes[i].key);
        fputs(": ", f);
        json_string(f, t->notes[i].value);
    }
    if (t->nwarnings) {
        fputs(", \"warnings\": [", f);
        for (size_t i = 0; i < t->nwarnings; i++) {
            if (i) fputs(", ", f);
            json_string(f, t->warnings[i]);
        }
        fputc(']', f);
    }
    fputs("}}\n", f);
}

static void free_trace(sim_trace_t *t)
{
    for (size_t i = 0; i < t->nopen; i++) free(t->open[i].name);
    for (size_t i = 0; i < t->nnotes; i++) {
        free(t->notes[i].key);
        free(t->notes[i].value);
    }
    for (size_t i = 0; i < t->nwarnings; i++) free(t->warnings[i]);
    free(t->open);
    free(t->notes);
    free(t->warnings);
    free(t->tracks);
    free(t->path);
    free(t);
}

void sim_trace_discard(sim_trace_t *t)
{
    if (!t) return;
    fclose(t->f);
    sgd_outfile_abort(&t->out, true);
    free_trace(t);
}

int sim_trace_close(sim_trace_t *t, sgd_err_t *err)
{
    if (!t) return 0;
    write_other(t);
    int bad = ferror(t->f);
    int saved = errno;
    if (fclose(t->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    int rc = bad ? sgd_errf(err, "%s: writing the trace failed: %s", t->path, strerror(saved)) : 0;
    sgd_err_t why = {{0}};
    if (bad) sgd_outfile_abort(&t->out, true);
    else if (sgd_outfile_commit(&t->out, true, &why)) rc = sgd_errf(err, "%s", why.msg);
    free_trace(t);
    return rc;
}
