/* What the files of the trace writer share: trace.c (the calls of trace.h: tracks, notes,
 * the file), trace_hold.c (events held back until they are final, and the run's end) and
 * trace_json.c (JSON text and the writing of one event).  Not for use outside sim/.
 *
 * An event's way: a call of trace.h renders it (trace_ev_t, strings borrowed) and hands it
 * to trace_hold_put; once it is final -- it ends no later than the run can end, or the run
 * has ended and cut it -- trace_hold releases it to trace_emit (trace.c), which applies the
 * window and the event limit and writes it, or, at the step level, adds a message to its
 * link's open aggregate (trace_json.c writes both). */
#ifndef SGDSIM_SIM_TRACE_INTERNAL_H
#define SGDSIM_SIM_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/outpath.h"
#include "common/strbuf.h"
#include "sim/trace.h"

/* JSON pieces appended to b: a string with its quotes and escapes; integer nanoseconds as
 * microseconds with three decimals (exact); a double as the shortest text that reads back
 * as it (null when not finite); args[0..n) as `"key": value, ...` without braces. */
void tr_json_string(sgd_strbuf_t *b, const char *s);
void tr_json_us(sgd_strbuf_t *b, int64_t ns);
void tr_json_double(sgd_strbuf_t *b, double v);
void tr_json_args(sgd_strbuf_t *b, const sim_trace_arg_t *args, int n);

typedef enum { TR_SPAN, TR_MESSAGE, TR_FLOW, TR_SAMPLE } tr_type_t;

/* Lane id of a kind's counter samples: they are held back in their own order. */
#define TR_COUNTER_LANE UINT32_MAX

typedef struct trace_ev {
    tr_type_t type;
    sim_track_kind_t kind; /* its track (a flow: where it ends; a sample: its process) */
    uint32_t id;           /* the track's id; TR_COUNTER_LANE for samples */
    int64_t t0, t1;        /* span, message: its interval; flow: its two ends; sample: t, t */
    char *name;            /* span, flow, counter: its name; message: its kind, NULL untagged */
    char *args;            /* rendered args (tr_json_args) or NULL; message: its group */
    char *detail;          /* message: the args of it alone, or NULL */
    uint64_t bytes;        /* message: its bytes ... */
    int64_t waited_ns;     /* ... the time it waited for its links ... */
    uint64_t messages;     /* ... and, for consecutive messages merged, their number ... */
    int64_t busy_ns;       /* ... and the time they occupied the link (summed) */
    uint64_t flow;         /* flow: its id ... */
    sim_track_kind_t from_kind; /* ... and the track it starts on */
    uint32_t from_id;
} trace_ev_t;

/* A link's messages being merged into one span (step level). */
typedef struct tr_agg {
    bool open, admitted;   /* admitted: it counts as written (else dropped over the limit) */
    bool cut;              /* its last message was cut at the run's end */
    int64_t t0, t1;
    char *kind, *group;
    uint64_t messages, bytes;
    int64_t busy_ns, waited_ns;
} tr_agg_t;

/* One message of a held run: what the run's end needs to cut it. */
typedef struct tr_part {
    int64_t t0, t1, waited_ns;
    uint64_t bytes;
} tr_part_t;

/* An event held back; at the step level, consecutive messages of one kind and group are one
 * held run (e their sums, parts each message). */
typedef struct tr_held {
    trace_ev_t e;
    tr_part_t *parts;      /* NULL: e is a single event */
    uint32_t nparts, parts_cap;
} tr_held_t;

/* Where the events of one track (or a kind's counter samples) wait until they are final,
 * in the order recorded. */
typedef struct tr_lane {
    sim_track_kind_t kind;
    uint32_t id;
    tr_held_t *q;          /* held events, q[head .. head + n) of a ring of cap */
    size_t head, n, cap;
    size_t heap_pos;       /* in the release heap while n > 0 */
    tr_agg_t agg;
} tr_lane_t;

typedef struct tr_track { /* a track whose name was written */
    sim_track_kind_t kind;
    uint32_t id;
} tr_track_t;

typedef struct tr_pending_flow { /* a flow started and not yet ended */
    uint64_t flow;
    tr_track_t from;
    int64_t t_ns;
    char *name;
} tr_pending_flow_t;

typedef struct tr_note {
    char *key, *value;
} tr_note_t;

struct sim_trace {
    FILE *f;
    sgd_outfile_t out; /* the file beside the target, renamed into place at close */
    char *path;
    sim_trace_opts_t opts;
    uint64_t spans, flows, samples; /* events written (aggregates: once admitted), by type */
    uint64_t dropped;      /* over max_events */
    uint64_t cut, after;   /* spans cut at the run's end; events left out after it */
    /* scratch: the event being written; an event's args and detail on their way in (an
     * event released at once borrows them); args composed on the way out */
    sgd_strbuf_t ev, argbuf, detailbuf, compose;
    int nevents_json;      /* JSON array elements written, for the commas */
    tr_track_t *tracks;    /* tracks already named, kept sorted by (kind, id) */
    size_t ntracks, cap;
    int kinds_named;       /* bit per kind: process name written */
    tr_pending_flow_t *open; /* open flows, kept sorted by flow id */
    size_t nopen, open_cap;
    bool resumed;          /* sim_trace_resumed: flows may end that started before the trace */
    uint64_t flows_before; /* such flows, left out */
    tr_note_t *notes;      /* in the order first added */
    size_t nnotes;
    char **warnings;       /* distinct, in the order first given */
    size_t nwarnings;
    /* held events (trace_hold.c) */
    tr_lane_t *lanes;      /* in the order first used */
    uint32_t *lane_order;  /* indices into lanes, sorted by (kind, id) */
    size_t nlanes, lanes_cap;
    uint32_t *heap;        /* lanes holding events, by (their first event's end, index) */
    size_t nheap;
    uint64_t nheld;        /* held events (a run counts once) */
    int64_t settled;       /* the run ends no earlier than this */
    bool ended;            /* sim_trace_run_end was called ... */
    int64_t end_ns;        /* ... with this time */
};

/* trace_hold.c */
void trace_hold_put(sim_trace_t *t, const trace_ev_t *e);
void trace_hold_settle(sim_trace_t *t, int64_t t_ns);
/* Releases every held event and closes every aggregate (cut at end_ns when t->ended). */
void trace_hold_flush(sim_trace_t *t);
void trace_hold_free(sim_trace_t *t);

/* trace.c: writes a final event (cut: it was cut at the run's end), or merges a message. */
void trace_emit(sim_trace_t *t, tr_lane_t *lane, const trace_ev_t *e, bool cut);
/* trace.c: writes the lane's open aggregate, if any, and closes it. */
void trace_agg_close(sim_trace_t *t, tr_lane_t *lane);

/* trace_json.c: one event's JSON into b (no separator): a span (args: a rendered body or
 * NULL; cut adds "cut_at_run_end": true), a flow's half ('s' or 'f'), a counter sample. */
void tr_json_span(sgd_strbuf_t *b, sim_track_kind_t kind, uint32_t id, const char *name,
                  int64_t t0, int64_t t1, const char *args, bool cut);
void tr_json_flow(sgd_strbuf_t *b, char ph, const char *name, uint64_t flow, sim_track_kind_t kind,
                  uint32_t id, int64_t t_ns);
void tr_json_sample(sgd_strbuf_t *b, sim_track_kind_t kind, const char *name, int64_t t_ns,
                    const char *args);
const char *tr_kind_name(sim_track_kind_t k);

#endif
