/* Chrome trace-event JSON writer (see trace.h).  Format: {"traceEvents": [...]} with
 * complete events (ph "X": ts, dur in microseconds), flow pairs (ph "s" then "f", "bp": "e"),
 * counter samples (ph "C") and metadata events (ph "M") naming each kind's process and each
 * track's thread, written the first time a track is used; notes, warnings and counts go
 * into "otherData" at close.  Events wait in trace_hold.c until they are final; this file
 * renders them on the way in and writes them on the way out, merging a link's messages at
 * the step level. */
#include "sim/trace.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace_internal.h"

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

/* Writes the event rendered in t->ev as the next element of traceEvents. */
static void put_event(sim_trace_t *t)
{
    fputs(t->nevents_json++ ? ",\n" : "\n", t->f);
    fwrite(t->ev.p, 1, t->ev.n, t->f);
    sgd_strbuf_clear(&t->ev);
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
        const tr_track_t *m = &t->tracks[mid];
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
    sgd_strbuf_printf(&t->ev, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"args\": "
                          "{\"name\": ", (int)kind);
    tr_json_string(&t->ev, kind_process(kind));
    sgd_strbuf_puts(&t->ev, "}}");
    put_event(t);
    sgd_strbuf_printf(&t->ev, "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %d, "
                          "\"args\": {\"sort_index\": %d}}", (int)kind, (int)kind);
    put_event(t);
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
    t->tracks[pos] = (tr_track_t){kind, id};
    t->ntracks++;
    name_process(t, kind);
    char buf[64];
    if (!name) {
        snprintf(buf, sizeof buf, "%s %u", tr_kind_name(kind), id);
        name = buf;
    }
    sgd_strbuf_printf(&t->ev, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %u, "
                          "\"args\": {\"name\": ", (int)kind, id);
    tr_json_string(&t->ev, name);
    sgd_strbuf_puts(&t->ev, "}}");
    put_event(t);
    sgd_strbuf_printf(&t->ev, "{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": %d, "
                          "\"tid\": %u, \"args\": {\"sort_index\": %u}}", (int)kind, id, id);
    put_event(t);
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

/* ---- events on their way in: rendered, then held until final (trace_hold.c) ---------- */

/* args[0..n) rendered into b (emptied first); NULL when there are none. */
static char *render(sgd_strbuf_t *b, const sim_trace_arg_t *args, int n)
{
    sgd_strbuf_clear(b);
    if (n <= 0) return NULL;
    tr_json_args(b, args, n);
    return b->p;
}

void sim_trace_span_args(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                         int64_t t0_ns, int64_t t1_ns, const sim_trace_arg_t *args, int nargs)
{
    if (!t) return;
    SGD_ASSERT(t1_ns >= t0_ns && nargs >= 0);
    if (!in_window(t, t0_ns, t1_ns)) return;
    trace_ev_t e = {.type = TR_SPAN, .kind = kind, .id = id, .t0 = t0_ns, .t1 = t1_ns,
                    .name = (char *)name, .args = render(&t->argbuf, args, nargs)};
    trace_hold_put(t, &e);
}

void sim_trace_span(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                    int64_t t0_ns, int64_t t1_ns)
{
    sim_trace_span_args(t, kind, id, name, t0_ns, t1_ns, NULL, 0);
}

void sim_trace_message(sim_trace_t *t, uint32_t link, int64_t t0_ns, int64_t t1_ns,
                       uint64_t bytes, int64_t waited_ns, const sim_trace_msg_t *msg)
{
    if (!t) return;
    SGD_ASSERT(t1_ns >= t0_ns && waited_ns >= 0);
    if (!in_window(t, t0_ns, t1_ns)) return;
    trace_ev_t e = {.type = TR_MESSAGE, .kind = SIM_TRACK_LINK, .id = link, .t0 = t0_ns,
                    .t1 = t1_ns, .bytes = bytes, .waited_ns = waited_ns, .messages = 1,
                    .busy_ns = t1_ns - t0_ns};
    if (msg) {
        SGD_ASSERT(msg->kind && msg->ngroup >= 0 && msg->ndetail >= 0);
        e.name = (char *)msg->kind;
        e.args = render(&t->argbuf, msg->group, msg->ngroup);
        e.detail = render(&t->detailbuf, msg->detail, msg->ndetail);
    }
    trace_hold_put(t, &e);
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
    t->open[pos] = (tr_pending_flow_t){flow, {kind, id}, t_ns, sgd_xstrdup(name)};
    t->nopen++;
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
    tr_pending_flow_t s = t->open[pos];
    memmove(&t->open[pos], &t->open[pos + 1], (t->nopen - pos - 1) * sizeof *t->open);
    t->nopen--;
    SGD_ASSERT(t_ns >= s.t_ns);
    if (in_window(t, s.t_ns, s.t_ns) && in_window(t, t_ns, t_ns)) {
        trace_ev_t e = {.type = TR_FLOW, .kind = kind, .id = id, .t0 = s.t_ns, .t1 = t_ns,
                        .name = s.name, .flow = flow, .from_kind = s.from.kind,
                        .from_id = s.from.id};
        trace_hold_put(t, &e);
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
    if (!in_window(t, t_ns, t_ns)) return;
    trace_ev_t e = {.type = TR_SAMPLE, .kind = kind, .id = TR_COUNTER_LANE, .t0 = t_ns,
                    .t1 = t_ns, .name = (char *)name,
                    .args = render(&t->argbuf, series, nseries)};
    trace_hold_put(t, &e);
}

void sim_trace_settle(sim_trace_t *t, int64_t t_ns)
{
    if (t) trace_hold_settle(t, t_ns);
}

void sim_trace_run_end(sim_trace_t *t, int64_t end_ns)
{
    if (!t || t->ended) return;
    SGD_ASSERT(end_ns >= 0);
    t->ended = true;
    t->end_ns = end_ns;
    trace_hold_flush(t);
}

/* ---- events on their way out ----------------------------------------------------------- */

/* The args of a span written for one message (message level, or a message without a tag):
 * its kind, group and detail when tagged, then its bytes and wait. */
static void message_args(sgd_strbuf_t *b, const trace_ev_t *e)
{
    sgd_strbuf_clear(b);
    if (e->name) {
        sgd_strbuf_puts(b, "\"kind\": ");
        tr_json_string(b, e->name);
        sgd_strbuf_puts(b, ", ");
    }
    if (e->args) sgd_strbuf_printf(b, "%s, ", e->args);
    if (e->detail) sgd_strbuf_printf(b, "%s, ", e->detail);
    sgd_strbuf_printf(b, "\"bytes\": %llu, \"waited_ns\": %lld", (unsigned long long)e->bytes,
                  (long long)e->waited_ns);
}

static void write_span(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                       int64_t t0, int64_t t1, const char *args, bool cut)
{
    name_track(t, kind, id, NULL);
    tr_json_span(&t->ev, kind, id, name, t0, t1, args, cut);
    put_event(t);
    t->cut += cut;
}

void trace_agg_close(sim_trace_t *t, tr_lane_t *l)
{
    tr_agg_t *a = &l->agg;
    if (!a->open) return;
    if (a->admitted) {
        sgd_strbuf_t *b = &t->compose;
        sgd_strbuf_clear(b);
        if (a->group[0]) sgd_strbuf_printf(b, "%s, ", a->group);
        sgd_strbuf_printf(b, "\"messages\": %llu, \"bytes\": %llu, \"busy_ns\": %lld, "
                         "\"waited_ns\": %lld", (unsigned long long)a->messages,
                      (unsigned long long)a->bytes, (long long)a->busy_ns,
                      (long long)a->waited_ns);
        write_span(t, l->kind, l->id, a->kind, a->t0, a->t1, b->p, a->cut);
    }
    free(a->kind);
    free(a->group);
    *a = (tr_agg_t){0};
}

/* Step level: message e joins its link's open aggregate when it has the same kind and
 * group, or closes it and opens the next.  Messages never overlap on a link (network.h), so
 * neither do the aggregates. */
static void merge(sim_trace_t *t, tr_lane_t *l, const trace_ev_t *e, bool cut)
{
    tr_agg_t *a = &l->agg;
    const char *group = e->args ? e->args : "";
    if (!a->open || strcmp(a->kind, e->name) != 0 || strcmp(a->group, group) != 0) {
        trace_agg_close(t, l);
        *a = (tr_agg_t){.open = true, .admitted = admit(t), .t0 = e->t0,
                        .kind = sgd_xstrdup(e->name), .group = sgd_xstrdup(group)};
        t->spans += a->admitted; /* counted now, so that the limit sees it */
    }
    a->t1 = e->t1;
    a->messages += e->messages;
    a->bytes += e->bytes;
    a->busy_ns += e->busy_ns;
    a->waited_ns += e->waited_ns;
    a->cut = a->cut || cut;
}

void trace_emit(sim_trace_t *t, tr_lane_t *l, const trace_ev_t *e, bool cut)
{
    switch (e->type) {
    case TR_MESSAGE:
        if (!in_window(t, e->t0, e->t1)) return;
        if (e->name && t->opts.level == SIM_TRACE_LEVEL_STEP) {
            merge(t, l, e, cut);
            return;
        }
        trace_agg_close(t, l);
        if (!admit(t)) return;
        message_args(&t->compose, e);
        write_span(t, e->kind, e->id, "message", e->t0, e->t1, t->compose.p, cut);
        t->spans++;
        return;
    case TR_SPAN:
        if (!in_window(t, e->t0, e->t1)) return;
        trace_agg_close(t, l);
        if (!admit(t)) return;
        write_span(t, e->kind, e->id, e->name, e->t0, e->t1, e->args, cut);
        t->spans++;
        return;
    case TR_FLOW:
        if (!admit(t)) return;
        name_track(t, e->from_kind, e->from_id, NULL);
        name_track(t, e->kind, e->id, NULL);
        tr_json_flow(&t->ev, 's', e->name, e->flow, e->from_kind, e->from_id, e->t0);
        put_event(t);
        tr_json_flow(&t->ev, 'f', e->name, e->flow, e->kind, e->id, e->t1);
        put_event(t);
        t->flows++;
        return;
    case TR_SAMPLE:
        if (!admit(t)) return;
        name_process(t, e->kind);
        tr_json_sample(&t->ev, e->kind, e->name, e->t0, e->args);
        put_event(t);
        t->samples++;
        return;
    }
}

/* ---- notes, counts and the end of the file --------------------------------------------- */

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
    t->notes[t->nnotes++] = (tr_note_t){sgd_xstrdup(key), sgd_xstrdup(value)};
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

/* "otherData": what was written and left out, the window, the level, the run's end, then
 * the notes and warnings. */
static void write_other(sim_trace_t *t)
{
    sgd_strbuf_t *b = &t->ev;
    sgd_strbuf_printf(b, "\n], \"otherData\": {\"generator\": \"sgdsim\", \"spans_written\": %llu, "
                     "\"flows_written\": %llu, \"counter_samples_written\": %llu, ",
                  (unsigned long long)t->spans, (unsigned long long)t->flows,
                  (unsigned long long)t->samples);
    sgd_strbuf_printf(b, "\"events_dropped_over_max_events\": %llu, \"flows_unfinished\": %llu, "
                     "\"window_ns\": [%lld, %lld], \"trace_level\": \"%s\"",
                  (unsigned long long)t->dropped, (unsigned long long)t->nopen,
                  (long long)t->opts.t0_ns, (long long)t->opts.t1_ns,
                  t->opts.level == SIM_TRACE_LEVEL_MESSAGE ? "message" : "step");
    if (t->ended)
        sgd_strbuf_printf(b, ", \"run_end_ns\": %lld, \"spans_cut_at_run_end\": %llu, "
                         "\"events_after_run_end\": %llu", (long long)t->end_ns,
                      (unsigned long long)t->cut, (unsigned long long)t->after);
    if (t->resumed)
        sgd_strbuf_printf(b, ", \"flows_started_before_resume\": %llu",
                      (unsigned long long)t->flows_before);
    for (size_t i = 0; i < t->nnotes; i++) {
        sgd_strbuf_puts(b, ", ");
        tr_json_string(b, t->notes[i].key);
        sgd_strbuf_puts(b, ": ");
        tr_json_string(b, t->notes[i].value);
    }
    if (t->nwarnings) {
        sgd_strbuf_puts(b, ", \"warnings\": [");
        for (size_t i = 0; i < t->nwarnings; i++) {
            if (i) sgd_strbuf_puts(b, ", ");
            tr_json_string(b, t->warnings[i]);
        }
        sgd_strbuf_puts(b, "]");
    }
    sgd_strbuf_puts(b, "}}\n");
    fwrite(b->p, 1, b->n, t->f);
    sgd_strbuf_clear(b);
}

static void free_trace(sim_trace_t *t)
{
    trace_hold_free(t);
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
    sgd_strbuf_free(&t->ev);
    sgd_strbuf_free(&t->argbuf);
    sgd_strbuf_free(&t->detailbuf);
    sgd_strbuf_free(&t->compose);
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
    trace_hold_flush(t); /* without sim_trace_run_end: every event whole */
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
